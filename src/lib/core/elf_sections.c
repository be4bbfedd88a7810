/* elf_sections.c: ELF section headers and the dynamic symbol table read through them, for the
 * questions the loader answers by symbols: does an object define a name; which names does an
 * object need from one library under its version (the versioned references glibc checks with
 * "undefined symbol: X, version libcudnn_graph.so.9"). */
#include <stdlib.h>
#include <string.h>

#include "elf_sections.h"

#define MAX_SECTIONS 4096u
#define MAX_NAMES (1u << 20)
#define MAX_DYN (64u << 20)
#define SHT_DYNSYM 11u
#define SHT_GNU_VERNEED 0x6ffffffeu
#define SHT_GNU_VERSYM 0x6fffffffu

int cc_elf_read_at(cc_pf_fd fd, uint64_t off, void *buf, size_t len)
{
    if (cc_pf_seek(fd, off) != 0)
        return -1;
    size_t got = 0;
    while (got < len) {
        long long n = cc_pf_read(fd, (char *)buf + got, len - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

uint64_t cc_elf_get(const unsigned char *p, int size, int le)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++)
        v |= (uint64_t)p[le ? i : size - 1 - i] << (8 * i);
    return v;
}

static void parse_shdr(const unsigned char *e, int is64, int le, cc_elf_shdr *h)
{
    h->name = (uint32_t)cc_elf_get(e, 4, le);
    h->type = (uint32_t)cc_elf_get(e + 4, 4, le);
    h->offset = is64 ? cc_elf_get(e + 0x18, 8, le) : cc_elf_get(e + 0x10, 4, le);
    h->size = is64 ? cc_elf_get(e + 0x20, 8, le) : cc_elf_get(e + 0x14, 4, le);
    h->link = (uint32_t)cc_elf_get(e + (is64 ? 0x28 : 0x18), 4, le);
    h->entsize = is64 ? cc_elf_get(e + 0x38, 8, le) : cc_elf_get(e + 0x24, 4, le);
}

int cc_elf_sections_open(const char *path, cc_elf_sections *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    unsigned char h[64];
    if (s->fd < 0 || cc_elf_read_at(s->fd, 0, h, sizeof(h)) != 0 || memcmp(h, "\177ELF", 4) != 0 ||
        (h[4] != 1 && h[4] != 2))
        goto bad;
    s->is64 = h[4] == 2;
    s->le = h[5] == 1;
    int le = s->le, is64 = s->is64;
    uint64_t shoff = is64 ? cc_elf_get(h + 0x28, 8, le) : cc_elf_get(h + 0x20, 4, le);
    unsigned ent = (unsigned)cc_elf_get(h + (is64 ? 0x3a : 0x2e), 2, le);
    unsigned num = (unsigned)cc_elf_get(h + (is64 ? 0x3c : 0x30), 2, le);
    unsigned strndx = (unsigned)cc_elf_get(h + (is64 ? 0x3e : 0x32), 2, le);
    if (!shoff || num == 0 || num > MAX_SECTIONS || strndx >= num || ent < (is64 ? 64u : 40u))
        goto bad;
    unsigned char *raw = malloc((size_t)num * ent);
    s->sh = calloc(num, sizeof(*s->sh));
    if (!raw || !s->sh || cc_elf_read_at(s->fd, shoff, raw, (size_t)num * ent) != 0) {
        free(raw);
        goto bad;
    }
    for (unsigned i = 0; i < num; i++)
        parse_shdr(raw + (size_t)i * ent, is64, le, &s->sh[i]);
    free(raw);
    s->n = num;
    s->names = cc_elf_section_read(s, strndx, MAX_NAMES, &s->names_len);
    if (!s->names)
        goto bad;
    return 0;
bad:
    cc_elf_sections_close(s);
    return -1;
}

void cc_elf_sections_close(cc_elf_sections *s)
{
    if (s->fd >= 0)
        cc_pf_close(s->fd);
    free(s->sh);
    free(s->names);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}

int cc_elf_section_find(const cc_elf_sections *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->sh[i].name < s->names_len && strcmp(s->names + s->sh[i].name, name) == 0)
            return (int)i;
    return -1;
}

char *cc_elf_section_read(const cc_elf_sections *s, size_t i, size_t max, size_t *len)
{
    if (i >= s->n || s->sh[i].size == 0 || s->sh[i].size > max)
        return NULL;
    size_t n = (size_t)s->sh[i].size;
    char *d = malloc(n + 1);
    if (!d || cc_elf_read_at(s->fd, s->sh[i].offset, d, n) != 0) {
        free(d);
        return NULL;
    }
    d[n] = '\0'; /* a string table is then terminated even when the file's is not */
    *len = n;
    return d;
}

static int find_type(const cc_elf_sections *s, uint32_t type)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->sh[i].type == type)
            return (int)i;
    return -1;
}

/* The version index (.gnu.version_r vna_other) under which the file needs `lib`; 0 none. */
static unsigned verneed_index(const cc_elf_sections *s, const char *str, size_t str_len,
                              const char *lib)
{
    int vi = find_type(s, SHT_GNU_VERNEED);
    size_t len = 0;
    unsigned char *v = vi >= 0 ? (unsigned char *)cc_elf_section_read(s, (size_t)vi, MAX_NAMES, &len)
                               : NULL;
    unsigned out = 0;
    for (size_t at = 0, guard = 0; v && at + 16 <= len && !out && guard < 4096; guard++) {
        unsigned cnt = (unsigned)cc_elf_get(v + at + 2, 2, s->le);
        uint64_t file = cc_elf_get(v + at + 4, 4, s->le);
        uint64_t aux = at + cc_elf_get(v + at + 8, 4, s->le);
        uint64_t next = cc_elf_get(v + at + 12, 4, s->le);
        if (cnt && file < str_len && strcmp(str + file, lib) == 0 && aux + 16 <= len)
            out = (unsigned)cc_elf_get(v + aux + 6, 2, s->le) & 0x7fffu; /* its first version */
        if (!next)
            break;
        at += next;
    }
    free(v);
    return out;
}

/* Mark (in `hit`, one byte per dynamic symbol) the symbols the relocations of .rela.dyn / .rel.dyn
 * refer to: those the loader binds when the object is loaded, even under RTLD_LAZY (the PLT's
 * JUMP_SLOTs, in .rela.plt, wait for the first call). */
static void eager_syms(const cc_elf_sections *s, unsigned char *hit, size_t nsym)
{
    static const char *const names[] = {".rela.dyn", ".rel.dyn"};
    for (int k = 0; k < 2; k++) {
        int i = cc_elf_section_find(s, names[k]);
        size_t len = 0;
        unsigned char *r = i >= 0 ? (unsigned char *)cc_elf_section_read(s, (size_t)i, MAX_DYN, &len)
                                  : NULL;
        size_t ent = k == 0 ? (s->is64 ? 24 : 12) : (s->is64 ? 16 : 8);
        for (size_t at = 0; r && at + ent <= len; at += ent) {
            uint64_t info = s->is64 ? cc_elf_get(r + at + 8, 8, s->le) : cc_elf_get(r + at + 4, 4, s->le);
            uint64_t sym = s->is64 ? info >> 32 : info >> 8;
            if (sym < nsym)
                hit[sym] = 1;
        }
        free(r);
    }
}

/* defined = 1: the names with a section index; 0: the undefined ones (bound to lib when given;
 * eager: only those the relocations bind at load; weak ones never count). */
static int dyn_names(const char *path, int defined, const char *lib, int eager, cc_strv *out)
{
    cc_elf_sections s;
    if (cc_elf_sections_open(path, &s) != 0)
        return -1;
    int rc = -1, si = find_type(&s, SHT_DYNSYM);
    size_t sym_len = 0, str_len = 0, ver_len = 0;
    unsigned char *sym = NULL, *ver = NULL;
    char *str = NULL;
    if (si < 0 || s.sh[si].link >= s.n)
        goto out;
    sym = (unsigned char *)cc_elf_section_read(&s, (size_t)si, MAX_DYN, &sym_len);
    str = cc_elf_section_read(&s, s.sh[si].link, MAX_DYN, &str_len);
    size_t ent = s.is64 ? 24 : 16;
    if (!sym || !str)
        goto out;
    unsigned want = 0;
    if (lib) {
        int vi = find_type(&s, SHT_GNU_VERSYM);
        ver = vi >= 0 ? (unsigned char *)cc_elf_section_read(&s, (size_t)vi, MAX_DYN, &ver_len)
                      : NULL;
        want = ver ? verneed_index(&s, str, str_len, lib) : 0;
        if (!want) { /* nothing is bound to that library's version */
            rc = 0;
            goto out;
        }
    }
    size_t nsym = sym_len / ent;
    unsigned char *hit = eager ? calloc(nsym ? nsym : 1, 1) : NULL;
    if (eager && !hit)
        goto out;
    if (hit)
        eager_syms(&s, hit, nsym);
    for (size_t i = 1; (i + 1) * ent <= sym_len; i++) {
        const unsigned char *e = sym + i * ent;
        uint64_t name = cc_elf_get(e, 4, s.le);
        unsigned shndx = (unsigned)cc_elf_get(e + (s.is64 ? 6 : 14), 2, s.le);
        unsigned bind = e[s.is64 ? 4 : 12] >> 4; /* st_info: 1 global, 2 weak */
        if (name == 0 || name >= str_len || (shndx != 0) != (defined != 0) ||
            (!defined && bind == 2) || (hit && !hit[i]))
            continue;
        if (lib && (2 * i + 2 > ver_len || (cc_elf_get(ver + 2 * i, 2, s.le) & 0x7fffu) != want))
            continue;
        if (cc_strv_push(out, str + name) != 0) {
            free(hit);
            goto out;
        }
    }
    free(hit);
    cc_strv_sort(out);
    rc = 0;
out:
    free(sym);
    free(str);
    free(ver);
    cc_elf_sections_close(&s);
    return rc;
}

int cc_elf_dyn_defined(const char *path, cc_strv *out)
{
    return dyn_names(path, 1, NULL, 0, out);
}

int cc_elf_dyn_needed_from(const char *path, const char *lib, int eager, cc_strv *out)
{
    return dyn_names(path, 0, lib, eager, out);
}
