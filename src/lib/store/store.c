/* store.c: the unpacked store's entries — their key and place, looking one up (trusted), filling
 * a staging dir from one (reflink / copy / hard link, each file checked against its record),
 * quarantining a bad one, re-hashing one (cache verify). Filling the store: store_fill.c. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "dirops.h"
#include "hash.h"
#include "sys.h"

#define COPY_BLOCK ((size_t)4 << 20) /* large reads and writes: a copy at memory speed */

char *cc_store_key(const char *archive_sha256, unsigned components, int cuda_tree)
{
    static const char *const names[] = {"runtime", "dev", "static"};
    cc_buf b = {0};
    int bad = 0;
    for (unsigned i = 0; i < 3; i++)
        if (components & (1u << i))
            bad |= cc_buf_printf(&b, "%s%s", b.len ? "+" : "", names[i]);
    char *k = bad ? NULL
                  : cc_asprintf("%.64s-%s-%s", archive_sha256, b.data ? b.data : "all",
                                cuda_tree ? "cuda-tree" : "any");
    cc_buf_free(&b);
    return k;
}

char *cc_store_root(cudnnctl_ctx *ctx)
{
    char *cache = cc_cache_dir(ctx);
    char *r = cache ? cc_path_join(cache, "store") : NULL;
    free(cache);
    return r;
}

void cc_store_files_free(cc_store_file *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].rel);
        free(v[i].link_target);
    }
    free(v);
}

void cc_store_entry_free(cc_store_entry *e)
{
    free(e->key);
    free(e->dir);
    free(e->tree);
    cc_store_files_free(e->files, e->n);
    memset(e, 0, sizeof(*e));
}

/* The store, and an entry in it, must pass the cache's trust rule before anything in them is
 * believed: a store entry in a place another user could write is refused, with the fix. */
static cudnnctl_err trust(cudnnctl_ctx *ctx, const char *dir)
{
    if (cc_pf_trust_check(dir, CC_PF_TRUST_OBJECT) == 0)
        return CUDNNCTL_E_OK;
    cudnnctl_err e = cc_pf_last_error();
    if (e == CUDNNCTL_E_NOT_FOUND)
        return CUDNNCTL_E_OK;
    return CC_ERR(ctx, e == CUDNNCTL_E_UNTRUSTED ? e : CUDNNCTL_E_IO,
                  "the unpacked store %s is not safe to use: %s; remove it with `cudnnctl cache "
                  "clean` (the next install extracts the archive again), or choose another cache "
                  "with --cache-dir DIR",
                  dir, cc_pf_last_error_text());
}

cudnnctl_err cc_store_lookup(cudnnctl_ctx *ctx, const char *key, cc_store_entry *e, int *found)
{
    *found = 0;
    memset(e, 0, sizeof(*e));
    char *root = cc_store_root(ctx);
    char *v1 = root ? cc_path_join(root, "v1") : NULL;
    e->key = cc_strdup(key);
    e->dir = v1 ? cc_path_join(v1, key) : NULL;
    e->tree = e->dir ? cc_path_join(e->dir, "tree") : NULL;
    char *man = e->dir ? cc_path_join(e->dir, "manifest.json") : NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_pf_stat_t st;
    if (!man || !e->key || !e->tree) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = trust(ctx, root)) != CUDNNCTL_E_OK)
        goto out;
    if (cc_pf_lstat(e->dir, &st) != 0 || !st.exists)
        goto out; /* no entry: a miss */
    if (!st.is_dir || (rc = trust(ctx, e->dir)) != CUDNNCTL_E_OK ||
        (rc = trust(ctx, e->tree)) != CUDNNCTL_E_OK) {
        if (rc == CUDNNCTL_E_OK)
            rc = CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
                        "the unpacked store entry %s is not a directory; remove it with "
                        "`cudnnctl cache clean`",
                        e->dir);
        goto out;
    }
    if ((rc = cc_store_manifest_read(ctx, man, e)) != CUDNNCTL_E_OK) {
        if (rc == CUDNNCTL_E_UNTRUSTED)
            goto out;
        /* damaged or half-written by hand: not believed, moved aside, rebuilt by this install */
        cc_log(ctx, CUDNNCTL_LOG_WARN, "store: %s", cudnnctl_last_error(ctx)->detail);
        cc_clear_error(ctx);
        char *q = NULL;
        if (cc_store_quarantine(ctx, e, &q) != CUDNNCTL_E_OK)
            cc_clear_error(ctx);
        free(q);
        rc = CUDNNCTL_E_OK;
        goto out;
    }
    if (strncmp(e->archive_sha256, key, 64) != 0) {
        rc = CC_ERR(ctx, CUDNNCTL_E_IO, "the store entry %s records another archive (%s)", e->dir,
                    e->archive_sha256);
        goto out;
    }
    *found = 1;
out:
    free(root);
    free(v1);
    free(man);
    if (!*found) {
        cc_store_files_free(e->files, e->n);
        e->files = NULL;
        e->n = 0;
    }
    return rc;
}

void cc_store_touch(const cc_store_entry *e)
{
    (void)cc_pf_touch(e->dir);
}

cudnnctl_err cc_store_quarantine(cudnnctl_ctx *ctx, const cc_store_entry *e, char **qpath)
{
    char *root = cc_store_root(ctx);
    char *tok = cc_sys_random_token();
    char *qname = tok ? cc_asprintf("%s-%s", e->key, tok) : NULL;
    cudnnctl_err rc = cc_quarantine_move(ctx, root, e->dir, qname, "the store entry ",
                                         "; remove it with `cudnnctl cache clean`", 0, qpath);
    free(root);
    free(tok);
    free(qname);
    return rc;
}

/* 1 when the file at path still hashes to rec's SHA-256. */
static int hash_matches(cudnnctl_ctx *ctx, const char *path, const cc_store_file *f)
{
    char hex[65];
    uint64_t size = 0;
    int ok = cc_sha256_file(ctx, path, hex, &size) == 0 && size == f->size &&
             strcmp(hex, f->sha256) == 0;
    cc_clear_error(ctx);
    return ok;
}

size_t cc_store_verify(cudnnctl_ctx *ctx, const cc_store_entry *e)
{
    size_t bad = 0;
    for (size_t i = 0; i < e->n; i++) {
        const cc_store_file *f = &e->files[i];
        if (f->type != CC_ST_FILE)
            continue;
        char *p = cc_path_join(e->tree, f->rel);
        bad += !p || !hash_matches(ctx, p, f);
        free(p);
    }
    return bad;
}

/* The cheap check on every use: the store's file is as it was recorded (regular, size, mtime,
 * mode with the write bits off). An in-place change shows in its mtime; what differs is hashed
 * (a `touch` is forgiven, changed bytes are not). */
static int record_holds(cudnnctl_ctx *ctx, const char *path, const cc_pf_stat_t *st,
                        const cc_store_file *f)
{
    if (st->is_reg && st->size == f->size && st->mtime == f->mtime && st->mtime_ns == f->mtime_ns &&
        (st->mode & 07777) == (f->mode & 07555))
        return 1;
    cc_log(ctx, CUDNNCTL_LOG_INFO, "store: %s differs from its record: hashing it", path);
    return hash_matches(ctx, path, f);
}

/* Bytes src → dst with large reads and writes (the fallback of every copy). */
static int copy_rw(cudnnctl_ctx *ctx, cc_pf_fd src, cc_pf_fd dst, uint64_t size, char *buf)
{
    uint64_t done = 0;
    while (done < size) {
        long long n = cc_sys_read(ctx, src, buf, COPY_BLOCK);
        if (n <= 0)
            return -1;
        if (cc_sys_write_all(ctx, dst, buf, (size_t)n) != 0)
            return -1;
        done += (uint64_t)n;
    }
    return 0;
}

typedef struct {
    cc_store_mode mode;
    char *buf;
    int reflinked, copied, linked, fell_back;
} place_state;

/* One file of the entry into staging. *bad: its bytes are not the recorded ones. */
static cudnnctl_err place_file(cudnnctl_ctx *ctx, place_state *ps, const char *src, const char *dst,
                               const cc_store_file *f, int *bad)
{
    cc_pf_stat_t st;
    if (ps->mode == CC_STORE_HARDLINK) {
        if (cc_pf_trust_check(src, CC_PF_TRUST_OBJECT) != 0 || cc_pf_lstat(src, &st) != 0)
            return CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
                          "the store file %s is not safe to use: %s; "
                          "remove the store with `cudnnctl cache clean`",
                          src, cc_pf_last_error_text());
        if (!record_holds(ctx, src, &st, f)) {
            *bad = 1;
            return CUDNNCTL_E_OK;
        }
        if (cc_sys_link(ctx, src, dst) == 0) {
            ps->linked++;
            return CUDNNCTL_E_OK;
        }
        if (cc_pf_last_error() == CUDNNCTL_E_PERMISSION && cc_pf_is_root())
            return CC_ERR_PF(ctx, "cannot hard-link the store file to", dst);
        ps->fell_back = 1; /* another filesystem: copied, said in the result */
    }
    cc_pf_fd in = cc_pf_open_trusted(src);
    if (in < 0)
        return CC_ERR(ctx, cc_pf_last_error(),
                      "the store file %s cannot be used: %s; remove the "
                      "store with `cudnnctl cache clean`",
                      src, cc_pf_last_error_text());
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_pf_fd out = -1;
    int how = 0;
    if (cc_pf_fstat(in, &st) != 0 || !record_holds(ctx, src, &st, f)) {
        *bad = 1;
        goto out;
    }
    out = cc_sys_open(ctx, dst, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, 0600);
    if (out < 0) {
        rc = CC_ERR_PF(ctx, "cannot create", dst);
        goto out;
    }
    if (ps->mode == CC_STORE_COPY || ps->fell_back ||
        cc_pf_copy_fd(in, out, f->size, 1, &how) != 0) {
        if (ps->mode == CC_STORE_REFLINK) {
            rc = CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                        "--link-mode reflink: the filesystem of %s cannot share blocks with the "
                        "store's (%s); use --link-mode copy (or leave the default, which copies "
                        "where it cannot reflink)",
                        dst, src);
            goto out;
        }
        how = 0;
        if (copy_rw(ctx, in, out, f->size, ps->buf) != 0) {
            rc = CC_ERR_PF(ctx, "cannot copy the store file to", dst);
            goto out;
        }
    } else if (ps->mode == CC_STORE_REFLINK && how != CC_PF_COPY_REFLINK) {
        rc = CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                    "--link-mode reflink: the filesystem of %s cannot share blocks with the "
                    "store's (%s); use --link-mode copy",
                    dst, src);
        goto out;
    }
    *(how == CC_PF_COPY_REFLINK ? &ps->reflinked : &ps->copied) += 1;
    if (cc_pf_fset_mode_time(out, f->mode, f->mtime, f->mtime_ns) != 0)
        rc = CC_ERR_PF(ctx, "cannot set the mode of", dst);
out:
    if (out >= 0 && cc_sys_close(ctx, out) != 0 && rc == CUDNNCTL_E_OK)
        rc = CC_ERR_PF(ctx, "cannot write", dst);
    if (out >= 0 && rc == CUDNNCTL_E_OK && how != CC_PF_COPY_REFLINK)
        cc_pf_start_writeback(dst); /* the commit's fsync then finds less left to write */
    cc_pf_close(in);
    return rc;
}

static const char *how_text(const place_state *ps)
{
    if (ps->fell_back)
        return "copy (hardlink across filesystems fell back to a copy)";
    if (ps->linked)
        return "hardlink";
    if (ps->reflinked && !ps->copied)
        return "reflink";
    return ps->reflinked ? "reflink+copy" : "copy";
}

cudnnctl_err cc_store_place(cudnnctl_ctx *ctx, const cc_store_entry *e, const char *staging,
                            cc_store_mode mode, cc_store_placed *out, int *bad)
{
    memset(out, 0, sizeof(*out));
    *bad = 0;
    place_state ps = {.mode = mode, .buf = malloc(COPY_BLOCK)};
    if (!ps.buf)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; rc == CUDNNCTL_E_OK && !*bad && i < e->n; i++) {
        const cc_store_file *f = &e->files[i];
        char *dst = cc_path_join(staging, f->rel);
        char *src = f->type == CC_ST_FILE ? cc_path_join(e->tree, f->rel) : NULL;
        if (!dst || (f->type == CC_ST_FILE && !src))
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (f->type == CC_ST_DIR && cc_sys_mkdir(ctx, dst, f->mode ? f->mode : 0755) != 0)
            rc = CC_ERR_PF(ctx, "cannot create", dst);
        else if (f->type == CC_ST_LINK && cc_sys_symlink(ctx, f->link_target, dst) != 0)
            rc = CC_ERR_PF(ctx, "cannot create the link", dst);
        else if (f->type == CC_ST_FILE &&
                 (rc = place_file(ctx, &ps, src, dst, f, bad)) == CUDNNCTL_E_OK && !*bad) {
            out->n_files++;
            out->bytes += f->size;
        }
        if (*bad)
            cc_log(ctx, CUDNNCTL_LOG_WARN, "store: %s does not match its recorded SHA-256", src);
        free(dst);
        free(src);
    }
    free(ps.buf);
    out->how = how_text(&ps);
    return rc;
}
