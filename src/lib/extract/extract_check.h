/* extract_check.h: the per-archive checks that need memory of earlier entries — the single top
 * directory, layout mapping, duplicates and case collisions, writes through links, hardlink
 * targets, entry types and modes. Pure (no I/O), so it is tested without archives. */
#ifndef CC_EXTRACT_CHECK_H
#define CC_EXTRACT_CHECK_H

#include <stdint.h>

#include "cudnnctl/cudnnctl.h"
#include "layout.h"
#include "str.h"

#define CC_EXTRACT_MAX_ENTRIES 100000

typedef enum {
    CC_XE_DIR = 0,
    CC_XE_FILE,
    CC_XE_SYMLINK,
    CC_XE_HARDLINK,
    CC_XE_CHARDEV,
    CC_XE_BLOCKDEV,
    CC_XE_FIFO,
    CC_XE_SOCKET,
    CC_XE_OTHER
} cc_xentry_type;

typedef struct {
    /* in */
    const char *name; /* the entry name as stored (UTF-8); NULL = not representable */
    cc_xentry_type type;
    const char *link; /* symlink target or hardlink target as stored */
    uint32_t mode;    /* permission bits from the archive (with setuid etc.) */
    long rec_index;   /* caller's record number for a FILE (hardlinks find it again) */
    /* out */
    char *norm;        /* normalised archive path */
    char *mapped;      /* staging-relative path; NULL: nothing to write (skip) */
    char *link_text;   /* SYMLINK: target to write, relative, rewritten for the layout;
                        * HARDLINK: staging-relative path of the file it joins */
    long hardlink_rec; /* HARDLINK: rec_index of that file */
    uint32_t out_mode; /* sanitised permission bits to write */
    uint32_t dropped;  /* bits removed (setuid, setgid, sticky, group/other write) */
    cc_strv new_dirs;  /* staging dirs this entry needs that nothing created yet (outer first) */
} cc_xentry;

typedef struct cc_xcheck cc_xcheck;

/* expected_top: from cc_layout_expected_top (NULL: any plausible NVIDIA top dir). NULL on
 * allocation failure. */
cc_xcheck *cc_xcheck_new(const char *expected_top);
void cc_xcheck_free(cc_xcheck *x);

/* Judge one entry. OK, or UNSAFE_ARCHIVE / BAD_LAYOUT / NOMEM with *detail (malloc'd) naming
 * the entry, the reason and what to do. Fills the out fields (freed by cc_xentry_clear). */
cudnnctl_err cc_xcheck_entry(cc_xcheck *x, cc_xentry *e, char **detail);
void cc_xentry_clear(cc_xentry *e);
/* The permission bits an entry of this type and archive mode is staged with (out_mode). */
uint32_t cc_xcheck_out_mode(cc_xentry_type type, uint32_t mode);

/* After the last entry: the layout found (is_zip: the archive was a zip); BAD_LAYOUT (with
 * *detail) when nothing landed in include/, lib/ or bin/ or the archive was empty. */
cudnnctl_err cc_xcheck_finish(cc_xcheck *x, int is_zip, cc_layout *layout, char **detail);

/* The archive's top directory once the first entry was seen (owned by x), else NULL. */
const char *cc_xcheck_top(const cc_xcheck *x);

#endif
