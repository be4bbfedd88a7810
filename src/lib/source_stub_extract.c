/* source_stub_extract.c: TEMPORARY stand-in for the fetch branch's cc_source implementation, so
 * the extract branch links on its own. Delete it when merging fetch (duplicate symbols then
 * fail the link, on purpose). Every call reports UNSUPPORTED. */
#include <stddef.h>

#include "internal.h"
#include "source.h"

cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *opts, cc_source **out)
{
    (void)opts;
    *out = NULL;
    return CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "downloads are not built in yet (fetch branch)");
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
