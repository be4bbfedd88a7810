/* elf_info.h (named so it cannot shadow the system <elf.h>): a tiny reader of ELF shared objects:
 * class, machine and DT_SONAME, read from the ELF header, the program headers and the dynamic
 * section only (never the whole file). */
#ifndef CC_ELF_H
#define CC_ELF_H

#include <stddef.h>

typedef struct {
    int is_64;         /* ELFCLASS64 */
    int little_endian; /* ELFDATA2LSB */
    unsigned type;     /* e_type: 3 = ET_DYN */
    unsigned machine;  /* e_machine: 62 = x86-64, 183 = AArch64 */
    char *soname;      /* DT_SONAME, NULL when the object has none */
    /* filled only by cc_elf_read_dyn (NULL / 0 otherwise): */
    char **needed; /* DT_NEEDED, in order */
    size_t n_needed;
    char *rpath;    /* DT_RPATH, unexpanded ("$ORIGIN/../lib:..."); NULL when none */
    char *runpath;  /* DT_RUNPATH, unexpanded; NULL when none */
    int has_interp; /* a PT_INTERP segment: a dynamically linked executable */
} cc_elf_info;

#define CC_ELF_EM_X86_64 62u
#define CC_ELF_EM_AARCH64 183u

/* Read the ELF facts of the file at host path `path`. 0 = an ELF file (soname may be NULL);
 * -1 = unreadable, not ELF, or malformed (cc_pf_last_error() is set only for I/O failures). */
int cc_elf_read(const char *path, cc_elf_info *info);
/* Like cc_elf_read, and also DT_NEEDED, DT_RPATH, DT_RUNPATH and PT_INTERP (reads the dynamic
 * string table once, at most 64 MiB; every string bounds-checked against DT_STRSZ). */
int cc_elf_read_dyn(const char *path, cc_elf_info *info);
void cc_elf_info_free(cc_elf_info *info);
/* Convenience: just the SONAME (malloc'd) or NULL. */
char *cc_elf_soname(const char *path);

#endif
