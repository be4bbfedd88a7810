/* fs.c (linux): files, directories, links, locks and free space through POSIX calls. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);
#define FAIL()                                                                                     \
    do {                                                                                           \
        cc_pf_errno_();                                                                            \
        return -1;                                                                                 \
    } while (0)

static void fill(const struct stat *s, cc_pf_stat_t *st)
{
    st->exists = 1;
    st->is_dir = S_ISDIR(s->st_mode);
    st->is_reg = S_ISREG(s->st_mode);
    st->is_link = S_ISLNK(s->st_mode);
    st->size = (uint64_t)s->st_size;
    st->mode = (uint32_t)(s->st_mode & 07777);
    st->mtime = (int64_t)s->st_mtime;
    st->dev = (uint64_t)s->st_dev;
    st->ino = (uint64_t)s->st_ino;
}

static int do_stat(const char *path, cc_pf_stat_t *st, int follow)
{
    struct stat s;
    memset(st, 0, sizeof(*st));
    if ((follow ? stat(path, &s) : lstat(path, &s)) != 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
            return 0;
        FAIL();
    }
    fill(&s, st);
    return 0;
}

int cc_pf_stat(const char *path, cc_pf_stat_t *st)
{
    return do_stat(path, st, 1);
}

int cc_pf_lstat(const char *path, cc_pf_stat_t *st)
{
    return do_stat(path, st, 0);
}

int cc_pf_fstat(cc_pf_fd fd, cc_pf_stat_t *st)
{
    struct stat s;
    memset(st, 0, sizeof(*st));
    if (fstat((int)fd, &s) != 0)
        FAIL();
    fill(&s, st);
    return 0;
}

cc_pf_fd cc_pf_open(const char *path, int flags, uint32_t mode)
{
    int f = O_CLOEXEC;
    switch (flags & 0x3) {
    case CC_PF_O_WRONLY:
        f |= O_WRONLY;
        break;
    case CC_PF_O_RDWR:
        f |= O_RDWR;
        break;
    default:
        f |= O_RDONLY;
    }
    if (flags & CC_PF_O_CREAT)
        f |= O_CREAT;
    if (flags & CC_PF_O_EXCL)
        f |= O_EXCL;
    if (flags & CC_PF_O_TRUNC)
        f |= O_TRUNC;
    if (flags & CC_PF_O_APPEND)
        f |= O_APPEND;
    int fd;
    do
        fd = open(path, f, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        FAIL();
    return fd;
}

long long cc_pf_read(cc_pf_fd fd, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read((int)fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        FAIL();
    return n;
}

long long cc_pf_write(cc_pf_fd fd, const void *buf, size_t len)
{
    ssize_t n;
    do
        n = write((int)fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        FAIL();
    return n;
}

int cc_pf_seek(cc_pf_fd fd, uint64_t off)
{
    if (lseek((int)fd, (off_t)off, SEEK_SET) < 0)
        FAIL();
    return 0;
}

int cc_pf_fsync(cc_pf_fd fd)
{
    if (fsync((int)fd) != 0 && errno != EINVAL && errno != EROFS)
        FAIL();
    return 0;
}

int cc_pf_close(cc_pf_fd fd)
{
    if (close((int)fd) != 0 && errno != EINTR)
        FAIL();
    return 0;
}

int cc_pf_truncate(cc_pf_fd fd, uint64_t len)
{
    if (ftruncate((int)fd, (off_t)len) != 0)
        FAIL();
    return 0;
}

int cc_pf_rename(const char *oldpath, const char *newpath)
{
    if (rename(oldpath, newpath) != 0)
        FAIL();
    return 0;
}

int cc_pf_unlink(const char *path)
{
    if (unlink(path) != 0)
        FAIL();
    return 0;
}

int cc_pf_rmdir(const char *path)
{
    if (rmdir(path) != 0)
        FAIL();
    return 0;
}

int cc_pf_mkdir(const char *path, uint32_t mode)
{
    if (mkdir(path, (mode_t)mode) != 0)
        FAIL();
    return 0;
}

int cc_pf_chmod(const char *path, uint32_t mode)
{
    if (chmod(path, (mode_t)mode) != 0)
        FAIL();
    return 0;
}

int cc_pf_symlink(const char *target, const char *linkpath)
{
    if (symlink(target, linkpath) != 0)
        FAIL();
    return 0;
}

int cc_pf_symlink_dir(const char *target, const char *linkpath)
{
    return cc_pf_symlink(target, linkpath);
}

char *cc_pf_readlink(const char *path)
{
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            cc_pf_errno_();
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        cap *= 2;
    }
}

char *cc_pf_realpath(const char *path)
{
    char *r = realpath(path, NULL);
    if (!r)
        cc_pf_errno_();
    return r;
}

int cc_pf_fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        FAIL();
    int rc = fsync(fd);
    close(fd);
    if (rc != 0 && errno != EINVAL)
        FAIL();
    return 0;
}

int cc_pf_free_space(const char *path, uint64_t *bytes)
{
    struct statvfs s;
    if (statvfs(path, &s) != 0)
        FAIL();
    *bytes = (uint64_t)s.f_bavail * (uint64_t)s.f_frsize;
    return 0;
}

int cc_pf_fs_readonly(const char *path)
{
    struct statvfs s;
    if (statvfs(path, &s) != 0)
        FAIL();
    return (s.f_flag & ST_RDONLY) ? 1 : 0;
}

int cc_pf_dir_writable(const char *path)
{
    if (faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) == 0)
        return 1;
    int e = errno;
    cc_pf_errno_();
    return e == EACCES || e == EPERM || e == EROFS ? 0 : -1;
}

int cc_pf_is_abs(const char *path)
{
    return path && path[0] == '/';
}

size_t cc_pf_path_root_len(const char *path)
{
    return path && path[0] == '/' ? 1 : 0;
}

struct cc_pf_dir {
    DIR *d;
};

cc_pf_dir *cc_pf_opendir(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        cc_pf_errno_();
        return NULL;
    }
    cc_pf_dir *w = malloc(sizeof(*w));
    if (!w) {
        closedir(d);
        return NULL;
    }
    w->d = d;
    return w;
}

const char *cc_pf_readdir(cc_pf_dir *w)
{
    struct dirent *e;
    while ((e = readdir(w->d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        return e->d_name;
    }
    return NULL;
}

void cc_pf_closedir(cc_pf_dir *w)
{
    if (!w)
        return;
    closedir(w->d);
    free(w);
}

int cc_pf_lock(const char *path, cc_pf_fd *out, int *busy)
{
    *busy = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        FAIL();
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            *busy = 1;
            close(fd);
            return -1;
        }
        cc_pf_errno_();
        close(fd);
        return -1;
    }
    *out = fd;
    return 0;
}

void cc_pf_unlock(cc_pf_fd fd)
{
    if (fd >= 0) {
        flock((int)fd, LOCK_UN);
        close((int)fd);
    }
}

void cc_pf_start_writeback(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    close(fd);
}

/* ---- files in use (Windows' problem: rename(2) replaces an open or mapped file here) -------- */
int cc_pf_delete_on_reboot(const char *path)
{
    (void)path;
    cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "deletion at reboot exists only on Windows");
    return -1;
}

char **cc_pf_file_users(const char *path)
{
    (void)path;
    return calloc(1, sizeof(char *));
}
