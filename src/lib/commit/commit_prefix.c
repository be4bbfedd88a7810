/* commit_prefix.c: plan a prefix install — the staged tree (PREFIX/.staging-<id>, same
 * filesystem) becomes PREFIX/cudnn-<ver>-cuda<M> in one rename, then PREFIX/current is flipped
 * to it atomically (a new link under a temp name renamed over the old one). */
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

cudnnctl_err cc_commit_prefix_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                   const cc_commit_in *in, cc_receipt *r)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    size_t n_backup = 0;
    char *keep_rel = NULL, *s = NULL, *old_target = NULL;
    cc_op op = {0};
    const char *V = d->install_dir;

    /* 1. the version dir, in one rename */
    cc_obj_type old = cc_tx_kind(V);
    if (old != CC_OBJ_NONE && old != CC_OBJ_DIR) {
        s = cc_unrooted(ctx, V);
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT, "%s exists and is not a directory; move it away",
                    s ? s : V);
        goto out;
    }
    op.kind = CC_OP_PLACE;
    op.type = CC_OBJ_DIR;
    op.dst = (char *)V;
    op.tmp = in->staging ? cc_strdup(in->staging) : NULL;
    if (!op.tmp)
        goto oom;
    if (old == CC_OBJ_DIR) {
        /* a forced reinstall (or a dir we did not make): kept whole, uninstall puts it back */
        op.had_old = 1;
        op.old_type = CC_OBJ_DIR;
        op.bak = cc_txn_temp_name(t, V, "bak");
        op.keep = cc_commit_backup_path(in->state_dir, r->id, n_backup++, &keep_rel);
        if (!op.bak || !op.keep || !keep_rel)
            goto oom;
        cc_rrepl e = {0};
        e.path = s = cc_unrooted(ctx, V);
        e.type = CC_OBJ_DIR;
        e.mode = 0755;
        e.backup = keep_rel;
        e.reason = "overwritten";
        if (!s || (rc = cc_receipt_add_replaced(ctx, r, &e)) != CUDNNCTL_E_OK)
            goto out_rc;
        free(s);
        s = NULL;
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
            goto oom;
    }
    if ((rc = cc_txn_add(ctx, t, &op)) != CUDNNCTL_E_OK)
        goto out;
    free(op.tmp);
    free(op.bak);
    free(op.keep);
    free(keep_rel);
    memset(&op, 0, sizeof(op));
    keep_rel = NULL;

    /* the receipt lists every file and link inside, with its final path */
    for (size_t i = 0; i < in->tree->n; i++) {
        const cc_item *it = &in->tree->v[i];
        char *real = cc_path_join(V, it->rel);
        char *sh = real ? cc_unrooted(ctx, real) : NULL;
        free(real);
        if (!sh)
            goto oom;
        if (it->type == CC_OBJ_DIR) {
            if (old == CC_OBJ_NONE && cc_strv_push_own(&r->dirs_created, sh) != 0)
                goto oom;
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
        rc = cc_receipt_add_entry(ctx, r, &e);
        free(sh);
        if (rc != CUDNNCTL_E_OK)
            goto out;
    }

    /* 2. PREFIX/current → cudnn-<ver>-cuda<M>, flipped atomically */
    const char *cur = d->current;
    cc_obj_type cold = cc_tx_kind(cur);
    int foreign = 0;
    if (cold == CC_OBJ_LINK) {
        old_target = cc_pf_readlink(cur);
        foreign = !ours(ctx, in, d->target, old_target);
    } else if (cold != CC_OBJ_NONE) {
        foreign = 1;
    }
    if (foreign && (!in->force || cold == CC_OBJ_DIR)) {
        s = cc_unrooted(ctx, cur);
        char *what = old_target ? cc_asprintf(" (-> %s)", old_target) : NULL;
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                    "%s exists and was not made by cudnnctl%s; move it away%s", s ? s : cur,
                    what ? what : "", cold == CC_OBJ_DIR ? "" : " or run again with --force");
        free(what);
        goto out;
    }
    op.kind = CC_OP_PLACE;
    op.type = CC_OBJ_LINK;
    op.dst = (char *)cur;
    op.tmp = cc_txn_temp_name(t, cur, "new");
    op.link_target = (char *)cc_path_base(V);
    if (!op.tmp)
        goto oom;
    if (cold != CC_OBJ_NONE) {
        op.had_old = 1;
        op.old_type = cold;
        op.bak = cc_txn_temp_name(t, cur, "bak");
        if (!op.bak)
            goto oom;
        if (foreign) {
            op.keep = cc_commit_backup_path(in->state_dir, r->id, n_backup++, &keep_rel);
            if (!op.keep || !keep_rel)
                goto oom;
            cc_rrepl e = {0};
            e.path = s = cc_unrooted(ctx, cur);
            e.type = cold;
            e.link_target = old_target;
            e.backup = keep_rel;
            e.reason = "overwritten";
            if (!s || (rc = cc_receipt_add_replaced(ctx, r, &e)) != CUDNNCTL_E_OK)
                goto out_rc;
            free(s);
            s = NULL;
        }
    }
    op.link_target = NULL; /* not owned */
    {
        cc_op add = op;
        add.link_target = (char *)cc_path_base(V);
        if ((rc = cc_txn_add(ctx, t, &add)) != CUDNNCTL_E_OK)
            goto out;
    }
    cc_rentry e = {0};
    e.path = s = cc_unrooted(ctx, cur);
    e.type = CC_OBJ_LINK;
    e.link_target = (char *)cc_path_base(V);
    if (!s)
        goto oom;
    rc = cc_receipt_add_entry(ctx, r, &e);
    free(r->current_link);
    r->current_link = cc_strdup(s);
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    goto out;
out_rc:
    if (rc == CUDNNCTL_E_OK)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(op.tmp);
    free(op.bak);
    free(op.keep);
    free(keep_rel);
    free(s);
    free(old_target);
    return rc;
}
