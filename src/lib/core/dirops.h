/* dirops.h: file-tree steps that more than one stage takes the same way (a sorted listing of a
 * dir, a move into a quarantine dir). */
#ifndef CC_DIROPS_H
#define CC_DIROPS_H

#include "internal.h"
#include "str.h"

/* The names in dir, pushed onto *names and sorted. CUDNNCTL_E_OK, or the error set: "cannot list
 * DIR: ..." when dir does not open, out of memory (names then holds what was pushed; the caller
 * frees *names either way). */
cudnnctl_err cc_dir_names_sorted(cudnnctl_ctx *ctx, const char *dir, cc_strv *names);

/* Move src to <root>/quarantine/<name>, making the quarantine dir (0755); sync: fsync that dir
 * after the move. *qpath (malloc'd) gets the new place, NULL on failure. root or name NULL (an
 * allocation that failed): out of memory. A failed move: "cannot move <what><src> into the
 * quarantine <dir>: <why><hint>". */
cudnnctl_err cc_quarantine_move(cudnnctl_ctx *ctx, const char *root, const char *src,
                                const char *name, const char *what, const char *hint, int sync,
                                char **qpath);

#endif
