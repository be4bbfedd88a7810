/* journal.h: journaled multi-file transactions (install and uninstall both run as one).
 * A transaction is a list of ops on a live tree. Phases:
 *   staging   – only the staging dir exists (extraction); rollback = remove it
 *   prepare   – temp names (and backup clones) are being created next to each destination
 *   commit    – the renames into the live tree are running
 *   committed – every rename is done (the commit point); only bookkeeping is left
 * The journal file is rewritten atomically (temp + fsync + rename) at every phase change. Each
 * op's progress is inferred from which of its names exist, so recovery after a crash at any
 * point is exact: before the commit point the run is rolled back, after it finished.
 * Format: docs/formats.md. */
#ifndef CC_JOURNAL_H
#define CC_JOURNAL_H

#include "internal.h"
#include "txfs.h"

typedef enum { CC_OP_PLACE = 0, CC_OP_REMOVE = 1 } cc_op_kind;

typedef struct {
    cc_op_kind kind;
    cc_obj_type type;  /* PLACE: what is placed (file, link, dir); REMOVE: what is removed */
    char *dst;         /* real path in the live tree */
    char *tmp;         /* PLACE: temp name next to dst (for a dir: the staged tree itself) */
    char *src;         /* PLACE file/link: where the content comes from at prepare */
    int src_clone;     /* 1: src must survive (a receipt backup) → hard link / copy it; 0: move */
    char *link_target; /* PLACE link with no src: the link is created with this target */
    int had_old;       /* dst held something when the transaction was planned */
    cc_obj_type old_type;
    char *bak;  /* had_old: temp name next to dst for the old object */
    char *keep; /* after the commit point bak moves here (receipt backups); NULL: deleted */
} cc_op;

typedef enum { CC_PH_STAGING = 0, CC_PH_PREPARE, CC_PH_COMMIT, CC_PH_COMMITTED } cc_phase;

typedef struct {
    char *path; /* the journal file */
    char *id;   /* transaction id, part of every temp name */
    char *kind; /* "install" / "uninstall" / "switch" */
    char *target; /* the target's real path: every op stays inside it (or the state dir) */
    cc_phase phase;
    char *staging; /* removed at the end, whichever way it ends */
    cc_op *ops;
    size_t n_ops, cap_ops;
    cc_strv mkdirs;     /* created when the commit starts, parents first; removed on rollback */
    cc_strv rmdirs;     /* after the commit point: removed when empty (deepest first) */
    cc_strv rm_after;   /* after the commit point: removed (files or trees) */
    char *receipt_path; /* after the commit point: receipt_json written here */
    char *receipt_json;
    char *receipt_remove; /* after the commit point: this receipt is deleted */
    char *owners_path;    /* after the commit point: the target's ledger (owners.c) ... */
    char *owners_line;    /* ... gets this line (owners_add) or loses it */
    int owners_add;
} cc_txn;

/* A new transaction on target (its real path) whose journal lives at STATE/journal.json. id:
 * unique and unguessable, used in temp names. */
cudnnctl_err cc_txn_new(cudnnctl_ctx *ctx, const char *state_dir, const char *target,
                        const char *kind, cc_txn **out);
void cc_txn_free(cc_txn *t);
/* Append an op (strings copied; NULLs allowed where unused). */
cudnnctl_err cc_txn_add(cudnnctl_ctx *ctx, cc_txn *t, const cc_op *op);
/* Temp name for `what` ("new", "bak") next to dst: DIR/.cudnnctl-<id>-<what>-<base>. */
char *cc_txn_temp_name(const cc_txn *t, const char *dst, const char *what);

/* Write the journal (atomically) in its current phase. */
cudnnctl_err cc_txn_save(cudnnctl_ctx *ctx, cc_txn *t);
/* prepare + commit + finish. On a failure before the commit point the transaction is rolled
 * back in place (the live tree as before) and the first error is returned; when even the
 * rollback fails the journal stays for the next run. A failure after the commit point returns
 * CUDNNCTL_E_JOURNAL: the tree is complete, the next run finishes the bookkeeping. */
cudnnctl_err cc_txn_run(cudnnctl_ctx *ctx, cc_txn *t);
/* Undo whatever part of the transaction happened (any phase before committed); deletes the
 * journal when done. */
cudnnctl_err cc_txn_rollback(cudnnctl_ctx *ctx, cc_txn *t);
/* Bookkeeping after the commit point (idempotent); deletes the journal when done. */
cudnnctl_err cc_txn_finish(cudnnctl_ctx *ctx, cc_txn *t);

/* Load STATE/journal.json; *out NULL when there is none. */
cudnnctl_err cc_txn_load(cudnnctl_ctx *ctx, const char *state_dir, cc_txn **out);
/* Find and settle an interrupted transaction: rolled back before its commit point, finished
 * after it. *what = NULL (nothing found), "rolled-back" or "finished" (static strings);
 * kind (may be NULL) gets its kind ("install", "uninstall", "switch"), malloc'd, or NULL. */
cudnnctl_err cc_txn_recover(cudnnctl_ctx *ctx, const char *state_dir, const char **what,
                            char **kind);

const char *cc_phase_name(cc_phase p);

/* Roll back a transaction that failed before its commit point, keeping the current error;
 * returns rc. */
cudnnctl_err cc_txn_abort(cudnnctl_ctx *ctx, cc_txn *t, cudnnctl_err rc);

#endif
