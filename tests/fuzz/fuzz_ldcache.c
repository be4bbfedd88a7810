/* fuzz_ldcache.c: the /etc/ld.so.cache reader (loader/ldcache.c: glibc's new format, the old one
 * and "compat" with both), then a lookup of every entry it accepted: offsets and strings are
 * bounds-checked against the file, so nothing an input holds reads past it. */
#include "fuzz_common.h"
#include "ldmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1); /* the reader owns its buffer and frees it */
    FZ_CHECK(copy != NULL);
    memcpy(copy, data, size);
    copy[size] = '\0';
    cc_ldcache c;
    if (cc_ldcache_parse(copy, size, &c) != 0)
        return 0; /* rejected: parse freed the buffer */
    for (size_t i = 0; i < c.n; i++) {
        FZ_CHECK(c.v[i].key != NULL && c.v[i].value != NULL);
        FZ_CHECK(c.v[i].key >= c.data && c.v[i].key < c.data + c.len);
        int other = 0;
        FZ_CHECK(cc_ldcache_lookup(&c, c.v[i].key, c.v[i].flags, &other) != NULL ||
                 (c.v[i].hwcap != 0) || other > 0);
    }
    cc_ldcache_free(&c);
    return 0;
}
