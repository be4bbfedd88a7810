/* xfile.h: the libarchive glue that extract.c and extract_zip.c share: the read and seek
 * callbacks on an open archive file, for the tar/zip reader of extract.c (one pass after another
 * through the fd's own offset) and the zip workers of extract_zip.c (several readers of one file,
 * each at its own offset); an entry's type. */
#ifndef CC_XFILE_H
#define CC_XFILE_H

#include <stdint.h>

#include <archive.h>

#include "extract_check.h"
#include "platform.h"

#define CC_XFILE_BLOCK (1u << 20) /* bytes handed to libarchive per read */

typedef struct {
    cc_pf_fd fd;
    uint64_t pos, size; /* where the next read starts; the file's size (for SEEK_END) */
    unsigned char *buf; /* CC_XFILE_BLOCK bytes */
    int at_pos;         /* 1: read at pos (cc_pf_pread), the fd's offset untouched; 0: read and
                         * seek the fd itself */
} cc_xfile;

/* archive_read_set_read_callback / _seek_callback, with a cc_xfile as the callback data. */
la_ssize_t cc_xfile_read(struct archive *a, void *xfile, const void **out);
la_int64_t cc_xfile_seek(struct archive *a, void *xfile, la_int64_t off, int whence);

/* What a libarchive entry is (a hard link whatever its file type). */
cc_xentry_type cc_xentry_type_of(struct archive_entry *ae);

#endif
