/* catalog_url.c: manifests from http(s) URLs: fetched through the source layer (a manifest is
 * not signed, so no hash is known in advance), kept in the cache under their own SHA-256 with a
 * per-URL reference, and read back from there when the network is down. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "hash.h"
#include "source.h"

static int sha_hex(const void *data, size_t len, char hex[65])
{
    cc_sha256 *h = cc_sha256_new();
    int ok = h && cc_sha256_update(h, data, len) == 0 && cc_sha256_final_hex(h, hex) == 0;
    cc_sha256_free(h);
    return ok ? 0 : -1;
}

/* <cache>/manifests, and the reference file for a URL in it (named by the URL's hash). */
static char *manifest_dir(cudnnctl_ctx *ctx)
{
    char *cache = cc_cache_dir(ctx);
    char *d = cache ? cc_path_join(cache, "manifests") : NULL;
    free(cache);
    return d;
}

static char *ref_path(const char *dir, const char *url)
{
    char h[65];
    if (sha_hex(url, strlen(url), h) != 0)
        return NULL;
    return cc_asprintf("%s/url-%.32s.ref", dir, h);
}

/* A dry run keeps nothing: the cache dirs the download made for its temporary part (the
 * source layer downloads into the cache) go again when they were not there before. */
static const char *const cache_dirs[] = {"", "blobs", "blobs/sha256", "locks"};
#define N_CACHE_DIRS (sizeof(cache_dirs) / sizeof(cache_dirs[0]))

static void note_cache_dirs(cudnnctl_ctx *ctx, int had[N_CACHE_DIRS])
{
    char *root = cc_cache_dir(ctx);
    for (size_t i = 0; i < N_CACHE_DIRS; i++) {
        char *d = root ? cc_path_join(root, cache_dirs[i]) : NULL;
        cc_pf_stat_t st;
        had[i] = !d || (cc_pf_stat(d, &st) == 0 && st.exists);
        free(d);
    }
    free(root);
}

static void drop_new_cache_dirs(cudnnctl_ctx *ctx, const int had[N_CACHE_DIRS])
{
    char *root = cc_cache_dir(ctx);
    for (size_t i = N_CACHE_DIRS; root && i-- > 0;) {
        char *d = had[i] ? NULL : cc_path_join(root, cache_dirs[i]);
        if (d)
            (void)cc_sys_rmdir(ctx, d); /* only when empty: nothing of anyone else goes */
        free(d);
    }
    free(root);
}

cudnnctl_err cc_url_read_all(cudnnctl_ctx *ctx, const cc_source_opts *o, size_t max,
                             cudnnctl_err too_big, const char *label, const char *kind,
                             cc_buf *b, char hex[65])
{
    cc_source *src = NULL;
    cudnnctl_err e = cc_source_open(ctx, o, &src);
    if (e != CUDNNCTL_E_OK)
        return e;
    char tmp[65536];
    for (;;) {
        long long n = cc_source_read(src, tmp, sizeof(tmp));
        if (n < 0) {
            e = cudnnctl_last_error(ctx)->code;
            if (e == CUDNNCTL_E_OK)
                e = CC_ERR(ctx, CUDNNCTL_E_NETWORK, "reading %s failed", o->url);
            goto out;
        }
        if (n == 0)
            break;
        if (b->len + (size_t)n > max) {
            e = CC_ERR(ctx, too_big, "%s%s is larger than %u MiB: not a %s", label, o->url,
                       (unsigned)(max >> 20), kind);
            goto out;
        }
        if (cc_buf_append(b, tmp, (size_t)n) != 0) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    }
    uint64_t size = 0;
    e = cc_source_finish(src, hex, &size);
out:
    cc_source_close(src);
    return e;
}

cudnnctl_err cc_manifest_download(cudnnctl_ctx *ctx, const char *url, const char *cacert,
                                  cc_buf *b, char hex[65])
{
    cc_source_opts o;
    memset(&o, 0, sizeof(o));
    o.url = url;
    o.cacert = cacert;
    o.insecure_skip_verify = 1; /* nothing to verify against: NVIDIA does not sign manifests */
    o.use_cache = 1;
    o.what = "manifest"; /* a 404 is no archive missing: the messages say what to check */
    return cc_url_read_all(ctx, &o, CC_MANIFEST_MAX, CUDNNCTL_E_MANIFEST, "manifest ",
                           "cuDNN manifest", b, hex);
}

/* Bytes worth keeping for the offline fallback: a JSON object, never a web page (a login
 * portal answering for the URL) or a broken body — the fallback would serve them later. */
static int keepable(const cc_buf *b)
{
    if (!b->data || cc_manifest_markup(b->data, b->len))
        return 0;
    cJSON *j = cJSON_ParseWithLength(b->data, b->len);
    int ok = cJSON_IsObject(j);
    cJSON_Delete(j);
    return ok;
}

/* Keep the bytes as manifests/<sha256>.json and point the URL's reference at them. A failure
 * here costs only the offline fallback: a warning, not an error. */
static void remember(cudnnctl_ctx *ctx, const char *dir, const char *ref, const char *url,
                     const cc_buf *b, const char hex[65])
{
    char *copy = cc_asprintf("%s/%s.json", dir, hex);
    char *line = cc_asprintf("%s\n%s\n", hex, url);
    if (!copy || !line || cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
        cc_sys_write_file_atomic(ctx, copy, b->data ? b->data : "", b->len, 0644) != 0 ||
        cc_sys_write_file_atomic(ctx, ref, line, strlen(line), 0644) != 0)
        cc_log(ctx, CUDNNCTL_LOG_WARN, "could not keep a copy of manifest %s in %s: %s", url, dir,
               cc_pf_last_error_text());
    free(copy);
    free(line);
}

/* The copy kept when the URL last worked, checked against its recorded SHA-256. */
static int recall(cudnnctl_ctx *ctx, const char *dir, const char *ref, char **data, size_t *len,
                  char hex[65])
{
    char *line = NULL, *copy = NULL;
    int rc = -1;
    if (cc_sys_read_trusted(ctx, ref, 4096, &line, NULL) != 0)
        return -1;
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    if (!cc_sha256_is_hex(line))
        goto out;
    copy = cc_asprintf("%s/%s.json", dir, line);
    if (!copy || cc_sys_read_trusted(ctx, copy, CC_MANIFEST_MAX, data, len) != 0)
        goto out;
    if (sha_hex(*data, *len, hex) != 0 || strcmp(hex, line) != 0) {
        /* integrity: an event, which -q does not hide */
        char *msg = cc_asprintf("the cached copy %s of a manifest is damaged (SHA-256 %s): not "
                                "used", copy, hex);
        cc_event(ctx, CUDNNCTL_EV_WARNING, msg ? msg : "a cached manifest is damaged", copy);
        free(msg);
        free(*data);
        *data = NULL;
        goto out;
    }
    rc = 0;
out:
    free(copy);
    free(line);
    return rc;
}

cudnnctl_err cc_manifest_fetch(cudnnctl_ctx *ctx, const char *url, char **data, size_t *len,
                               char hex[65])
{
    *data = NULL;
    *len = 0;
    cc_buf b = {0};
    char *dir = manifest_dir(ctx);
    char *ref = dir ? ref_path(dir, url) : NULL;
    if (!dir || !ref) {
        free(dir);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    int had[N_CACHE_DIRS];
    if (ctx->read_only)
        note_cache_dirs(ctx, had);
    cudnnctl_err e = cc_manifest_download(ctx, url, NULL, &b, hex);
    if (ctx->read_only) {
        cc_saved_err se;
        cc_err_save(ctx, &se);
        drop_new_cache_dirs(ctx, had);
        cc_err_restore(ctx, &se, NULL);
    }
    if (e == CUDNNCTL_E_OK) {
        /* not a web page (cc_manifest_parse names it), and not in a dry run: it keeps nothing */
        if (keepable(&b) && !ctx->read_only)
            remember(ctx, dir, ref, url, &b, hex);
        *data = b.data ? b.data : cc_strdup("");
        *len = b.len;
        b.data = NULL;
        if (!*data)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (e == CUDNNCTL_E_NETWORK || e == CUDNNCTL_E_HTTP_STATUS || e == CUDNNCTL_E_TLS ||
               e == CUDNNCTL_E_TIMEOUT) {
        char *why = cc_strdup(cudnnctl_last_error(ctx)->detail);
        if (recall(ctx, dir, ref, data, len, hex) == 0) {
            char *msg = cc_asprintf("%s: %s; using the copy cached when it last worked "
                                    "(sha256 %s)", url, why ? why : "unreachable", hex);
            cc_event(ctx, CUDNNCTL_EV_WARNING, msg ? msg : "using a cached manifest", NULL);
            free(msg);
            cc_clear_error(ctx);
            e = CUDNNCTL_E_OK;
        } else if (why) {
            /* say that there is no offline copy either, keeping the network error's code */
            e = CC_ERR(ctx, e,
                       "%s (and no copy of it is cached: run once with the network, or "
                       "pass --manifest FILE)",
                       why);
        }
        free(why);
    }
    cc_buf_free(&b);
    free(ref);
    free(dir);
    return e;
}
