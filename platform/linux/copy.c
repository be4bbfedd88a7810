/* copy.c (linux): whole-file copies for the unpacked store — a reflink (FICLONE) where the
 * filesystem shares extents (btrfs, XFS with reflink, bcachefs), else copy_file_range (an
 * in-kernel copy, no trip through user space); setting an open file's mode and mtime; a touch. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

int cc_pf_copy_fd(cc_pf_fd src, cc_pf_fd dst, uint64_t size, int reflink, int *how)
{
    *how = 0;
    if (reflink && ioctl((int)dst, FICLONE, (int)src) == 0) {
        *how = CC_PF_COPY_REFLINK;
        return 0;
    }
    off64_t in = 0, out = 0;
    uint64_t done = 0;
    while (done < size) {
        size_t want = size - done > ((uint64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(size - done);
        ssize_t n = copy_file_range((int)src, &in, (int)dst, &out, want, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && done == 0 &&
            (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
            cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "copy_file_range cannot copy these files");
            return -1;
        }
        if (n < 0) {
            cc_pf_errno_();
            return -1;
        }
        if (n == 0) { /* the source is shorter than it said */
            cc_pf_set_error(CUDNNCTL_E_IO, "the file being copied ended early");
            return -1;
        }
        done += (uint64_t)n;
    }
    *how = CC_PF_COPY_KERNEL;
    return 0;
}

int cc_pf_fset_mode_time(cc_pf_fd fd, uint32_t mode, int64_t mtime, uint32_t mtime_ns)
{
    struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)mtime, (long)(mtime_ns % 1000000000u)}};
    if (fchmod((int)fd, (mode_t)(mode & 07777)) != 0 || futimens((int)fd, ts) != 0) {
        cc_pf_errno_();
        return -1;
    }
    return 0;
}

int cc_pf_touch(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        cc_pf_errno_();
        return -1;
    }
    int rc = futimens(fd, NULL);
    if (rc != 0)
        cc_pf_errno_();
    close(fd);
    return rc == 0 ? 0 : -1;
}
