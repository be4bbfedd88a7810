/* elf_sections.h: an ELF file's section headers, and what the loader consults through them: the
 * bytes of one section, the dynamic symbols an object defines, and those it needs from one
 * library under that library's version (.gnu.version_r). Bounded reads only. */
#ifndef CC_ELF_SECTIONS_H
#define CC_ELF_SECTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"
#include "str.h"

typedef struct {
    uint32_t name, type, link;
    uint64_t offset, size, entsize;
} cc_elf_shdr;

typedef struct {
    cc_pf_fd fd;
    int is64, le;
    cc_elf_shdr *sh;
    size_t n;
    char *names; /* .shstrtab */
    size_t names_len;
} cc_elf_sections;

/* Open the ELF file at host path `path` and read its section headers. 0 ok; -1 not ELF,
 * unreadable or malformed (counts and sizes checked against fixed bounds). */
int cc_elf_sections_open(const char *path, cc_elf_sections *s);
/* Exactly len bytes at offset off of fd (ELF and PE headers, sections); 0, or -1 short/failed. */
int cc_elf_read_at(cc_pf_fd fd, uint64_t off, void *buf, size_t len);
void cc_elf_sections_close(cc_elf_sections *s);
/* The index of the first section named `name`, or -1. */
int cc_elf_section_find(const cc_elf_sections *s, const char *name);
/* The bytes of section i (malloc'd, *len set); NULL when larger than max or unreadable. */
char *cc_elf_section_read(const cc_elf_sections *s, size_t i, size_t max, size_t *len);
/* Little-/big-endian integer of `size` bytes. */
uint64_t cc_elf_get(const unsigned char *p, int size, int le);

/* The names of the dynamic symbols the file defines (sorted), or of the (non-weak) undefined
 * ones it binds to version `lib` of that library (.gnu.version_r: "libcudnn_graph.so.9"; lib
 * NULL: every undefined symbol); eager: only those its .rela.dyn / .rel.dyn relocations bind at
 * load time (what fails a dlopen even under RTLD_LAZY; PLT calls bind at their first call).
 * 0 ok; -1 no .dynsym or malformed. */
int cc_elf_dyn_defined(const char *path, cc_strv *out);
int cc_elf_dyn_needed_from(const char *path, const char *lib, int eager, cc_strv *out);

#endif
