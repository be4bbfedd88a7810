/* commit_tree.c: plan the merge of a staged tree into a CUDA toolkit tree — one journaled op per
 * file and link, replaced files kept as backups, stale sub-libraries of the same major moved
 * out (and restored by uninstall), conflicts found before anything is written. */
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "links.h"

char *cc_commit_backup_path(const char *state_dir, const char *id, size_t n, char **rel)
{
    char *r = cc_asprintf("backups/%s/%zu", id, n);
    char *full = r ? cc_path_join(state_dir, r) : NULL;
    if (rel)
        *rel = r;
    else
        free(r);
    return full;
}

static char *shown(const cudnnctl_ctx *ctx, const char *real)
{
    return cc_unrooted(ctx, real);
}

cudnnctl_err cc_commit_want_dir(cudnnctl_ctx *ctx, const char *dir, const char *before,
                                const char *after)
{
    if (cc_txn_kind(dir) == CC_OBJ_DIR)
        return CUDNNCTL_E_OK;
    char *s = shown(ctx, dir);
    cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "%s%s%s", before, s ? s : dir, after);
    free(s);
    return rc;
}

cudnnctl_err cc_commit_need_dir(cudnnctl_ctx *ctx, cc_txn *t, cc_receipt *r, const char *dir)
{
    if (cc_strv_contains(&t->mkdirs, dir))
        return CUDNNCTL_E_OK;
    cc_pf_stat_t st;
    if (cc_pf_stat(dir, &st) != 0)
        return CC_ERR_PF(ctx, "cannot inspect", dir);
    if (st.exists) {
        if (st.is_dir)
            return CUDNNCTL_E_OK;
        char *s = shown(ctx, dir);
        cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                                 "%s is not a directory, but cuDNN needs a directory there; "
                                 "move it away and run again",
                                 s ? s : dir);
        free(s);
        return rc;
    }
    char *parent = cc_path_dir(dir);
    if (!parent)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (strcmp(parent, dir) != 0 && strcmp(parent, "/") != 0)
        rc = cc_commit_need_dir(ctx, t, r, parent);
    free(parent);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    char *s = shown(ctx, dir);
    if (!s || cc_strv_push(&t->mkdirs, dir) != 0 || (r && cc_strv_push(&r->dirs_created, s) != 0)) {
        free(s);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    free(s);
    return CUDNNCTL_E_OK;
}

/* Receipt record of what is at path now (before it is replaced / removed). */
static cudnnctl_err add_replaced(cudnnctl_ctx *ctx, cc_receipt *r, const char *path,
                                 cc_obj_type type, const char *backup_rel, const char *reason)
{
    cc_rrepl e = {0};
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) == 0 && st.exists) {
        e.mode = st.mode;
        e.size = st.is_reg ? st.size : 0;
    }
    e.path = shown(ctx, path);
    e.type = type;
    e.backup = (char *)backup_rel;
    e.reason = (char *)reason;
    e.link_target = type == CC_OBJ_LINK ? cc_pf_readlink(path) : NULL;
    cudnnctl_err rc = e.path ? cc_receipt_add_replaced(ctx, r, &e)
                             : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(e.path);
    free(e.link_target);
    return rc;
}

cudnnctl_err cc_commit_place_item(cudnnctl_ctx *ctx, cc_txn *t, cc_receipt *r,
                                  const cc_commit_in *in, const cc_item *it, const char *dst,
                                  size_t *n_backup)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_op op = {0};
    char *keep_rel = NULL, *s = NULL;
    cc_obj_type old = cc_txn_kind(dst);
    if (old == CC_OBJ_DIR || old == CC_OBJ_OTHER) {
        s = shown(ctx, dst);
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                    "%s is a %s where cuDNN installs a %s; move it away and run again", s ? s : dst,
                    old == CC_OBJ_DIR ? "directory" : "special file", cc_txn_kind_name(it->type));
        goto out;
    }
    op.kind = CC_OP_PLACE;
    op.type = it->type;
    op.dst = (char *)dst;
    op.src = cc_path_join(in->staging, it->rel);
    op.src_clone = 0;
    op.tmp = cc_txn_temp_name(t, dst, "new");
    if (!op.src || !op.tmp)
        goto oom;
    if (old != CC_OBJ_NONE) {
        op.had_old = 1;
        op.old_type = old;
        op.bak = cc_txn_temp_name(t, dst, "bak");
        op.keep = cc_commit_backup_path(in->state_dir, r->id, (*n_backup)++, &keep_rel);
        if (!op.bak || !op.keep || !keep_rel)
            goto oom;
        if ((rc = add_replaced(ctx, r, dst, old, keep_rel, "overwritten")) != CUDNNCTL_E_OK)
            goto out;
    }
    if ((rc = cc_txn_add(ctx, t, &op)) != CUDNNCTL_E_OK)
        goto out;
    cc_rentry e = {0};
    e.path = s = shown(ctx, dst);
    if (!s)
        goto oom;
    e.type = it->type;
    e.mode = it->mode;
    e.size = it->size;
    memcpy(e.sha256, it->sha256, 65);
    e.link_target = it->link_target;
    rc = cc_receipt_add_entry(ctx, r, &e);
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(op.src);
    free(op.tmp);
    free(op.bak);
    free(op.keep);
    free(keep_rel);
    free(s);
    return rc;
}

/* Real destination of a staged path in a CUDA tree (NULL + error for an unknown top dir). */
static char *map_tree(cudnnctl_ctx *ctx, const cc_dest *d, const cc_item *it, int *is_root_dir)
{
    const char *slash = strchr(it->rel, '/');
    size_t top_len = slash ? (size_t)(slash - it->rel) : strlen(it->rel);
    const char *rest = slash ? slash + 1 : "";
    *is_root_dir = 0;
    const char *base = NULL;
    if (top_len == 7 && strncmp(it->rel, "include", 7) == 0)
        base = d->include_dir;
    else if (top_len == 3 && strncmp(it->rel, "lib", 3) == 0)
        base = d->lib_dir;
    else if (top_len == 3 && strncmp(it->rel, "bin", 3) == 0)
        base = d->bin_dir;
    else if (!slash && it->type != CC_OBJ_DIR)
        return cc_path_join(d->doc_dir, it->rel); /* LICENSE and other top-level texts */
    if (!base) {
        CC_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT,
               "staged entry %s has no place in a CUDA tree (expected include/, lib/, bin/ and "
               "top-level texts)",
               it->rel);
        return NULL;
    }
    if (!*rest) {
        *is_root_dir = 1;
        return cc_strdup(base);
    }
    return cc_path_join(base, rest);
}

/* Op order in the live tree: real files, then .so.M links, then the rest of the links, so a
 * program loading cuDNN during the commit never follows a link to a file not there yet. */
static int pass_of(const cc_item *it)
{
    if (it->type == CC_OBJ_FILE)
        return 0;
    cc_libname ln;
    if (it->type == CC_OBJ_LINK && cc_lib_classify(cc_path_base(it->rel), &ln) &&
        ln.kind != CC_LIB_SO_DEV && ln.kind != CC_LIB_STATIC)
        return 1;
    return 2;
}

/* Is name (in dir) a stale cuDNN library of `major` that the new set does not replace? */
static int is_stale(const char *dir, const char *name, int major, const cc_strv *placed)
{
    cc_libname ln;
    if (cc_strv_contains(placed, name) || !cc_lib_classify(name, &ln))
        return 0;
    char *path = cc_path_join(dir, name);
    cc_obj_type k = path ? cc_txn_kind(path) : CC_OBJ_NONE;
    int stale = 0;
    if (k == CC_OBJ_FILE || k == CC_OBJ_LINK) {
        if (ln.major == major)
            stale = 1;
        else if (ln.major < 0 && k == CC_OBJ_LINK) {
            /* an unversioned dev link (libX.so, libX_static.a) into a stale file of this major */
            char *target = cc_pf_readlink(path);
            cc_libname tl;
            if (target && !strchr(target, '/') && !cc_strv_contains(placed, target) &&
                cc_lib_classify(target, &tl) && tl.major == major)
                stale = 1;
            free(target);
        }
    }
    free(path);
    return stale;
}

static cudnnctl_err plan_stale(cudnnctl_ctx *ctx, cc_txn *t, cc_receipt *r, const cc_commit_in *in,
                               const char *dir, int major, size_t *n_backup)
{
    cc_strv placed = {0}, names = {0};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; i < t->n_ops; i++) {
        char *pd = cc_path_dir(t->ops[i].dst);
        if (pd && strcmp(pd, dir) == 0)
            cc_strv_push(&placed, cc_path_base(t->ops[i].dst));
        free(pd);
    }
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *nm;
    while (d && (nm = cc_pf_readdir(d)) != NULL)
        cc_strv_push(&names, nm);
    cc_pf_closedir(d);
    cc_strv_sort(&names);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < names.n; i++) {
        if (!is_stale(dir, names.v[i], major, &placed))
            continue;
        cc_op op = {0};
        char *keep_rel = NULL;
        op.kind = CC_OP_REMOVE;
        op.dst = cc_path_join(dir, names.v[i]);
        op.type = op.dst ? cc_txn_kind(op.dst) : CC_OBJ_NONE;
        op.bak = op.dst ? cc_txn_temp_name(t, op.dst, "bak") : NULL;
        op.keep = cc_commit_backup_path(in->state_dir, r->id, (*n_backup)++, &keep_rel);
        if (!op.dst || !op.bak || !op.keep || !keep_rel)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (rc == CUDNNCTL_E_OK)
            rc = add_replaced(ctx, r, op.dst, op.type, keep_rel, "stale");
        if (rc == CUDNNCTL_E_OK)
            rc = cc_txn_add(ctx, t, &op);
        if (rc == CUDNNCTL_E_OK && in->warnings) {
            char *s = shown(ctx, op.dst);
            cc_strv_push_own(in->warnings,
                             cc_asprintf("removing %s: a cuDNN %d sub-library this release does "
                                         "not ship (kept as a backup; uninstall restores it)",
                                         s ? s : op.dst, major));
            free(s);
        }
        free(op.dst);
        free(op.bak);
        free(op.keep);
        free(keep_rel);
    }
    cc_strv_free(&placed);
    cc_strv_free(&names);
    return rc;
}

cudnnctl_err cc_commit_tree_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                 const cc_commit_in *in, cc_receipt *r)
{
    size_t n_backup = 0;
    const cc_tree *tree = in->tree;
    cudnnctl_err rc = cc_commit_want_dir(ctx, d->target, "no CUDA tree at ",
                                         ": install the toolkit first, name another with "
                                         "--cuda-home DIR, or install into a prefix with "
                                         "--prefix DIR");
    if (rc != CUDNNCTL_E_OK)
        return rc;
    /* dirs first (they must exist before any temp name is made in them) */
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < tree->n; i++) {
        const cc_item *it = &tree->v[i];
        if (it->type != CC_OBJ_DIR)
            continue;
        int root_dir;
        char *dst = map_tree(ctx, d, it, &root_dir);
        rc = dst ? cc_commit_need_dir(ctx, t, r, dst) : ctx->err.code;
        free(dst);
    }
    for (int pass = 0; pass < 3 && rc == CUDNNCTL_E_OK; pass++) {
        for (size_t i = 0; rc == CUDNNCTL_E_OK && i < tree->n; i++) {
            const cc_item *it = &tree->v[i];
            if (it->type == CC_OBJ_DIR || pass_of(it) != pass)
                continue;
            int root_dir;
            char *dst = map_tree(ctx, d, it, &root_dir);
            char *parent = dst ? cc_path_dir(dst) : NULL;
            if (!dst || !parent)
                rc = dst ? CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory") : ctx->err.code;
            if (rc == CUDNNCTL_E_OK)
                rc = cc_commit_need_dir(ctx, t, r, parent);
            if (rc == CUDNNCTL_E_OK)
                rc = cc_commit_place_item(ctx, t, r, in, it, dst, &n_backup);
            free(parent);
            free(dst);
        }
    }
    /* stale sub-libraries of the same major: an upgrade or a downgrade must not leave a mix */
    char *slib = cc_path_join(in->staging, "lib"), *sbin = cc_path_join(in->staging, "bin");
    int major = cc_links_major(slib, sbin);
    free(slib);
    free(sbin);
    if (rc == CUDNNCTL_E_OK && major >= 0) {
        if (d->lib_dir && cc_txn_kind(d->lib_dir) == CC_OBJ_DIR)
            rc = plan_stale(ctx, t, r, in, d->lib_dir, major, &n_backup);
        if (rc == CUDNNCTL_E_OK && d->bin_dir && cc_txn_kind(d->bin_dir) == CC_OBJ_DIR &&
            (!d->lib_dir || strcmp(d->bin_dir, d->lib_dir) != 0))
            rc = plan_stale(ctx, t, r, in, d->bin_dir, major, &n_backup);
    }
    return rc == CUDNNCTL_E_OK ? cc_commit_foreign_check(ctx, in, r) : rc;
}
