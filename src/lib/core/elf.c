/* elf.c: read an ELF object's class, machine and DT_SONAME from its header, program headers and
 * dynamic section (a few small reads, even for a 250 MB library). */
#include <stdlib.h>
#include <string.h>

#include "elf_info.h"
#include "elf_sections.h"
#include "platform.h"
#include "str.h"

#define PT_LOAD 1u
#define PT_DYNAMIC 2u
#define DT_NULL 0u
#define DT_STRTAB 5u
#define DT_STRSZ 10u
#define DT_NEEDED 1u
#define DT_SONAME 14u
#define DT_RPATH 15u
#define DT_RUNPATH 29u
#define PT_INTERP 3u
#define MAX_NEEDED 1024u
#define MAX_STRTAB (64u << 20)

#define MAX_PHNUM 512u
#define MAX_DYN_BYTES (1u << 20)
#define MAX_SONAME 512u

typedef struct {
    cc_pf_fd fd;
    int is_64, le;
    int full; /* cc_elf_read_dyn: NEEDED, RPATH, RUNPATH too */
} elf_file;

static int read_at(const elf_file *f, uint64_t off, void *buf, size_t len)
{
    return cc_elf_read_at(f->fd, off, buf, len);
}

/* Read as much as there is (up to len) — for the SONAME string near the end of a file. */
static long long read_some_at(const elf_file *f, uint64_t off, void *buf, size_t len)
{
    if (cc_pf_seek(f->fd, off) != 0)
        return -1;
    size_t got = 0;
    while (got < len) {
        long long n = cc_pf_read(f->fd, (char *)buf + got, len - got);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (long long)got;
}

static uint64_t get(const elf_file *f, const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++) {
        int idx = f->le ? size - 1 - i : i;
        v = (v << 8) | p[idx];
    }
    return v;
}

typedef struct {
    uint64_t type, offset, vaddr, filesz;
} phdr;

static void parse_phdr(const elf_file *f, const unsigned char *p, phdr *ph)
{
    if (f->is_64) {
        ph->type = get(f, p, 4);
        ph->offset = get(f, p + 8, 8);
        ph->vaddr = get(f, p + 16, 8);
        ph->filesz = get(f, p + 32, 8);
    } else {
        ph->type = get(f, p, 4);
        ph->offset = get(f, p + 4, 4);
        ph->vaddr = get(f, p + 8, 4);
        ph->filesz = get(f, p + 16, 4);
    }
}

/* File offset of a virtual address, through the PT_LOAD segment that maps it. */
static int vaddr_to_off(const phdr *phs, size_t n, uint64_t vaddr, uint64_t *off)
{
    for (size_t i = 0; i < n; i++) {
        if (phs[i].type != PT_LOAD)
            continue;
        if (vaddr >= phs[i].vaddr && vaddr - phs[i].vaddr < phs[i].filesz) {
            *off = phs[i].offset + (vaddr - phs[i].vaddr);
            return 0;
        }
    }
    return -1;
}

/* A string at offset `at` of the string table (bounds: strsz, and a terminator inside it). */
static char *str_at(const char *tab, uint64_t strsz, uint64_t at)
{
    if (at >= strsz || !memchr(tab + at, '\0', (size_t)(strsz - at)))
        return NULL;
    return cc_strdup(tab + at);
}

/* cc_elf_read_dyn: read the whole dynamic string table once and pick SONAME, NEEDED, RPATH and
 * RUNPATH out of it, each offset checked against DT_STRSZ. */
static int read_dyn_strings(const elf_file *f, const phdr *phs, size_t nph, const unsigned char *d,
                            size_t bytes, uint64_t strtab, uint64_t strsz, cc_elf_info *info)
{
    size_t entsz = f->is_64 ? 16 : 8;
    uint64_t off;
    if (strsz == 0 || strsz > MAX_STRTAB || vaddr_to_off(phs, nph, strtab, &off) != 0)
        return -1;
    char *tab = malloc((size_t)strsz);
    if (!tab)
        return -1;
    int rc = -1;
    if (read_at(f, off, tab, (size_t)strsz) != 0)
        goto out;
    info->needed = calloc(MAX_NEEDED, sizeof(char *));
    if (!info->needed)
        goto out;
    for (size_t i = 0; i + entsz <= bytes; i += entsz) {
        uint64_t tag = get(f, d + i, (int)(entsz / 2));
        uint64_t val = get(f, d + i + entsz / 2, (int)(entsz / 2));
        char **slot = NULL;
        if (tag == DT_NULL)
            break;
        if (tag == DT_NEEDED && info->n_needed < MAX_NEEDED)
            slot = &info->needed[info->n_needed++];
        else if (tag == DT_SONAME)
            slot = &info->soname;
        else if (tag == DT_RPATH)
            slot = &info->rpath;
        else if (tag == DT_RUNPATH)
            slot = &info->runpath;
        if (!slot)
            continue;
        free(*slot);
        if (!(*slot = str_at(tab, strsz, val)))
            goto out; /* an offset outside the table: malformed */
    }
    rc = 0;
out:
    free(tab);
    return rc;
}

static int read_dynamic(const elf_file *f, const phdr *phs, size_t nph, cc_elf_info *info)
{
    const phdr *dyn = NULL;
    for (size_t i = 0; i < nph; i++)
        if (phs[i].type == PT_DYNAMIC) {
            dyn = &phs[i];
            break;
        }
    if (!dyn)
        return 0; /* static executable or relocatable object: no SONAME */
    size_t entsz = f->is_64 ? 16 : 8;
    size_t bytes = (size_t)(dyn->filesz < MAX_DYN_BYTES ? dyn->filesz : MAX_DYN_BYTES);
    bytes -= bytes % entsz;
    if (bytes == 0)
        return 0;
    unsigned char *d = malloc(bytes);
    if (!d)
        return -1;
    int rc = -1;
    if (read_at(f, dyn->offset, d, bytes) != 0)
        goto out;
    uint64_t strtab = 0, strsz = 0, soname = 0;
    int have_strtab = 0, have_soname = 0;
    for (size_t i = 0; i + entsz <= bytes; i += entsz) {
        uint64_t tag = get(f, d + i, (int)(entsz / 2));
        uint64_t val = get(f, d + i + entsz / 2, (int)(entsz / 2));
        if (tag == DT_NULL)
            break;
        if (tag == DT_STRTAB) {
            strtab = val;
            have_strtab = 1;
        } else if (tag == DT_STRSZ) {
            strsz = val;
        } else if (tag == DT_SONAME) {
            soname = val;
            have_soname = 1;
        }
    }
    rc = 0;
    if (f->full) {
        if (have_strtab)
            rc = read_dyn_strings(f, phs, nph, d, bytes, strtab, strsz, info);
        goto out;
    }
    if (!have_soname || !have_strtab)
        goto out;
    if (strsz && soname >= strsz) {
        rc = -1;
        goto out;
    }
    uint64_t off;
    if (vaddr_to_off(phs, nph, strtab, &off) != 0) {
        rc = -1;
        goto out;
    }
    char buf[MAX_SONAME + 1];
    long long n = read_some_at(f, off + soname, buf, MAX_SONAME);
    if (n <= 0) {
        rc = -1;
        goto out;
    }
    buf[n] = '\0';
    if (strlen(buf) == (size_t)n) { /* no terminator within the limit: malformed */
        rc = -1;
        goto out;
    }
    info->soname = cc_strdup(buf);
    rc = info->soname ? 0 : -1;
out:
    free(d);
    return rc;
}

static int elf_read(const char *path, cc_elf_info *info, int full)
{
    memset(info, 0, sizeof(*info));
    elf_file f = {-1, 0, 0, full};
    phdr *phs = NULL;
    unsigned char *raw = NULL;
    int rc = -1;
    unsigned char eh[64];

    f.fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (f.fd < 0)
        return -1;
    if (read_at(&f, 0, eh, 52) != 0) /* 52 = ELF32 header size, the smaller of the two */
        goto out;
    if (memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2))
        goto out;
    f.is_64 = eh[4] == 2;
    f.le = eh[5] == 1;
    if (f.is_64 && read_at(&f, 0, eh, 64) != 0)
        goto out;
    info->is_64 = f.is_64;
    info->little_endian = f.le;
    info->type = (unsigned)get(&f, eh + 16, 2);
    info->machine = (unsigned)get(&f, eh + 18, 2);
    uint64_t phoff = f.is_64 ? get(&f, eh + 32, 8) : get(&f, eh + 28, 4);
    unsigned phentsize = (unsigned)(f.is_64 ? get(&f, eh + 54, 2) : get(&f, eh + 42, 2));
    unsigned phnum = (unsigned)(f.is_64 ? get(&f, eh + 56, 2) : get(&f, eh + 44, 2));
    if (phnum == 0 || phoff == 0) {
        rc = 0; /* an ELF file without program headers: no dynamic section */
        goto out;
    }
    if (phnum > MAX_PHNUM || phentsize < (f.is_64 ? 56u : 32u) || phentsize > 256)
        goto out;
    raw = malloc((size_t)phnum * phentsize);
    phs = calloc(phnum, sizeof(*phs));
    if (!raw || !phs)
        goto out;
    if (read_at(&f, phoff, raw, (size_t)phnum * phentsize) != 0)
        goto out;
    for (unsigned i = 0; i < phnum; i++) {
        parse_phdr(&f, raw + (size_t)i * phentsize, &phs[i]);
        if (phs[i].type == PT_INTERP)
            info->has_interp = 1;
    }
    rc = read_dynamic(&f, phs, phnum, info);
out:
    free(raw);
    free(phs);
    cc_pf_close(f.fd);
    if (rc != 0)
        cc_elf_info_free(info);
    return rc;
}

int cc_elf_read(const char *path, cc_elf_info *info)
{
    return elf_read(path, info, 0);
}

int cc_elf_read_dyn(const char *path, cc_elf_info *info)
{
    return elf_read(path, info, 1);
}

void cc_elf_info_free(cc_elf_info *info)
{
    if (!info)
        return;
    free(info->soname);
    info->soname = NULL;
    for (size_t i = 0; i < info->n_needed; i++)
        free(info->needed[i]);
    free(info->needed);
    info->needed = NULL;
    info->n_needed = 0;
    free(info->rpath);
    free(info->runpath);
    info->rpath = info->runpath = NULL;
}

char *cc_elf_soname(const char *path)
{
    cc_elf_info info;
    if (cc_elf_read(path, &info) != 0)
        return NULL;
    return info.soname; /* ownership moves to the caller */
}
