/* sys.h: the sys_ops table through which the library does its file work. Fault tests make the
 * N-th call fail (curl's torture style) without symbol interposition. */
#ifndef CC_SYS_H
#define CC_SYS_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

typedef struct cudnnctl_ctx cudnnctl_ctx;

typedef struct {
    cc_pf_fd (*open)(const char *path, int flags, uint32_t mode);
    long long (*read)(cc_pf_fd fd, void *buf, size_t len);
    long long (*write)(cc_pf_fd fd, const void *buf, size_t len);
    int (*fsync)(cc_pf_fd fd);
    int (*close)(cc_pf_fd fd);
    int (*rename)(const char *oldpath, const char *newpath);
    int (*unlink)(const char *path);
    int (*mkdir)(const char *path, uint32_t mode);
    int (*rmdir)(const char *path);
    int (*symlink)(const char *target, const char *linkpath);
    int (*link)(const char *existing, const char *newpath);
    void *(*malloc)(size_t n);
} cc_sys_ops;

void cc_sys_default(cc_sys_ops *ops);

/* Each wrapper counts the call and fails it when it is the ctx->fail_at-th. */
cc_pf_fd cc_sys_open(cudnnctl_ctx *ctx, const char *path, int flags, uint32_t mode);
long long cc_sys_read(cudnnctl_ctx *ctx, cc_pf_fd fd, void *buf, size_t len);
long long cc_sys_write(cudnnctl_ctx *ctx, cc_pf_fd fd, const void *buf, size_t len);
int cc_sys_write_all(cudnnctl_ctx *ctx, cc_pf_fd fd, const void *buf, size_t len);
int cc_sys_fsync(cudnnctl_ctx *ctx, cc_pf_fd fd);
int cc_sys_close(cudnnctl_ctx *ctx, cc_pf_fd fd);
int cc_sys_rename(cudnnctl_ctx *ctx, const char *oldpath, const char *newpath);
int cc_sys_unlink(cudnnctl_ctx *ctx, const char *path);
int cc_sys_mkdir(cudnnctl_ctx *ctx, const char *path, uint32_t mode);
int cc_sys_rmdir(cudnnctl_ctx *ctx, const char *path);
int cc_sys_symlink(cudnnctl_ctx *ctx, const char *target, const char *linkpath);
/* A link to a directory that may not exist yet (a prefix's `current` before its install is in
 * place): cc_pf_symlink_dir, counted as a symlink for fault injection. */
int cc_sys_symlink_dir(cudnnctl_ctx *ctx, const char *target, const char *linkpath);
int cc_sys_link(cudnnctl_ctx *ctx, const char *existing, const char *newpath);
void *cc_sys_malloc(cudnnctl_ctx *ctx, size_t n);

/* 16 lower-case hex digits from the OS's random source: the unguessable part of every temp
 * name (a name another user could predict is a name they could plant first). NULL on failure. */
char *cc_sys_random_token(void);

/* Helpers built on the wrappers. */
int cc_sys_mkdir_p(cudnnctl_ctx *ctx, const char *path, uint32_t mode);
/* Read a whole (small) file; returns 0 and a NUL-terminated malloc'd buffer. */
int cc_sys_read_file(cudnnctl_ctx *ctx, const char *path, size_t max, char **data, size_t *len);
/* The same for a file that will be believed (state, receipts, journal, ledger, cleanup list,
 * config, cache records): opened CC_PF_O_TRUSTED (owned by root or the effective user, writable
 * by nobody else, on a path nobody else could change). Else -1 with CUDNNCTL_E_UNTRUSTED. */
int cc_sys_read_trusted(cudnnctl_ctx *ctx, const char *path, size_t max, char **data,
                        size_t *len);
/* Write a file atomically: temp name in the same dir, fsync, rename, fsync dir. */
int cc_sys_write_file_atomic(cudnnctl_ctx *ctx, const char *path, const void *data, size_t len,
                             uint32_t mode);
/* Remove a tree (files, links, dirs); missing is fine. */
int cc_sys_rm_rf(cudnnctl_ctx *ctx, const char *path);

#endif
