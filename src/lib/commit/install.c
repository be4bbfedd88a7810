/* install.c: the install pipeline's public face. cudnnctl_install_prepare (install_prepare.c:
 * plan → lock → recover → source (cache) → extract into staging → verify → links → commit
 * planned) and cudnnctl_install_commit (journaled commit → environment → ldconfig → receipt),
 * libalpm-style; cudnnctl_install runs both. */
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "direct.h"
#include "content_policy.h"
#include "install_internal.h"
#include "journal.h"
#include "receipt.h"
#include "source.h"
#include "winenv.h"

/* Tests: the archive is held open (and a zip verified); it is unpacked next. The path: where
 * its bytes are now (a verified download: the cache blob), else the file being read. */
static void archive_held(cudnnctl_ctx *ctx, const cc_source *src)
{
    if (!ctx->archive_hook)
        return;
    const char *p = cc_source_path(src);
    ctx->archive_hook(ctx->archive_hook_user, p ? p : cc_source_file(src));
}

/* A zip needs its central directory: verified first (hashed as it is read or lands), then
 * unpacked from the very file that was hashed — by descriptor, never by path again (a swap of
 * the path in between changes nothing; docs/security.md, "Running as root"). */
static cudnnctl_err extract_zip(cudnnctl_ctx *ctx, cc_source *src, cc_extract_opts *xo,
                                const char *staging, cc_staging *st, char digest[65],
                                uint64_t *size)
{
    cudnnctl_err rc = cc_source_finish(src, digest, size);
    cc_pf_fd fd = rc == CUDNNCTL_E_OK ? cc_source_take_file(src) : -1;
    if (rc == CUDNNCTL_E_OK && fd < 0)
        rc = cudnnctl_last_error(ctx)->code;
    if (rc == CUDNNCTL_E_OK) {
        archive_held(ctx, src);
        xo->has_fd = 1;
        xo->fd = fd;
        rc = cc_extract_ex(ctx, xo, staging, st);
    }
    if (fd >= 0)
        cc_pf_close(fd);
    cc_source_close(src); /* after the extraction: a private download is removed only now */
    return rc;
}

/* Bytes → staging, verified. A mismatch leaves nothing but the quarantined download. */
static cudnnctl_err fetch_extract(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                  const char *staging, cc_staging *st, char digest[65],
                                  uint64_t *size)
{
    const cudnnctl_install_opts *o = user;
    cc_source_opts so = {0};
    cc_source *src = NULL;
    cudnnctl_err rc;
    so.url = c->url;
    so.expected_sha256 = c->sha256;
    so.expected_size = c->size;
    so.cacert = o->cacert;
    so.insecure_skip_verify = c->sha256 ? 0 : 1;
    so.use_cache = !o->no_cache;
    so.connections = o->connections;
    so.via_mirror = c->via_mirror;
    so.sha256_from_user = o->sha256 != NULL;
    so.keep_file = cc_str_iends(c->file_name, ".zip");
    /* into a CUDA tree only cuDNN's own files; bombs refused on their headers (extract.h) */
    cc_extract_opts xo = {.name_hint = c->file_name, .archive_size = c->size,
                          .max_unpacked = o->max_unpacked, .components = c->components,
                          .content = c->plan->mode == CUDNNCTL_TARGET_CUDA_TREE
                                         ? CC_CONTENT_CUDA_TREE : CC_CONTENT_ANY};
    cc_pf_stat_t ast; /* a local archive the catalog does not size: its size on disk */
    if (!xo.archive_size && !strstr(c->url, "://") && cc_pf_stat(c->url, &ast) == 0 && ast.is_reg)
        xo.archive_size = ast.size;
    if ((rc = cc_source_open(ctx, &so, &src)) != CUDNNCTL_E_OK)
        return rc;
    if (so.keep_file)
        return extract_zip(ctx, src, &xo, staging, st, digest, size);
    archive_held(ctx, src); /* a stream: the bytes unpacked are the bytes hashed, as they come */
    xo.read_fn = cc_extract_source_read;
    xo.user = src;
    rc = cc_extract_ex(ctx, &xo, staging, st);
    if (rc != CUDNNCTL_E_OK) {
        /* a damaged or tampered download shows first as a bad archive: the digest says which */
        if (c->sha256) {
            cc_saved_err s;
            cc_err_save(ctx, &s);
            cudnnctl_err frc = cc_source_finish(src, digest, size);
            if (frc == CUDNNCTL_E_HASH_MISMATCH || frc == CUDNNCTL_E_SIZE_MISMATCH) {
                free(s.detail);
                rc = frc;
            } else {
                cc_err_restore(ctx, &s, NULL);
            }
        }
    } else {
        rc = cc_source_finish(src, digest, size);
    }
    cc_source_close(src);
    return rc;
}

/* After the commit point: what the result reports, the environment, ldconfig. */
static void commit_after(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cudnnctl_install_result *res = h->res;
    cc_strv written = {0}, replaced = {0};
    res->receipt_id = cc_strdup(h->rec.id);
    res->receipt_path = cc_unrooted(ctx, h->rec.file);
    for (size_t i = 0; i < h->rec.n_entries; i++)
        cc_strv_push(&written, h->rec.entries[i].path);
    for (size_t i = 0; i < h->rec.n_replaced; i++)
        cc_strv_push(&replaced, h->rec.replaced[i].path);
    cc_install_copy_strv(&res->files_written, &res->n_files_written, &written);
    cc_install_copy_strv(&res->files_replaced, &res->n_files_replaced, &replaced);
    cc_strv_free(&written);
    cc_strv_free(&replaced);
    res->bytes_written = h->tree.bytes;
    if (h->env_on) {
        int n_env = 0;
        cc_saved_err se;
        cc_err_save(ctx, &se);
        if (cc_install_wire_env(ctx, &h->opts, h->ch.plan, &h->dest, 0, NULL, &n_env) !=
            CUDNNCTL_E_OK) {
            cc_strv_push_own(&h->warnings,
                             cc_asprintf("the environment was not updated: %s",
                                         cudnnctl_last_error(ctx)->detail));
            cc_err_restore(ctx, &se, NULL);
        } else {
            cc_install_step(ctx, &h->steps,
                            cc_asprintf("environment: %d registry value(s) set in %s (CUDA_PATH, "
                                        "PATH)",
                                        n_env,
                                        h->opts.system_env ? CC_WINENV_SYSTEM_KEY
                                                           : CC_WINENV_USER_KEY));
        }
    }
    cc_saved_err sr;
    cc_err_save(ctx, &sr);
    if (h->dest.direct && cc_direct_record(ctx, h->state, h->target_shown,
                                           cc_path_base(h->dest.install_dir)) != CUDNNCTL_E_OK)
        cc_strv_push_own(&h->warnings, cc_asprintf("the selected install of %s was not recorded "
                                                   "(the newest is taken): %s",
                                                   h->target_shown,
                                                   cudnnctl_last_error(ctx)->detail));
    cc_err_restore(ctx, &sr, NULL);
    cc_ldconfig(ctx, h->ch.plan->mode, h->opts.no_ldconfig, &res->ldconfig);
    cc_install_step(ctx, &h->steps,
                    cc_asprintf("ldconfig: %s", res->ldconfig ? res->ldconfig : "?"));
    cc_install_step(ctx, &h->steps,
                    cc_asprintf("receipt: %s", res->receipt_path ? res->receipt_path : "?"));
}

/* The files: the journaled commit, then the environment, ldconfig and the receipt. */
static cudnnctl_err commit_files(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    h->pending = 0;
    cudnnctl_err rc = cc_cancel_check(ctx, "the preparation");
    if (rc != CUDNNCTL_E_OK)
        goto out; /* release rolls the staging back */
    size_t n_files = 0, n_links = 0, n_stale = 0;
    const cc_receipt *rec = &h->rec;
    for (size_t i = 0; i < rec->n_entries; i++)
        *(rec->entries[i].type == CC_OBJ_LINK ? &n_links : &n_files) += 1;
    for (size_t i = 0; i < rec->n_replaced; i++)
        n_stale += strcmp(rec->replaced[i].reason, "stale") == 0;
    cc_install_step(ctx, &h->steps,
                    cc_asprintf("commit: %zu files and %zu links into %s (%zu replaced and kept "
                                "as backups, %zu stale sub-libraries moved out)",
                                n_files, n_links, h->res->install_dir, rec->n_replaced - n_stale,
                                n_stale));
    rc = cc_txn_run(ctx, h->txn);
    if (rc != CUDNNCTL_E_OK && h->txn->phase != CC_PH_COMMITTED) {
        rc = cc_install_perm_hint(ctx, rc, h->target_shown);
        cc_txn_free(h->txn); /* cc_txn_run rolled it back (or left the journal for the next run) */
        h->txn = NULL;
        goto out;
    }
    h->res->result = CUDNNCTL_INSTALL_INSTALLED; /* the files are in place even if bookkeeping failed (JOURNAL) */
    cc_txn_free(h->txn);
    h->txn = NULL;
    commit_after(ctx, h);
out:
    if (rc != CUDNNCTL_E_OK && h->res->result != CUDNNCTL_INSTALL_INSTALLED)
        h->res->result = CUDNNCTL_INSTALL_FAILED;
    h->res->error = rc;
    cc_install_publish(h);
    return rc;
}

cudnnctl_err cudnnctl_install_commit(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    if (!h)
        return CUDNNCTL_E_OK;
    /* unchanged / switched / dry-run: nothing to commit */
    cudnnctl_err rc = h->pending ? commit_files(ctx, h) : CUDNNCTL_E_OK;
    /* the rule (opts.validate): what is now in place is validated on the GPU in a child; no GPU
     * is a warning, a failed check the call's error while the install stands */
    if (rc != CUDNNCTL_E_OK || !h->opts.validate || h->opts.dry_run || h->validated)
        return rc;
    h->validated = 1;
    return cc_install_validate(ctx, &h->opts, h->res);
}


cudnnctl_err cudnnctl_install_prepare(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                      const cudnnctl_detect_result *det,
                                      const cudnnctl_install_opts *opts,
                                      cudnnctl_install_handle **h, cudnnctl_install_result **out)
{
    return cc_install_prepare_with(ctx, cat, det, opts, fetch_extract, (void *)opts, h, out);
}

cudnnctl_err cudnnctl_install(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                              const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                              cudnnctl_install_result **out)
{
    return cc_install_with(ctx, cat, det, o, fetch_extract, (void *)o, out); /* validates too */
}

cudnnctl_err cc_install_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                             const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                             cc_populate_fn populate, void *user, cudnnctl_install_result **out)
{
    cudnnctl_install_handle *h = NULL;
    cudnnctl_err rc = cc_install_prepare_with(ctx, cat, det, o, populate, user, &h, out);
    if (rc == CUDNNCTL_E_OK)
        rc = cudnnctl_install_commit(ctx, h);
    cudnnctl_install_release(ctx, h);
    return rc;
}
