/* journal.c: journaled multi-file transactions — prepare (temp names + backup clones next to
 * each destination), commit (renames), finish (bookkeeping), rollback and crash recovery. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "confine.h"
#include "grow.h"
#include "inuse.h"
#include "journal.h"
#include "owners.h"
#include "json.h"

static const char *const phase_names[] = {"staging", "prepare", "commit", "committed"};

const char *cc_phase_name(cc_phase p)
{
    return (unsigned)p < 4 ? phase_names[p] : "?";
}

static int phase_parse(const char *s, cc_phase *p)
{
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, phase_names[i]) == 0) {
            *p = (cc_phase)i;
            return 0;
        }
    return -1;
}

cudnnctl_err cc_txn_new(cudnnctl_ctx *ctx, const char *state_dir, const char *target,
                        const char *kind, cc_txn **out)
{
    static unsigned counter;
    cc_txn *t = calloc(1, sizeof(*t));
    if (!t)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    t->path = cc_path_join(state_dir, "journal.json");
    char *tok = cc_sys_random_token();
    t->id = tok ? cc_asprintf("%lld-%ld-%u-%.8s", (long long)cc_pf_time(), cc_pf_getpid(),
                              ++counter, tok)
                : NULL;
    free(tok);
    t->kind = cc_strdup(kind);
    t->target = cc_strdup(target);
    if (!t->path || !t->id || !t->kind || !t->target) {
        cc_txn_free(t);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    *out = t;
    return CUDNNCTL_E_OK;
}

static void op_free(cc_op *op)
{
    free(op->dst);
    free(op->tmp);
    free(op->src);
    free(op->link_target);
    free(op->bak);
    free(op->keep);
}

void cc_txn_free(cc_txn *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_ops; i++)
        op_free(&t->ops[i]);
    free(t->ops);
    free(t->path);
    free(t->id);
    free(t->kind);
    free(t->target);
    free(t->staging);
    cc_strv_free(&t->mkdirs);
    cc_strv_free(&t->rmdirs);
    cc_strv_free(&t->rm_after);
    free(t->receipt_path);
    free(t->receipt_json);
    free(t->receipt_remove);
    free(t->owners_path);
    free(t->owners_line);
    free(t);
}

#define DUP_OR_FAIL(dst, s)                                                                        \
    do {                                                                                           \
        if ((s) && !((dst) = cc_strdup(s)))                                                        \
            goto oom;                                                                              \
    } while (0)

cudnnctl_err cc_txn_add(cudnnctl_ctx *ctx, cc_txn *t, const cc_op *op)
{
    if (cc_grow(&t->ops, &t->cap_ops, t->n_ops + 1, sizeof(*t->ops)) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_op c = *op;
    c.dst = c.tmp = c.src = c.link_target = c.bak = c.keep = NULL;
    DUP_OR_FAIL(c.dst, op->dst);
    DUP_OR_FAIL(c.tmp, op->tmp);
    DUP_OR_FAIL(c.src, op->src);
    DUP_OR_FAIL(c.link_target, op->link_target);
    DUP_OR_FAIL(c.bak, op->bak);
    DUP_OR_FAIL(c.keep, op->keep);
    t->ops[t->n_ops++] = c;
    return CUDNNCTL_E_OK;
oom:
    op_free(&c);
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* ---- serialisation --------------------------------------------------------------------------- */

static int add_strv(cJSON *o, const char *k, const cc_strv *sv)
{
    cJSON *a = cJSON_AddArrayToObject(o, k);
    if (!a)
        return -1;
    for (size_t i = 0; i < sv->n; i++) {
        cJSON *s = cJSON_CreateString(sv->v[i]);
        if (!s || !cJSON_AddItemToArray(a, s))
            return -1;
    }
    return 0;
}

static char *to_json(const cc_txn *t)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    if (!o)
        return NULL;
    if (!cJSON_AddNumberToObject(o, "format", 1) || cc_json_str(o, "id", t->id) ||
        cc_json_str(o, "kind", t->kind) || cc_json_str(o, "target", t->target) ||
        cc_json_str(o, "phase", cc_phase_name(t->phase)) ||
        cc_json_str(o, "staging", t->staging) || add_strv(o, "mkdirs", &t->mkdirs) ||
        add_strv(o, "rmdirs", &t->rmdirs) || add_strv(o, "rm_after", &t->rm_after) ||
        cc_json_str(o, "receipt_path", t->receipt_path) ||
        cc_json_str(o, "receipt_remove", t->receipt_remove))
        goto out;
    if (t->owners_path) {
        cJSON *ow = cJSON_AddObjectToObject(o, "owners");
        if (!ow || cc_json_str(ow, "ledger", t->owners_path) ||
            cc_json_str(ow, "line", t->owners_line) ||
            !cJSON_AddBoolToObject(ow, "add", t->owners_add))
            goto out;
    }
    cJSON *rec = t->receipt_json ? cJSON_Parse(t->receipt_json) : cJSON_CreateNull();
    if (!rec || !cJSON_AddItemToObject(o, "receipt", rec)) {
        cJSON_Delete(rec);
        goto out;
    }
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    if (!ops)
        goto out;
    for (size_t i = 0; i < t->n_ops; i++) {
        const cc_op *op = &t->ops[i];
        cJSON *j = cJSON_CreateObject();
        if (!j || !cJSON_AddItemToArray(ops, j))
            goto out;
        if (cc_json_str(j, "op", op->kind == CC_OP_PLACE ? "place" : "remove") ||
            cc_json_str(j, "type", cc_txn_kind_name(op->type)) || cc_json_str(j, "dst", op->dst) ||
            cc_json_str(j, "tmp", op->tmp) || cc_json_str(j, "src", op->src) ||
            !cJSON_AddBoolToObject(j, "src_clone", op->src_clone) ||
            cc_json_str(j, "link_target", op->link_target) ||
            !cJSON_AddBoolToObject(j, "had_old", op->had_old) ||
            cc_json_str(j, "old_type", op->had_old ? cc_txn_kind_name(op->old_type) : NULL) ||
            cc_json_str(j, "bak", op->bak) || cc_json_str(j, "keep", op->keep))
            goto out;
    }
    text = cJSON_Print(o);
out:
    cJSON_Delete(o);
    return text;
}

static int jbool(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int read_strv(const cJSON *o, const char *k, cc_strv *sv)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k), *x;
    cJSON_ArrayForEach(x, a)
    {
        if (!cJSON_IsString(x) || cc_strv_push(sv, x->valuestring) != 0)
            return -1;
    }
    return 0;
}

static cudnnctl_err from_json(cudnnctl_ctx *ctx, const char *path, const char *text, cc_txn *t)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cJSON *o = cJSON_Parse(text);
    if (!o || !cJSON_IsObject(o)) {
        rc = CC_ERR(ctx, CUDNNCTL_E_JOURNAL,
                    "%s is not valid JSON: an interrupted run left it damaged; inspect it, undo "
                    "the temp files it names (.cudnnctl-*) by hand, then delete it",
                    path);
        goto out;
    }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    if (!cJSON_IsNumber(fmt) || fmt->valueint != 1 || !cc_json_get_str(o, "id") ||
        !cc_json_get_str(o, "kind") || phase_parse(cc_json_get_str(o, "phase"), &t->phase) != 0) {
        rc = CC_ERR(ctx, CUDNNCTL_E_JOURNAL,
                    "%s: unknown journal format (written by another cudnnctl version?)", path);
        goto out;
    }
    if (!(t->id = cc_strdup(cc_json_get_str(o, "id"))) ||
        !(t->kind = cc_strdup(cc_json_get_str(o, "kind"))))
        goto oom;
    if (cc_json_get_str(o, "target") && !(t->target = cc_strdup(cc_json_get_str(o, "target"))))
        goto oom;
    if (cc_json_get_str(o, "staging") && !(t->staging = cc_strdup(cc_json_get_str(o, "staging"))))
        goto oom;
    if (read_strv(o, "mkdirs", &t->mkdirs) || read_strv(o, "rmdirs", &t->rmdirs) ||
        read_strv(o, "rm_after", &t->rm_after))
        goto oom;
    if (cc_json_get_str(o, "receipt_path") &&
        !(t->receipt_path = cc_strdup(cc_json_get_str(o, "receipt_path"))))
        goto oom;
    if (cc_json_get_str(o, "receipt_remove") &&
        !(t->receipt_remove = cc_strdup(cc_json_get_str(o, "receipt_remove"))))
        goto oom;
    const cJSON *ow = cJSON_GetObjectItemCaseSensitive(o, "owners");
    if (cc_json_get_str(ow, "ledger") && cc_json_get_str(ow, "line")) {
        t->owners_path = cc_strdup(cc_json_get_str(ow, "ledger"));
        t->owners_line = cc_strdup(cc_json_get_str(ow, "line"));
        t->owners_add = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ow, "add"));
        if (!t->owners_path || !t->owners_line)
            goto oom;
    }
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(o, "receipt");
    if (cJSON_IsObject(rec) && !(t->receipt_json = cJSON_Print(rec)))
        goto oom;
    const cJSON *j;
    cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(o, "ops"))
    {
        cc_op op = {0};
        const char *k = cc_json_get_str(j, "op");
        op.kind = k && strcmp(k, "remove") == 0 ? CC_OP_REMOVE : CC_OP_PLACE;
        op.type = cc_txn_kind_parse(cc_json_get_str(j, "type"));
        op.dst = (char *)cc_json_get_str(j, "dst");
        op.tmp = (char *)cc_json_get_str(j, "tmp");
        op.src = (char *)cc_json_get_str(j, "src");
        op.src_clone = jbool(j, "src_clone");
        op.link_target = (char *)cc_json_get_str(j, "link_target");
        op.had_old = jbool(j, "had_old");
        op.old_type = cc_txn_kind_parse(cc_json_get_str(j, "old_type"));
        op.bak = (char *)cc_json_get_str(j, "bak");
        op.keep = (char *)cc_json_get_str(j, "keep");
        if (!op.dst || op.type == CC_OBJ_NONE || (op.kind == CC_OP_PLACE && !op.tmp) ||
            ((op.had_old || op.kind == CC_OP_REMOVE) && !op.bak)) {
            rc = CC_ERR(ctx, CUDNNCTL_E_JOURNAL, "%s: malformed op %zu", path, t->n_ops);
            goto out;
        }
        if ((rc = cc_txn_add(ctx, t, &op)) != CUDNNCTL_E_OK)
            goto out;
    }
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    cJSON_Delete(o);
    return rc;
}

cudnnctl_err cc_txn_save(cudnnctl_ctx *ctx, cc_txn *t)
{
    char *text = to_json(t);
    if (!text)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    char *dir = cc_path_dir(t->path);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!dir || cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
        cc_sys_write_file_atomic(ctx, t->path, text, strlen(text), 0644) != 0)
        rc = CC_ERR_PF(ctx, "cannot write the install journal", t->path);
    free(dir);
    free(text);
    return rc;
}

cudnnctl_err cc_txn_load(cudnnctl_ctx *ctx, const char *state_dir, cc_txn **out)
{
    *out = NULL;
    char *path = cc_path_join(state_dir, "journal.json");
    char *text = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_txn_kind(path) == CC_OBJ_NONE) {
        free(path);
        return CUDNNCTL_E_OK;
    }
    if (cc_sys_read_trusted(ctx, path, 64u << 20, &text, NULL) != 0) {
        rc = CC_ERR_PF(ctx, "cannot read the install journal", path);
        free(path);
        return rc;
    }
    cc_txn *t = calloc(1, sizeof(*t));
    if (!t) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else {
        t->path = path;
        path = NULL;
        rc = from_json(ctx, t->path, text, t);
        if (rc == CUDNNCTL_E_OK)
            rc = cc_txn_confined(ctx, t, state_dir);
    }
    if (rc == CUDNNCTL_E_OK)
        *out = t;
    else
        cc_txn_free(t);
    free(path);
    free(text);
    return rc;
}

/* ---- the phases ------------------------------------------------------------------------------ */

/* fsync the parent dirs of every name an op touches (each dir once). */
static cudnnctl_err sync_dirs(cudnnctl_ctx *ctx, cc_txn *t)
{
    (void)ctx;
    cc_strv dirs = {0};
    for (size_t i = 0; i < t->n_ops; i++) {
        const char *names[] = {t->ops[i].dst, t->ops[i].tmp, t->ops[i].bak};
        for (int k = 0; k < 3; k++) {
            if (!names[k])
                continue;
            char *d = cc_path_dir(names[k]);
            if (d && !cc_strv_contains(&dirs, d))
                cc_strv_push_own(&dirs, d);
            else
                free(d);
        }
    }
    for (size_t i = 0; i < dirs.n; i++)
        cc_pf_fsync_dir(dirs.v[i]); /* best effort: some filesystems cannot sync dirs */
    cc_strv_free(&dirs);
    return CUDNNCTL_E_OK;
}

/* Does a link op (no src) lead to a directory — there now, or placed by this transaction (a
 * prefix's new cudnn-<ver> dir before `current` is flipped to it)? */
static int link_to_dir(const cc_txn *t, const cc_op *op)
{
    if (!op->link_target || !*op->link_target)
        return 0;
    char *dir = cc_path_dir(op->dst);
    char *target = cc_pf_is_abs(op->link_target) ? cc_strdup(op->link_target)
                   : dir                          ? cc_path_join(dir, op->link_target)
                                                  : NULL;
    int yes = target && cc_txn_kind(target) == CC_OBJ_DIR;
    for (size_t i = 0; target && !yes && i < t->n_ops; i++)
        yes = t->ops[i].kind == CC_OP_PLACE && t->ops[i].type == CC_OBJ_DIR &&
              strcmp(t->ops[i].dst, target) == 0;
    free(dir);
    free(target);
    return yes;
}

static cudnnctl_err prepare(cudnnctl_ctx *ctx, cc_txn *t)
{
    cudnnctl_err rc;
    t->phase = CC_PH_PREPARE;
    if ((rc = cc_txn_save(ctx, t)) != CUDNNCTL_E_OK)
        return rc;
    for (size_t i = 0; i < t->n_ops; i++) {
        cc_op *op = &t->ops[i];
        /* before the commit point a cancel rolls the whole transaction back */
        if ((rc = cc_cancel_check(ctx, "the commit")) != CUDNNCTL_E_OK)
            return rc;
        if (op->kind != CC_OP_PLACE)
            continue;
        if (op->type == CC_OBJ_DIR) {
            /* a staged dir is its own temp name; a dir restored from a backup moves in */
            if (op->src && cc_txn_kind(op->tmp) == CC_OBJ_NONE &&
                (op->src_clone ? cc_txn_clone(ctx, op->src, op->tmp)
                               : cc_txn_move(ctx, op->src, op->tmp)) != 0)
                return CC_ERR_PF(ctx, "cannot create", op->tmp);
            /* a staged tree goes live by one rename: its files and dirs first reach the disk
             * (the writer started their writeback while extracting, so little is left) */
            if (!op->src && cc_txn_fsync_tree(ctx, op->tmp) != 0)
                return CC_ERR_PF(ctx, "cannot sync", op->tmp);
            continue;
        }
        int r;
        if (op->src)
            r = op->src_clone ? cc_txn_clone(ctx, op->src, op->tmp)
                              : cc_txn_move(ctx, op->src, op->tmp);
        else
            r = link_to_dir(t, op) /* Windows: a junction, which must know it */
                    ? cc_sys_symlink_dir(ctx, op->link_target, op->tmp)
                    : cc_sys_symlink(ctx, op->link_target ? op->link_target : "", op->tmp);
        if (r != 0)
            return CC_ERR_PF(ctx, "cannot create", op->tmp);
        if (op->type == CC_OBJ_FILE && cc_txn_fsync_file(ctx, op->tmp) != 0)
            return CC_ERR_PF(ctx, "cannot sync", op->tmp);
        /* the old object stays reachable under bak until the commit ends: the rename of tmp
         * over dst then replaces it atomically, with no moment where dst is missing */
        if (op->had_old && op->old_type != CC_OBJ_DIR && cc_txn_clone(ctx, op->dst, op->bak) != 0)
            return CC_ERR_PF(ctx, "cannot back up", op->dst);
        cc_progress(ctx, "prepare", i + 1, t->n_ops);
    }
    return sync_dirs(ctx, t);
}

static void ev(cudnnctl_ctx *ctx, cudnnctl_event_kind kind, const char *real)
{
    char *shown = cc_unrooted(ctx, real);
    cc_event(ctx, kind, NULL, shown ? shown : real);
    free(shown);
}

static cudnnctl_err commit(cudnnctl_ctx *ctx, cc_txn *t)
{
    cudnnctl_err rc;
    t->phase = CC_PH_COMMIT;
    if ((rc = cc_txn_save(ctx, t)) != CUDNNCTL_E_OK)
        return rc;
    /* new dirs only now (their temp names were made in the nearest existing dir): a crash
     * before the commit phase leaves no new empty dir in the tree */
    for (size_t i = 0; i < t->mkdirs.n; i++) {
        const char *d = t->mkdirs.v[i];
        if (cc_txn_kind(d) != CC_OBJ_DIR && cc_sys_mkdir(ctx, d, 0755) != 0)
            return CC_ERR_PF(ctx, "cannot create directory", d);
    }
    for (size_t i = 0; i < t->n_ops; i++) {
        cc_op *op = &t->ops[i];
        if (op->kind == CC_OP_REMOVE) {
            if (cc_sys_rename(ctx, op->dst, op->bak) != 0)
                return CC_ERR_PF(ctx, "cannot move aside", op->dst);
            ev(ctx, CUDNNCTL_EV_FILE_REMOVED, op->dst);
        } else {
            if (op->type == CC_OBJ_DIR && op->had_old && cc_sys_rename(ctx, op->dst, op->bak) != 0)
                return CC_ERR_PF(ctx, "cannot move aside", op->dst);
            if (cc_sys_rename(ctx, op->tmp, op->dst) != 0) {
                int r = cc_inuse_replace(ctx, t, op); /* Windows: a DLL someone has loaded */
                if (r < 0)
                    return cudnnctl_last_error(ctx)->code;
                if (r > 0)
                    return CC_ERR_PF(ctx, "cannot rename into place", op->dst);
            }
            ev(ctx, CUDNNCTL_EV_FILE_WRITTEN, op->dst);
        }
        cc_progress(ctx, "commit", i + 1, t->n_ops);
    }
    sync_dirs(ctx, t);
    t->phase = CC_PH_COMMITTED; /* the commit point, once this save is on disk */
    if ((rc = cc_txn_save(ctx, t)) != CUDNNCTL_E_OK)
        t->phase = CC_PH_COMMIT; /* the journal on disk still says "commit": roll back */
    return rc;
}

static cudnnctl_err finish_files(cudnnctl_ctx *ctx, cc_txn *t, const char *state);

cudnnctl_err cc_txn_finish(cudnnctl_ctx *ctx, cc_txn *t)
{
    if (t->receipt_path && t->receipt_json) {
        char *dir = cc_path_dir(t->receipt_path);
        int bad = !dir || cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
                  cc_sys_write_file_atomic(ctx, t->receipt_path, t->receipt_json,
                                           strlen(t->receipt_json), 0644) != 0;
        free(dir);
        if (bad)
            return CC_ERR_PF(ctx, "cannot write the receipt", t->receipt_path);
    }
    if (t->receipt_remove && cc_txn_kind(t->receipt_remove) != CC_OBJ_NONE &&
        cc_sys_unlink(ctx, t->receipt_remove) != 0)
        return CC_ERR_PF(ctx, "cannot remove the receipt", t->receipt_remove);
    if (t->owners_path && t->owners_line &&
        cc_owners_update(ctx, t->owners_path, t->owners_line, t->owners_add) != CUDNNCTL_E_OK) {
        /* advisory (it lets other state dirs see this change): said, never a stuck journal */
        char *w = cc_asprintf("the target's ledger %s was not updated (%s): uninstalls from "
                              "other state dirs do not see this change",
                              t->owners_path, ctx->err.detail ? ctx->err.detail : "?");
        cc_event(ctx, CUDNNCTL_EV_WARNING, w, t->owners_path);
        free(w);
        cc_clear_error(ctx);
    }
    char *state = cc_path_dir(t->path);
    cudnnctl_err rc = finish_files(ctx, t, state);
    free(state);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (t->staging && cc_sys_rm_rf(ctx, t->staging) != 0)
        return CC_ERR_PF(ctx, "cannot remove the staging dir", t->staging);
    if (cc_txn_kind(t->path) != CC_OBJ_NONE && cc_sys_unlink(ctx, t->path) != 0)
        return CC_ERR_PF(ctx, "cannot remove the journal", t->path);
    return CUDNNCTL_E_OK;
}

/* The old file a replace moved aside because it was in use (inuse.c), when it is there. */
static char *aside_of(const cc_txn *t, const cc_op *op)
{
    if (op->kind != CC_OP_PLACE || op->type != CC_OBJ_FILE)
        return NULL;
    char *a = cc_txn_temp_name(t, op->dst, "old");
    if (a && cc_txn_kind(a) == CC_OBJ_NONE) {
        free(a);
        a = NULL;
    }
    return a;
}

/* After the commit point: backups kept or deleted, asides and rm_after deleted (what is in use
 * is queued by cc_inuse_remove), emptied dirs removed. */
static cudnnctl_err finish_files(cudnnctl_ctx *ctx, cc_txn *t, const char *state)
{
    for (size_t i = 0; i < t->n_ops; i++) {
        cc_op *op = &t->ops[i];
        char *aside = aside_of(t, op);
        int stuck = aside && cc_inuse_remove(ctx, state, aside, op->dst) != 0;
        free(aside);
        if (stuck)
            return CC_ERR_PF(ctx, "cannot remove", op->dst);
        if (!op->bak || cc_txn_kind(op->bak) == CC_OBJ_NONE)
            continue; /* never made, or already moved by an earlier attempt */
        if (op->keep) {
            char *dir = cc_path_dir(op->keep);
            int bad = !dir || cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
                      cc_sys_rm_rf(ctx, op->keep) != 0 || cc_txn_move(ctx, op->bak, op->keep) != 0;
            free(dir);
            if (bad)
                return CC_ERR_PF(ctx, "cannot keep the backup", op->keep);
        } else if (cc_inuse_remove(ctx, state, op->bak, op->dst) != 0) {
            return CC_ERR_PF(ctx, "cannot remove", op->bak);
        }
    }
    for (size_t i = 0; i < t->rm_after.n; i++)
        if (cc_inuse_remove(ctx, state, t->rm_after.v[i], NULL) != 0)
            return CC_ERR_PF(ctx, "cannot remove", t->rm_after.v[i]);
    for (size_t i = 0; i < t->rmdirs.n; i++) {
        const char *d = t->rmdirs.v[i];
        if (cc_txn_kind(d) == CC_OBJ_DIR && cc_txn_dir_empty(d) && cc_sys_rmdir(ctx, d) != 0)
            return CC_ERR_PF(ctx, "cannot remove directory", d);
    }
    return CUDNNCTL_E_OK;
}

/* Put tmp back where it came from (a receipt backup being restored) or delete it. */
static int dispose_tmp(cudnnctl_ctx *ctx, const cc_op *op)
{
    if (op->src && !op->src_clone && cc_txn_kind(op->src) == CC_OBJ_NONE)
        return cc_txn_move(ctx, op->tmp, op->src);
    return cc_sys_rm_rf(ctx, op->tmp);
}

static int undo_op_files(cudnnctl_ctx *ctx, const cc_op *op);

/* A replace that moved the old file aside (in use) and crashed before the new one was in place
 * has no dst: the old file goes back first; the aside name goes at the end (queued if in use). */
static int undo_op(cudnnctl_ctx *ctx, const cc_txn *t, const cc_op *op, const char *state)
{
    char *aside = aside_of(t, op);
    int rc = 0;
    if (aside && cc_txn_kind(op->dst) == CC_OBJ_NONE && cc_sys_rename(ctx, aside, op->dst) != 0)
        rc = -1;
    if (rc == 0)
        rc = undo_op_files(ctx, op);
    if (rc == 0 && aside && cc_inuse_remove(ctx, state, aside, op->dst) != 0)
        rc = -1;
    free(aside);
    return rc;
}

static int undo_op_files(cudnnctl_ctx *ctx, const cc_op *op)
{
    int has_bak = op->bak && cc_txn_kind(op->bak) != CC_OBJ_NONE;
    if (op->kind == CC_OP_REMOVE)
        return has_bak ? cc_sys_rename(ctx, op->bak, op->dst) : 0;
    int has_tmp = cc_txn_kind(op->tmp) != CC_OBJ_NONE;
    int has_dst = cc_txn_kind(op->dst) != CC_OBJ_NONE;
    if (op->type == CC_OBJ_DIR) {
        if (!has_tmp && (op->had_old ? has_bak && has_dst : has_dst)) {
            /* renamed into place: take it out again first */
            if (cc_sys_rename(ctx, op->dst, op->tmp) != 0)
                return -1;
            has_tmp = 1;
            has_dst = 0;
        }
        if (op->had_old && has_bak && !has_dst && cc_sys_rename(ctx, op->bak, op->dst) != 0)
            return -1;
        return has_tmp ? dispose_tmp(ctx, op) : 0;
    }
    if (has_tmp && op->type == CC_OBJ_LINK && op->had_old && op->old_type == CC_OBJ_LINK &&
        has_bak) {
        /* a Windows junction is replaced by rewriting it in place, then its temp name goes: a
         * crash between leaves tmp with dst already new. The clone under bak puts the old
         * target back either way (rename(2) / the same in-place rewrite). A link over a file
         * keeps the old path: there bak is a hard link of dst, which rename(2) leaves alone. */
        if (dispose_tmp(ctx, op) != 0)
            return -1;
        return cc_sys_rename(ctx, op->bak, op->dst);
    }
    if (has_tmp) { /* not renamed yet: dst still holds the old object */
        if (dispose_tmp(ctx, op) != 0)
            return -1;
        return has_bak ? cc_sys_unlink(ctx, op->bak) : 0;
    }
    if (op->had_old) /* renamed: the clone under bak goes back atomically */
        return has_bak ? cc_sys_rename(ctx, op->bak, op->dst) : 0;
    return has_dst ? cc_sys_rm_rf(ctx, op->dst) : 0;
}

cudnnctl_err cc_txn_rollback(cudnnctl_ctx *ctx, cc_txn *t)
{
    if (t->phase == CC_PH_COMMITTED)
        CC_RET_ERR(ctx, CUDNNCTL_E_JOURNAL, "transaction %s is committed: it can only be finished",
                   t->id);
    char *state = cc_path_dir(t->path);
    for (size_t i = t->n_ops; i-- > 0;) {
        if (undo_op(ctx, t, &t->ops[i], state) != 0) {
            free(state);
            return CC_ERR_PF(ctx, "cannot roll back", t->ops[i].dst);
        }
    }
    free(state);
    /* staging first: it may sit inside a dir this transaction created (a new prefix) */
    if (t->staging && cc_sys_rm_rf(ctx, t->staging) != 0)
        return CC_ERR_PF(ctx, "cannot remove the staging dir", t->staging);
    for (size_t i = t->mkdirs.n; i-- > 0;) {
        const char *d = t->mkdirs.v[i];
        if (cc_txn_kind(d) == CC_OBJ_DIR && cc_txn_dir_empty(d) && cc_sys_rmdir(ctx, d) != 0)
            return CC_ERR_PF(ctx, "cannot remove directory", d);
    }
    sync_dirs(ctx, t);
    if (cc_txn_kind(t->path) != CC_OBJ_NONE && cc_sys_unlink(ctx, t->path) != 0)
        return CC_ERR_PF(ctx, "cannot remove the journal", t->path);
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_txn_abort(cudnnctl_ctx *ctx, cc_txn *t, cudnnctl_err rc)
{
    if (!t || t->phase == CC_PH_COMMITTED)
        return rc;
    cc_saved_err s;
    cc_err_save(ctx, &s);
    char *extra = NULL;
    if (cc_txn_rollback(ctx, t) != CUDNNCTL_E_OK)
        extra = cc_asprintf(" (and cleaning up failed too: %s; the journal %s stays and the next "
                            "cudnnctl run settles it)",
                            ctx->err.detail, t->path);
    cc_err_restore(ctx, &s, extra);
    free(extra);
    return rc;
}

cudnnctl_err cc_txn_run(cudnnctl_ctx *ctx, cc_txn *t)
{
    cudnnctl_err rc = prepare(ctx, t);
    if (rc == CUDNNCTL_E_OK)
        rc = commit(ctx, t);
    if (rc != CUDNNCTL_E_OK && t->phase != CC_PH_COMMITTED) {
        cc_saved_err s;
        cc_err_save(ctx, &s);
        cudnnctl_err rb = cc_txn_rollback(ctx, t);
        char *extra = NULL;
        if (rb != CUDNNCTL_E_OK)
            extra = cc_asprintf(" (and the rollback failed too: %s; the journal %s stays and the "
                                "next cudnnctl run settles it)",
                                ctx->err.detail, t->path);
        else
            cc_log(ctx, CUDNNCTL_LOG_INFO, "rolled back: the target is as it was before");
        rc = cc_err_restore(ctx, &s, extra ? extra : " (rolled back: the target is unchanged)");
        free(extra);
        return rc;
    }
    if (rc != CUDNNCTL_E_OK || (rc = cc_txn_finish(ctx, t)) != CUDNNCTL_E_OK) {
        /* past the commit point: the tree is complete; try the bookkeeping once more */
        if (cc_txn_finish(ctx, t) == CUDNNCTL_E_OK)
            return CUDNNCTL_E_OK;
        CC_RET_ERR(ctx, CUDNNCTL_E_JOURNAL,
                   "the files are in place, but finishing the bookkeeping failed (%s); the "
                   "journal %s stays and the next cudnnctl install/uninstall/rollback finishes it",
                   ctx->err.detail, t->path);
    }
    return CUDNNCTL_E_OK;
}

/* Temp files of atomic writes (NAME.tmp-<ms>) a crash left in dir: never anything else. */
static void sweep_tmp(cudnnctl_ctx *ctx, const char *dir)
{
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    cc_strv dead = {0};
    const char *nm;
    while (d && (nm = cc_pf_readdir(d)) != NULL)
        if (strstr(nm, ".tmp-") &&
            (cc_str_starts(nm, "journal.json") || cc_str_ends(dir, "receipts")))
            cc_strv_push_own(&dead, cc_path_join(dir, nm));
    cc_pf_closedir(d);
    for (size_t i = 0; i < dead.n; i++)
        cc_sys_unlink(ctx, dead.v[i]);
    cc_strv_free(&dead);
}

cudnnctl_err cc_txn_recover(cudnnctl_ctx *ctx, const char *state_dir, const char **what,
                            char **kind)
{
    cc_txn *t = NULL;
    *what = NULL;
    if (kind)
        *kind = NULL;
    sweep_tmp(ctx, state_dir);
    cc_inuse_sweep(ctx, state_dir); /* files an earlier run left because they were in use */
    char *rdir = cc_path_join(state_dir, "receipts");
    sweep_tmp(ctx, rdir);
    free(rdir);
    cudnnctl_err rc = cc_txn_load(ctx, state_dir, &t);
    if (rc != CUDNNCTL_E_OK || !t)
        return rc;
    int forward = t->phase == CC_PH_COMMITTED;
    cc_log(ctx, CUDNNCTL_LOG_WARN,
           "an interrupted %s (transaction %s, phase %s) was found in %s: %s it", t->kind, t->id,
           cc_phase_name(t->phase), t->path, forward ? "finishing" : "rolling back");
    rc = forward ? cc_txn_finish(ctx, t) : cc_txn_rollback(ctx, t);
    if (rc != CUDNNCTL_E_OK) {
        rc = CC_ERR(ctx, CUDNNCTL_E_JOURNAL,
                    "an interrupted %s left %s and settling it failed: %s. Fix the cause "
                    "(permissions, free space) and run again; the journal names every temp file",
                    t->kind, t->path, ctx->err.detail);
    } else {
        *what = forward ? "finished" : "rolled-back";
        if (kind)
            *kind = cc_strdup(t->kind);
        char *msg = cc_asprintf("an interrupted %s was found and %s", t->kind,
                                forward ? "finished" : "rolled back");
        cc_event(ctx, CUDNNCTL_EV_WARNING, msg, NULL);
        free(msg);
    }
    cc_txn_free(t);
    return rc;
}
