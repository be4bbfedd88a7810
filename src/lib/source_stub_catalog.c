/* source_stub_catalog.c: TEMPORARY stand-in for the fetch work's cc_source_* (source.h) so the
 * catalog's http(s) manifest branch links before fetch lands. DELETE THIS FILE AT MERGE once
 * src/lib/fetch_*.c / cache.c provide cc_source_open & co. */
#include "internal.h"
#include "source.h"

cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *opts, cc_source **out)
{
    *out = NULL;
    return CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                  "network sources not built yet: cannot fetch %s (download the manifest and pass "
                  "--manifest FILE)",
                  opts && opts->url ? opts->url : "(null)");
}

long long cc_source_read(cc_source *src, void *buf, size_t len)
{
    (void)src;
    (void)buf;
    (void)len;
    return -1;
}

cudnnctl_err cc_source_finish(cc_source *src, char sha256_hex[65], uint64_t *size)
{
    (void)src;
    (void)sha256_hex;
    (void)size;
    return CUDNNCTL_E_UNSUPPORTED;
}

const char *cc_source_path(const cc_source *src)
{
    (void)src;
    return NULL;
}

void cc_source_close(cc_source *src)
{
    (void)src;
}
