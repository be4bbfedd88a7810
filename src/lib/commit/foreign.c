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
