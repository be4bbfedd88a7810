/* zz_stub_commit_deps.c: TEMPORARY stubs so the commit branch links before the catalog, fetch
 * and extract work is merged. Every function fails with UNSUPPORTED. Delete this file as soon as
 * main provides the real ones. */
#include <stdlib.h>

#include "extract.h"
#include "internal.h"
#include "source.h"

cudnnctl_err cudnnctl_catalog_load(cudnnctl_ctx *ctx, cudnnctl_catalog **out)
{
    *out = NULL;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "catalog not in this build yet (stub)");
}
cudnnctl_err cudnnctl_catalog_add_manifest(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                           const char *file_or_url)
{
    (void)cat;
    (void)file_or_url;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "catalog not in this build yet (stub)");
}
cudnnctl_err cudnnctl_catalog_add_json(cudnnctl_ctx *ctx, cudnnctl_catalog *cat, const char *json,
                                       size_t len, const char *origin)
{
    (void)cat;
    (void)json;
    (void)len;
    (void)origin;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "catalog not in this build yet (stub)");
}
const cudnnctl_archive *cudnnctl_catalog_find_file(const cudnnctl_catalog *cat,
                                                   const char *file_name)
{
    (void)cat;
    (void)file_name;
    return NULL;
}
void cudnnctl_catalog_free(cudnnctl_catalog *cat)
{
    (void)cat;
}
cudnnctl_err cudnnctl_plan_make(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                const cudnnctl_detect_result *det, const cudnnctl_selection *sel,
                                cudnnctl_plan **out)
{
    (void)cat;
    (void)det;
    (void)sel;
    *out = NULL;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "planner not in this build yet (stub)");
}
void cudnnctl_plan_free(cudnnctl_plan *plan)
{
    (void)plan;
}
cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *opts, cc_source **out)
{
    (void)opts;
    *out = NULL;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "fetch not in this build yet (stub)");
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
cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out)
{
    (void)src;
    (void)name_hint;
    (void)staging_dir;
    (void)out;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "extract not in this build yet (stub)");
}
void cc_staging_free(cc_staging *st)
{
    (void)st;
}
