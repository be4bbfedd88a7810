/* commit_prefix.c: plan a prefix install — the staged tree (PREFIX/.staging-<id>, same
 * filesystem) becomes PREFIX/cudnn-<ver>-cuda<M> in one rename, then PREFIX/current is flipped
 * to it atomically (a new link under a temp name renamed over the old one); components added to
 * an installed version are placed into its dir file by file instead. On a filesystem that cannot
 * hold a directory link (d->direct, direct.h) there is no current: the receipt says so and the
 * environment names the version dir itself. */
#include <stdlib.h>
#include <string.h>

#include "commit.h"

/* Does a link target name one of our installs in this prefix? */
static int ours(const cudnnctl_ctx *ctx, const cc_commit_in *in, const char *prefix_real,
                const char *target)
{
    if (!target)
        return 0;
    char *shown_prefix = cc_unrooted(ctx, prefix_real);
    int yes = 0;
    for (size_t i = 0; shown_prefix && in->receipts && i < in->receipts->n; i++) {
        const cc_receipt *r = &in->receipts->v[i];
        if (r->mode != CUDNNCTL_TARGET_PREFIX || !r->install_dir || !r->target_path ||
            strcmp(r->target_path, shown_prefix) != 0)
            continue;
        const char *base = cc_path_base(r->install_dir);
        if (strcmp(target, base) == 0 || strcmp(target, r->install_dir) == 0)
            yes = 1;
    }
    free(shown_prefix);
    return yes;
}

/* What a planning step holds until it hands its op to the transaction. */
typedef struct {
    cc_op op;
    char *keep_rel, *s;
} step;

static cudnnctl_err step_done(step *st, cudnnctl_err rc)
{
    free(st->op.tmp);
    free(st->op.bak);
    free(st->op.keep);
    free(st->keep_rel);
    free(st->s);
    memset(st, 0, sizeof(*st));
    return rc;
}

static cudnnctl_err step_oom(cudnnctl_ctx *ctx, step *st)
{
    return step_done(st, CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory"));
}

/* The receipt's record of what the step's op overwrites (kept as st->keep_rel). */
static cudnnctl_err add_replaced(cudnnctl_ctx *ctx, step *st, cc_receipt *r, cc_obj_type type,
                                 uint32_t mode, char *link_target)
{
    cc_rrepl e = {0};
    e.path = st->s = cc_unrooted(ctx, st->op.dst);
    e.type = type;
    e.mode = mode;
    e.link_target = link_target;
    e.backup = st->keep_rel;
    e.reason = "overwritten";
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!st->s || (rc = cc_receipt_add_replaced(ctx, r, &e)) != CUDNNCTL_E_OK)
        return rc == CUDNNCTL_E_OK ? CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory") : rc;
    free(st->s);
    st->s = NULL;
    return CUDNNCTL_E_OK;
}

/* 1. the version dir, in one rename; one there already (a forced reinstall, or a dir we did not
 * make) is kept whole, uninstall puts it back. */
static cudnnctl_err place_version_dir(cudnnctl_ctx *ctx, cc_txn *t, const char *V,
                                      const cc_commit_in *in, cc_receipt *r, cc_obj_type old,
                                      size_t *n_backup)
{
    cudnnctl_err rc;
    step st = {0};
    if (old != CC_OBJ_NONE && old != CC_OBJ_DIR) {
        st.s = cc_unrooted(ctx, V);
        return step_done(&st,
                         CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                                "%s exists and is not a directory; move it away", st.s ? st.s : V));
    }
    st.op.kind = CC_OP_PLACE;
    st.op.type = CC_OBJ_DIR;
    st.op.dst = (char *)V;
    st.op.tmp = in->staging ? cc_strdup(in->staging) : NULL;
    if (!st.op.tmp)
        return step_oom(ctx, &st);
    if (old == CC_OBJ_DIR) {
        st.op.had_old = 1;
        st.op.old_type = CC_OBJ_DIR;
        st.op.bak = cc_txn_temp_name(t, V, "bak");
        st.op.keep = cc_commit_backup_path(in->state_dir, r->id, (*n_backup)++, &st.keep_rel);
        if (!st.op.bak || !st.op.keep || !st.keep_rel)
            return step_oom(ctx, &st);
        if ((rc = add_replaced(ctx, &st, r, CC_OBJ_DIR, 0755, NULL)) != CUDNNCTL_E_OK)
            return step_done(&st, rc);
        if (in->warnings) {
            char *w = cc_unrooted(ctx, V);
            cc_strv_push_own(in->warnings,
                             cc_asprintf("%s already existed: kept as a backup, uninstall puts "
                                         "it back",
                                         w ? w : V));
            free(w);
        }
    } else {
        char *sv = cc_unrooted(ctx, V);
        if (!sv || cc_strv_push_own(&r->dirs_created, sv) != 0)
            return step_oom(ctx, &st);
    }
    return step_done(&st, cc_txn_add(ctx, t, &st.op));
}

/* The receipt lists every file and link inside, with its final path. */
static cudnnctl_err list_tree(cudnnctl_ctx *ctx, const char *V, const cc_commit_in *in,
                              cc_receipt *r, cc_obj_type old)
{
    for (size_t i = 0; i < in->tree->n; i++) {
        const cc_item *it = &in->tree->v[i];
        char *real = cc_path_join(V, it->rel);
        char *sh = real ? cc_unrooted(ctx, real) : NULL;
        free(real);
        if (!sh)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (it->type == CC_OBJ_DIR) {
            if (old == CC_OBJ_NONE && cc_strv_push_own(&r->dirs_created, sh) != 0)
                CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            if (old != CC_OBJ_NONE)
                free(sh);
            continue;
        }
        cc_rentry e = {0};
        e.path = sh;
        e.type = it->type;
        e.mode = it->mode;
        e.size = it->size;
        memcpy(e.sha256, it->sha256, 65);
        e.link_target = it->link_target;
        cudnnctl_err rc = cc_receipt_add_entry(ctx, r, &e);
        free(sh);
        if (rc != CUDNNCTL_E_OK)
            return rc;
    }
    return CUDNNCTL_E_OK;
}

/* 2. PREFIX/current → cudnn-<ver>-cuda<M>, flipped atomically; a link or file we did not make is
 * replaced only with --force (and kept as a backup), a dir never. */
static cudnnctl_err flip_current(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                 const cc_commit_in *in, cc_receipt *r, size_t *n_backup)
{
    cudnnctl_err rc;
    step st = {0};
    const char *cur = d->current, *V = d->install_dir;
    char *old_target = NULL;
    cc_obj_type cold = cc_txn_kind(cur);
    int foreign = 0;
    if (cold == CC_OBJ_LINK) {
        old_target = cc_pf_readlink(cur);
        foreign = !ours(ctx, in, d->target, old_target);
    } else if (cold != CC_OBJ_NONE) {
        foreign = 1;
    }
    if (foreign && (!in->force || cold == CC_OBJ_DIR)) {
        st.s = cc_unrooted(ctx, cur);
        char *what = old_target ? cc_asprintf(" (-> %s)", old_target) : NULL;
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                    "%s exists and was not made by cudnnctl%s; move it away%s", st.s ? st.s : cur,
                    what ? what : "", cold == CC_OBJ_DIR ? "" : " or run again with --force");
        free(what);
        goto out;
    }
    st.op.kind = CC_OP_PLACE;
    st.op.type = CC_OBJ_LINK;
    st.op.dst = (char *)cur;
    st.op.tmp = cc_txn_temp_name(t, cur, "new");
    if (!st.op.tmp)
        goto oom;
    if (cold != CC_OBJ_NONE) {
        st.op.had_old = 1;
        st.op.old_type = cold;
        st.op.bak = cc_txn_temp_name(t, cur, "bak");
        if (!st.op.bak)
            goto oom;
        if (foreign) {
            st.op.keep = cc_commit_backup_path(in->state_dir, r->id, (*n_backup)++, &st.keep_rel);
            if (!st.op.keep || !st.keep_rel)
                goto oom;
            if ((rc = add_replaced(ctx, &st, r, cold, 0, old_target)) != CUDNNCTL_E_OK)
                goto out;
        }
    }
    st.op.link_target = (char *)cc_path_base(V); /* not owned: cleared before step_done */
    rc = cc_txn_add(ctx, t, &st.op);
    st.op.link_target = NULL;
    if (rc != CUDNNCTL_E_OK)
        goto out;
    cc_rentry e = {0};
    e.path = st.s = cc_unrooted(ctx, cur);
    e.type = CC_OBJ_LINK;
    e.link_target = (char *)cc_path_base(V);
    if (!st.s)
        goto oom;
    rc = cc_receipt_add_entry(ctx, r, &e);
    free(r->current_link);
    r->current_link = cc_strdup(st.s);
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(old_target);
    return step_done(&st, rc);
}

cudnnctl_err cc_commit_prefix_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                   const cc_commit_in *in, cc_receipt *r)
{
    size_t n_backup = 0;
    cc_obj_type old = cc_txn_kind(d->install_dir);
    cudnnctl_err rc = place_version_dir(ctx, t, d->install_dir, in, r, old, &n_backup);
    if (rc == CUDNNCTL_E_OK)
        rc = list_tree(ctx, d->install_dir, in, r, old);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (!d->direct)
        return flip_current(ctx, t, d, in, r, &n_backup);
    r->direct = 1;
    if (in->warnings) {
        char *p = cc_unrooted(ctx, d->target), *v = cc_unrooted(ctx, d->install_dir);
        cc_strv_push_own(in->warnings,
                         cc_asprintf("%s cannot hold a directory junction (FAT32, exFAT, many "
                                     "network shares, wine): no %s/current; the environment names "
                                     "%s itself, and `cudnnctl use --prefix %s --cudnn V` switches "
                                     "it",
                                     p ? p : d->target, p ? p : d->target, v ? v : d->install_dir,
                                     p ? p : d->target));
        free(p);
        free(v);
    }
    return CUDNNCTL_E_OK;
}

/* Components added to a version dir already there (its other files stay as they are): each
 * staged entry placed into it as into a CUDA tree, then PREFIX/current as for an install. */
cudnnctl_err cc_commit_prefix_add_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                       const cc_commit_in *in, cc_receipt *r)
{
    size_t n_backup = 0;
    cudnnctl_err rc = cc_commit_want_dir(ctx, d->install_dir, "",
                                         " is gone: the components installed there cannot be "
                                         "added to; install again with --force");
    if (rc != CUDNNCTL_E_OK)
        return rc;
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < in->tree->n; i++) {
        const cc_item *it = &in->tree->v[i];
        char *dst = cc_path_join(d->install_dir, it->rel);
        char *parent = dst ? cc_path_dir(dst) : NULL;
        if (!dst || !parent)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (it->type == CC_OBJ_DIR)
            rc = cc_commit_need_dir(ctx, t, r, dst);
        else if ((rc = cc_commit_need_dir(ctx, t, r, parent)) == CUDNNCTL_E_OK)
            rc = cc_commit_place_item(ctx, t, r, in, it, dst, &n_backup);
        free(parent);
        free(dst);
    }
    if (rc == CUDNNCTL_E_OK)
        rc = flip_current(ctx, t, d, in, r, &n_backup);
    return rc;
}
