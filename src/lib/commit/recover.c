/* recover.c: settle an interrupted run and do nothing else (cudnnctl recover). */
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "lock.h"

cudnnctl_err cudnnctl_recover(cudnnctl_ctx *ctx, const char **what, char **kind)
{
    cc_lock lock = {-1, NULL, 0, NULL, 0};
    char *state = cc_state_dir(ctx);
    *what = NULL;
    if (kind)
        *kind = NULL;
    if (!state)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = cc_lock_acquire(ctx, state, "recover", &lock);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_recover(ctx, state, what, kind);
    if (lock.fd >= 0)
        cc_lock_release(ctx, &lock);
    free(state);
    return rc;
}
