/* txfs.h: file primitives the commit, journal and uninstall code share: clone (hard link or
 * copy), move (rename or copy), fsync by path, whole-tree copy, and path resolution inside
 * --root. Every write goes through the cc_sys_* layer. Functions return 0 / -1 (the platform
 * error is set) unless they say otherwise. */
#ifndef CC_TXFS_H
#define CC_TXFS_H

#include <stdint.h>

#include "internal.h"

/* What a path is, without following a final link. */
typedef enum { CC_OBJ_NONE = 0, CC_OBJ_FILE, CC_OBJ_LINK, CC_OBJ_DIR, CC_OBJ_OTHER } cc_obj_type;
cc_obj_type cc_txn_kind(const char *path);
const char *cc_txn_kind_name(cc_obj_type t);     /* "file", "link", "dir", ... */
cc_obj_type cc_txn_kind_parse(const char *name); /* CC_OBJ_NONE when unknown */

/* Copy a regular file's bytes to dst (created exclusively, fsync'd) with mode. */
int cc_txn_copy_file(cudnnctl_ctx *ctx, const char *src, const char *dst, uint32_t mode);
/* Make dst a second copy of src without consuming src: a symlink gets a new symlink with the
 * same target, a regular file a hard link (a byte copy where links fail), a dir a deep copy. */
int cc_txn_clone(cudnnctl_ctx *ctx, const char *src, const char *dst);
/* Move src to dst: rename; a copy + removal of src when they are on different filesystems. */
int cc_txn_move(cudnnctl_ctx *ctx, const char *src, const char *dst);
/* fsync a regular file by path (links and dirs: nothing). */
int cc_txn_fsync_file(cudnnctl_ctx *ctx, const char *path);
/* fsync every regular file under dir, then every dir (children before parents); links are not
 * followed. A staged tree that becomes live by one rename must be on disk before that rename. */
int cc_txn_fsync_tree(cudnnctl_ctx *ctx, const char *dir);
/* 1 when both paths' parents are on the same filesystem. */
int cc_txn_same_fs(const char *a, const char *b);
/* 1 when the dir exists and has no entries. */
int cc_txn_dir_empty(const char *path);

/* Resolve symlinks in an absolute path as the system under --root sees them (absolute link
 * targets are taken under the root), returning the canonical root-relative path ("as the user
 * sees it"). Components that do not exist are appended as they are. NULL on OOM / loops. */
char *cc_txn_canonical(const cudnnctl_ctx *ctx, const char *user_path);
/* Absolute form of a path given on the command line (relative → against the cwd). */
char *cc_txn_absolute(const char *path);

/* "a/b" relative to base when path is under base, else NULL. */
const char *cc_txn_under(const char *base, const char *path);

#endif
