/* manifest.c: parse one NVIDIA cuDNN redistrib JSON (every shape NVIDIA has published) into
 * archive entries, validating each hash, size and relative path. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "hash.h"
#include "json.h"

/* Component keys that are not platforms (NVIDIA may add more scalar keys; any non-object member
 * is skipped anyway). */
static int is_platform_key(const cJSON *item)
{
    if (!cJSON_IsObject(item))
        return 0;
    /* cudnn_samples in 9.x ships its sources under a pseudo-platform; not installable. */
    return strcmp(item->string, "source") != 0;
}

/* size is a decimal string in NVIDIA's files; a JSON integer is accepted too. */
static int parse_size(const cJSON *item, uint64_t *out)
{
    if (cJSON_IsNumber(item)) {
        double d = item->valuedouble;
        if (d < 0 || d > 9007199254740992.0 || (double)(uint64_t)d != d)
            return -1;
        *out = (uint64_t)d;
        return 0;
    }
    if (!cJSON_IsString(item) || !item->valuestring[0])
        return -1;
    uint64_t v = 0;
    for (const char *c = item->valuestring; *c; c++) {
        if (!isdigit((unsigned char)*c))
            return -1;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

typedef struct {
    cudnnctl_ctx *ctx;
    const char *origin;
    const char *manifest_sha256;
    const char *version;
    const char *release_date;
    const char *component; /* "cudnn" or "cudnn_jit": where-strings start with it */
    cudnnctl_flavor flavor;
} parse_state;

/* "manifest O: W.FIELD "value" is not WANTED: the manifest is damaged": a string value quoted,
 * another in parentheses (wrong_type, or missing). */
static cudnnctl_err damaged(parse_state *ps, const char *where, const char *field, const cJSON *v,
                            const char *wrong_type, const char *wanted)
{
    int str = cJSON_IsString(v);
    CC_RET_ERR(ps->ctx, CUDNNCTL_E_MANIFEST,
               "manifest %s: %s.%s %s%s%s is not %s: the manifest is damaged; fetch it again from "
               "NVIDIA",
               ps->origin, where, field, str ? "\"" : "(",
               str ? v->valuestring : (v ? wrong_type : "missing"), str ? "\"" : ")", wanted);
}

/* One archive object: {relative_path, sha256, md5, size}. key_variant is the variant named by
 * the object's key ("13" from "cuda13"), NULL for a bare archive whose variant the file name
 * carries. */
/* relative_path (safe), sha256 (64 hex digits) and size (a byte count) of an archive entry. */
static cudnnctl_err check_fields(parse_state *ps, const char *where, const cJSON *rp,
                                 const cJSON *sha, const cJSON *size, uint64_t *bytes)
{
    cudnnctl_ctx *ctx = ps->ctx;
    const char *why = NULL;
    if (!cJSON_IsString(rp))
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s: %s.relative_path is missing or not a string: the manifest is "
                   "damaged; fetch it again from NVIDIA",
                   ps->origin, where);
    if (cc_relative_path_check(rp->valuestring, &why) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s: %s.relative_path \"%s\" %s: refusing a path that could leave the "
                   "mirror; use NVIDIA's own manifest",
                   ps->origin, where, rp->valuestring, why);
    if (!cJSON_IsString(sha) || !cc_sha256_is_hex(sha->valuestring))
        return damaged(ps, where, "sha256", sha, "not a string", "64 hex digits");
    if (!size || parse_size(size, bytes) != 0)
        return damaged(ps, where, "size", size, "wrong type", "a decimal byte count");
    return CUDNNCTL_E_OK;
}

/* The CUDA variant of an archive: from its file name, else from its key; they must agree. */
static cudnnctl_err archive_cuda(parse_state *ps, const char *where, const char *rel,
                                 const char *key_variant, cudnnctl_archive *a)
{
    char *name_variant = cc_cuda_variant_from_name(rel);
    int nM = 0, nm = -1, kM = 0, km = -1;
    if (name_variant && cc_cuda_variant_parse(name_variant, &nM, &nm) != 0) {
        free(name_variant);
        name_variant = NULL;
    }
    if (key_variant && cc_cuda_variant_parse(key_variant, &kM, &km) != 0)
        key_variant = NULL;
    if (key_variant && name_variant && kM != nM) {
        cudnnctl_err e =
            CC_ERR(ps->ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s: %s is keyed CUDA %s but its file %s is built for CUDA %s: the "
                   "manifest is inconsistent; fetch it again from NVIDIA",
                   ps->origin, where, key_variant, cc_path_base(rel), name_variant);
        free(name_variant);
        return e;
    }
    if (name_variant) {
        /* the file name is the more precise of the two ("13.4" under a bare entry) */
        a->cuda_variant = name_variant;
        a->cuda_major = nM;
        a->cuda_minor = nm;
    } else if (key_variant) {
        a->cuda_variant = cc_strdup(key_variant);
        a->cuda_major = kM;
        a->cuda_minor = km;
    } else {
        CC_RET_ERR(ps->ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s: %s: cannot tell which CUDA the archive %s is for (no cudaN key, "
                   "no _cudaN in the file name)",
                   ps->origin, where, rel);
    }
    return CUDNNCTL_E_OK;
}

static cudnnctl_err parse_archive(parse_state *ps, const cJSON *obj, const char *where,
                                  const char *key_variant, cc_archive_vec *out)
{
    cudnnctl_ctx *ctx = ps->ctx;
    cudnnctl_archive a;
    memset(&a, 0, sizeof(a));
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(obj, "relative_path");
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(obj, "sha256");
    const cJSON *md5 = cJSON_GetObjectItemCaseSensitive(obj, "md5");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(obj, "size");
    cudnnctl_err e = check_fields(ps, where, rp, sha, size, &a.size);
    if (e == CUDNNCTL_E_OK)
        e = archive_cuda(ps, where, rp->valuestring, key_variant, &a);
    if (e != CUDNNCTL_E_OK)
        goto out;

    /* The file name's version wins: 9.15.0's manifest says 9.15.0.57 while its cuda13 archives
     * are 9.15.0.58 (the receipt and the prefix name must say what is really installed). */
    a.cudnn_version = cc_cudnn_version_from_name(rp->valuestring);
    if (a.cudnn_version && strcmp(a.cudnn_version, ps->version) != 0)
        cc_log(ctx, CUDNNCTL_LOG_DEBUG, "manifest %s: %s is version %s, the component says %s",
               ps->origin, cc_path_base(rp->valuestring), a.cudnn_version, ps->version);
    if (!a.cudnn_version)
        a.cudnn_version = cc_strdup(ps->version);
    char *plat = cc_strdup(where + strlen(ps->component) + 1);
    char *dot = plat ? strchr(plat, '.') : NULL;
    if (dot)
        *dot = '\0';
    a.platform = plat;
    a.relative_path = cc_strdup(rp->valuestring);
    a.sha256 = cc_strdup(sha->valuestring);
    if (a.sha256)
        for (char *c = a.sha256; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    if (cJSON_IsString(md5) && strlen(md5->valuestring) == 32)
        a.md5 = cc_strdup(md5->valuestring);
    a.release_date = ps->release_date ? cc_strdup(ps->release_date) : NULL;
    a.flavor = ps->flavor;
    a.manifest = cc_strdup(ps->origin);
    a.manifest_sha256 = ps->manifest_sha256 ? cc_strdup(ps->manifest_sha256) : NULL;
    if (!a.cuda_variant || !a.cudnn_version || !a.platform || !a.relative_path || !a.sha256 ||
        !a.manifest || (ps->release_date && !a.release_date) ||
        (ps->manifest_sha256 && !a.manifest_sha256) || cc_archive_vec_push_move(out, &a) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
out:
    cc_archive_clear(&a);
    return e;
}

static cudnnctl_err parse_platform(parse_state *ps, const cJSON *plat, cc_archive_vec *out)
{
    cudnnctl_err e = CUDNNCTL_E_OK;
    char *where = cc_asprintf("%s.%s", ps->component, plat->string);
    if (!where)
        return CC_ERR(ps->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, plat)
    {
        if (!cJSON_IsObject(item))
            continue; /* bare relative_path/sha256/... handled below */
        char *w = cc_asprintf("%s.%s", where, item->string);
        const char *kv = cc_str_starts(item->string, "cuda") ? item->string + 4 : NULL;
        e = w ? parse_archive(ps, item, w, kv, out) : CC_ERR(ps->ctx, CUDNNCTL_E_NOMEM, "oom");
        free(w);
        if (e != CUDNNCTL_E_OK)
            goto out;
    }
    /* The flat 8.x shape, and 9.27's windows-arm64, put an archive directly on the platform. */
    if (cJSON_GetObjectItemCaseSensitive(plat, "relative_path"))
        e = parse_archive(ps, plat, where, NULL, out);
out:
    free(where);
    return e;
}

/* One installable component object ("cudnn" or "cudnn_jit") into archive entries. */
static cudnnctl_err parse_component(cudnnctl_ctx *ctx, const cJSON *comp, const char *name,
                                    cudnnctl_flavor flavor, const char *origin,
                                    const char *manifest_sha256, const char *release_date,
                                    cc_archive_vec *out)
{
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(comp, "version");
    cc_version v;
    if (!cJSON_IsString(ver) || cc_version_parse(ver->valuestring, &v) != 0 || v.n < 3)
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s: %s.version is missing or not a dotted version: the manifest is "
                   "damaged; fetch it again from NVIDIA",
                   origin, name);
    parse_state ps = {ctx, origin, manifest_sha256, ver->valuestring, release_date, name, flavor};
    const cJSON *plat;
    cJSON_ArrayForEach(plat, comp)
    {
        if (!is_platform_key(plat))
            continue; /* name, license, license_path, version, cuda_variant (a union only) */
        cudnnctl_err e = parse_platform(&ps, plat, out);
        if (e != CUDNNCTL_E_OK)
            return e;
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_manifest_parse(cudnnctl_ctx *ctx, const char *json, size_t len, const char *origin,
                               const char *manifest_sha256, cc_archive_vec *out)
{
    cudnnctl_err e = CUDNNCTL_E_OK;
    const char *end = NULL;
    size_t start_n = out->n;
    const char *page = cc_manifest_markup(json, len);
    if (page) {
        int url = strncmp(origin, "http://", 7) == 0 || strncmp(origin, "https://", 8) == 0;
        return CC_ERR(ctx, CUDNNCTL_E_MANIFEST,
                      "manifest %s is %s, not NVIDIA's redistrib JSON: %s. Give the .json "
                      "itself: download it (curl -fLO %sredistrib_X.Y.Z.json) and pass it as "
                      "--manifest FILE",
                      origin, page,
                      url ? "the server answered with a web page instead of the file (a sign-in "
                            "or captive portal, a proxy's error page, or the URL of a page that "
                            "links to it); it was not cached — open the URL in a browser to see"
                          : "a web page was saved instead of the file",
                      "https://developer.download.nvidia.com/compute/cudnn/redist/");
    }
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!root) {
        size_t at = end && end >= json ? (size_t)(end - json) : 0;
        return CC_ERR(ctx, CUDNNCTL_E_MANIFEST,
                      "manifest %s is not valid JSON (error near byte %zu): pass NVIDIA's "
                      "redistrib_<version>.json",
                      origin, at);
    }
    if (!cJSON_IsObject(root)) {
        e = CC_ERR(ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s is not a JSON object: pass NVIDIA's redistrib_<version>.json",
                   origin);
        goto out;
    }
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(root, "cudnn");
    if (!cJSON_IsObject(comp)) {
        const cJSON *prod = cJSON_GetObjectItemCaseSensitive(root, "release_product");
        e = CC_ERR(ctx, CUDNNCTL_E_MANIFEST,
                   "manifest %s has no \"cudnn\" component%s%s%s: pass a cuDNN manifest "
                   "(developer.download.nvidia.com/compute/cudnn/redist/redistrib_<version>.json)",
                   origin, cJSON_IsString(prod) ? " (release_product \"" : "",
                   cJSON_IsString(prod) ? prod->valuestring : "",
                   cJSON_IsString(prod) ? "\")" : "");
        goto out;
    }
    const char *rdate = cc_json_get_str(root, "release_date");
    if ((e = parse_component(ctx, comp, "cudnn", CUDNNCTL_FLAVOR_FULL, origin, manifest_sha256,
                             rdate, out)) != CUDNNCTL_E_OK)
        goto out;
    /* the Graph JIT library (9.10+): its own archives, cudnn_jit/<platform>/cudnn_jit-... (the
     * same file names inside as cudnn's: one flavour per target, cudnn-distribution.md §8.15).
     * cudnn_samples is sources, not installable, and is not read. */
    const cJSON *jit = cJSON_GetObjectItemCaseSensitive(root, "cudnn_jit"), *m = NULL;
    int jit_platforms = 0;
    cJSON_ArrayForEach(m, jit) jit_platforms += is_platform_key(m);
    if (cJSON_IsObject(jit) && jit_platforms) /* none: nothing installable, nothing to judge */
        e = parse_component(ctx, jit, "cudnn_jit", CUDNNCTL_FLAVOR_JIT, origin, manifest_sha256,
                            rdate, out);
out:
    if (e != CUDNNCTL_E_OK) {
        while (out->n > start_n)
            cc_archive_clear(&out->v[--out->n]);
    }
    cJSON_Delete(root);
    return e;
}
