/* store_fill.c: filling the unpacked store while an archive is extracted. Each staged file the
 * extractor finishes is copied (reflink or copy_file_range, else read/write), made read-only,
 * given its mtime and fsync'd by the filler's own thread, behind the decoder; after the archive's
 * digest matched, the rest (links, dirs, any file not copied yet) and the manifest are written
 * and the entry goes live in one rename. Until then it is a tmp dir nothing believes. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "dirops.h"
#include "grow.h"
#include "hash.h"
#include "sys.h"

#define BLOCK ((size_t)4 << 20)

struct cc_store_fill {
    char *key, *tmp, *tree, *final_dir, *root_real; /* root_real: staging's real path */
    size_t root_len;
    cc_pf_thread *thread;
    cc_pf_mutex *mu;
    cc_pf_cond *cv;
    cc_strv queue, done; /* staged paths to copy; rels copied */
    size_t next;
    int closing, failed;
    char *err;
    char *buf;
};

/* Copy one staged file (absolute path) to the same rel under tree. Thread side: no ctx. */
static int copy_one(struct cc_store_fill *f, const char *rel)
{
    char *src = cc_path_join(f->root_real, rel), *dst = cc_path_join(f->tree, rel);
    char *dir = dst ? cc_path_dir(dst) : NULL;
    int rc = -1, how = 0;
    cc_pf_fd in = -1, out = -1;
    cc_pf_stat_t st;
    if (!src || !dst || !dir)
        goto out;
    size_t tl = strlen(f->tree);
    if (strlen(dir) > tl) { /* the parents under tree, as the staged tree has them */
        for (char *p = dir + tl + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                cc_pf_mkdir(dir, 0755);
                *p = '/';
            }
        cc_pf_mkdir(dir, 0755);
    }
    if ((in = cc_pf_open(src, CC_PF_O_RDONLY, 0)) < 0 || cc_pf_fstat(in, &st) != 0)
        goto out;
    if ((out = cc_pf_open(dst, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, 0600)) < 0)
        goto out;
    if (cc_pf_copy_fd(in, out, st.size, 1, &how) != 0) {
        uint64_t done = 0;
        while (done < st.size) {
            long long n = cc_pf_read(in, f->buf, BLOCK);
            if (n <= 0)
                goto out;
            for (long long w = 0; w < n;) {
                long long k = cc_pf_write(out, f->buf + w, (size_t)(n - w));
                if (k <= 0)
                    goto out;
                w += k;
            }
            done += (uint64_t)n;
        }
    }
    cc_pf_stat_t sst;
    if (cc_pf_lstat(src, &sst) != 0) /* mode from the path: fstat of Windows has none */
        goto out;
    if (cc_pf_fset_mode_time(out, sst.mode & 07555, sst.mtime, sst.mtime_ns) != 0 ||
        cc_pf_fsync(out) != 0)
        goto out;
    rc = 0;
out:
    if (rc != 0 && !f->err)
        f->err = cc_asprintf("%s: %s", dst ? dst : rel, cc_pf_last_error_text());
    if (in >= 0)
        cc_pf_close(in);
    if (out >= 0)
        cc_pf_close(out);
    free(src);
    free(dst);
    free(dir);
    return rc;
}

static void filler_main(void *arg)
{
    struct cc_store_fill *f = arg;
    for (;;) {
        cc_pf_mutex_lock(f->mu);
        while (f->next == f->queue.n && !f->closing)
            cc_pf_cond_wait(f->cv, f->mu, 0);
        if (f->next == f->queue.n) {
            cc_pf_mutex_unlock(f->mu);
            return;
        }
        char *rel = cc_strdup(f->queue.v[f->next++]);
        int skip = f->failed;
        cc_pf_mutex_unlock(f->mu);
        int ok = rel && !skip && copy_one(f, rel) == 0;
        cc_pf_mutex_lock(f->mu);
        if (ok)
            cc_strv_push(&f->done, rel);
        else
            f->failed = 1;
        cc_pf_mutex_unlock(f->mu);
        free(rel);
    }
}

void cc_store_fill_file(void *fill, const char *staged_path)
{
    struct cc_store_fill *f = fill;
    if (!f || strncmp(staged_path, f->root_real, f->root_len) != 0 ||
        staged_path[f->root_len] != '/')
        return; /* not under staging: the commit copies what it finds */
    cc_pf_mutex_lock(f->mu);
    if (!f->failed && cc_strv_push(&f->queue, staged_path + f->root_len + 1) != 0)
        f->failed = 1;
    cc_pf_cond_signal(f->cv);
    cc_pf_mutex_unlock(f->mu);
}

static void fill_free(struct cc_store_fill *f)
{
    free(f->key);
    free(f->tmp);
    free(f->tree);
    free(f->final_dir);
    free(f->root_real);
    cc_strv_free(&f->queue);
    cc_strv_free(&f->done);
    free(f->err);
    free(f->buf);
    if (f->mu)
        cc_pf_mutex_free(f->mu);
    if (f->cv)
        cc_pf_cond_free(f->cv);
    free(f);
}

cc_store_fill *cc_store_fill_begin(cudnnctl_ctx *ctx, const char *key, const char *staging)
{
    struct cc_store_fill *f = calloc(1, sizeof(*f));
    char *root = cc_store_root(ctx), *tok = cc_sys_random_token();
    char *tmpdir = root ? cc_path_join(root, "tmp") : NULL,
         *v1 = root ? cc_path_join(root, "v1") : NULL;
    int ok = f && root && tok && tmpdir && v1;
    if (ok) {
        f->key = cc_strdup(key);
        f->tmp = cc_asprintf("%s/%s.%s", tmpdir, key, tok);
        f->tree = f->tmp ? cc_path_join(f->tmp, "tree") : NULL;
        f->final_dir = cc_path_join(v1, key);
        f->root_real = cc_pf_realpath(staging);
        f->buf = malloc(BLOCK);
        f->mu = cc_pf_mutex_new();
        f->cv = cc_pf_cond_new();
        ok = f->key && f->tree && f->final_dir && f->root_real && f->buf && f->mu && f->cv;
    }
    /* the store lives in the cache and is trusted like it (docs/security.md) */
    ok = ok && cc_trust_dir(ctx, root, "unpacked store", "--cache-dir DIR") == CUDNNCTL_E_OK &&
         cc_sys_mkdir_p(ctx, tmpdir, 0755) == 0 && cc_sys_mkdir_p(ctx, v1, 0755) == 0 &&
         cc_sys_mkdir(ctx, f->tmp, 0755) == 0 && cc_sys_mkdir(ctx, f->tree, 0755) == 0;
    if (ok) {
        f->root_len = strlen(f->root_real);
        ok = cc_pf_thread_start(&f->thread, filler_main, f) == 0;
        if (!ok)
            f->thread = NULL;
    }
    if (!ok) {
        cc_log(ctx, CUDNNCTL_LOG_DEBUG, "store: not filled this time (%s)",
               ctx->err.detail ? ctx->err.detail : cc_pf_last_error_text());
        cc_clear_error(ctx);
        if (f && f->tmp && f->tree)
            cc_store_fill_abort(ctx, f);
        else if (f)
            fill_free(f);
        f = NULL;
    }
    free(root);
    free(tok);
    free(tmpdir);
    free(v1);
    return f;
}

static void fill_stop(struct cc_store_fill *f)
{
    if (!f->thread)
        return;
    cc_pf_mutex_lock(f->mu);
    f->closing = 1;
    cc_pf_cond_broadcast(f->cv);
    cc_pf_mutex_unlock(f->mu);
    cc_pf_thread_join(f->thread);
    f->thread = NULL;
}

void cc_store_fill_abort(cudnnctl_ctx *ctx, cc_store_fill *f)
{
    if (!f)
        return;
    fill_stop(f);
    cc_saved_err s;
    cc_err_save(ctx, &s);
    (void)cc_sys_rm_rf(ctx, f->tmp);
    cc_err_restore(ctx, &s, NULL);
    fill_free(f);
}

typedef struct {
    cc_store_file *v;
    size_t n, cap;
} flist;

static int flist_push(flist *l, cc_store_file *it)
{
    if (cc_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) != 0)
        return -1;
    l->v[l->n++] = *it;
    return 0;
}

static const cc_store_file *known_of(const cc_store_file *k, size_t n, const char *rel)
{
    for (size_t i = 0; i < n; i++)
        if (k[i].rel && strcmp(k[i].rel, rel) == 0)
            return &k[i];
    return NULL;
}

typedef struct {
    cudnnctl_ctx *ctx;
    struct cc_store_fill *f;
    const cc_store_file *known;
    size_t n_known;
    flist out;
} walker;

/* One staged entry into the store's tree (what the filler did not copy yet) and its record. */
static cudnnctl_err take(walker *w, const char *rel, const cc_pf_stat_t *st, int *is_dir)
{
    cudnnctl_ctx *ctx = w->ctx;
    struct cc_store_fill *f = w->f;
    char *src = cc_path_join(f->root_real, rel), *dst = cc_path_join(f->tree, rel);
    cc_store_file it = {.rel = cc_strdup(rel), .mode = st->mode & 07777};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    *is_dir = 0;
    if (!src || !dst || !it.rel) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (st->is_link) {
        it.type = CC_ST_LINK;
        it.link_target = cc_pf_readlink(src);
        if (!it.link_target || cc_sys_symlink(ctx, it.link_target, dst) != 0)
            rc = CC_ERR_PF(ctx, "cannot make the store link", dst);
    } else if (st->is_dir) {
        it.type = CC_ST_DIR;
        *is_dir = 1;
        cc_pf_stat_t d;
        if (cc_pf_lstat(dst, &d) == 0 && !d.exists && cc_sys_mkdir(ctx, dst, 0755) != 0)
            rc = CC_ERR_PF(ctx, "cannot create", dst);
    } else if (st->is_reg) {
        it.type = CC_ST_FILE;
        it.size = st->size;
        it.mtime = st->mtime;
        it.mtime_ns = st->mtime_ns;
        if (!cc_strv_contains(&f->done, rel) && copy_one(f, rel) != 0)
            rc =
                CC_ERR(ctx, CUDNNCTL_E_IO, "cannot copy into the store: %s", f->err ? f->err : rel);
        const cc_store_file *k = known_of(w->known, w->n_known, rel);
        uint64_t sz = 0;
        if (k && k->size == st->size && cc_sha256_is_hex(k->sha256))
            memcpy(it.sha256, k->sha256, 65);
        else if (rc == CUDNNCTL_E_OK && cc_sha256_file(ctx, src, it.sha256, &sz) != 0)
            rc = CC_ERR_PF(ctx, "cannot hash", src);
    } else {
        rc = CC_ERR(ctx, CUDNNCTL_E_IO, "%s in staging is not a file, link or directory", rel);
    }
    if (rc == CUDNNCTL_E_OK && flist_push(&w->out, &it) != 0)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc != CUDNNCTL_E_OK) {
        free(it.rel);
        free(it.link_target);
    }
    free(src);
    free(dst);
    return rc;
}

static cudnnctl_err walk(walker *w, const char *rel)
{
    cudnnctl_ctx *ctx = w->ctx;
    char *dir = rel ? cc_path_join(w->f->root_real, rel) : cc_strdup(w->f->root_real);
    cc_strv names = {0};
    cudnnctl_err rc = dir ? cc_dir_names_sorted(ctx, dir, &names)
                          : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "no memory");
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < names.n; i++) {
        char *r = rel ? cc_asprintf("%s/%s", rel, names.v[i]) : cc_strdup(names.v[i]);
        char *p = cc_path_join(dir, names.v[i]);
        cc_pf_stat_t st;
        int is_dir = 0;
        if (!r || !p)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (cc_pf_lstat(p, &st) != 0 || !st.exists)
            rc = CC_ERR_PF(ctx, "cannot stat", p);
        else if ((rc = take(w, r, &st, &is_dir)) == CUDNNCTL_E_OK && is_dir)
            rc = walk(w, r);
        free(r);
        free(p);
    }
    cc_strv_free(&names);
    free(dir);
    return rc;
}

/* Every dir of the tree synced (best effort), so the rename publishes a tree that is on disk. */
static void sync_dirs(const char *tree, const flist *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].type == CC_ST_DIR) {
            char *p = cc_path_join(tree, l->v[i].rel);
            if (p)
                cc_pf_fsync_dir(p);
            free(p);
        }
    cc_pf_fsync_dir(tree);
}

cudnnctl_err cc_store_fill_commit(cudnnctl_ctx *ctx, cc_store_fill *f, const cc_store_file *known,
                                  size_t n_known, const char *archive_sha256, uint64_t archive_size)
{
    if (!f)
        return CUDNNCTL_E_OK;
    fill_stop(f); /* everything queued is copied (or the filler failed) */
    walker w = {.ctx = ctx, .f = f, .known = known, .n_known = n_known};
    cudnnctl_err rc = f->failed ? CC_ERR(ctx, CUDNNCTL_E_IO, "cannot copy into the store: %s",
                                         f->err ? f->err : "?")
                                : walk(&w, NULL);
    char *man = rc == CUDNNCTL_E_OK ? cc_path_join(f->tmp, "manifest.json") : NULL;
    if (rc == CUDNNCTL_E_OK && !man)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK) {
        sync_dirs(f->tree, &w.out);
        rc = cc_store_manifest_write(ctx, man, f->key, archive_sha256, archive_size, w.out.v,
                                     w.out.n);
    }
    cc_pf_stat_t st;
    if (rc == CUDNNCTL_E_OK && cc_pf_lstat(f->final_dir, &st) == 0 && st.exists) {
        cc_log(ctx, CUDNNCTL_LOG_DEBUG, "store: %s was filled meanwhile", f->final_dir);
    } else if (rc == CUDNNCTL_E_OK && cc_sys_rename(ctx, f->tmp, f->final_dir) != 0) {
        rc = CC_ERR_PF(ctx, "cannot move the store entry into place at", f->final_dir);
    } else if (rc == CUDNNCTL_E_OK) {
        char *up = cc_path_dir(f->final_dir);
        if (up)
            cc_pf_fsync_dir(up);
        free(up);
        cc_log(ctx, CUDNNCTL_LOG_INFO, "store: %s filled (%zu entries)", f->final_dir, w.out.n);
    }
    cc_store_files_free(w.out.v, w.out.n);
    free(man);
    cc_store_fill_abort(ctx, f); /* the tmp dir (empty of our entry once renamed) goes */
    return rc;
}
