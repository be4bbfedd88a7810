/* xfile.c: libarchive glue shared by the tar and zip readers (xfile.h). */
#include "xfile.h"

#include <errno.h>
#include <stdio.h>

#include <archive_entry.h>

la_ssize_t cc_xfile_read(struct archive *a, void *xfile, const void **out)
{
    cc_xfile *r = xfile;
    long long n = r->at_pos ? cc_pf_pread(r->fd, r->buf, CC_XFILE_BLOCK, r->pos)
                            : cc_pf_read(r->fd, r->buf, CC_XFILE_BLOCK);
    if (n < 0) {
        archive_set_error(a, EIO, "read: %s", cc_pf_last_error_text());
        return -1;
    }
    r->pos += (uint64_t)n;
    *out = r->buf;
    return (la_ssize_t)n;
}

la_int64_t cc_xfile_seek(struct archive *a, void *xfile, la_int64_t off, int whence)
{
    cc_xfile *r = xfile;
    int64_t base = whence == SEEK_CUR ? (int64_t)r->pos : whence == SEEK_END ? (int64_t)r->size : 0;
    int64_t to = base + off;
    if (to < 0 || (!r->at_pos && cc_pf_seek(r->fd, (uint64_t)to) != 0)) {
        archive_set_error(a, EIO, r->at_pos ? "seek before the start" : "seek failed");
        return ARCHIVE_FATAL;
    }
    r->pos = (uint64_t)to;
    return to;
}

cc_xentry_type cc_xentry_type_of(struct archive_entry *ae)
{
    if (archive_entry_hardlink(ae))
        return CC_XE_HARDLINK;
    switch (archive_entry_filetype(ae)) {
    case AE_IFREG:
        return CC_XE_FILE;
    case AE_IFDIR:
        return CC_XE_DIR;
    case AE_IFLNK:
        return CC_XE_SYMLINK;
    case AE_IFCHR:
        return CC_XE_CHARDEV;
    case AE_IFBLK:
        return CC_XE_BLOCKDEV;
    case AE_IFIFO:
        return CC_XE_FIFO;
    case AE_IFSOCK:
        return CC_XE_SOCKET;
    default:
        return CC_XE_OTHER;
    }
}
