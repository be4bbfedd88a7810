/* foreign.c: files in a CUDA tree that no cudnnctl receipt owns (a distro package's
 * libcudnn.so.9, a hand-copied cudnn.h) are replaced or moved out only with --force, and then
 * listed (docs/security.md, "Content policy"). */
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "owners.h"

static char *join(const cc_strv *v)
{
    size_t n = 1;
    for (size_t i = 0; i < v->n; i++)
        n += strlen(v->v[i]) + 2;
    char *s = malloc(n);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < v->n; i++) {
        if (i)
            strncat(s, ", ", n - strlen(s) - 1);
        strncat(s, v->v[i], n - strlen(s) - 1);
    }
    return s;
}

static int owned(const cc_receipts *rs, const char *path)
{
    for (size_t i = 0; rs && i < rs->n; i++) {
        const cc_receipt *q = &rs->v[i];
        if (q->mode != CUDNNCTL_TARGET_CUDA_TREE)
            continue;
        for (size_t k = 0; k < q->n_entries; k++)
            if (strcmp(q->entries[k].path, path) == 0)
                return 1;
    }
    return 0;
}

cudnnctl_err cc_commit_foreign_check(cudnnctl_ctx *ctx, const cc_commit_in *in, const cc_receipt *r)
{
    cc_strv foreign = {0};
    cc_receipts ledger = {0}; /* installs into this target from other state dirs too */
    char *treal = r->n_replaced && r->target_path ? cc_rooted(ctx, r->target_path) : NULL;
    if (treal && cc_owners_receipts(ctx, treal, &ledger) != CUDNNCTL_E_OK) {
        free(treal);
        return ctx->err.code;
    }
    for (size_t i = 0; i < r->n_replaced; i++) {
        const cc_rrepl *e = &r->replaced[i];
        /* ours: a receipt of this state dir, or of another one in the target's ledger */
        if (e->type != CC_OBJ_DIR && !owned(in->receipts, e->path) &&
            !owned(&ledger, e->path) &&
            cc_strv_push(&foreign, e->path) != 0) {
            cc_strv_free(&foreign);
            cc_receipts_free(&ledger);
            free(treal);
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
    }
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (foreign.n && !in->force) {
        char *list = join(&foreign);
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                    "the CUDA tree holds %zu file(s) that no cudnnctl install put there and that "
                    "this install would replace: %s. They may belong to a distro package or a "
                    "manual copy: remove them (or the package) first, or replace them knowingly "
                    "with --force (each is kept as a backup; uninstall puts it back)",
                    foreign.n, list ? list : "(out of memory)");
        free(list);
    } else {
        for (size_t i = 0; i < foreign.n && in->warnings; i++)
            cc_strv_push_own(in->warnings,
                             cc_asprintf("--force: replacing %s, which no cudnnctl receipt owns "
                                         "(kept as a backup; uninstall puts it back)",
                                         foreign.v[i]));
    }
    cc_strv_free(&foreign);
    cc_receipts_free(&ledger);
    free(treal);
    return rc;
}

static int cudnn_name(const char *n)
{
    return cc_str_starts(n, "libcudnn") || cc_str_starts(n, "cudnn");
}

cudnnctl_err cc_commit_foreign_predict(cudnnctl_ctx *ctx, const cc_receipts *mine,
                                       const cc_dest *d, cc_strv *out)
{
    cc_receipts ledger = {0};
    if (cc_owners_receipts(ctx, d->target, &ledger) != CUDNNCTL_E_OK)
        return ctx->err.code;
    const char *dirs[] = {d->lib_dir, d->include_dir, d->bin_dir};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && rc == CUDNNCTL_E_OK; i++) {
        if (!dirs[i] || (i == 2 && d->bin_dir && d->lib_dir && strcmp(d->bin_dir, d->lib_dir) == 0))
            continue;
        cc_pf_dir *dh = cc_pf_opendir(dirs[i]);
        const char *n;
        while (dh && rc == CUDNNCTL_E_OK && (n = cc_pf_readdir(dh)) != NULL) {
            if (!cudnn_name(n))
                continue;
            char *real = cc_path_join(dirs[i], n);
            char *shown = real ? cc_unrooted(ctx, real) : NULL;
            cc_pf_stat_t st;
            if (!shown)
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            else if (cc_pf_lstat(real, &st) == 0 && !st.is_dir && !owned(mine, shown) &&
                     !owned(&ledger, shown) && !cc_strv_contains(out, shown) &&
                     cc_strv_push(out, shown) != 0)
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            free(real);
            free(shown);
        }
        if (dh)
            cc_pf_closedir(dh);
    }
    cc_receipts_free(&ledger);
    cc_strv_sort(out);
    return rc;
}
