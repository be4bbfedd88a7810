/* owners.c: the target's ledger of installs, kept inside it (TARGET/.cudnnctl-owners, next to
 * the target lock; never beside the target, whose parent others may share) so that runs with
 * different state dirs know of each other. One line per
 * install, in commit order: "<state dir>\t<receipt id>". Written under the target lock; a line
 * whose receipt no longer exists is stale and ignored (a crash between the line and the commit
 * leaves one). Uninstall refuses to undo an install that a later install from another state
 * dir has overwritten: its backups would "restore" files that receipt now owns. */
#include <stdlib.h>
#include <string.h>

#include "owners.h"
#include "grow.h"

static char *ledger_path(const char *target_real)
{
    return cc_path_join(target_real, ".cudnnctl-owners");
}

/* The ledger's lines (empty when there is none); -1 on a read error (recorded). */
static int ledger_read(cudnnctl_ctx *ctx, const char *path, cc_strv *lines)
{
    char *text = NULL;
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) != 0 || !st.exists)
        return 0;
    if (cc_sys_read_trusted(ctx, path, 1u << 20, &text, NULL) != 0) {
        CC_ERR_PF(ctx, "cannot read", path);
        return -1;
    }
    for (char *s = text, *nl; s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        if (strchr(s, '\t'))
            cc_strv_push(lines, s);
    }
    free(text);
    return 0;
}

static cudnnctl_err ledger_write(cudnnctl_ctx *ctx, const char *path, const cc_strv *lines)
{
    if (!lines->n)
        return cc_sys_unlink(ctx, path) == 0 || cc_pf_last_error() == CUDNNCTL_E_NOT_FOUND
                   ? CUDNNCTL_E_OK
                   : CC_ERR_PF(ctx, "cannot remove", path);
    cc_buf b = {0};
    for (size_t i = 0; i < lines->n; i++)
        cc_buf_printf(&b, "%s\n", lines->v[i]);
    int r = b.data ? cc_sys_write_file_atomic(ctx, path, b.data, b.len, 0644) : -1;
    cc_buf_free(&b);
    return r == 0 ? CUDNNCTL_E_OK : CC_ERR_PF(ctx, "cannot write", path);
}

static char *line_of(const char *state, const char *id)
{
    return cc_asprintf("%s\t%s", state, id);
}

char *cc_owners_ledger(const char *target_real)
{
    return ledger_path(target_real);
}

char *cc_owners_line(const char *state, const char *id)
{
    return line_of(state, id);
}

/* Temp files of the ledger's atomic writes (LEDGER.tmp-<ms>) a killed run left beside it. */
static void sweep_tmp(cudnnctl_ctx *ctx, const char *ledger)
{
    char *dir = cc_path_dir(ledger);
    char *prefix = cc_asprintf("%s.tmp-", cc_path_base(ledger));
    cc_pf_dir *d = dir && prefix ? cc_pf_opendir(dir) : NULL;
    cc_strv dead = {0};
    const char *nm;
    while (d && (nm = cc_pf_readdir(d)) != NULL)
        if (cc_str_starts(nm, prefix))
            cc_strv_push_own(&dead, cc_path_join(dir, nm));
    cc_pf_closedir(d);
    for (size_t i = 0; i < dead.n; i++)
        (void)cc_sys_unlink(ctx, dead.v[i]);
    cc_strv_free(&dead);
    free(dir);
    free(prefix);
}

cudnnctl_err cc_owners_update(cudnnctl_ctx *ctx, const char *ledger, const char *line, int add)
{
    cc_strv lines = {0}, out = {0};
    sweep_tmp(ctx, ledger);
    if (ledger_read(ctx, ledger, &lines) != 0)
        return ctx->err.code;
    int had = cc_strv_contains(&lines, line);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (add != had) { /* idempotent: a finish that runs twice changes nothing the second time */
        for (size_t i = 0; i < lines.n; i++)
            if (add || strcmp(lines.v[i], line) != 0)
                cc_strv_push(&out, lines.v[i]);
        if (add)
            cc_strv_push(&out, line);
        rc = ledger_write(ctx, ledger, &out);
    }
    cc_strv_free(&lines);
    cc_strv_free(&out);
    return rc;
}

/* The receipt a ledger line names, loaded; 0 when it exists. */
static int load_line(cudnnctl_ctx *ctx, const char *line, cc_receipt *out, char **state_out)
{
    const char *tab = strrchr(line, '\t');
    char *state = cc_strndup(line, (size_t)(tab - line));
    char *rel = cc_asprintf("receipts/%s.json", tab + 1);
    char *file = state && rel ? cc_path_join(state, rel) : NULL;
    char *json = NULL;
    int ok = -1;
    cc_pf_stat_t st;
    if (file && cc_pf_stat(file, &st) == 0 && st.exists &&
        cc_sys_read_trusted(ctx, file, 64u << 20, &json, NULL) == 0 &&
        cc_receipt_parse(ctx, json, file, out) == CUDNNCTL_E_OK)
        ok = 0;
    cc_clear_error(ctx);
    free(json);
    free(rel);
    free(file);
    *state_out = state;
    return ok;
}

static int overlaps(const cc_receipt *later, const cc_receipt *r)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        const char *p = r->entries[i].path;
        if (r->current_link && strcmp(p, r->current_link) == 0)
            continue; /* PREFIX/current moves between installs by design */
        for (size_t k = 0; k < later->n_entries; k++)
            if (strcmp(later->entries[k].path, p) == 0)
                return 1;
        for (size_t k = 0; k < later->n_replaced; k++)
            if (strcmp(later->replaced[k].path, p) == 0 || cc_txn_under(later->replaced[k].path, p))
                return 1;
    }
    return 0;
}

cudnnctl_err cc_owners_check(cudnnctl_ctx *ctx, const char *target_real, const char *state,
                             const cc_receipt *r)
{
    char *path = ledger_path(target_real), *me = line_of(state, r->id);
    cc_strv lines = {0};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!path || !me)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (ledger_read(ctx, path, &lines) != 0)
        rc = ctx->err.code;
    size_t i = 0;
    while (i < lines.n && strcmp(lines.v[i], me) != 0)
        i++;
    for (i++; rc == CUDNNCTL_E_OK && i < lines.n; i++) {
        cc_receipt later = {0};
        char *lstate = NULL;
        if (load_line(ctx, lines.v[i], &later, &lstate) == 0 && strcmp(lstate, state) != 0 &&
            overlaps(&later, r))
            rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                        "cuDNN %s (receipt %s) on %s was overwritten by a later install of cuDNN "
                        "%s (receipt %s of the state dir %s): undoing it now would 'restore' "
                        "files that install owns. Undo that one first (cudnnctl --state-dir %s "
                        "uninstall), then run this again",
                        r->cudnn_version, r->id, r->target_path, later.cudnn_version, later.id,
                        lstate, lstate);
        cc_receipt_free(&later);
        free(lstate);
    }
    cc_strv_free(&lines);
    free(path);
    free(me);
    return rc;
}

/* Did an install from another state dir overwrite r's files since? Then undoing r would put
 * the wrong things back. (A target whose dev:ino changed since r is only warned about.) */
cudnnctl_err cc_owners_may_undo(cudnnctl_ctx *ctx, const char *state, const cc_receipt *r)
{
    char *treal = cc_rooted(ctx, r->target_path);
    char *now = treal ? cc_target_identity(treal) : NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!treal)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (r->target_id && now && strcmp(now, r->target_id) != 0) {
        /* a restored backup or a container layer can renumber a dir: the per-file checks
         * (size, SHA-256) still decide what is ours, so this is said, not refused */
        char *w = cc_asprintf("%s is not the same directory receipt %s was made for (identity "
                              "%s then, %s now: replaced, re-created or restored since); only "
                              "files that still match the receipt are touched",
                              r->target_path, r->id, r->target_id, now);
        cc_event(ctx, CUDNNCTL_EV_WARNING, w, r->target_path);
        free(w);
    }
    if (rc == CUDNNCTL_E_OK)
        rc = cc_owners_check(ctx, treal, state, r);
    free(treal);
    free(now);
    return rc;
}

cudnnctl_err cc_owners_receipts(cudnnctl_ctx *ctx, const char *target_real, cc_receipts *out)
{
    char *ledger = ledger_path(target_real);
    cc_strv lines = {0};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    memset(out, 0, sizeof(*out));
    if (!ledger)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (ledger_read(ctx, ledger, &lines) != 0)
        cc_clear_error(ctx); /* advisory: an unreadable ledger names nobody */
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < lines.n; i++) {
        cc_receipt r = {0};
        char *lstate = NULL;
        if (load_line(ctx, lines.v[i], &r, &lstate) != 0) {
            cc_receipt_free(&r); /* whatever a partial parse left */
        } else {
            if (cc_grow(&out->v, NULL, out->n + 1, sizeof(*out->v)) != 0) {
                cc_receipt_free(&r);
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            } else {
                out->v[out->n++] = r;
            }
        }
        free(lstate);
    }
    cc_strv_free(&lines);
    free(ledger);
    if (rc != CUDNNCTL_E_OK)
        cc_receipts_free(out);
    return rc;
}
