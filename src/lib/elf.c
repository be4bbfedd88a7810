/* elf.c: the DT_SONAME of an ELF shared object, read through its section headers (32/64-bit,
 * either byte order). Reads only; every offset is bounds-checked against the file size. */
#include <stdlib.h>
#include <string.h>

#include "elf_soname.h"
#include "internal.h"

typedef struct {
    cc_pf_fd fd;
    uint64_t size;
    int is64, big;
} elf_file;

static uint64_t get(const elf_file *e, const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[e->big ? n - 1 - i : i] << (8 * i);
    return v;
}

/* Read exactly len bytes at off; 0 on success. */
static int rd(const elf_file *e, uint64_t off, void *buf, size_t len)
{
    if (off > e->size || len > e->size - off)
        return -1;
    if (cc_pf_seek(e->fd, off) != 0)
        return -1;
    unsigned char *p = buf;
    while (len > 0) {
        long long n = cc_pf_read(e->fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

typedef struct {
    uint32_t type;
    uint64_t offset, size, link, entsize;
} elf_shdr;

static int read_shdr(const elf_file *e, uint64_t shoff, uint64_t shentsize, uint64_t i,
                     elf_shdr *s)
{
    unsigned char b[64];
    if (shentsize > sizeof(b) || shentsize < (e->is64 ? 64u : 40u))
        return -1;
    if (rd(e, shoff + i * shentsize, b, (size_t)shentsize) != 0)
        return -1;
    s->type = (uint32_t)get(e, b + 4, 4);
    if (e->is64) {
        s->offset = get(e, b + 24, 8);
        s->size = get(e, b + 32, 8);
        s->link = get(e, b + 40, 4);
        s->entsize = get(e, b + 56, 8);
    } else {
        s->offset = get(e, b + 16, 4);
        s->size = get(e, b + 20, 4);
        s->link = get(e, b + 24, 4);
        s->entsize = get(e, b + 36, 4);
    }
    return 0;
}

#define SHT_DYNAMIC_ 6
#define DT_NULL_ 0
#define DT_SONAME_ 14

cudnnctl_err cc_elf_soname(cudnnctl_ctx *ctx, const char *path, char **soname)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    elf_file e = {-1, 0, 0, 0};
    unsigned char *dyn = NULL;
    *soname = NULL;
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) != 0 || !st.exists)
        return CC_ERR_PF(ctx, "cannot read", path);
    e.size = st.size;
    e.fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (e.fd < 0)
        return CC_ERR_PF(ctx, "cannot open", path);
    unsigned char h[64];
    if (rd(&e, 0, h, 52) != 0 || memcmp(h, "\177ELF", 4) != 0 || (h[4] != 1 && h[4] != 2) ||
        (h[5] != 1 && h[5] != 2)) {
        rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s is not an ELF file", path);
        goto out;
    }
    e.is64 = h[4] == 2;
    e.big = h[5] == 2;
    if (e.is64 && rd(&e, 0, h, 64) != 0) {
        rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: truncated ELF header", path);
        goto out;
    }
    uint64_t shoff = e.is64 ? get(&e, h + 40, 8) : get(&e, h + 32, 4);
    uint64_t shentsize = get(&e, h + (e.is64 ? 58 : 46), 2);
    uint64_t shnum = get(&e, h + (e.is64 ? 60 : 48), 2);
    if (shoff == 0 || shnum == 0 || shnum > 65535) {
        rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: ELF file without section headers", path);
        goto out;
    }
    for (uint64_t i = 0; i < shnum; i++) {
        elf_shdr s, strs;
        if (read_shdr(&e, shoff, shentsize, i, &s) != 0) {
            rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: bad ELF section header %llu", path,
                        (unsigned long long)i);
            goto out;
        }
        if (s.type != SHT_DYNAMIC_)
            continue;
        uint64_t ent = e.is64 ? 16 : 8;
        if (s.size == 0 || s.size > (1u << 24) || s.link >= shnum ||
            read_shdr(&e, shoff, shentsize, s.link, &strs) != 0) {
            rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: bad ELF dynamic section", path);
            goto out;
        }
        dyn = malloc((size_t)s.size);
        if (!dyn) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        if (rd(&e, s.offset, dyn, (size_t)s.size) != 0) {
            rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: truncated ELF dynamic section", path);
            goto out;
        }
        for (uint64_t off = 0; off + ent <= s.size; off += ent) {
            uint64_t tag = get(&e, dyn + off, (int)(ent / 2));
            uint64_t val = get(&e, dyn + off + ent / 2, (int)(ent / 2));
            if (tag == DT_NULL_)
                break;
            if (tag != DT_SONAME_)
                continue;
            if (val >= strs.size) {
                rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: SONAME outside its string table", path);
                goto out;
            }
            uint64_t max = strs.size - val;
            if (max > 4096)
                max = 4096;
            char *name = calloc(1, (size_t)max + 1);
            if (!name) {
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
                goto out;
            }
            if (rd(&e, strs.offset + val, name, (size_t)max) != 0) {
                free(name);
                rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s: truncated ELF string table", path);
                goto out;
            }
            *soname = name;
            goto out;
        }
        goto out; /* dynamic section without a SONAME */
    }
out:
    free(dyn);
    cc_pf_close(e.fd);
    return rc;
}
