/* sys.c: the fault-injectable sys_ops layer and the file helpers built on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *default_malloc(size_t n)
{
    return malloc(n);
}

/* The real calls: each slot is the platform function of its name. */
static const cc_sys_ops real_ops = {.open = cc_pf_open,
                                    .read = cc_pf_read,
                                    .write = cc_pf_write,
                                    .fsync = cc_pf_fsync,
                                    .close = cc_pf_close,
                                    .rename = cc_pf_rename,
                                    .unlink = cc_pf_unlink,
                                    .mkdir = cc_pf_mkdir,
                                    .rmdir = cc_pf_rmdir,
                                    .symlink = cc_pf_symlink,
                                    .link = cc_pf_link,
                                    .malloc = default_malloc};

void cc_sys_default(cc_sys_ops *ops)
{
    *ops = real_ops;
}

/* 1 when this call must fail (fault injection). The count is atomic because a download's
 * background thread writes the cache file while the caller's thread extracts. */
static int injected(cudnnctl_ctx *ctx, const char *what)
{
    unsigned long n = cc_pf_atomic_inc(&ctx->sys_calls);
    /* sticky mode: every call from the fail_at-th on fails, as if the process had died there */
    if (ctx->fail_at && (n == ctx->fail_at || (ctx->fail_sticky && n > ctx->fail_at))) {
        char *t = cc_asprintf("injected fault at sys call %lu (%s)", n, what);
        cc_pf_set_error(CUDNNCTL_E_IO, t ? t : "injected fault");
        free(t);
        return 1;
    }
    return 0;
}

cc_pf_fd cc_sys_open(cudnnctl_ctx *ctx, const char *path, int flags, uint32_t mode)
{
    return injected(ctx, "open") ? -1 : ctx->sys.open(path, flags, mode);
}

long long cc_sys_read(cudnnctl_ctx *ctx, cc_pf_fd fd, void *buf, size_t len)
{
    return injected(ctx, "read") ? -1 : ctx->sys.read(fd, buf, len);
}

long long cc_sys_write(cudnnctl_ctx *ctx, cc_pf_fd fd, const void *buf, size_t len)
{
    return injected(ctx, "write") ? -1 : ctx->sys.write(fd, buf, len);
}

int cc_sys_write_all(cudnnctl_ctx *ctx, cc_pf_fd fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        long long n = cc_sys_write(ctx, fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int cc_sys_fsync(cudnnctl_ctx *ctx, cc_pf_fd fd)
{
    return injected(ctx, "fsync") ? -1 : ctx->sys.fsync(fd);
}

int cc_sys_close(cudnnctl_ctx *ctx, cc_pf_fd fd)
{
    /* close is never failed by injection: a failed close still releases the descriptor, and
     * leaking it would only test the harness. It is still counted. */
    cc_pf_atomic_inc(&ctx->sys_calls);
    return ctx->sys.close(fd);
}

int cc_sys_rename(cudnnctl_ctx *ctx, const char *oldpath, const char *newpath)
{
    return injected(ctx, "rename") ? -1 : ctx->sys.rename(oldpath, newpath);
}

int cc_sys_unlink(cudnnctl_ctx *ctx, const char *path)
{
    return injected(ctx, "unlink") ? -1 : ctx->sys.unlink(path);
}

int cc_sys_mkdir(cudnnctl_ctx *ctx, const char *path, uint32_t mode)
{
    return injected(ctx, "mkdir") ? -1 : ctx->sys.mkdir(path, mode);
}

int cc_sys_rmdir(cudnnctl_ctx *ctx, const char *path)
{
    return injected(ctx, "rmdir") ? -1 : ctx->sys.rmdir(path);
}

int cc_sys_symlink(cudnnctl_ctx *ctx, const char *target, const char *linkpath)
{
    return injected(ctx, "symlink") ? -1 : ctx->sys.symlink(target, linkpath);
}

int cc_sys_symlink_dir(cudnnctl_ctx *ctx, const char *target, const char *linkpath)
{
    return injected(ctx, "symlink") ? -1 : cc_pf_symlink_dir(target, linkpath);
}

int cc_sys_link(cudnnctl_ctx *ctx, const char *existing, const char *newpath)
{
    return injected(ctx, "link") ? -1 : ctx->sys.link(existing, newpath);
}

void *cc_sys_malloc(cudnnctl_ctx *ctx, size_t n)
{
    if (injected(ctx, "malloc"))
        return NULL;
    return ctx->sys.malloc(n);
}

char *cc_sys_random_token(void)
{
    unsigned char r[8];
    if (cc_pf_random(r, sizeof(r)) != 0)
        return NULL;
    char *t = malloc(2 * sizeof(r) + 1);
    if (!t)
        return NULL;
    for (size_t i = 0; i < sizeof(r); i++)
        snprintf(t + 2 * i, 3, "%02x", r[i]);
    return t;
}

int cc_sys_mkdir_p(cudnnctl_ctx *ctx, const char *path, uint32_t mode)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) == 0 && st.exists) {
        if (st.is_dir)
            return 0;
        cc_pf_set_error(CUDNNCTL_E_EXISTS, "exists and is not a directory");
        return -1;
    }
    char *parent = cc_path_dir(path);
    if (!parent)
        return -1;
    int rc = 0;
    if (strcmp(parent, path) != 0 && strcmp(parent, ".") != 0 && strcmp(parent, "/") != 0)
        rc = cc_sys_mkdir_p(ctx, parent, mode);
    free(parent);
    if (rc != 0)
        return rc;
    if (cc_sys_mkdir(ctx, path, mode) != 0) {
        /* lost a race with another creator: fine if it is a directory now */
        if (cc_pf_stat(path, &st) == 0 && st.exists && st.is_dir)
            return 0;
        return -1;
    }
    return 0;
}

static int read_with(cudnnctl_ctx *ctx, const char *path, int flags, size_t max, char **data,
                     size_t *len)
{
    *data = NULL;
    if (len)
        *len = 0;
    cc_pf_fd fd = cc_sys_open(ctx, path, flags, 0);
    if (fd < 0)
        return -1;
    cc_buf b = {0};
    char tmp[65536];
    for (;;) {
        long long n = cc_sys_read(ctx, fd, tmp, sizeof(tmp));
        if (n < 0) {
            cc_buf_free(&b);
            cc_sys_close(ctx, fd);
            return -1;
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > max) {
            cc_buf_free(&b);
            cc_sys_close(ctx, fd);
            cc_pf_set_error(CUDNNCTL_E_PARSE, "file too large");
            return -1;
        }
        if (cc_buf_append(&b, tmp, (size_t)n) != 0) {
            cc_buf_free(&b);
            cc_sys_close(ctx, fd);
            cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
            return -1;
        }
    }
    cc_sys_close(ctx, fd);
    if (!b.data && cc_buf_append(&b, "", 0) != 0)
        return -1;
    *data = b.data;
    if (len)
        *len = b.len;
    return 0;
}

int cc_sys_read_file(cudnnctl_ctx *ctx, const char *path, size_t max, char **data, size_t *len)
{
    return read_with(ctx, path, CC_PF_O_RDONLY, max, data, len);
}

int cc_sys_read_trusted(cudnnctl_ctx *ctx, const char *path, size_t max, char **data,
                        size_t *len)
{
    return read_with(ctx, path, CC_PF_O_TRUSTED, max, data, len);
}

int cc_sys_write_file_atomic(cudnnctl_ctx *ctx, const char *path, const void *data, size_t len,
                             uint32_t mode)
{
    char *dir = cc_path_dir(path);
    char *tok = cc_sys_random_token();
    char *tmp = tok ? cc_asprintf("%s.tmp-%s", path, tok) : NULL;
    free(tok);
    int rc = -1;
    cc_pf_fd fd = -1;
    if (!dir || !tmp)
        goto out;
    fd = cc_sys_open(ctx, tmp, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, mode);
    if (fd < 0)
        goto out;
    if (cc_sys_write_all(ctx, fd, data, len) != 0 || cc_sys_fsync(ctx, fd) != 0) {
        cc_sys_close(ctx, fd);
        cc_pf_unlink(tmp);
        goto out;
    }
    cc_sys_close(ctx, fd);
    if (cc_sys_rename(ctx, tmp, path) != 0) {
        cc_pf_unlink(tmp);
        goto out;
    }
    cc_pf_fsync_dir(dir);
    rc = 0;
out:
    free(dir);
    free(tmp);
    return rc;
}

int cc_sys_rm_rf(cudnnctl_ctx *ctx, const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0)
        return -1;
    if (!st.exists)
        return 0;
    if (st.is_dir && !st.is_link) {
        cc_pf_dir *d = cc_pf_opendir_nofollow(path);
        if (!d)
            return -1;
        const char *name;
        int rc = 0;
        while ((name = cc_pf_readdir(d)) != NULL) {
            char *child = cc_path_join(path, name);
            if (!child || cc_sys_rm_rf(ctx, child) != 0)
                rc = -1;
            free(child);
        }
        cc_pf_closedir(d);
        if (rc != 0)
            return rc;
        return cc_sys_rmdir(ctx, path);
    }
    return cc_sys_unlink(ctx, path);
}
