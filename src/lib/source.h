/* source.h: a pull stream of archive bytes (network download, cache file or local archive),
 * hashed and size-counted as it is read, and, for downloads, copied into the cache.
 * Owned by the fetch work (fetch_*.c, cache.c); consumed by extract.c and install.c. */
#ifndef CC_SOURCE_H
#define CC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"

typedef struct cc_source cc_source;

typedef struct {
    const char *url;            /* http(s)://, file://, or a local path */
    const char *expected_sha256; /* lowercase hex; NULL only with insecure_skip_verify */
    uint64_t expected_size;     /* 0 = unknown */
    const char *cacert;         /* extra CA bundle, NULL = system */
    int insecure_skip_verify;   /* no hash known and the user accepted that */
    int use_cache;              /* content-addressed cache lookup and store */
} cc_source_opts;

/* Open a source. A cache hit (by expected_sha256) opens the cached blob and downloads nothing.
 * Downloads run in a background thread into a bounded buffer, so network and decode overlap. */
cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *opts, cc_source **out);
/* Read up to len bytes; 0 at end of stream; -1 on error (ctx has the error). */
long long cc_source_read(cc_source *src, void *buf, size_t len);
/* Drain to the end (if the consumer stopped early), then check size and SHA-256.
 * HASH_MISMATCH / SIZE_MISMATCH move the bad bytes to the quarantine dir and name both hashes.
 * On success, a download is committed to the cache. */
cudnnctl_err cc_source_finish(cc_source *src, char sha256_hex[65], uint64_t *size);
/* Path of the bytes on disk once finished (cache blob or the local file); NULL before. */
const char *cc_source_path(const cc_source *src);
/* Abort and release; a partial download stays as a resumable .part in the cache. */
void cc_source_close(cc_source *src);

#endif
