/* mirror.c: copy manifests and archives into a dir laid out like NVIDIA's redist tree
 * (DIR/redistrib_<label>.json, DIR/<relative_path>) for offline / air-gapped installs. Archives
 * come through the source layer (cache, SHA-256 and size verified while they stream) into a
 * temporary name beside their destination, renamed only after the digest matched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "grow.h"
#include "freeall.h"
#include "catalog_store.h"
#include "compat.h"
#include "embedded.h"
#include "hash.h"
#include "source.h"
#include "trust.h"
#include "json.h"

#define NVIDIA_REDIST "https://developer.download.nvidia.com/compute/cudnn/redist/"
#define COPY_CHUNK (256u * 1024u)

void cudnnctl_mirror_result_free(cudnnctl_mirror_result *r)
{
    if (!r)
        return;
    free(r->dir);
    free(r->index);
    for (size_t i = 0; i < r->n_manifests; i++)
        free(r->manifests[i]);
    free(r->manifests);
    for (size_t i = 0; i < r->n_items; i++) {
        cudnnctl_mirror_item *it = &r->items[i];
        free(it->relative_path);
        free(it->cudnn_version);
        free(it->platform);
        free(it->cuda_variant);
        free(it->sha256);
        free(it->path);
    }
    free(r->items);
    free(r);
}

/* ---- what to mirror ------------------------------------------------------------------------- */

/* Of the archives of one build (version, platform, CUDA variant) from several manifests, the one
 * install takes (select.c's tie rule): a manifest the user added before the embedded catalog,
 * then the first in catalog order. The others are not mirrored: an install from the mirror
 * would never take them, and one of the same file name would be mirrored in their place. */
static size_t keep_install_picks(const cudnnctl_archive **v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int emb = cc_str_starts(v[i]->manifest ? v[i]->manifest : "", "embedded:"), dup = 0;
        for (size_t j = 0; j < k && !dup; j++) {
            const cudnnctl_archive *w = v[j];
            if (strcmp(w->cudnn_version, v[i]->cudnn_version) != 0 ||
                strcmp(w->platform, v[i]->platform) != 0 ||
                strcmp(w->cuda_variant, v[i]->cuda_variant) != 0)
                continue;
            dup = 1;
            if (cc_str_starts(w->manifest ? w->manifest : "", "embedded:") && !emb)
                v[j] = v[i]; /* the user's manifest wins the tie */
        }
        if (!dup)
            v[k++] = v[i];
    }
    return k;
}

/* The entries of the selection: every match, or only those of the newest matching release. */
static cudnnctl_err select_entries(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                   const cudnnctl_mirror_opts *o, const char *platform,
                                   const cudnnctl_archive ***out, size_t *n)
{
    cudnnctl_catalog_filter f = {o->cudnn, o->cuda, o->all_platforms ? "all" : platform,
                                 o->flavor};
    const cudnnctl_archive **v = NULL;
    size_t nv = 0;
    cudnnctl_err e = cudnnctl_catalog_query(ctx, cat, &f, &v, &nv);
    if (e != CUDNNCTL_E_OK)
        return e;
    if (nv == 0) {
        cudnnctl_free(v);
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                   "the catalog has no archive for cuDNN %s, CUDA %s, %s: see `cudnnctl "
                   "available%s%s%s%s`",
                   o->cudnn ? o->cudnn : "(any)", o->cuda ? o->cuda : "(any)",
                   o->all_platforms ? "any platform" : platform, o->cuda ? " --cuda " : "",
                   o->cuda ? o->cuda : "", o->all_platforms ? "" : " --platform ",
                   o->all_platforms ? "" : platform);
    }
    if (!o->all_versions) {
        /* the release --cudnn means, as plan and install take it (cudnnctl_cudnn_resolve) */
        const char **names = malloc(nv * sizeof(*names));
        if (!names) {
            cudnnctl_free(v);
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < nv; i++)
            names[i] = v[i]->cudnn_version;
        long b = cudnnctl_cudnn_resolve(o->cudnn, names, nv);
        char *chosen = b >= 0 ? cc_strdup(names[b]) : NULL;
        free(names);
        size_t k = 0;
        for (size_t i = 0; i < nv && chosen; i++)
            if (cc_version_cmp_str(v[i]->cudnn_version, chosen) == 0)
                v[k++] = v[i];
        free(chosen);
        nv = k;
    }
    *out = v;
    *n = nv;
    return CUDNNCTL_E_OK;
}

/* ---- manifests ------------------------------------------------------------------------------ */

/* A manifest `cudnnctl update` stored (origin "catalog:<name>"), from the state dir. */
static cudnnctl_err stored_text(cudnnctl_ctx *ctx, const char *name, char **data, size_t *len)
{
    char *state = cc_state_dir(ctx);
    cc_catalog_store st;
    cudnnctl_err e = state ? cc_store_load(ctx, state, &st)
                           : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e != CUDNNCTL_E_OK) {
        free(state);
        return e;
    }
    e = CC_ERR(ctx, CUDNNCTL_E_MANIFEST,
               "manifest %s is no longer in the catalog under the state dir: run `cudnnctl "
               "update` again",
               name);
    for (size_t i = 0; i < st.n; i++)
        if (strcmp(st.v[i].name, name) == 0) {
            cc_clear_error(ctx);
            e = cc_store_read_manifest(ctx, state, &st.v[i], data, len);
            break;
        }
    cc_store_free(&st);
    free(state);
    return e;
}

/* The manifest's bytes as they came, checked against the SHA-256 the catalog recorded. */
static cudnnctl_err manifest_text(cudnnctl_ctx *ctx, const cudnnctl_archive *a, char **data,
                                  size_t *len, char **name)
{
    const char *m = a->manifest;
    char hex[65] = "";
    *data = NULL;
    *name = NULL;
    if (cc_str_starts(m, "embedded:")) {
        const char *n = m + 9;
        for (size_t i = 0; i < cc_embedded_manifest_count; i++)
            if (strcmp(cc_embedded_manifests[i].name, n) == 0) {
                *data = cc_strndup(cc_embedded_manifests[i].data, cc_embedded_manifests[i].len);
                *len = cc_embedded_manifests[i].len;
                break;
            }
        if (!*data)
            CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST, "embedded manifest %s not found in this build", n);
    } else if (cc_str_starts(m, "catalog:")) {
        cudnnctl_err e = stored_text(ctx, m + 8, data, len);
        if (e != CUDNNCTL_E_OK)
            return e;
    } else if (cc_str_starts(m, "http://") || cc_str_starts(m, "https://")) {
        cudnnctl_err e = cc_manifest_fetch(ctx, m, data, len, hex);
        if (e != CUDNNCTL_E_OK)
            return e;
    } else {
        const char *p = cc_str_starts(m, "file://") ? m + 7 : m;
        if (cc_str_starts(p, "localhost/"))
            p += 9;
        char *real = cc_rooted(ctx, p);
        int rc = real ? cc_sys_read_file(ctx, real, CC_MANIFEST_MAX, data, len) : -1;
        free(real);
        if (rc != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST, "cannot read manifest %s again: %s", m,
                       cc_pf_last_error_text());
    }
    if (!*data)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (a->manifest_sha256 && *a->manifest_sha256) {
        cc_sha256 *h = cc_sha256_new();
        int ok = h && cc_sha256_update(h, *data, *len) == 0 && cc_sha256_final_hex(h, hex) == 0;
        cc_sha256_free(h);
        if (!ok || strcmp(hex, a->manifest_sha256) != 0) {
            free(*data);
            *data = NULL;
            CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST,
                       "manifest %s changed since it was read (sha256 %s, now %s): run the "
                       "mirror again",
                       m, a->manifest_sha256, ok ? hex : "?");
        }
    }
    const char *base = cc_str_starts(m, "embedded:")  ? m + 9
                       : cc_str_starts(m, "catalog:") ? m + 8
                                                      : cc_path_base(m);
    char *q = strchr(base, '?');
    *name = q ? cc_strndup(base, (size_t)(q - base)) : cc_strdup(base);
    if (!*name || !**name || strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0) {
        free(*data);
        free(*name);
        *data = *name = NULL;
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST, "manifest %s has no usable file name", m);
    }
    return CUDNNCTL_E_OK;
}

/* Two manifests of one file name (a/redistrib_9.19.0.json, b/redistrib_9.19.0.json, or one the
 * same as an embedded one's) must not overwrite each other: the first keeps the name, a later
 * one with other bytes is written as redistrib_9.19.0.<its sha256's first 12>.json, with a
 * warning. Returns the name to write (malloc'd), or NULL when the same bytes are there already. */
static char *unique_name(cudnnctl_ctx *ctx, cc_strv *names, cc_strv *digests, const char *name,
                         const char *data, size_t len, const char *origin)
{
    char hex[65] = "";
    cc_sha256 *h = cc_sha256_new();
    int ok = h && cc_sha256_update(h, data, len) == 0 && cc_sha256_final_hex(h, hex) == 0;
    cc_sha256_free(h);
    size_t i = 0;
    while (i < names->n && strcmp(names->v[i], name) != 0)
        i++;
    if (i == names->n) {
        if (cc_strv_push(names, name) != 0 || cc_strv_push(digests, hex) != 0)
            return NULL;
        return cc_strdup(name);
    }
    if (ok && strcmp(digests->v[i], hex) == 0)
        return NULL; /* the same manifest again */
    const char *dot = strrchr(name, '.');
    size_t stem = dot && strcmp(dot, ".json") == 0 ? (size_t)(dot - name) : strlen(name);
    char *alt = cc_asprintf("%.*s.%.12s.json", (int)stem, name, hex);
    char *msg = alt ? cc_asprintf("two manifests are named %s with different contents: %s is "
                                  "mirrored as %s beside the first",
                                  name, origin, alt)
                    : NULL;
    if (msg)
        cc_event(ctx, CUDNNCTL_EV_WARNING, msg, NULL);
    free(msg);
    if (alt && (cc_strv_push(names, alt) != 0 || cc_strv_push(digests, hex) != 0)) {
        free(alt);
        return NULL;
    }
    return alt;
}

static cudnnctl_err write_manifests(cudnnctl_ctx *ctx, const char *dir, const cudnnctl_archive **v,
                                    size_t n, cudnnctl_mirror_result *r)
{
    cc_strv done = {0}, names = {0}, digests = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t i = 0; i < n && e == CUDNNCTL_E_OK; i++) {
        if (!v[i]->manifest || cc_strv_contains(&done, v[i]->manifest))
            continue;
        char *data = NULL, *name0 = NULL;
        size_t len = 0;
        if ((e = manifest_text(ctx, v[i], &data, &len, &name0)) != CUDNNCTL_E_OK)
            break;
        char *name = unique_name(ctx, &names, &digests, name0, data, len, v[i]->manifest);
        free(name0);
        if (!name) { /* the same bytes under that name already */
            free(data);
            if (cc_strv_push(&done, v[i]->manifest) != 0)
                e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            continue;
        }
        char *dst = cc_path_join(dir, name);
        int grown = cc_grow(&r->manifests, NULL, r->n_manifests + 1, sizeof(char *)) == 0;
        if (!dst || !grown || cc_strv_push(&done, v[i]->manifest) != 0)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (cc_sys_write_file_atomic(ctx, dst, data, len, 0644) != 0)
            e = CC_ERR_PF(ctx, "cannot write manifest", dst);
        else if (!(r->manifests[r->n_manifests] = cc_unrooted(ctx, dst)))
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else
            r->n_manifests++;
        free(dst);
        free(data);
        free(name);
    }
    cc_strv_free(&done);
    cc_strv_free(&names);
    cc_strv_free(&digests);
    return e;
}

/* DIR/index.html: every redistrib_*.json now in DIR (this run's and earlier runs'), linked the
 * way python's http.server lists a directory — what `update --mirror URL` reads when DIR is
 * served. The names are NVIDIA's (digits and dots): nothing to escape. */
static cudnnctl_err write_index(cudnnctl_ctx *ctx, const char *dir, cudnnctl_mirror_result *r)
{
    cc_strv names = {0};
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *n;
    while (d && (n = cc_pf_readdir(d)) != NULL)
        if (cc_catalog_listing_name_ok(n) && cc_strv_push(&names, n) != 0)
            break;
    cc_pf_closedir(d);
    cc_strv_sort(&names);
    cc_buf b = {0};
    cc_buf_printf(&b, "<!DOCTYPE html>\n<html>\n<head><title>cuDNN manifests (cudnnctl "
                      "mirror)</title></head>\n<body>\n<ul>\n");
    for (size_t i = 0; i < names.n; i++)
        cc_buf_printf(&b, "<li><a href=\"%s\">%s</a></li>\n", names.v[i], names.v[i]);
    cc_buf_printf(&b, "</ul>\n</body>\n</html>\n");
    char *path = cc_path_join(dir, "index.html");
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!path || !b.data)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (cc_sys_write_file_atomic(ctx, path, b.data, b.len, 0644) != 0)
        e = CC_ERR_PF(ctx, "cannot write the mirror's index", path);
    else if (!(r->index = cc_unrooted(ctx, path)))
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(path);
    cc_buf_free(&b);
    cc_strv_free(&names);
    return e;
}

/* ---- archives ------------------------------------------------------------------------------- */

/* 1 when dst already holds the archive (size and SHA-256). */
static int already_there(cudnnctl_ctx *ctx, const char *dst, const cudnnctl_archive *a)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(dst, &st) != 0 || !st.exists || !st.is_reg || st.size != a->size)
        return 0;
    char hex[65];
    uint64_t size = 0;
    if (cc_sha256_file(ctx, dst, hex, &size) != 0) {
        cc_clear_error(ctx);
        return 0;
    }
    return size == a->size && strcmp(hex, a->sha256) == 0;
}

/* Stream the archive from its source into tmp (the source hashes it and fills the cache). */
static cudnnctl_err copy_in(cudnnctl_ctx *ctx, const cudnnctl_mirror_opts *o, const char *url,
                            const cudnnctl_archive *a, const char *tmp, uint64_t *bytes)
{
    cc_source_opts so = {0};
    so.url = url;
    so.expected_sha256 = a->sha256;
    so.expected_size = a->size;
    so.cacert = o->cacert;
    so.use_cache = 1;
    so.connections = o->connections;
    so.via_mirror = o->source != NULL; /* the user's upstream (--mirror), not NVIDIA */
    cc_source *src = NULL;
    cudnnctl_err e = cc_source_open(ctx, &so, &src);
    if (e != CUDNNCTL_E_OK)
        return e;
    char *buf = malloc(COPY_CHUNK);
    cc_pf_fd fd =
        buf ? cc_sys_open(ctx, tmp, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644) : -1;
    if (!buf)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (fd < 0)
        e = CC_ERR_PF(ctx, "cannot create", tmp);
    while (e == CUDNNCTL_E_OK) {
        long long n = cc_source_read(src, buf, COPY_CHUNK);
        if (n == 0)
            break;
        if (n < 0) {
            e = cc_source_status(src);
            if (e == CUDNNCTL_E_OK)
                e = cudnnctl_last_error(ctx)->code;
            if (e == CUDNNCTL_E_OK)
                e = CC_ERR(ctx, CUDNNCTL_E_IO, "reading %s failed", url);
        } else if (cc_sys_write_all(ctx, fd, buf, (size_t)n) != 0)
            e = CC_ERR_PF(ctx, "cannot write", tmp);
    }
    char hex[65];
    uint64_t size = 0;
    if (e == CUDNNCTL_E_OK)
        e = cc_source_finish(src, hex, &size);
    if (e == CUDNNCTL_E_OK && cc_sys_fsync(ctx, fd) != 0)
        e = CC_ERR_PF(ctx, "cannot sync", tmp);
    if (fd >= 0 && cc_sys_close(ctx, fd) != 0 && e == CUDNNCTL_E_OK)
        e = CC_ERR_PF(ctx, "cannot close", tmp);
    cc_source_close(src);
    free(buf);
    if (e == CUDNNCTL_E_OK)
        *bytes += size;
    return e;
}

static cudnnctl_err mirror_one(cudnnctl_ctx *ctx, const cudnnctl_mirror_opts *o, const char *dir,
                               const char *base, const cudnnctl_archive *a,
                               cudnnctl_mirror_item *it, uint64_t *bytes)
{
    const char *why = NULL;
    if (cc_relative_path_check(a->relative_path, &why) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST, "relative_path %s in %s is unsafe (%s)",
                   a->relative_path, a->manifest, why);
    char *dst = cc_path_join(dir, a->relative_path);
    char *ddir = dst ? cc_path_dir(dst) : NULL;
    char *tmp = ddir ? cc_asprintf("%s/.cudnnctl-mirror-%s.part", ddir, cc_path_base(dst)) : NULL;
    char *url = cc_source_join(base, a->relative_path);
    char *url_real = url && cc_source_is_local(url) && !cc_str_starts(url, "file://")
                         ? cc_rooted(ctx, url)
                         : (url ? cc_strdup(url) : NULL);
    cudnnctl_err e = CUDNNCTL_E_OK;
    it->relative_path = cc_strdup(a->relative_path);
    it->cudnn_version = cc_strdup(a->cudnn_version);
    it->platform = cc_strdup(a->platform);
    it->cuda_variant = cc_strdup(a->cuda_variant);
    it->sha256 = cc_strdup(a->sha256);
    it->size = a->size;
    it->result = "failed";
    it->path = dst ? cc_unrooted(ctx, dst) : NULL;
    if (!tmp || !url_real || !it->relative_path || !it->path) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (already_there(ctx, dst, a)) {
        it->result = "present";
        goto out;
    }
    if (cc_sys_mkdir_p(ctx, ddir, 0755) != 0) {
        e = CC_ERR_PF(ctx, "cannot create", ddir);
        goto out;
    }
    cc_event(ctx, CUDNNCTL_EV_STEP, a->relative_path, dst);
    if ((e = copy_in(ctx, o, url_real, a, tmp, bytes)) != CUDNNCTL_E_OK)
        goto out;
    if (cc_sys_rename(ctx, tmp, dst) != 0) {
        e = CC_ERR_PF(ctx, "cannot rename into place", dst);
        goto out;
    }
    cc_pf_fsync_dir(ddir);
    it->result = "downloaded";
out:
    if (e != CUDNNCTL_E_OK && tmp) {
        cc_pf_stat_t st;
        if (cc_pf_lstat(tmp, &st) == 0 && st.exists)
            cc_pf_unlink(tmp); /* cleanup: the first error is the one to report */
    }
    CC_FREE_ALL(dst, ddir, tmp, url, url_real);
    return e;
}

/* --for: the framework build's cuDNN (its exact pin, else the newest of its major: a "built
 * with >= M.m" row runs with any later M.x) and its CUDA major fill what the user left open. */
static cudnnctl_err apply_for(cudnnctl_ctx *ctx, const cudnnctl_mirror_opts *in,
                              cudnnctl_mirror_opts *o, char bufs[2][32])
{
    *o = *in;
    if (!in->for_pkg || !*in->for_pkg)
        return CUDNNCTL_E_OK;
    int M = 0, m = -1;
    if (in->cuda && cc_cuda_variant_parse(in->cuda, &M, &m) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_BAD_VERSION, "--cuda %s is not a CUDA version", in->cuda);
    cc_consumer c;
    memset(&c, 0, sizeof(c));
    cudnnctl_err e = cc_compat_consumer(ctx, in->for_pkg, M, m, &c);
    if (e != CUDNNCTL_E_OK)
        return e;
    if (!o->cuda) {
        snprintf(bufs[0], 32, "%d", c.cuda_major);
        o->cuda = bufs[0];
    }
    if (!o->cudnn) {
        if (c.exact)
            snprintf(bufs[1], 32, "%s", c.cudnn);
        else
            snprintf(bufs[1], 32, "%d", atoi(c.cudnn));
        o->cudnn = bufs[1];
    }
    cc_log(ctx, CUDNNCTL_LOG_INFO, "mirror --for %s: cuDNN %s for CUDA %s (%s)", c.label,
           o->cudnn, o->cuda, c.source ? c.source : "compat table");
    cc_consumer_clear(&c);
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_mirror(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                             const cudnnctl_mirror_opts *opts, cudnnctl_mirror_result **out)
{
    *out = NULL;
    cudnnctl_mirror_opts fo;
    char bufs[2][32];
    const cudnnctl_mirror_opts *o = &fo;
    if (!opts)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "mirror needs --to DIR (where the mirror is written)");
    cudnnctl_err fe = apply_for(ctx, opts, &fo, bufs);
    if (fe != CUDNNCTL_E_OK)
        return fe;
    if (!o || !o->to || !*o->to)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "mirror needs --to DIR (where the mirror is written)");
    if (!o->cudnn && !o->cuda && !o->all_versions)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "mirror needs a selection: --cudnn V and/or --cuda M (or --all for every "
                   "release the catalog knows)");
    cudnnctl_err e = o->allow_manifest_override
                         ? CUDNNCTL_E_OK
                         : cc_catalog_trust_refuse(ctx, cat, "mirrored",
                                                   "mirror this one knowingly with "
                                                   "--allow-manifest-override (an install from "
                                                   "the mirror then needs the same flag)");
    if (e != CUDNNCTL_E_OK)
        return e;
    uint64_t t0 = cc_pf_now_ms();
    cudnnctl_mirror_result *r = calloc(1, sizeof(*r));
    if (!r)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    *out = r;
    char *platform = NULL;
    if (o->platform) {
        platform = cc_strdup(o->platform);
    } else if (!o->all_platforms) { /* this machine's key, as detect names it (Jetson, SBSA) */
        cudnnctl_detect_result *det = NULL;
        if ((e = cudnnctl_detect(ctx, &det)) != CUDNNCTL_E_OK)
            return e;
        platform = cc_strdup(det->platform);
        cudnnctl_detect_result_free(det);
    } else {
        platform = cc_strdup("all");
    }
    char *dir = cc_rooted(ctx, o->to);
    const cudnnctl_archive **v = NULL;
    size_t n = 0;
    if (!platform || !dir || !(r->dir = cc_unrooted(ctx, dir))) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((e = select_entries(ctx, cat, o, platform, &v, &n)) != CUDNNCTL_E_OK)
        goto out;
    if (cc_sys_mkdir_p(ctx, dir, 0755) != 0) {
        e = CC_ERR_PF(ctx, "cannot create the mirror dir", r->dir);
        goto out;
    }
    if ((e = write_manifests(ctx, dir, v, n, r)) != CUDNNCTL_E_OK || /* every manifest given */
        (e = write_index(ctx, dir, r)) != CUDNNCTL_E_OK)
        goto out;
    n = keep_install_picks(v, n); /* but of each build only the archive install takes */
    if (!(r->items = calloc(n, sizeof(*r->items)))) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    const char *base = o->source ? o->source : NVIDIA_REDIST;
    for (size_t i = 0; i < n && e == CUDNNCTL_E_OK; i++) {
        e = mirror_one(ctx, o, dir, base, v[i], &r->items[r->n_items], &r->bytes_downloaded);
        r->n_items++;
    }
out:
    r->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
    cudnnctl_free(v);
    free(platform);
    free(dir);
    return e;
}

cudnnctl_err cudnnctl_mirror_result_json(const cudnnctl_mirror_result *r, char **json)
{
    *json = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *ms = root ? cJSON_AddArrayToObject(root, "manifests") : NULL;
    cJSON *as = root ? cJSON_AddArrayToObject(root, "archives") : NULL;
    if (!ms || !as || !cJSON_AddStringToObject(root, "dir", r->dir ? r->dir : "") ||
        !(r->index ? cJSON_AddStringToObject(root, "index", r->index)
                   : cJSON_AddNullToObject(root, "index")) ||
        !cJSON_AddNumberToObject(root, "bytes_downloaded", (double)r->bytes_downloaded) ||
        !cJSON_AddNumberToObject(root, "seconds", r->seconds))
        goto oom;
    for (size_t i = 0; i < r->n_manifests; i++)
        if (!cJSON_AddItemToArray(ms, cJSON_CreateString(r->manifests[i])))
            goto oom;
    for (size_t i = 0; i < r->n_items; i++) {
        const cudnnctl_mirror_item *it = &r->items[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(as, o) ||
            !cJSON_AddStringToObject(o, "relative_path",
                                     it->relative_path ? it->relative_path : "") ||
            !cJSON_AddStringToObject(o, "cudnn_version",
                                     it->cudnn_version ? it->cudnn_version : "") ||
            !cJSON_AddStringToObject(o, "platform", it->platform ? it->platform : "") ||
            !cJSON_AddStringToObject(o, "cuda_variant", it->cuda_variant ? it->cuda_variant : "") ||
            !cJSON_AddStringToObject(o, "sha256", it->sha256 ? it->sha256 : "") ||
            !cJSON_AddNumberToObject(o, "size", (double)it->size) ||
            !cJSON_AddStringToObject(o, "result", it->result ? it->result : "failed") ||
            !cJSON_AddStringToObject(o, "path", it->path ? it->path : ""))
            goto oom;
    }
    return cc_json_out(root, 1, json);
oom:
    cJSON_Delete(root);
    return CUDNNCTL_E_NOMEM;
}
