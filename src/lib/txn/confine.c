/* confine.c: what a receipt, a journal or the cleanup list may name (docs/security.md, "Running
 * as root"). They are read only from a trusted state dir, but a second line holds even if one
 * were forged: every path must lie inside its recorded target or the state dir, spelled plainly
 * (absolute, no "." or ".." components, no empty ones), and backups are plain names under
 * STATE/backups. A record that names anything else is not acted on. */
#include <stdlib.h>
#include <string.h>

#include "confine.h"

static int is_sep(const cudnnctl_ctx *ctx, char c)
{
    return c == '/' || (c == '\\' && cc_host_is_windows(ctx));
}

/* 1 when path has no ".", ".." or empty component after its root. */
static int plain(const cudnnctl_ctx *ctx, const char *path, size_t skip)
{
    const char *p = path + skip;
    while (*p) {
        const char *e = p;
        while (*e && !is_sep(ctx, *e))
            e++;
        size_t n = (size_t)(e - p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p = *e ? e + 1 : e;
    }
    return 1;
}

int cc_confine_under(const cudnnctl_ctx *ctx, const char *base, const char *path, int or_equal)
{
    if (!base || !path)
        return 0;
    size_t root = cc_pf_path_root_len(path);
    if (root == 0 || cc_pf_path_root_len(base) == 0 || !plain(ctx, path, root))
        return 0;
    size_t n = strlen(base);
    while (n > root && is_sep(ctx, base[n - 1]))
        n--;
    if (n <= root) /* the base is a filesystem root: that confines nothing */
        return 0;
    if (strncmp(base, path, n) != 0)
        return 0;
    return path[n] == '\0' ? or_equal : is_sep(ctx, path[n]);
}

int cc_confine_backup(const cudnnctl_ctx *ctx, const char *rel)
{
    return rel && strncmp(rel, "backups", 7) == 0 && is_sep(ctx, rel[7]) &&
           cc_pf_path_root_len(rel) == 0 && plain(ctx, rel, 0);
}

static cudnnctl_err outside(cudnnctl_ctx *ctx, const char *what, const char *origin,
                            const char *path, const char *base)
{
    char *q = cc_sh_quote(origin ? origin : "");
    cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
                             "%s %s names %s, which is not inside %s: not acted on (cudnnctl never "
                             "writes such a record; another user may have forged it); fix: look "
                             "at it and, if you did not make it, remove it: rm -- %s",
                             what, origin ? origin : "", path ? path : "(nothing)",
                             base ? base : "its target", q ? q : "FILE");
    free(q);
    return rc;
}

cudnnctl_err cc_receipt_confined(cudnnctl_ctx *ctx, const cc_receipt *r, const char *origin)
{
    const char *t = r->target_path;
    if (!t || cc_pf_path_root_len(t) == 0 || !plain(ctx, t, cc_pf_path_root_len(t)) ||
        cc_confine_under(ctx, t, t, 1) == 0)
        return outside(ctx, "the receipt", origin, t, "a directory below the filesystem root");
    const char *dirs[] = {r->install_dir, r->lib_dir, r->include_dir, r->bin_dir, r->doc_dir,
                          r->current_link};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        if (dirs[i] && !cc_confine_under(ctx, t, dirs[i], 1))
            return outside(ctx, "the receipt", origin, dirs[i], t);
    for (size_t i = 0; i < r->n_entries; i++)
        if (!cc_confine_under(ctx, t, r->entries[i].path, 0))
            return outside(ctx, "the receipt", origin, r->entries[i].path, t);
    for (size_t i = 0; i < r->n_replaced; i++) {
        const cc_rrepl *x = &r->replaced[i];
        if (!cc_confine_under(ctx, t, x->path, 0))
            return outside(ctx, "the receipt", origin, x->path, t);
        if (x->backup && !cc_confine_backup(ctx, x->backup))
            return outside(ctx, "the receipt", origin, x->backup, "STATE/backups");
    }
    for (size_t i = 0; i < r->dirs_created.n; i++)
        if (!cc_confine_under(ctx, t, r->dirs_created.v[i], 1))
            return outside(ctx, "the receipt", origin, r->dirs_created.v[i], t);
    return CUDNNCTL_E_OK;
}

/* Inside the target, or inside the state dir. */
static int in_txn(const cudnnctl_ctx *ctx, const cc_txn *t, const char *state, const char *p)
{
    return cc_confine_under(ctx, t->target, p, 0) || cc_confine_under(ctx, state, p, 0);
}

cudnnctl_err cc_txn_confined(cudnnctl_ctx *ctx, const cc_txn *t, const char *state)
{
    const char *why = t->path;
    if (!t->target || cc_pf_path_root_len(t->target) == 0 ||
        !cc_confine_under(ctx, t->target, t->target, 1))
        return outside(ctx, "the journal", why, t->target, "a directory below the filesystem root");
    for (size_t i = 0; i < t->n_ops; i++) {
        const cc_op *op = &t->ops[i];
        const char *in_target[] = {op->dst, op->tmp, op->bak};
        for (size_t k = 0; k < 3; k++)
            if (in_target[k] && !cc_confine_under(ctx, t->target, in_target[k], 0))
                return outside(ctx, "the journal", why, in_target[k], t->target);
        const char *either[] = {op->src, op->keep};
        for (size_t k = 0; k < 2; k++)
            if (either[k] && !in_txn(ctx, t, state, either[k]))
                return outside(ctx, "the journal", why, either[k], t->target);
    }
    const cc_strv *lists[] = {&t->mkdirs, &t->rmdirs}; /* the prefix itself may come and go */
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++)
            if (!cc_confine_under(ctx, t->target, lists[k]->v[i], 1))
                return outside(ctx, "the journal", why, lists[k]->v[i], t->target);
    for (size_t i = 0; i < t->rm_after.n; i++)
        if (!in_txn(ctx, t, state, t->rm_after.v[i]))
            return outside(ctx, "the journal", why, t->rm_after.v[i], t->target);
    const char *in_state[] = {t->receipt_path, t->receipt_remove};
    for (size_t k = 0; k < 2; k++)
        if (in_state[k] && !cc_confine_under(ctx, state, in_state[k], 0))
            return outside(ctx, "the journal", why, in_state[k], state);
    if (t->staging && !cc_confine_under(ctx, t->target, t->staging, 0))
        return outside(ctx, "the journal", why, t->staging, t->target);
    if (t->owners_path && !cc_confine_under(ctx, t->target, t->owners_path, 0))
        return outside(ctx, "the journal", why, t->owners_path, t->target);
    return CUDNNCTL_E_OK;
}

int cc_confine_cleanup(const cudnnctl_ctx *ctx, const char *state, const char *path)
{
    if (cc_confine_under(ctx, state, path, 0))
        return 1;
    /* an aside name of a transaction (.cudnnctl-<txn>-old-<base>) anywhere: nothing else */
    size_t root = cc_pf_path_root_len(path);
    if (root == 0 || !plain(ctx, path, root))
        return 0;
    const char *base = path + strlen(path);
    while (base > path && !is_sep(ctx, base[-1]))
        base--;
    return strncmp(base, ".cudnnctl-", 10) == 0;
}
