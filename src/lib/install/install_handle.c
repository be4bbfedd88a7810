/* install_handle.c: the prepared install's bottom file — publishing its steps and warnings into
 * the caller's result, and releasing it (an uncommitted prepare rolled back, the locks dropped) —
 * shared by the prepare half (install_prepare.c) and the commit half (install.c). */
#include <stdlib.h>
#include <string.h>

#include "install_internal.h"
#include "journal.h"
#include "lock.h"

void cc_install_copy_strv(char ***v, size_t *n, const cc_strv *from)
{
    for (size_t i = 0; i < *n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
    *n = 0;
    char **c = from->n ? calloc(from->n, sizeof(*c)) : NULL;
    if (!c)
        return;
    for (size_t i = 0; i < from->n; i++)
        c[i] = cc_strdup(from->v[i]);
    *v = c;
    *n = from->n;
}

void cc_install_publish(cudnnctl_install_handle *h)
{
    cc_install_copy_strv(&h->res->steps, &h->res->n_steps, &h->steps);
    cc_install_copy_strv(&h->res->warnings, &h->res->n_warnings, &h->warnings);
    h->res->seconds = (double)(cc_pf_now_ms() - h->t0) / 1000.0;
}

void cudnnctl_install_release(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    if (!h)
        return;
    if (h->txn) {
        /* never committed: remove staging and the journal, keep the error */
        cudnnctl_err rc = ctx->err.code != CUDNNCTL_E_OK ? ctx->err.code : CUDNNCTL_E_INTERRUPTED;
        cc_txn_abort(ctx, h->txn, rc);
        cc_txn_free(h->txn);
        if (h->res->result != CUDNNCTL_INSTALL_INSTALLED)
            h->res->result = CUDNNCTL_INSTALL_FAILED;
    }
    if (h->tlock.fd >= 0)
        cc_lock_release(ctx, &h->tlock);
    if (h->lock.fd >= 0)
        cc_lock_release(ctx, &h->lock);
    cc_install_publish(h);
    cc_strv_free(&h->steps);
    cc_strv_free(&h->warnings);
    cc_staging_free(&h->st);
    cc_tree_free(&h->tree);
    cc_receipt_free(&h->rec);
    cc_receipts_free(&h->rs);
    cc_dest_free(&h->dest);
    cc_source_choice_free(&h->ch);
    free(h->state);
    free(h->staging);
    free(h->target_shown);
    free(h);
}
