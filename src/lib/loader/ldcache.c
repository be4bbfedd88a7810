/* ldcache.c: read glibc's /etc/ld.so.cache the way ld.so does: the new format
 * ("glibc-ld.so.cache" "1.1", alone or after an old "ld.so-1.7.0" table), or the old format
 * alone. Every count, offset and string is checked against the file's size. */
#include <stdlib.h>
#include <string.h>

#include "ldmodel.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_HDR 16u  /* magic (11 + pad to 12) + nlibs */
#define OLD_ENT 12u  /* int32 flags, uint32 key, uint32 value */
#define NEW_HDR 48u  /* magic+version 20, nlibs, len_strings, flags, pad[3], ext_off, unused[3] */
#define NEW_ENT 24u  /* int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap */
#define HWCAP_EXTENSION (1ull << 62)

static uint32_t u32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v)); /* the cache is written in the host's byte order */
    return v;
}

static uint64_t u64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* A NUL-terminated string at base + off inside [data, data + len). */
static const char *str_in(const cc_ldcache *c, size_t base, uint32_t off)
{
    size_t at = base + off;
    if (at < base || at >= c->len || !memchr(c->data + at, '\0', c->len - at))
        return NULL;
    return c->data + at;
}

static int parse_new(cc_ldcache *c, size_t at)
{
    if (c->len - at < NEW_HDR)
        return -1;
    uint32_t n = u32(c->data + at + 20);
    if (n > (c->len - at - NEW_HDR) / NEW_ENT)
        return -1;
    c->v = calloc(n ? n : 1, sizeof(*c->v));
    if (!c->v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *e = c->data + at + NEW_HDR + (size_t)i * NEW_ENT;
        cc_ldc_entry *x = &c->v[c->n];
        x->flags = (int32_t)u32(e);
        x->hwcap = u64(e + 16);
        /* new-format string offsets count from the start of the new header */
        x->key = str_in(c, at, u32(e + 4));
        x->value = str_in(c, at, u32(e + 8));
        if (!x->key || !x->value)
            return -1;
        c->n++;
    }
    c->format = 2;
    return 0;
}

static int parse_old(cc_ldcache *c)
{
    uint32_t n = u32(c->data + 12);
    if (n > (c->len - OLD_HDR) / OLD_ENT)
        return -1;
    size_t strings = OLD_HDR + (size_t)n * OLD_ENT;
    /* a new-format table may follow, aligned to 8 bytes (glibc's ALIGN_CACHE) */
    size_t next = (strings + 7u) & ~(size_t)7u;
    if (next + sizeof(NEW_MAGIC) - 1 <= c->len &&
        memcmp(c->data + next, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) == 0)
        return parse_new(c, next);
    c->v = calloc(n ? n : 1, sizeof(*c->v));
    if (!c->v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *e = c->data + OLD_HDR + (size_t)i * OLD_ENT;
        cc_ldc_entry *x = &c->v[c->n];
        x->flags = (int32_t)u32(e);
        x->key = str_in(c, strings, u32(e + 4)); /* old format: from the string table */
        x->value = str_in(c, strings, u32(e + 8));
        if (!x->key || !x->value)
            return -1;
        c->n++;
    }
    c->format = 1;
    return 0;
}

int cc_ldcache_parse(char *data, size_t len, cc_ldcache *c)
{
    memset(c, 0, sizeof(*c));
    c->data = data;
    c->len = len;
    int rc = -1;
    if (len >= sizeof(NEW_MAGIC) - 1 && memcmp(data, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) == 0)
        rc = parse_new(c, 0);
    else if (len >= OLD_HDR && memcmp(data, OLD_MAGIC, sizeof(OLD_MAGIC) - 1) == 0)
        rc = parse_old(c);
    if (rc != 0)
        cc_ldcache_free(c);
    return rc;
}

void cc_ldcache_free(cc_ldcache *c)
{
    free(c->data);
    free(c->v);
    memset(c, 0, sizeof(*c));
}

int32_t cc_ldcache_flags_for(unsigned machine, int is_64)
{
    if (machine == CC_ELF_EM_X86_64 && is_64)
        return 0x0303; /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
    if (machine == CC_ELF_EM_AARCH64 && is_64)
        return 0x0a03; /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
    return 0x0003; /* i386 and other 32-bit libc6 objects */
}

const cc_ldc_entry *cc_ldcache_lookup(const cc_ldcache *c, const char *soname, int32_t flags,
                                      int *n_other)
{
    int other = 0;
    const cc_ldc_entry *hit = NULL;
    for (size_t i = 0; i < c->n && !hit; i++) {
        if (strcmp(c->v[i].key, soname) != 0)
            continue;
        if (c->v[i].flags != flags || (c->v[i].hwcap & HWCAP_EXTENSION))
            other++;
        else
            hit = &c->v[i];
    }
    if (n_other)
        *n_other = other;
    return hit;
}
