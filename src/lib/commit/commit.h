/* commit.h: turning a verified staging tree into a journaled transaction on the target.
 * CUDA-tree mode merges into an existing toolkit (headers → include_dir, libraries → lib_dir,
 * DLLs → bin_dir, LICENSE → <tree>/share/doc/cudnn/); prefix mode renames the whole staged tree
 * to PREFIX/cudnn-<ver>-cuda<M> and flips PREFIX/current. The planners only look at the target
 * (conflicts are found before any byte is written); journal.c does the writing. */
#ifndef CC_COMMIT_H
#define CC_COMMIT_H

#include "extract.h"
#include "internal.h"
#include "journal.h"
#include "receipt.h"
#include "staged.h"

/* Where the staged tree goes. All real paths (under --root). */
typedef struct {
    cudnnctl_target_mode mode;
    char *target;      /* CUDA tree root / prefix root */
    char *install_dir; /* tree: = target; prefix: PREFIX/cudnn-<ver>-cuda<M> */
    char *include_dir, *lib_dir, *bin_dir, *doc_dir;
    char *current; /* prefix: PREFIX/current */
    int direct;    /* prefix: its filesystem holds no directory link, so no current (direct.h) */
} cc_dest;
void cc_dest_free(cc_dest *d);

/* Everything a planner needs besides the destination. */
typedef struct {
    const char *staging; /* real path of the staged tree */
    const cc_tree *tree;
    const char *state_dir;       /* real */
    const cc_receipts *receipts; /* every receipt (to recognise our own PREFIX/current) */
    int force;
    cc_strv *warnings; /* human text the install reports */
} cc_commit_in;

/* Fill t (ops, mkdirs) and r (files, links, replaced, dirs_created) for a CUDA-tree merge.
 * r->id must be set (backups go to STATE/backups/<id>/). Conflicts → CUDNNCTL_E_CONFLICT. */
cudnnctl_err cc_commit_tree_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                 const cc_commit_in *in, cc_receipt *r);
/* Files the plan replaces or moves out that no tree receipt in in->receipts owns: without
 * in->force CUDNNCTL_E_CONFLICT listing them; with it, one warning each (foreign.c). */
cudnnctl_err cc_commit_foreign_check(cudnnctl_ctx *ctx, const cc_commit_in *in, const cc_receipt *r);
/* For a dry run, which reads no archive: the cuDNN files (libcudnn*, cudnn*.h, cudnn*.dll,
 * cudnn*.lib) already in d's lib, include and bin dirs that neither `mine` (this state dir's
 * receipts) nor the target's ledger owns — what a real install would refuse without --force
 * (it replaces them, or moves them out as stale). Paths as the user sees them, into *out. */
cudnnctl_err cc_commit_foreign_predict(cudnnctl_ctx *ctx, const cc_receipts *mine,
                                       const cc_dest *d, cc_strv *out);
/* The same for a prefix install (t->staging is the staged tree, renamed in one step). */
cudnnctl_err cc_commit_prefix_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                   const cc_commit_in *in, cc_receipt *r);

/* Components added to the version dir of an install there (install --components dev after
 * runtime): every staged entry placed into d->install_dir file by file, the rest of the dir
 * untouched, then PREFIX/current as for an install. */
cudnnctl_err cc_commit_prefix_add_plan(cudnnctl_ctx *ctx, cc_txn *t, const cc_dest *d,
                                       const cc_commit_in *in, cc_receipt *r);

/* Shared by the planners: make sure dir exists at prepare time, recording each missing level in
 * t->mkdirs and r->dirs_created (parents first). A non-dir in the way → CONFLICT. */
cudnnctl_err cc_commit_need_dir(cudnnctl_ctx *ctx, cc_txn *t, cc_receipt *r, const char *dir);
/* CUDNNCTL_E_OK when dir (a real path) is a directory; else CUDNNCTL_E_NOT_FOUND with the
 * message before + dir as the user wrote it (unrooted) + after. */
cudnnctl_err cc_commit_want_dir(cudnnctl_ctx *ctx, const char *dir, const char *before,
                                const char *after);
/* Add a PLACE op for one staged file/link, with its receipt entry (and replaced entry). */
cudnnctl_err cc_commit_place_item(cudnnctl_ctx *ctx, cc_txn *t, cc_receipt *r,
                                  const cc_commit_in *in, const cc_item *it, const char *dst,
                                  size_t *n_backup);
/* STATE/backups/<id>/<n> (real) and its state-relative form. */
char *cc_commit_backup_path(const char *state_dir, const char *id, size_t n, char **rel);

/* Refresh the loader cache after a system-wide install on Linux; *what says what happened. */
void cc_ldconfig(cudnnctl_ctx *ctx, cudnnctl_target_mode mode, int no_ldconfig, char **what);

#endif
