/* cache.c: the content-addressed download cache under cc_cache_dir: blob and part paths, the
 * per-blob download lock, committing a verified part, and the quarantine. */
#include "cache.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dirops.h"
#include "hash.h"
#include "source.h"

char *cc_cache_blob_path(cudnnctl_ctx *ctx, const char *sha256_hex)
{
    char *root = cc_cache_dir(ctx);
    char *hex = cc_str_lower(sha256_hex);
    char *p = NULL;
    if (root && hex)
        p = cc_path_join3(root, "blobs/sha256", hex);
    free(root);
    free(hex);
    return p;
}

int cc_cache_has(cudnnctl_ctx *ctx, const char *sha256_hex, uint64_t expected_size)
{
    if (!cc_sha256_is_hex(sha256_hex))
        return 0;
    char *p = cc_cache_blob_path(ctx, sha256_hex);
    cc_pf_stat_t st;
    int ok = p && cc_pf_stat(p, &st) == 0 && st.exists && st.is_reg &&
             (expected_size == 0 || st.size == expected_size);
    free(p);
    return ok;
}

cudnnctl_err cc_cache_entry_open(cudnnctl_ctx *ctx, const char *sha256_hex, cc_cache_entry *e)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    char *blobs = NULL, *locks = NULL, *hex = NULL;
    memset(e, 0, sizeof(*e));
    e->lock_fd = -1;
    e->root = cc_cache_dir(ctx);
    if (!e->root) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    blobs = cc_path_join(e->root, "blobs/sha256");
    locks = cc_path_join(e->root, "locks");
    if (!blobs || !locks) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = cc_trust_dir(ctx, e->root, "download cache", "--cache-dir DIR")) != CUDNNCTL_E_OK)
        goto out;
    if (cc_sys_mkdir_p(ctx, blobs, 0755) != 0 || cc_sys_mkdir_p(ctx, locks, 0755) != 0) {
        rc = cc_set_error(ctx, cc_pf_last_error(), __func__, __FILE__, __LINE__,
                          "cannot create the download cache under %s: %s; choose another place "
                          "with --cache-dir DIR",
                          e->root, cc_pf_last_error_text());
        goto out;
    }
    if (sha256_hex) {
        hex = cc_str_lower(sha256_hex);
        e->blob = cc_path_join(blobs, hex);
        e->part = cc_asprintf("%s.part", e->blob);
        e->resumable = 1;
    } else {
        /* nothing to key a resume on: a private part, named by process and time */
        char *tok = cc_sys_random_token();
        hex = tok ? cc_asprintf("tmp-%ld-%s", cc_pf_getpid(), tok) : NULL;
        free(tok);
        e->part = hex ? cc_asprintf("%s/%s.part", blobs, hex) : NULL;
    }
    if (!e->part) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (!e->resumable)
        goto out; /* a private name needs no lock */
    char *lock_path = cc_asprintf("%s/%s.lock", locks, hex);
    if (!lock_path) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    int busy = 0;
    if (cc_pf_lock(lock_path, &e->lock_fd, &busy) != 0) {
        if (busy)
            rc = CC_ERR(ctx, CUDNNCTL_E_LOCKED,
                        "another cudnnctl is downloading the same archive into %s (lock %s); "
                        "wait for it to finish, then run again (the cache will have it)",
                        e->root, lock_path);
        else
            rc = CC_ERR(ctx, cc_pf_last_error(), "cannot lock %s: %s", lock_path,
                        cc_pf_last_error_text());
        e->lock_fd = -1;
    }
    free(lock_path);
out:
    free(blobs);
    free(locks);
    free(hex);
    if (rc != CUDNNCTL_E_OK)
        cc_cache_entry_close(ctx, e);
    return rc;
}

void cc_cache_entry_close(cudnnctl_ctx *ctx, cc_cache_entry *e)
{
    (void)ctx;
    if (e->lock_fd >= 0)
        cc_pf_unlock(e->lock_fd);
    e->lock_fd = -1;
    free(e->root);
    free(e->blob);
    free(e->part);
    memset(e, 0, sizeof(*e));
    e->lock_fd = -1;
}

void cc_cache_drop_record(cudnnctl_ctx *ctx, const char *part)
{
    char *rec = part ? cc_asprintf("%s.prefix", part) : NULL;
    cc_pf_stat_t st;
    if (rec && cc_pf_lstat(rec, &st) == 0 && st.exists)
        (void)cc_sys_unlink(ctx, rec);
    free(rec);
}

cudnnctl_err cc_cache_commit(cudnnctl_ctx *ctx, cc_cache_entry *e, const char *actual_hex,
                             char **blob_out)
{
    *blob_out = NULL;
    char *blob = cc_cache_blob_path(ctx, actual_hex);
    if (!blob)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_sys_rename(ctx, e->part, blob) != 0) {
        cudnnctl_err rc =
            CC_ERR(ctx, cc_pf_last_error(), "cannot move the verified download %s to %s: %s",
                   e->part, blob, cc_pf_last_error_text());
        free(blob);
        return rc;
    }
    /* No fsync of the file or the dir: a blob torn by a crash fails the re-hash on its next use
     * and is quarantined; syncing made ext4 write out the whole file (0.5 s per 300 MB). */
    cc_cache_drop_record(ctx, e->part);
    *blob_out = blob;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_cache_quarantine(cudnnctl_ctx *ctx, const char *path, const char *actual_hex,
                                 const char *name, char **qpath)
{
    char *root = cc_cache_dir(ctx);
    /* keep the name readable: drop a URL's query and any directory part */
    char *base = cc_strdup(name && *name ? cc_path_base(name) : "download");
    if (base) {
        base[strcspn(base, "?#")] = '\0';
        if (!*base) {
            free(base);
            base = cc_strdup("download");
        }
    }
    char *qname = base ? cc_asprintf("%s-%s", actual_hex, base) : NULL;
    cudnnctl_err rc = cc_quarantine_move(ctx, root, path, qname, "", "", 1, qpath);
    if (rc == CUDNNCTL_E_OK)
        cc_cache_drop_record(ctx, path);
    free(root);
    free(base);
    free(qname);
    return rc;
}
