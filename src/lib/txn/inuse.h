/* inuse.h: files another process holds on Windows — replace by renaming the old file aside,
 * deletion queued in STATE/cleanup.json (and at reboot when elevated), holders named (inuse.c). */
#ifndef CC_INUSE_H
#define CC_INUSE_H

#include "journal.h"

/* The rename of op->tmp over op->dst just failed. On a Windows host, for a file held open or
 * loaded: move dst aside (cc_txn_temp_name(t, dst, "old"), which the journal derives again on
 * recovery), then tmp onto dst. 1: not that case (the caller reports its error); 0: replaced;
 * -1: error set (names the holding processes: "close X (pid N) or reboot to finish"). */
int cc_inuse_replace(cudnnctl_ctx *ctx, const cc_txn *t, const cc_op *op);
/* Remove a file or tree; when that fails because it is in use (Windows), queue it in
 * STATE/cleanup.json (and for deletion at reboot when elevated) with a warning. 0: removed or
 * queued; -1: the platform error of the failed removal stands. @p orig: the name the file had
 * before a transaction renamed it (processes know a loaded DLL by that name), or NULL. */
int cc_inuse_remove(cudnnctl_ctx *ctx, const char *state_dir, const char *path, const char *orig);
/* Delete what the cleanup list names and is free now; keep the rest. */
void cc_inuse_sweep(cudnnctl_ctx *ctx, const char *state_dir);

#endif
