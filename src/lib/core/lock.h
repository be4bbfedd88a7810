/* lock.h: the locks that serialise installs, uninstalls and rollbacks.
 * STATE/lock: one run per state dir. The target lock, a file inside the target
 * (TARGET/.cudnnctl-lock, its real path; never beside it): one run per CUDA tree or prefix
 * whatever the state dirs; removed again when released. The holder's pid, command and
 * start time are written into the file so a second run can name it (docs/security.md). */
#ifndef CC_LOCK_H
#define CC_LOCK_H

#include "internal.h"

typedef struct {
    cc_pf_fd fd;
    char *path;
    int unlink; /* target lock: the file goes on release */
    char *dir;  /* target lock: the target dir holding the file */
    int rmdir_if_empty; /* remove dir on release when empty (the lock made it, or an uninstall
                         * removed what made it) */
} cc_lock;

/* Take STATE/lock (creating the state dir). Busy → CUDNNCTL_E_LOCKED naming the holder, or a
 * wait (cudnnctl_set_lock_wait). what: the command ("install") recorded as the holder. */
cudnnctl_err cc_lock_acquire(cudnnctl_ctx *ctx, const char *state_dir, const char *what,
                             cc_lock *out);
/* Lock the target whose real path (under --root) is target_real. */
cudnnctl_err cc_lock_target(cudnnctl_ctx *ctx, const char *target_real, const char *what,
                            cc_lock *out);
char *cc_lock_target_path(const char *target_real); /* malloc'd */
void cc_lock_release(cudnnctl_ctx *ctx, cc_lock *l);

#endif
