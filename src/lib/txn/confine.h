/* confine.h: the paths a receipt, a journal or the cleanup list may name: inside its recorded
 * target or the state dir, spelled plainly; backups as plain names under STATE/backups. */
#ifndef CC_CONFINE_H
#define CC_CONFINE_H

#include "journal.h"
#include "receipt.h"

/* 1 when path is absolute, has no ".", ".." or empty component, and lies strictly inside base
 * (or is base itself, when or_equal); a filesystem root as base confines nothing (0). */
int cc_confine_under(const cudnnctl_ctx *ctx, const char *base, const char *path, int or_equal);
/* 1 when rel is a plain relative name under "backups/". */
int cc_confine_backup(const cudnnctl_ctx *ctx, const char *rel);

/* CUDNNCTL_E_UNTRUSTED (recorded, naming the path) when a receipt names anything outside its
 * target (or a backup outside STATE/backups). */
cudnnctl_err cc_receipt_confined(cudnnctl_ctx *ctx, const cc_receipt *r, const char *origin);
/* The same for a loaded journal: ops, dirs and removals inside its target (sources and kept
 * backups may be in the state dir), receipts inside the state dir. */
cudnnctl_err cc_txn_confined(cudnnctl_ctx *ctx, const cc_txn *t, const char *state);
/* 1 when a cleanup-list entry may be deleted: inside the state dir, or a transaction's aside
 * name (.cudnnctl-*). */
int cc_confine_cleanup(const cudnnctl_ctx *ctx, const char *state, const char *path);

#endif
