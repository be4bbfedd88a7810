/* uninstall.c: undo installs exactly as their receipts say — remove what we wrote when it is
 * unchanged, put back what we replaced, keep the user's files — as one journaled transaction
 * per receipt. rollback = undo the newest install on a target. */
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "strjoin.h"
#include "hash.h"
#include "install_internal.h"
#include "journal.h"
#include "lock.h"
#include "owners.h"
#include "receipt.h"
#include "winenv.h"

typedef struct {
    cc_strv ids, versions, removed, restored, kept, warnings;
    int target_dir_made; /* an undone install created the target dir itself: it goes too */
    int tree_undone; /* a CUDA-tree install was undone: the loader cache needs a refresh */
} undo_acc;

static void warn(cudnnctl_ctx *ctx, undo_acc *acc, char *msg)
{
    if (!msg)
        return;
    cc_event(ctx, CUDNNCTL_EV_WARNING, msg, NULL);
    cc_strv_push_own(&acc->warnings, msg);
}

/* Is the live object at real the one the receipt entry describes? 1 yes, 0 no, -1 it could
 * not be read (an error, never taken for "changed by the user"). */
static int unchanged(cudnnctl_ctx *ctx, const cc_rentry *e, const char *real)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(real, &st) != 0 || !st.exists)
        return 0;
    if (e->type == CC_OBJ_LINK) {
        char *t = st.is_link ? cc_pf_readlink(real) : NULL;
        int same = t && strcmp(t, e->link_target) == 0;
        free(t);
        return same;
    }
    if (!st.is_reg || st.size != e->size)
        return 0;
    char hex[65];
    uint64_t sz;
    if (cc_sha256_file(ctx, real, hex, &sz) != 0) {
        CC_ERR_PF(ctx, "cannot read", real);
        return -1;
    }
    return strcmp(hex, e->sha256) == 0;
}

static const cc_rrepl *replaced_at(const cc_receipt *r, const char *path)
{
    for (size_t i = 0; i < r->n_replaced; i++)
        if (strcmp(r->replaced[i].path, path) == 0)
            return &r->replaced[i];
    return NULL;
}

static int same_target(const cc_receipt *a, const cc_receipt *b)
{
    return a->mode == b->mode && strcmp(a->target_path, b->target_path) == 0;
}

/* A later install on the same target replaced some of r's files? → its receipt, else NULL. */
static const cc_receipt *superseded_by(const cc_receipts *rs, const cc_receipt *r)
{
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *l = &rs->v[i];
        if (l->seq <= r->seq || !same_target(l, r) || cc_receipt_supersedes(l, r))
            continue;
        for (size_t k = 0; k < l->n_replaced; k++) {
            const char *p = l->replaced[k].path;
            if (r->current_link && strcmp(p, r->current_link) == 0)
                continue; /* PREFIX/current moves between installs by design */
            for (size_t j = 0; j < r->n_entries; j++)
                if (strcmp(r->entries[j].path, p) == 0 || cc_txn_under(p, r->entries[j].path))
                    return l;
        }
    }
    return NULL;
}

typedef struct {
    cudnnctl_ctx *ctx;
    cc_txn *t;
    const char *state;
    undo_acc *acc;
    cc_strv restored_backups; /* backups consumed (removed after the commit point) */
    int kept_backup;          /* some backup must stay (a user's file sits where it was) */
} undo_plan;

static cudnnctl_err add_op(undo_plan *u, cc_op_kind kind, cc_obj_type type, const char *dst,
                           const char *src, int src_clone, const char *link_target)
{
    cc_op op = {0};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_obj_type live = cc_txn_kind(dst);
    op.kind = kind;
    op.type = kind == CC_OP_REMOVE ? live : type;
    op.dst = (char *)dst;
    op.src = (char *)src;
    op.src_clone = src_clone;
    op.link_target = (char *)link_target;
    if (kind == CC_OP_PLACE)
        op.tmp = cc_txn_temp_name(u->t, dst, "new");
    if (live != CC_OBJ_NONE) {
        op.had_old = 1;
        op.old_type = live;
        op.bak = cc_txn_temp_name(u->t, dst, "bak");
    }
    if ((kind == CC_OP_PLACE && !op.tmp) || (live != CC_OBJ_NONE && !op.bak))
        rc = CC_ERR(u->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else
        rc = cc_txn_add(u->ctx, u->t, &op);
    free(op.tmp);
    free(op.bak);
    return rc;
}

/* Put a replaced object back at dst from its backup. */
static cudnnctl_err restore(undo_plan *u, const cc_rrepl *rep, const char *dst)
{
    char *b = cc_path_join(u->state, rep->backup);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!b)
        CC_RET_ERR(u->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_txn_kind(b) == CC_OBJ_NONE) {
        warn(u->ctx, u->acc,
             cc_asprintf("the backup of %s (%s) is missing: it cannot be put back", rep->path,
                         rep->backup));
    } else {
        /* files and links are cloned (the backup survives until the commit point); a whole dir
         * moves in and moves back on rollback */
        int clone = rep->type != CC_OBJ_DIR;
        rc = add_op(u, CC_OP_PLACE, rep->type, dst, b, clone, NULL);
        if (rc == CUDNNCTL_E_OK) {
            cc_strv_push(&u->acc->restored, rep->path);
            cc_strv_push(&u->restored_backups, b);
        }
    }
    free(b);
    return rc;
}

static void keep_backup(undo_plan *u, const cc_rrepl *rep, const char *why)
{
    u->kept_backup = 1;
    char *b = cc_path_join(u->state, rep->backup);
    warn(u->ctx, u->acc,
         cc_asprintf("%s %s: the original that cudnnctl replaced stays at %s", rep->path, why,
                     b ? b : rep->backup));
    free(b);
}

/* Prefix install whose version dir holds exactly what the receipt lists? (A reinstall that
 * replaced the version dir as a whole created every dir inside it, though it lists none.) */
static int pristine_dir(cudnnctl_ctx *ctx, const cc_receipt *r, const char *real_dir, size_t *found)
{
    int whole = r->install_dir && replaced_at(r, r->install_dir) != NULL;
    cc_pf_dir *d = cc_pf_opendir(real_dir);
    if (!d)
        return 0;
    int ok = 1;
    const char *nm;
    while (ok && (nm = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(real_dir, nm);
        char *shown = p ? cc_unrooted(ctx, p) : NULL;
        cc_obj_type k = p ? cc_txn_kind(p) : CC_OBJ_NONE;
        if (!shown) {
            ok = 0;
        } else if (k == CC_OBJ_DIR) {
            ok = (whole || cc_strv_contains(&r->dirs_created, shown)) &&
                 pristine_dir(ctx, r, p, found);
        } else {
            const cc_rentry *e = NULL;
            for (size_t i = 0; i < r->n_entries && !e; i++)
                if (strcmp(r->entries[i].path, shown) == 0)
                    e = &r->entries[i];
            ok = e ? unchanged(ctx, e, p) : 0;
            if (ok < 0)
                ok = 0; /* unreadable: not provably pristine; the per-file path reports it */
            if (ok)
                (*found)++;
        }
        free(p);
        free(shown);
    }
    cc_pf_closedir(d);
    return ok;
}

/* The newest other install in this prefix whose dir still exists. */
static const cc_receipt *other_in_prefix(const cudnnctl_ctx *ctx, const cc_receipts *rs,
                                         const cc_receipt *r)
{
    const cc_receipt *best = NULL;
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *o = &rs->v[i];
        if (o == r || !same_target(o, r) || !o->install_dir ||
            (r->install_dir && strcmp(o->install_dir, r->install_dir) == 0))
            continue;
        char *real = cc_rooted(ctx, o->install_dir);
        if (real && cc_txn_kind(real) == CC_OBJ_DIR && (!best || o->seq > best->seq))
            best = o;
        free(real);
    }
    return best;
}

static cudnnctl_err plan_current(undo_plan *u, const cc_receipts *rs, const cc_receipt *r)
{
    cudnnctl_ctx *ctx = u->ctx;
    char *cur = cc_rooted(ctx, r->current_link);
    char *target = cur ? cc_pf_readlink(cur) : NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!cur) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (target && r->install_dir && strcmp(target, cc_path_base(r->install_dir)) == 0 &&
               cc_receipts_superseded(rs, r)) {
        /* undoing a reinstall: the version dir comes back from the backup, current names it */
    } else if (target && r->install_dir && strcmp(target, cc_path_base(r->install_dir)) == 0) {
        const cc_receipt *o = other_in_prefix(ctx, rs, r);
        const cc_rrepl *rep = replaced_at(r, r->current_link);
        if (o) {
            rc = add_op(u, CC_OP_PLACE, CC_OBJ_LINK, cur, NULL, 0, cc_path_base(o->install_dir));
        } else if (rep) {
            rc = restore(u, rep, cur);
        } else {
            rc = add_op(u, CC_OP_REMOVE, CC_OBJ_LINK, cur, NULL, 0, NULL);
            if (rc == CUDNNCTL_E_OK)
                cc_strv_push(&u->acc->removed, r->current_link);
        }
    } else {
        /* current points elsewhere now (a later install): not ours to touch. A foreign current
         * this install replaced cannot go back now; its backup stays, never silently lost. */
        const cc_rrepl *rep = replaced_at(r, r->current_link);
        if (rep)
            keep_backup(u, rep, "now points to another install");
    }
    free(cur);
    free(target);
    return rc;
}

static cudnnctl_err plan_entries(undo_plan *u, const cc_receipt *r)
{
    cudnnctl_ctx *ctx = u->ctx;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < r->n_entries; i++) {
        const cc_rentry *e = &r->entries[i];
        if (r->current_link && strcmp(e->path, r->current_link) == 0)
            continue;
        char *real = cc_rooted(ctx, e->path);
        if (!real)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        const cc_rrepl *rep = replaced_at(r, e->path);
        cc_obj_type live = cc_txn_kind(real);
        int same = unchanged(ctx, e, real);
        if (same < 0) {
            free(real);
            return ctx->err.code;
        }
        if (same) {
            if (rep) {
                rc = restore(u, rep, real);
            } else {
                rc = add_op(u, CC_OP_REMOVE, e->type, real, NULL, 0, NULL);
                if (rc == CUDNNCTL_E_OK)
                    cc_strv_push(&u->acc->removed, e->path);
            }
        } else if (live == CC_OBJ_NONE) {
            warn(ctx, u->acc, cc_asprintf("%s was already gone", e->path));
            if (rep)
                rc = restore(u, rep, real);
        } else {
            cc_strv_push(&u->acc->kept, e->path);
            warn(ctx, u->acc,
                 cc_asprintf("kept %s: it was changed after cudnnctl installed it", e->path));
            if (rep)
                keep_backup(u, rep, "was kept");
        }
        free(real);
    }
    /* what was moved out without a file of ours taking its place (stale sub-libraries) */
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < r->n_replaced; i++) {
        const cc_rrepl *rep = &r->replaced[i];
        int has_entry = 0;
        for (size_t j = 0; j < r->n_entries && !has_entry; j++)
            has_entry = strcmp(r->entries[j].path, rep->path) == 0;
        if (has_entry || (r->current_link && strcmp(rep->path, r->current_link) == 0))
            continue;
        char *real = cc_rooted(ctx, rep->path);
        if (!real)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (cc_txn_kind(real) == CC_OBJ_NONE)
            rc = restore(u, rep, real);
        else
            keep_backup(u, rep, "is occupied by a file cudnnctl did not install");
        free(real);
    }
    return rc;
}

/* A prefix install: its whole version dir in one rename out (and what it replaced back in) when
 * it is as installed, else entry by entry; then its current link. */
static cudnnctl_err plan_prefix(undo_plan *u, const cc_receipts *rs, const cc_receipt *r)
{
    cudnnctl_ctx *ctx = u->ctx;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    char *v = cc_rooted(ctx, r->install_dir);
    size_t found = 0, want = 0;
    for (size_t i = 0; i < r->n_entries; i++)
        want += !r->current_link || strcmp(r->entries[i].path, r->current_link) != 0;
    const cc_rrepl *rep = replaced_at(r, r->install_dir);
    if (!v) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_txn_kind(v) == CC_OBJ_DIR && pristine_dir(ctx, r, v, &found) && found == want) {
        /* the whole version dir, as installed: one rename out (and the old one back in) */
        if (rep)
            rc = restore(u, rep, v);
        else if ((rc = add_op(u, CC_OP_REMOVE, CC_OBJ_DIR, v, NULL, 0, NULL)) == CUDNNCTL_E_OK)
            for (size_t i = 0; i < r->n_entries; i++)
                if (!r->current_link || strcmp(r->entries[i].path, r->current_link) != 0)
                    cc_strv_push(&u->acc->removed, r->entries[i].path);
    } else {
        rc = plan_entries(u, r);
        if (rc == CUDNNCTL_E_OK && rep)
            keep_backup(u, rep, "holds files cudnnctl did not install");
    }
    free(v);
    if (rc == CUDNNCTL_E_OK && r->current_link) /* none when direct (direct.h) */
        rc = plan_current(u, rs, r);
    return rc;
}

/* Undo receipt r: one transaction. */
static cudnnctl_err undo(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                         const cc_receipt *r, undo_acc *acc)
{
    cudnnctl_err rc;
    undo_plan u = {ctx, NULL, state, acc, {0}, 0};
    char *txn_target = cc_rooted(ctx, r->target_path);
    rc = txn_target ? cc_txn_new(ctx, state, txn_target, "uninstall", &u.t)
                    : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(txn_target);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    acc->tree_undone |= r->mode == CUDNNCTL_TARGET_CUDA_TREE;
    if (r->mode == CUDNNCTL_TARGET_PREFIX && r->install_dir)
        rc = plan_prefix(&u, rs, r);
    else
        rc = plan_entries(&u, r);
    /* dirs we created: deepest first, only when empty */
    acc->target_dir_made |= cc_strv_contains(&r->dirs_created, r->target_path);
    for (size_t i = r->dirs_created.n; rc == CUDNNCTL_E_OK && i-- > 0;) {
        char *real = cc_rooted(ctx, r->dirs_created.v[i]);
        if (!real || cc_strv_push_own(&u.t->rmdirs, real) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (rc == CUDNNCTL_E_OK) {
        char *treal = cc_rooted(ctx, r->target_path);
        u.t->owners_path = treal ? cc_owners_ledger(treal) : NULL;
        u.t->owners_line = cc_owners_line(state, r->id);
        u.t->owners_add = 0;
        free(treal);
        u.t->receipt_remove = cc_strdup(r->file);
        char *bdir = cc_asprintf("backups/%s", r->id);
        char *breal = bdir ? cc_path_join(state, bdir) : NULL;
        free(bdir);
        if (!u.kept_backup && breal) {
            cc_strv_push_own(&u.t->rm_after, breal);
        } else {
            free(breal);
            for (size_t i = 0; i < u.restored_backups.n; i++)
                cc_strv_push(&u.t->rm_after, u.restored_backups.v[i]);
        }
        rc = cc_txn_run(ctx, u.t);
    }
    if (rc == CUDNNCTL_E_OK && r->env_json && strcmp(r->env_json, "[]") != 0) {
        /* the registry values the install set (Windows) go back to what they were */
        cJSON *env = cJSON_Parse(r->env_json);
        cc_saved_err se;
        cc_err_save(ctx, &se);
        if (env && cc_winenv_restore(ctx, env, &acc->warnings, NULL) != CUDNNCTL_E_OK)
            cc_strv_push_own(&acc->warnings,
                             cc_asprintf("the environment was not restored: %s",
                                         cudnnctl_last_error(ctx)->detail));
        cc_err_restore(ctx, &se, NULL);
        cJSON_Delete(env);
    }
    if (rc == CUDNNCTL_E_OK && r->direct) /* the prefix's next install becomes the selected one */
        cc_direct_after_undo(ctx, state, rs, r, &acc->warnings);
    if (rc == CUDNNCTL_E_OK || u.t->phase == CC_PH_COMMITTED) {
        cc_strv_push(&acc->ids, r->id);
        cc_strv_push(&acc->versions, r->cudnn_version);
    }
    cc_strv_free(&u.restored_backups);
    cc_txn_free(u.t);
    return rc;
}

static char *resolve_target(cudnnctl_ctx *ctx, const char *given)
{
    char *abs = cc_txn_absolute(given);
    char *rooted = abs ? cc_rooted(ctx, abs) : NULL;
    char *shown = rooted ? cc_txn_canonical(ctx, rooted) : NULL;
    free(abs);
    free(rooted);
    return shown;
}

static cudnnctl_err pick_target(cudnnctl_ctx *ctx, const cc_receipts *rs, const char *given,
                                const char *state, char **out)
{
    *out = NULL;
    if (given) {
        *out = resolve_target(ctx, given);
        if (!*out)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "cannot resolve %s", given);
        for (size_t i = 0; i < rs->n; i++)
            if (strcmp(rs->v[i].target_path, *out) == 0)
                return CUDNNCTL_E_OK;
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_RECEIPT,
                   "cudnnctl has no install receipt for %s (receipts are in %s/receipts): "
                   "nothing there was installed by cudnnctl; see 'cudnnctl list'",
                   *out, state);
    }
    cc_strv targets = {0};
    for (size_t i = 0; i < rs->n; i++)
        if (!cc_strv_contains(&targets, rs->v[i].target_path))
            cc_strv_push(&targets, rs->v[i].target_path);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (targets.n == 1) {
        *out = cc_strdup(targets.v[0]);
    } else if (targets.n == 0) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NO_RECEIPT,
                    "no installs made by cudnnctl are recorded in %s/receipts: nothing to undo",
                    state);
    } else {
        char *all = cc_strv_join(&targets, ", ");
        rc = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                    "cudnnctl installed into several targets (%s): name one with --cuda-home DIR "
                    "or --prefix DIR",
                    all ? all : "");
        free(all);
    }
    cc_strv_free(&targets);
    return rc;
}

/* Which receipt to undo next (index into rs), -1 when none is left. */
static long choose(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                   const char *target, const cudnnctl_uninstall_opts *o, int rollback,
                   cudnnctl_err *rc)
{
    long newest = -1, match = -1, n_match = 0, active = -1;
    *rc = CUDNNCTL_E_OK;
    /* --version means what it means for plan and install (cudnnctl_cudnn_resolve), among the
     * installs on this target */
    const char *want = NULL;
    if (o->version) {
        const char **names = calloc(rs->n ? rs->n : 1, sizeof(*names));
        if (!names) {
            *rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < rs->n; i++)
            if (strcmp(rs->v[i].target_path, target) == 0)
                names[i] = rs->v[i].cudnn_version;
        long b = cudnnctl_cudnn_resolve(o->version, names, rs->n);
        free(names);
        if (b == -2) {
            *rc = CC_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                         "--version takes a version like 9.19, not '%s'", o->version);
            return -1;
        }
        want = b >= 0 ? rs->v[b].cudnn_version : NULL;
    }
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *r = &rs->v[i];
        if (strcmp(r->target_path, target) != 0)
            continue;
        newest = (long)i;
        if (cc_receipts_superseding(rs, r))
            continue; /* reinstalled over: undone together with the receipt that superseded it */
        if (want && strcmp(r->cudnn_version, want) == 0) {
            match = (long)i;
            n_match++;
        }
        if (r->direct && cc_direct_current(ctx, state, rs, r->target_path) == r)
            active = (long)i;
        if (r->current_link && r->install_dir) {
            char *cur = cc_rooted(ctx, r->current_link);
            char *t = cur ? cc_pf_readlink(cur) : NULL;
            if (t && strcmp(t, cc_path_base(r->install_dir)) == 0)
                active = (long)i;
            free(cur);
            free(t);
        }
    }
    if (rollback || o->all)
        return newest;
    if (o->version) {
        if (n_match > 1)
            *rc = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                         "--version %s matches %ld installs on %s: give more of the version "
                         "(see 'cudnnctl list') or use --all",
                         o->version, n_match, target);
        else if (n_match == 0)
            *rc = CC_ERR(ctx, CUDNNCTL_E_NO_RECEIPT,
                         "no install of cuDNN %s by cudnnctl on %s (see 'cudnnctl list')",
                         o->version, target);
        return n_match == 1 ? match : -1;
    }
    return active >= 0 ? active : newest;
}

static long find_id(const cc_receipts *rs, const char *id)
{
    for (size_t i = 0; i < rs->n; i++)
        if (strcmp(rs->v[i].id, id) == 0)
            return (long)i;
    return -1;
}

/* Undo the chosen receipt(s): one for rollback; for uninstall also every receipt the undone one
 * had superseded (a reinstall of the same version: its backups are that earlier install), and
 * with --all everything on the target. */
static cudnnctl_err undo_loop(cudnnctl_ctx *ctx, const char *state, cc_receipts *rs,
                              const char *target, const cudnnctl_uninstall_opts *o, int rollback,
                              undo_acc *acc)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    char *next_id = NULL;
    for (int round = 0;; round++) {
        long i = next_id ? find_id(rs, next_id) : choose(ctx, state, rs, target, o, rollback, &rc);
        free(next_id);
        next_id = NULL;
        if (rc != CUDNNCTL_E_OK)
            return rc;
        if (i < 0) {
            if (round == 0)
                rc = CC_ERR(ctx, CUDNNCTL_E_NO_RECEIPT, "nothing installed by cudnnctl on %s",
                            target);
            return rc;
        }
        const cc_receipt *r = &rs->v[i];
        const cc_receipt *later = superseded_by(rs, r);
        if (later)
            CC_RET_ERR(ctx, CUDNNCTL_E_CONFLICT,
                       "cuDNN %s (receipt %s) was partly replaced by the later install of "
                       "cuDNN %s (receipt %s) on %s: undo that one first ('cudnnctl rollback') "
                       "or remove every install there with --all",
                       r->cudnn_version, r->id, later->cudnn_version, later->id, target);
        if ((rc = cc_owners_may_undo(ctx, state, r)) != CUDNNCTL_E_OK)
            return rc;
        const cc_receipt *sup = rollback ? NULL : cc_receipts_superseded(rs, r);
        if (sup && !(next_id = cc_strdup(sup->id)))
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        cc_event(ctx, CUDNNCTL_EV_STEP, "uninstall", r->install_dir);
        if ((rc = undo(ctx, state, rs, r, acc)) != CUDNNCTL_E_OK) {
            free(next_id);
            return rc;
        }
        if (!next_id && (!o->all || rollback))
            return CUDNNCTL_E_OK;
        cc_receipts_free(rs);
        if ((rc = cc_receipts_load(ctx, state, rs)) != CUDNNCTL_E_OK) {
            free(next_id);
            return rc;
        }
    }
}

/* Hand sv's strings to a result's (array, count) pair. */
static void give(cc_strv *sv, char ***v, size_t *n)
{
    *v = sv->v;
    *n = sv->n;
}

static cudnnctl_err run_undo(cudnnctl_ctx *ctx, const cudnnctl_uninstall_opts *o, int rollback,
                             cudnnctl_uninstall_result **out)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    undo_acc acc = {{0}, {0}, {0}, {0}, {0}, {0}, 0, 0};
    cc_lock lock = {-1, NULL, 0, NULL, 0}, tlock = {-1, NULL, 0, NULL, 0};
    cc_receipts rs = {0};
    const char *recovered = NULL;
    char *target = NULL;
    char *state = cc_state_dir(ctx);
    cudnnctl_uninstall_result *res = calloc(1, sizeof(*res));
    *out = res;
    if (!res || !state) {
        free(state);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if ((rc = cc_lock_acquire(ctx, state, rollback ? "rollback" : "uninstall", &lock)) != CUDNNCTL_E_OK)
        goto out;
    char *rkind = NULL;
    if ((rc = cc_txn_recover(ctx, state, &recovered, &rkind)) != CUDNNCTL_E_OK)
        goto out;
    if (recovered)
        res->recovered = cc_strdup(recovered);
    /* rollback right after a crashed install: settling it already undid that install, which
     * is what "undo the last install" means; do not undo the one before it as well */
    int done_by_recovery = rollback && recovered && strcmp(recovered, "rolled-back") == 0 &&
                           rkind && strcmp(rkind, "install") == 0;
    free(rkind);
    if (done_by_recovery) {
        cc_strv_push_own(&acc.warnings, cc_strdup("the interrupted install was rolled back; "
                                                  "nothing else was undone"));
        goto out;
    }
    if ((rc = cc_receipts_load(ctx, state, &rs)) != CUDNNCTL_E_OK)
        goto out;
    if ((rc = pick_target(ctx, &rs, o->target, state, &target)) != CUDNNCTL_E_OK)
        goto out;
    char *treal = cc_rooted(ctx, target);
    rc = treal ? cc_lock_target(ctx, treal, rollback ? "rollback" : "uninstall", &tlock)
               : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(treal);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    if ((rc = undo_loop(ctx, state, &rs, target, o, rollback, &acc)) != CUDNNCTL_E_OK)
        goto out;
    cc_ldconfig(ctx, acc.tree_undone ? CUDNNCTL_TARGET_CUDA_TREE : CUDNNCTL_TARGET_PREFIX,
                o->no_ldconfig, &res->ldconfig);
    /* the target lock's own file kept the dir from being removed with the rest: it goes when
     * the lock does */
    tlock.rmdir_if_empty |= acc.target_dir_made;
out:
    if (tlock.fd >= 0)
        cc_lock_release(ctx, &tlock);
    if (lock.fd >= 0)
        cc_lock_release(ctx, &lock);
    res->target_path = target;
    give(&acc.ids, &res->removed_ids, &res->n_removed_ids);
    give(&acc.versions, &res->versions, &res->n_versions);
    give(&acc.removed, &res->files_removed, &res->n_files_removed);
    give(&acc.restored, &res->files_restored, &res->n_files_restored);
    give(&acc.kept, &res->files_kept, &res->n_files_kept);
    give(&acc.warnings, &res->warnings, &res->n_warnings);
    cc_receipts_free(&rs);
    free(state);
    return rc;
}

cudnnctl_err cudnnctl_uninstall(cudnnctl_ctx *ctx, const cudnnctl_uninstall_opts *opts,
                                cudnnctl_uninstall_result **out)
{
    return run_undo(ctx, opts, 0, out);
}

cudnnctl_err cudnnctl_rollback(cudnnctl_ctx *ctx, const char *target, int no_ldconfig,
                               cudnnctl_uninstall_result **out)
{
    cudnnctl_uninstall_opts o = {target, NULL, 0, no_ldconfig};
    return run_undo(ctx, &o, 1, out);
}
