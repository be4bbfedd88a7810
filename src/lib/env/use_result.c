/* use_result.c: a `use` run's lock and end, and freeing its result — the bottom of the use
 * stage, shared by use.c (Linux links) and use_windows.c (registry), so neither calls into the
 * other. */
#include <stdlib.h>

#include "internal.h"
#include "envwire_int.h"

void cudnnctl_use_result_free(cudnnctl_use_result *r)
{
    if (!r)
        return;
    free(r->toolkit_path);
    free(r->toolkit_version);
    free(r->previous);
    free(r->cudnn_path);
    cudnnctl_changes_free(&r->changes);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r);
}

cudnnctl_err cc_use_run_lock(cudnnctl_ctx *ctx, cc_use_run *u)
{
    if (!(u->state = cc_state_dir(ctx)))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return cc_lock_acquire(ctx, u->state, "use", &u->lock);
}

cudnnctl_err cc_use_run_end(cudnnctl_ctx *ctx, cc_use_run *u, cudnnctl_err rc,
                            cudnnctl_use_result **out)
{
    if (rc == CUDNNCTL_E_OK) {
        *out = u->r;
        u->r = NULL;
    }
    cc_lock_release(ctx, &u->lock);
    free(u->state);
    cudnnctl_use_result_free(u->r);
    cudnnctl_detect_result_free(u->owned);
    return rc;
}
