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
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "platform.h"
#include "safepath.h"

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
    st->mtime_ns = (uint32_t)s->st_mtim.tv_nsec;
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

/* A read-only open follows links as the kernel does (reading is harmless; what is believed is
 * opened CC_PF_O_TRUSTED). Anything that writes or creates is walked by the safe-path layer and
 * never written through a final link, and must be a regular file. */
cc_pf_fd cc_pf_open(const char *path, int flags, uint32_t mode)
{
    int f = 0;
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
    int writes = (flags & 0x3) != CC_PF_O_RDONLY || (flags & (CC_PF_O_CREAT | CC_PF_O_TRUNC));
    if (flags & CC_PF_O_TRUSTED)
        return cc_pf_open_trusted(path);
    int fd;
    if (writes) {
        fd = cc_sp_open(path, f | O_NONBLOCK, (mode_t)mode,
                        cc_sp_enforcing() ? SP_ENFORCE : 0);
        if (fd < 0)
            return -1;
        struct stat s;
        if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) {
            close(fd);
            char text[1200];
            snprintf(text, sizeof(text), "%s is not a regular file: cudnnctl writes only files",
                     path);
            cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
            return -1;
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        return fd;
    }
    do
        fd = open(path, f | O_CLOEXEC, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        FAIL();
    return fd;
}

cc_pf_fd cc_pf_open_trusted(const char *path)
{
    int fd = cc_sp_open(path, O_RDONLY | O_NONBLOCK, 0, SP_ENFORCE | SP_FOLLOW);
    if (fd < 0)
        return -1;
    struct stat s;
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || !cc_sp_owner_trusted(&s) ||
        (s.st_mode & S_IWOTH) || ((s.st_mode & S_IWGRP) && s.st_gid != 0)) {
        if (s.st_mode && !S_ISREG(s.st_mode)) {
            char text[1200];
            snprintf(text, sizeof(text), "%s is not a regular file", path);
            cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
        } else {
            cc_sp_distrust(path, &s, "the file");
        }
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
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

long long cc_pf_pread(cc_pf_fd fd, void *buf, size_t len, uint64_t off)
{
    ssize_t n;
    do
        n = pread((int)fd, buf, len, (off_t)off);
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

/* The directory fd and last name of path through the safe-path walk; -1 with the error set. */
static int parent_of(const char *path, char **base)
{
    return cc_sp_parent(path, cc_sp_enforcing() ? SP_ENFORCE : 0, base);
}

int cc_pf_rename(const char *oldpath, const char *newpath)
{
    char *b1 = NULL, *b2 = NULL;
    int d1 = parent_of(oldpath, &b1);
    int d2 = d1 < 0 ? -1 : parent_of(newpath, &b2);
    int rc = d2 < 0 ? -1 : renameat(d1, b1, d2, b2);
    if (rc != 0 && d2 >= 0)
        cc_pf_errno_();
    if (d1 >= 0)
        close(d1);
    if (d2 >= 0)
        close(d2);
    free(b1);
    free(b2);
    return rc == 0 ? 0 : -1;
}

/* Run op on path's directory fd and last name. */
static int at_op(const char *path, int (*op)(int dfd, const char *name, const void *arg),
                 const void *arg)
{
    char *base = NULL;
    int d = parent_of(path, &base);
    if (d < 0)
        return -1;
    int rc = op(d, base, arg);
    if (rc != 0)
        cc_pf_errno_();
    close(d);
    free(base);
    return rc == 0 ? 0 : -1;
}

static int op_unlink(int d, const char *n, const void *a)
{
    (void)a;
    return unlinkat(d, n, 0);
}

int cc_pf_unlink(const char *path)
{
    return at_op(path, op_unlink, NULL);
}

static int op_rmdir(int d, const char *n, const void *a)
{
    (void)a;
    return unlinkat(d, n, AT_REMOVEDIR);
}

int cc_pf_rmdir(const char *path)
{
    return at_op(path, op_rmdir, NULL);
}

static int op_mkdir(int d, const char *n, const void *a)
{
    return mkdirat(d, n, *(const mode_t *)a);
}

int cc_pf_mkdir(const char *path, uint32_t mode)
{
    mode_t m = (mode_t)mode;
    return at_op(path, op_mkdir, &m);
}

/* chmod of the object itself, never through a final link (an O_PATH fd, changed through its
 * /proc/self/fd name, as glibc's fchmodat(AT_SYMLINK_NOFOLLOW) does). */
static int op_chmod(int d, const char *n, const void *a)
{
    int fd = openat(d, n, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = fstat(fd, &st);
    if (rc == 0 && S_ISLNK(st.st_mode)) {
        errno = ELOOP;
        rc = -1;
    }
    if (rc == 0) {
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        rc = chmod(proc, *(const mode_t *)a);
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int cc_pf_chmod(const char *path, uint32_t mode)
{
    mode_t m = (mode_t)mode;
    return at_op(path, op_chmod, &m);
}

static int op_symlink(int d, const char *n, const void *a)
{
    return symlinkat((const char *)a, d, n);
}

int cc_pf_symlink(const char *target, const char *linkpath)
{
    return at_op(linkpath, op_symlink, target);
}

/* A hard link of the object itself (linkat without AT_SYMLINK_FOLLOW), both names walked. */
int cc_pf_link(const char *existing, const char *newpath)
{
    char *b1 = NULL, *b2 = NULL;
    int d1 = parent_of(existing, &b1);
    int d2 = d1 < 0 ? -1 : parent_of(newpath, &b2);
    int rc = d2 < 0 ? -1 : linkat(d1, b1, d2, b2, 0);
    if (rc != 0 && d2 >= 0)
        cc_pf_errno_();
    if (d1 >= 0)
        close(d1);
    if (d2 >= 0)
        close(d2);
    free(b1);
    free(b2);
    return rc == 0 ? 0 : -1;
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

/* A directory opened by the safe-path walk, the last component not followed: what is listed
 * to be deleted is the directory that was checked, never a link's target. */
cc_pf_dir *cc_pf_opendir_nofollow(const char *path)
{
    int fd = cc_sp_open(path, O_RDONLY | O_DIRECTORY, 0, cc_sp_enforcing() ? SP_ENFORCE : 0);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d) {
        cc_pf_errno_();
        close(fd);
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

/* The lock file is created or opened by the safe-path walk, never through a link, and must be a
 * regular file of the effective user (or root): a planted link or file cannot make the holder
 * truncate or write anything else. */
int cc_pf_lock(const char *path, cc_pf_fd *out, int *busy)
{
    *busy = 0;
    int fd = cc_sp_open(path, O_RDWR | O_CREAT | O_NONBLOCK, 0644,
                        cc_sp_enforcing() ? SP_ENFORCE : 0);
    if (fd < 0)
        return -1;
    struct stat s;
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || !cc_sp_owner_trusted(&s)) {
        if (S_ISREG(s.st_mode))
            cc_sp_distrust(path, &s, "the lock file");
        else {
            char text[1200];
            snprintf(text, sizeof(text), "%s is not a regular file: not used as a lock", path);
            cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
        }
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
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

int cc_pf_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            FAIL();
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
