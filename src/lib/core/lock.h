/* lock.h: the state-dir lock (STATE/lock) that serialises installs, uninstalls and rollbacks.
 * The holder's pid and start time are written into the file so a second run can name it. */
#ifndef CC_LOCK_H
#define CC_LOCK_H

#include "internal.h"

typedef struct {
    cc_pf_fd fd;
    char *path;
} cc_lock;

/* Take the lock (creating the state dir). Busy → CUDNNCTL_E_LOCKED naming the holder. */
cudnnctl_err cc_lock_acquire(cudnnctl_ctx *ctx, const char *state_dir, cc_lock *out);
void cc_lock_release(cudnnctl_ctx *ctx, cc_lock *l);

#endif
