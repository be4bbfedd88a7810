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
    cc_lock tlock = {-1, NULL, 0, NULL, 0};
    cudnnctl_err rc = cc_lock_acquire(ctx, state, "recover", &lock);
    cc_txn *t = NULL;
    /* the journal's target is settled under its own lock, as any run on it is (a run from
     * another state dir may be working there); taking it also clears a lock file the killed
     * run left inside the target */
    if (rc == CUDNNCTL_E_OK && (rc = cc_txn_load(ctx, state, &t)) == CUDNNCTL_E_OK && t &&
        t->target && cc_txn_kind(t->target) == CC_OBJ_DIR)
        rc = cc_lock_target(ctx, t->target, "recover", &tlock);
    cc_txn_free(t);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_recover(ctx, state, what, kind);
    if (tlock.fd >= 0)
        cc_lock_release(ctx, &tlock);
    if (lock.fd >= 0)
        cc_lock_release(ctx, &lock);
    free(state);
    return rc;
}
