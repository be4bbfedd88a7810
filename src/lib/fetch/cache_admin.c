/* cache_admin.c: what is in the download cache (`cudnnctl cache list|verify|clean`): blobs
 * under blobs/sha256/<hex> (verified: re-hashed against their name), resumable <hex>.part
 * downloads, the quarantine (bytes whose hash did not match) and cached manifests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cache.h"
#include "grow.h"
#include "hash.h"
#include "store.h"
#include "str.h"
#include "sys.h"

static int push(cudnnctl_cache_listing *l, const char *dir, const char *name, const char *kind,
                const char *sha)
{
    if (cc_grow(&l->entries, NULL, l->n + 1, sizeof(*l->entries)) != 0)
        return -1;
    cudnnctl_cache_entry *e = &l->entries[l->n];
    memset(e, 0, sizeof(*e));
    e->path = cc_path_join(dir, name);
    e->kind = kind;
    e->sha256 = sha ? cc_strndup(sha, 64) : NULL;
    e->verified = -1;
    cc_pf_stat_t st;
    if (!e->path || (sha && !e->sha256)) {
        free(e->path);
        free(e->sha256);
        return -1;
    }
    if (cc_pf_stat(e->path, &st) == 0 && st.exists) {
        e->size = st.size;
        e->last_used = st.mtime;
    }
    l->total += e->size;
    l->n++;
    return 0;
}

/* Every entry of dir as kind (blobs: by their name's hash). */
static int scan(cudnnctl_cache_listing *l, const char *dir, int blobs, const char *kind)
{
    /* opened without following a final link: a `quarantine` planted as a link to another
     * directory is not listed, so clean cannot be made to delete what it points at */
    cc_pf_dir *d = cc_pf_opendir_nofollow(dir);
    if (!d)
        return 0; /* not there (or not a directory of ours): nothing of that kind */
    const char *name;
    int rc = 0;
    while (rc == 0 && (name = cc_pf_readdir(d)) != NULL) {
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        size_t n = strlen(name);
        char h[65];
        snprintf(h, sizeof(h), "%.64s", name);
        int hex64 = n >= 64 && cc_sha256_is_hex(h);
        if (!blobs)
            rc = push(l, dir, name, kind, NULL);
        else if (hex64 && n == 64)
            rc = push(l, dir, name, "blob", h);
        else if (hex64 && cc_str_ends(name, ".part"))
            rc = push(l, dir, name, "part", h);
        else
            rc = push(l, dir, name, "other", NULL);
    }
    cc_pf_closedir(d);
    return rc;
}

/* The unpacked store's entries, as the store lists them (store_admin.c). */
static int push_store(void *user, const char *path, const char *kind, const char *sha,
                      uint64_t size, int64_t last_used)
{
    cudnnctl_cache_listing *l = user;
    char *dir = cc_path_dir(path);
    int rc = dir ? push(l, dir, cc_path_base(path), kind, sha) : -1;
    free(dir);
    if (rc == 0) {
        cudnnctl_cache_entry *e = &l->entries[l->n - 1];
        l->total -= e->size;
        e->size = size;
        e->last_used = last_used;
        l->total += size;
    }
    return rc;
}

cudnnctl_err cudnnctl_cache_list(cudnnctl_ctx *ctx, int verify, cudnnctl_cache_listing **out)
{
    *out = NULL;
    cudnnctl_cache_listing *l = calloc(1, sizeof(*l));
    if (!l || !(l->dir = cc_cache_dir(ctx))) {
        free(l);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    cudnnctl_err te = cc_trust_dir(ctx, l->dir, "download cache", "--cache-dir DIR");
    if (te != CUDNNCTL_E_OK) {
        cudnnctl_cache_listing_free(l);
        return te;
    }
    char *blobs = cc_path_join(l->dir, "blobs/sha256");
    char *quar = cc_path_join(l->dir, "quarantine");
    char *mans = cc_path_join(l->dir, "manifests");
    int bad = !blobs || !quar || !mans || scan(l, blobs, 1, NULL) != 0 ||
              scan(l, quar, 0, "quarantine") != 0 || scan(l, mans, 0, "manifest") != 0 ||
              cc_store_scan(ctx, push_store, l) != 0;
    free(blobs);
    free(quar);
    free(mans);
    if (bad) {
        cudnnctl_cache_listing_free(l);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; verify && i < l->n; i++) {
        cudnnctl_cache_entry *e = &l->entries[i];
        if (strcmp(e->kind, "store") == 0) { /* every file against its recorded SHA-256 */
            e->verified = cc_store_verify_dir(ctx, e->path);
            l->n_bad += !e->verified;
            continue;
        }
        if (strcmp(e->kind, "blob") != 0)
            continue;
        char hex[65];
        uint64_t size = 0;
        if (cc_sha256_file(ctx, e->path, hex, &size) != 0) {
            cudnnctl_cache_listing_free(l);
            return cudnnctl_last_error(ctx)->code ? cudnnctl_last_error(ctx)->code
                                                  : CC_ERR(ctx, CUDNNCTL_E_IO, "cannot read %s",
                                                           e->path);
        }
        e->verified = strcmp(hex, e->sha256) == 0;
        l->n_bad += !e->verified;
    }
    *out = l;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_cache_clean(cudnnctl_ctx *ctx, int dry_run, cudnnctl_cache_listing **out)
{
    cudnnctl_err e = cudnnctl_cache_list(ctx, 0, out);
    if (e != CUDNNCTL_E_OK || dry_run)
        return e;
    cudnnctl_cache_listing *l = *out;
    for (size_t i = 0; i < l->n; i++) {
        cc_pf_stat_t st;
        const char *p = l->entries[i].path;
        int rc = cc_pf_stat(p, &st) == 0 && st.is_dir ? cc_sys_rm_rf(ctx, p) : cc_sys_unlink(ctx, p);
        if (rc != 0)
            return CC_ERR(ctx, cc_pf_last_error(), "cannot remove %s from the cache: %s", p,
                          cc_pf_last_error_text());
        l->entries[i].removed = 1;
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_cache_listing_json(const cudnnctl_cache_listing *l, char **json)
{
    cJSON *root = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(root, "entries");
    int ok = root && a && cJSON_AddStringToObject(root, "dir", l->dir) &&
             cJSON_AddNumberToObject(root, "total_bytes", (double)l->total) &&
             cJSON_AddNumberToObject(root, "mismatched", (double)l->n_bad);
    for (size_t i = 0; ok && i < l->n; i++) {
        const cudnnctl_cache_entry *e = &l->entries[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(a, o) && cJSON_AddStringToObject(o, "path", e->path) &&
             cJSON_AddStringToObject(o, "kind", e->kind) &&
             (e->sha256 ? cJSON_AddStringToObject(o, "sha256", e->sha256)
                        : cJSON_AddNullToObject(o, "sha256")) &&
             cJSON_AddNumberToObject(o, "size", (double)e->size) &&
             (e->verified < 0 ? cJSON_AddNullToObject(o, "verified")
                              : cJSON_AddBoolToObject(o, "verified", e->verified)) &&
             cJSON_AddBoolToObject(o, "removed", e->removed) &&
             cJSON_AddNumberToObject(o, "last_used", (double)e->last_used);
    }
    *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

void cudnnctl_cache_listing_free(cudnnctl_cache_listing *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->entries[i].path);
        free(l->entries[i].sha256);
    }
    free(l->entries);
    free(l->dir);
    free(l);
}
