/* extract_write.h: the writing half of extraction — checked entries go through libarchive's
 * archive_write_disk (with ARCHIVE_EXTRACT_SECURE_* as the second line of defence) into the
 * staging directory, each regular file hashed as it is written. By default the writing runs in
 * its own thread behind a bounded queue, so it overlaps the xz decode as `tar -xJf` overlaps it
 * with a separate xz process. */
#ifndef CC_EXTRACT_WRITE_H
#define CC_EXTRACT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "extract_check.h"

typedef struct cc_xwriter cc_xwriter;

/* root: the staging directory's real (symlink-free) absolute path. threaded = 0 writes in the
 * caller's thread. NULL when memory or the thread cannot be had. */
cc_xwriter *cc_xwriter_new(const char *root, int threaded);

/* fn(user, staged path) for each regular file once written and closed (writer thread). */
void cc_xwriter_on_file(cc_xwriter *w, void (*fn)(void *user, const char *path), void *user);

/* Queue one checked entry (e->mapped non-NULL). For CC_XE_FILE, rec receives size and sha256
 * once written; for CC_XE_HARDLINK, rec receives them from link_src (the joined file's record).
 * size: of a FILE's data, -1 when the archive does not say.
 * Records must stay at their address until cc_xwriter_finish. Data follows with
 * cc_xwriter_data, then cc_xwriter_end. -1: the writer has failed (see cc_xwriter_finish) or no
 * memory. */
int cc_xwriter_begin(cc_xwriter *w, const cc_xentry *e, int64_t mtime, int64_t size,
                     cc_staged_file *rec, const cc_staged_file *link_src);
int cc_xwriter_data(cc_xwriter *w, const void *buf, size_t len);
int cc_xwriter_end(cc_xwriter *w);

/* Wait until everything queued is on disk (directory modes applied last). 0, or -1 with *err
 * (malloc'd) saying what failed. *warnings = libarchive warnings seen (first in *warn_text). */
int cc_xwriter_finish(cc_xwriter *w, char **err, unsigned *warnings, char **warn_text);

/* Hand each finished file to s (the caller's, shared by several writers; NULL: none) to be
 * fsync'd in the background; the caller finishes and frees s after every writer is done. */
struct cc_syncer;
void cc_xwriter_share_syncer(cc_xwriter *w, struct cc_syncer *s);
/* Write files without hashing them: rec->sha256 is left "" for the caller to fill (a pinned
 * wheel's RECORD: zip_record.c); the size is recorded as always. */
void cc_xwriter_no_hashing(cc_xwriter *w);

/* The OS error number (errno) behind the first failure, 0 when none is known: what a message
 * says besides libarchive's "Write failed" (no space left, permission). */
int cc_xwriter_errno(const cc_xwriter *w);

/* Stop (if still running) and release. */
void cc_xwriter_free(cc_xwriter *w);

#endif
