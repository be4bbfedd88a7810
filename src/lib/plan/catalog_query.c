/* catalog_query.c: filtering the catalog (platform, CUDA, cuDNN prefix) and its JSON form, for
 * the `available` command. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "select.h"

typedef struct {
    int has_cudnn;
    cc_cudnn_pin cudnn; /* as --cudnn means it everywhere: 9, 9.13, 9.13.x, 9.13.0.50 */
    int cuda_major, cuda_minor; /* 0 = any; minor -1 = any build of that major */
    const char *platform;       /* NULL = any */
    int flavor;                 /* cudnnctl_flavor, -1 = any */
} filter;

static cudnnctl_err filter_prepare(cudnnctl_ctx *ctx, const cudnnctl_catalog_filter *f, filter *out)
{
    memset(out, 0, sizeof(*out));
    out->cuda_minor = -1;
    out->flavor = CUDNNCTL_FLAVOR_FULL;
    if (!f)
        return CUDNNCTL_E_OK;
    cudnnctl_flavor fl = CUDNNCTL_FLAVOR_FULL;
    if (f->flavor && strcmp(f->flavor, "any") == 0)
        out->flavor = -1;
    else if (f->flavor && cudnnctl_flavor_parse(f->flavor, &fl) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_USAGE, "--flavor %s: give full or jit", f->flavor);
    else
        out->flavor = (int)fl;
    if (f->cudnn && *f->cudnn) {
        if (cc_cudnn_pin_parse(f->cudnn, &out->cudnn) != 0)
            return CC_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                          "--cudnn %s is not a version: give 9, 9.13, 9.13.x or 9.13.0.50",
                          f->cudnn);
        out->has_cudnn = 1;
    }
    if (f->cuda && *f->cuda &&
        cc_cuda_variant_parse(f->cuda, &out->cuda_major, &out->cuda_minor) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                      "--cuda %s is not a CUDA version: give the major (13) or major.minor (12.4)",
                      f->cuda);
    if (f->platform && *f->platform && strcmp(f->platform, "all") != 0)
        out->platform = f->platform;
    return CUDNNCTL_E_OK;
}

static int filter_match(const filter *f, const cudnnctl_archive *a)
{
    if (f->platform && strcmp(a->platform, f->platform) != 0)
        return 0;
    if (f->flavor >= 0 && (int)a->flavor != f->flavor)
        return 0;
    if (f->cuda_major) {
        if (a->cuda_major != f->cuda_major)
            return 0;
        /* "--cuda 13.0": a build for the whole major fits, one made for 13.4 does not */
        if (f->cuda_minor >= 0 && a->cuda_minor > f->cuda_minor)
            return 0;
    }
    if (f->has_cudnn && !cc_cudnn_pin_match(&f->cudnn, a->cudnn_version))
        return 0;
    return 1;
}

cudnnctl_err cudnnctl_catalog_query(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                    const cudnnctl_catalog_filter *flt,
                                    const cudnnctl_archive ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    filter f;
    cudnnctl_err e = filter_prepare(ctx, flt, &f);
    if (e != CUDNNCTL_E_OK)
        return e;
    size_t total = cudnnctl_catalog_count(cat);
    const cudnnctl_archive **v = malloc((total ? total : 1) * sizeof(*v));
    if (!v)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < total; i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        if (filter_match(&f, a))
            v[k++] = a;
    }
    *out = v;
    *n = k;
    return CUDNNCTL_E_OK;
}

cJSON *cc_archive_to_json(const cudnnctl_archive *a, int with_platform)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int ok = cJSON_AddStringToObject(o, "cudnn_version", a->cudnn_version) != NULL;
    if (with_platform) {
        ok = ok && cJSON_AddStringToObject(o, "platform", a->platform);
        ok = ok && cJSON_AddStringToObject(o, "cuda_variant", a->cuda_variant);
    }
    ok = ok && cJSON_AddStringToObject(o, "flavor", cudnnctl_flavor_name(a->flavor));
    ok = ok && cJSON_AddStringToObject(o, "relative_path", a->relative_path);
    ok = ok && cJSON_AddStringToObject(o, "sha256", a->sha256);
    ok = ok && cJSON_AddNumberToObject(o, "size", (double)a->size);
    ok = ok && (a->release_date ? cJSON_AddStringToObject(o, "release_date", a->release_date)
                                : cJSON_AddNullToObject(o, "release_date"));
    ok = ok && cJSON_AddStringToObject(o, "manifest", a->manifest ? a->manifest : "");
    ok = ok &&
         (a->manifest_sha256 ? cJSON_AddStringToObject(o, "manifest_sha256", a->manifest_sha256)
                             : cJSON_AddNullToObject(o, "manifest_sha256"));
    cudnnctl_sizes z;
    cudnnctl_archive_sizes(a, CUDNNCTL_COMPONENTS_ALL, &z);
    cJSON *sz = ok ? cc_sizes_to_json(&z) : NULL;
    ok = ok && sz && cJSON_AddItemToObject(o, "sizes", sz);
    if (ok)
        sz = NULL;
    cJSON_Delete(sz);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cudnnctl_err cudnnctl_catalog_json(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                   const cudnnctl_catalog_filter *flt, char **json)
{
    *json = NULL;
    const cudnnctl_archive **v = NULL;
    size_t n = 0;
    cudnnctl_err e = cudnnctl_catalog_query(ctx, cat, flt, &v, &n);
    if (e != CUDNNCTL_E_OK)
        return e;
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *o = cc_archive_to_json(v[i], 1);
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    free(v);
    char *s = arr ? cJSON_PrintUnformatted(arr) : NULL;
    cJSON_Delete(arr);
    if (!s)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    /* cJSON allocates with malloc by default; hand back a plain malloc'd copy all the same */
    *json = cc_strdup(s);
    cJSON_free(s);
    return *json ? CUDNNCTL_E_OK : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}
