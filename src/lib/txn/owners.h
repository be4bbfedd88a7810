/* owners.h: the target's ledger of installs across state dirs (owners.c, docs/security.md). */
#ifndef CC_OWNERS_H
#define CC_OWNERS_H

#include "internal.h"
#include "receipt.h"

/* The ledger inside the target (TARGET/.cudnnctl-owners) and one install's line in it. */
char *cc_owners_ledger(const char *target_real);
char *cc_owners_line(const char *state, const char *id);
/* Add (add=1) or drop the line; idempotent. Run by the journal after the commit point. */
cudnnctl_err cc_owners_update(cudnnctl_ctx *ctx, const char *ledger, const char *line, int add);
/* CONFLICT when an install recorded after r, from another state dir, overwrote r's files. */
cudnnctl_err cc_owners_check(cudnnctl_ctx *ctx, const char *target_real, const char *state,
                             const cc_receipt *r);
/* Before undoing r: cc_owners_check, and a warning when the target's dev:ino is not the one r
 * recorded. */
cudnnctl_err cc_owners_may_undo(cudnnctl_ctx *ctx, const char *state, const cc_receipt *r);
/* The receipts of every install in the target's ledger, from any state dir (those that can still
 * be read): the files cudnnctl put there. */
cudnnctl_err cc_owners_receipts(cudnnctl_ctx *ctx, const char *target_real, cc_receipts *out);

#endif
