/* source.h: a pull stream of archive bytes (network download, cache file or local archive),
 * hashed and size-counted as it is read, and, for downloads, copied into the cache.
 * Owned by the fetch work (source.c, fetch.c, cache.c, ring.c, transport*.c); consumed by
 * extract.c and install.c. */
#ifndef CC_SOURCE_H
#define CC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"

typedef struct cc_source cc_source;
struct cc_transport_ops;

typedef struct {
    const char *url;             /* http(s)://, file://, or a local path */
    const char *expected_sha256; /* lowercase hex; NULL only with insecure_skip_verify */
    uint64_t expected_size;      /* 0 = unknown */
    const char *cacert;          /* extra CA bundle, NULL = system */
    int insecure_skip_verify;    /* no hash known and the user accepted that */
    int use_cache;               /* content-addressed cache lookup and store */
    /* Network tuning; 0 = default. Tests shorten them. */
    unsigned low_speed_bytes;      /* abort an attempt slower than this (default 1024 B/s) ... */
    unsigned low_speed_secs;       /* ... for this long (default 30 s) */
    unsigned connect_timeout_secs; /* default 30 s */
    unsigned max_tries;            /* attempts without progress before giving up (default 4) */
    unsigned retry_delay_ms; /* first back-off, doubled per retry, capped at 30 s (default 1 s) */
    const struct cc_transport_ops *transport; /* NULL = libcurl (transport_curl.c) */
    size_t ring_bytes; /* the hand-over buffer; 0 = 4 MiB. Tests shrink it to force spilling */
    /* Connections for one download when the server serves ranges (fetch_ranges.c): 0 = chosen
     * from the first connection's rate (1–8; archives from 16 MiB), 1 = one stream, N = N. */
    unsigned connections;
    uint64_t piece_bytes; /* bytes a ranged request; 0 = 8 MiB. Tests shrink it */
    /* For messages whose fix depends on it: what the bytes are (NULL: an archive,
     * "manifest"); the URL is under the user's --mirror; expected_sha256 is the user's own
     * --sha256 (a mismatch then says the value given is not this file's); the bytes are a
     * wheel the wheel catalog pins (the fixes name the index and the catalog). */
    const char *what;
    int via_mirror, sha256_from_user, wheel;
    /* Hold the verified file open after cc_source_finish, for cc_source_take_file (a zip: its
     * extraction seeks, so it reads the file, which must be the one that was hashed). */
    int keep_file;
    /* A download hands its bytes over through its part alone, the ring holding none: for a
     * consumer that reads the part itself (a zip unpacked as it downloads), so that no byte is
     * copied into the ring and out again. A local file or cache blob is read as always. */
    int read_from_part;
    /* NULL, or the Accept header's media types (a PEP 691 package index page) */
    const char *accept;
} cc_source_opts;

/* Open a source. A cache hit (by expected_sha256) opens the cached blob and downloads nothing
 * (CUDNNCTL_EV_CACHE_HIT; the blob is still re-hashed). A `.part` left by an earlier run is
 * re-hashed and the download resumes after it (Range). Reading runs in a background thread
 * that hands bytes over through a 4 MiB ring, so network, hashing, the cache write and decoding
 * overlap. A download never waits for the consumer: every byte is written to the cache part
 * first, and what the ring cannot hold is read back from there (a local file or cache blob is
 * handed over only through the ring, so that the bytes decoded are the bytes hashed).
 * Returns once the first bytes are there, so that HTTP / TLS / size errors surface here. */
cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *opts, cc_source **out);
/* Read up to len bytes; 0 at end of stream; -1 on error (ctx has the error). */
long long cc_source_read(cc_source *src, void *buf, size_t len);
/* Go past up to len bytes of the stream without needing them: those only in the download's part
 * are not read back; those in the ring land in scratch (len bytes). As cc_source_read returns. */
long long cc_source_skip(cc_source *src, void *scratch, size_t len);
/* 1 when the bytes are checked against a SHA-256 at the end (opts.expected_sha256). */
int cc_source_has_sha256(const cc_source *src);
/* Drain to the end (if the consumer stopped early), then check size and SHA-256.
 * HASH_MISMATCH / SIZE_MISMATCH move the bad bytes to the quarantine dir and name both hashes
 * (a local file given by the user is left where it is).
 * On success, a download is committed to the cache. sha256_hex / size may be NULL. */
cudnnctl_err cc_source_finish(cc_source *src, char sha256_hex[65], uint64_t *size);
/* Path of the bytes on disk once finished (cache blob or the local file as given); NULL before. */
const char *cc_source_path(const cc_source *src);
/* The file the bytes are read from (the local file as given, the cache blob, the download's
 * part), from cc_source_open on: what a test swaps (cudnnctl_test.h). */
const char *cc_source_file(const cc_source *src);
/* A download still arriving: the cache part its bytes land in. Every byte cc_source_read has
 * returned is in it already, at its offset in the stream (the download writes each byte there
 * before it hands it over). NULL for a local file or a cache blob, and once finished or failed. */
const char *cc_source_part(const cc_source *src);
/* 1 when fd is the very file the download writes (the same file, not one renamed over its path
 * since): what a reader of the part checks before it believes the bytes there are the stream's. */
int cc_source_part_is(cc_source *src, cc_pf_fd fd);
/* With opts.keep_file, after a successful cc_source_finish: the open file holding exactly the
 * verified bytes, at offset 0 — the descriptor they were hashed from (a download: hashed again
 * from it) — now the caller's to close. -1 (ctx error) otherwise. A local archive another user
 * could change (cc_pf_trust_check fails: its directory or the file writable by others) is never
 * read in place: cc_source_open copies it into a private file of the cache first, and everything
 * (hash, extraction) reads the copy. */
cc_pf_fd cc_source_take_file(cc_source *src);
/* Abort and release; a partial download stays as a resumable .part in the cache. */
void cc_source_close(cc_source *src);

/* The source's own failure (OK while it is healthy). A consumer whose decoder failed after a
 * cc_source_read of -1 should report this error rather than "malformed archive". */
cudnnctl_err cc_source_status(const cc_source *src);

/* Where relative_path lives under a mirror base: "URL/rel" for http(s):// and file:// bases,
 * "DIR/rel" for a directory (malloc'd). */
char *cc_source_join(const char *base, const char *relative_path);
/* 1 for file:// URLs and plain paths, 0 for http(s):// (and any other scheme). */
int cc_source_is_local(const char *url);

/* ---- cache (cache.c) ---- */
/* The blob path for a SHA-256 (malloc'd; the file may not exist). */
char *cc_cache_blob_path(cudnnctl_ctx *ctx, const char *sha256_hex);
/* 1 when the cache holds a blob for sha256_hex (of expected_size when that is non-zero). */
int cc_cache_has(cudnnctl_ctx *ctx, const char *sha256_hex, uint64_t expected_size);

#endif
