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
#include "install_wheel.h"
#include "journal.h"
#include "receipt.h"
#include "source.h"
#include "store.h"
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
 * the path in between changes nothing; docs/security.md, "Running as root"). A download is
 * unpacked as it lands instead (its entries from the part the bytes were hashed into, the
 * directory checked at the end: cc_extract_zip_download), unless the unpacked store copies the
 * files as they are written. */
static cudnnctl_err extract_zip(cudnnctl_ctx *ctx, cc_source *src, cc_extract_opts *xo,
                                const char *staging, cc_staging *st, char digest[65],
                                uint64_t *size)
{
    if (!xo->on_file && cc_source_part(src)) {
        archive_held(ctx, src);
        cudnnctl_err rc = cc_extract_zip_download(ctx, xo, src, staging, st);
        if (rc == CUDNNCTL_E_OK)
            rc = cc_source_finish(src, digest, size); /* done already: the digest */
        cc_source_close(src);
        return rc;
    }
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

/* ---- the unpacked store (store.h): a verified archive extracted once is linked or copied from
 * there by the next install of it, into any target ---- */
static cc_store_mode store_mode(cudnnctl_link_mode m)
{
    return m == CUDNNCTL_LINK_COPY      ? CC_STORE_COPY
           : m == CUDNNCTL_LINK_REFLINK  ? CC_STORE_REFLINK
           : m == CUDNNCTL_LINK_HARDLINK ? CC_STORE_HARDLINK
                                         : CC_STORE_AUTO;
}

/* The entry's records as the extractor would have made them (tree_scan then hashes nothing). */
static cudnnctl_err staging_of(cudnnctl_ctx *ctx, const cc_store_entry *e, cc_staging *st)
{
    memset(st, 0, sizeof(*st));
    st->files = calloc(e->n ? e->n : 1, sizeof(*st->files));
    if (!st->files)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < e->n; i++) {
        const cc_store_file *f = &e->files[i];
        if (f->type == CC_ST_DIR)
            continue;
        cc_staged_file *r = &st->files[st->n_files++];
        r->path = cc_strdup(f->rel);
        r->is_link = f->type == CC_ST_LINK;
        r->link_target = r->is_link ? cc_strdup(f->link_target) : NULL;
        r->mode = f->mode;
        r->size = f->size;
        memcpy(r->sha256, f->sha256, sizeof(r->sha256));
        st->bytes += r->is_link ? 0 : f->size;
        if (!r->path || (r->is_link && !r->link_target)) {
            cc_staging_free(st);
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
    }
    return CUDNNCTL_E_OK;
}

/* staging back to the empty dir it was given. */
static cudnnctl_err empty_staging(cudnnctl_ctx *ctx, const char *staging)
{
    if (cc_sys_rm_rf(ctx, staging) != 0 || cc_sys_mkdir(ctx, staging, 0755) != 0)
        return CC_ERR_PF(ctx, "cannot empty the staging dir", staging);
    return CUDNNCTL_E_OK;
}

/* A hit fills staging (*done 1). An entry that fails its records is quarantined (*rebuild 1)
 * and staging emptied again: the caller extracts the archive and fills the store anew. */
static cudnnctl_err from_store(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                               const cc_source_choice *c, const char *key, const char *staging,
                               cc_staging *st, char digest[65], uint64_t *size, int *done,
                               int *rebuild)
{
    cc_store_entry e;
    int found = 0, bad = 0;
    cc_store_placed pl;
    *done = *rebuild = 0;
    cudnnctl_err rc = cc_store_lookup(ctx, key, &e, &found);
    if (rc != CUDNNCTL_E_OK || !found || (c->size && e.archive_size != c->size))
        goto out; /* a size the catalog disagrees with: the archive itself decides */
    rc = cc_store_place(ctx, &e, staging, store_mode(o->link_mode), &pl, &bad);
    if (rc == CUDNNCTL_E_OK && !bad && (rc = staging_of(ctx, &e, st)) == CUDNNCTL_E_OK) {
        memcpy(digest, e.archive_sha256, 65);
        *size = e.archive_size;
        st->store = "hit";
        st->store_link = pl.how;
        cc_store_touch(&e);
        cc_log(ctx, CUDNNCTL_LOG_INFO, "store: %zu files (%llu bytes) from %s by %s", pl.n_files,
               (unsigned long long)pl.bytes, e.dir, pl.how);
        *done = 1;
        goto out;
    }
    cudnnctl_err erc = empty_staging(ctx, staging);
    if (rc == CUDNNCTL_E_OK)
        rc = erc;
    if (rc == CUDNNCTL_E_OK && bad) {
        char *q = NULL;
        if (cc_store_quarantine(ctx, &e, &q) != CUDNNCTL_E_OK)
            rc = ctx->err.code;
        else
            cc_event(ctx, CUDNNCTL_EV_WARNING,
                     "the unpacked store's entry failed its recorded SHA-256: quarantined, the "
                     "archive is extracted again",
                     q);
        free(q);
        *rebuild = 1;
    }
out:
    cc_store_entry_free(&e);
    return rc;
}

/* After the archive's digest matched: the staged tree goes into the store (best effort: a store
 * that cannot be filled is said in the log and the install goes on). */
static void fill_store(cudnnctl_ctx *ctx, cc_store_fill *fill, cc_staging *st,
                       const char *digest, uint64_t size, int rebuild)
{
    cc_store_file *known = calloc(st->n_files ? st->n_files : 1, sizeof(*known));
    for (size_t i = 0; known && i < st->n_files; i++) {
        known[i].rel = st->files[i].path; /* borrowed */
        known[i].size = st->files[i].size;
        memcpy(known[i].sha256, st->files[i].sha256, sizeof(known[i].sha256));
    }
    cudnnctl_err rc = known ? cc_store_fill_commit(ctx, fill, known, st->n_files, digest, size)
                            : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (!known)
        cc_store_fill_abort(ctx, fill);
    free(known);
    st->store = rc == CUDNNCTL_E_OK ? (rebuild ? "rebuilt" : "filled") : "skipped";
    if (rc != CUDNNCTL_E_OK) {
        cc_log(ctx, CUDNNCTL_LOG_WARN, "store: not filled: %s", cudnnctl_last_error(ctx)->detail);
        cc_clear_error(ctx);
    }
}

/* Bytes → staging, verified. A mismatch leaves nothing but the quarantined download. */
static cudnnctl_err decode(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                           const cc_source_choice *c, const char *url, const char *staging,
                           cc_staging *st, char digest[65], uint64_t *size, cc_store_fill *fill)
{
    cc_source_opts so = {0};
    cc_source *src = NULL;
    cudnnctl_err rc;
    so.url = url;
    so.expected_sha256 = c->sha256;
    so.expected_size = c->size;
    so.cacert = o->cacert;
    so.insecure_skip_verify = c->sha256 ? 0 : 1;
    so.use_cache = !o->no_cache;
    so.connections = o->connections;
    so.via_mirror = c->via_mirror;
    so.sha256_from_user = o->sha256 != NULL;
    so.wheel = c->wheel != NULL && !o->sha256;
    /* NVIDIA's Windows archives and its wheels (a zip too) */
    so.keep_file = cc_str_iends(c->file_name, ".zip") || cc_str_iends(c->file_name, ".whl");
    so.read_from_part = so.keep_file && !fill; /* a zip download: unpacked as it lands */
    /* into a CUDA tree only cuDNN's own files; bombs refused on their headers (extract.h) */
    cc_extract_opts xo = {.name_hint = c->file_name,
                          .archive_size = c->size,
                          .max_unpacked = o->max_unpacked,
                          .components = c->components,
                          .content = c->plan->mode == CUDNNCTL_TARGET_CUDA_TREE
                                         ? CC_CONTENT_CUDA_TREE
                                         : CC_CONTENT_ANY,
                          .on_file = fill ? cc_store_fill_file : NULL,
                          .on_file_user = fill,
                          /* NVIDIA's wheel as the catalog pins it: its RECORD is covered */
                          .wheel_record = c->wheel && c->sha256 && !o->sha256};
    cc_pf_stat_t ast; /* a local archive the catalog does not size: its size on disk */
    if (!xo.archive_size && !strstr(url, "://") && cc_pf_stat(url, &ast) == 0 && ast.is_reg)
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

/* The bytes decoded: the wheel source first has pip fetch the wheel (install_wheel.c), unless
 * the cache holds it already. */
static cudnnctl_err fetch_decode(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                                 const cc_source_choice *c, const char *staging, cc_staging *st,
                                 char digest[65], uint64_t *size, cc_store_fill *fill)
{
    if (!c->via_pip || (!o->no_cache && cc_cache_has(ctx, c->sha256, c->size)))
        return decode(ctx, o, c, c->url, staging, st, digest, size, fill);
    char *dir = NULL, *file = NULL;
    cudnnctl_err rc = cc_wheel_fetch(ctx, o, c->wheel, &dir, &file);
    if (rc == CUDNNCTL_E_OK)
        rc = decode(ctx, o, c, file, staging, st, digest, size, fill);
    cc_wheel_fetch_done(ctx, c->wheel, dir, file, rc == CUDNNCTL_E_OK && !o->no_cache);
    free(dir);
    free(file);
    return rc;
}

/* Bytes → staging, verified: from the unpacked store when it holds them, else decoded (and
 * kept in the store). */
static cudnnctl_err fetch_extract(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                  const char *staging, cc_staging *st, char digest[65],
                                  uint64_t *size)
{
    const cudnnctl_install_opts *o = user;
    /* the store is keyed by a verified digest: none without one, none with --no-cache */
    char *key = o->use_store && c->sha256 && !o->no_cache
                    ? cc_store_key(c->sha256, c->components,
                                   c->plan->mode == CUDNNCTL_TARGET_CUDA_TREE)
                    : NULL;
    int done = 0, rebuild = 0;
    /* an --archive the user handed over is always read and checked (the bytes asked about),
     * and fills the store; catalog and mirror installs, keyed by the catalog's digest, use it */
    cudnnctl_err rc = key && !o->archive
                          ? from_store(ctx, o, c, key, staging, st, digest, size, &done, &rebuild)
                          : CUDNNCTL_E_OK;
    if (rc != CUDNNCTL_E_OK || done) {
        free(key);
        return rc;
    }
    cc_store_fill *fill = key ? cc_store_fill_begin(ctx, key, staging) : NULL;
    rc = fetch_decode(ctx, o, c, staging, st, digest, size, fill);
    if (rc == CUDNNCTL_E_OK && fill)
        fill_store(ctx, fill, st, digest, *size, rebuild);
    else
        cc_store_fill_abort(ctx, fill);
    free(key);
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
