/* store.h: the unpacked store (issue 24) — after an archive is verified and extracted once, its
 * staged tree is kept read-only under CACHE/store/v1/<key> (key: the archive's SHA-256, the
 * components extracted and the content mode), with a manifest of every entry (type, mode, size,
 * mtime, SHA-256). A later install of the same archive fills its staging dir from there (reflink,
 * copy or hard link) instead of decoding; the commit, receipts and uninstall do not change.
 * Trust: the store is part of the cache and follows its rule (docs/security.md): every dir
 * from "/" to an entry owned by root or the effective user and writable by nobody else, each
 * file opened trusted. Depends on core and platform only (the cache listing reads it). */
#ifndef CC_STORE_H
#define CC_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef enum { CC_ST_FILE = 0, CC_ST_LINK, CC_ST_DIR } cc_store_type;

typedef struct {
    char *rel; /* '/'-separated, under the staging root */
    cc_store_type type;
    char *link_target; /* links */
    uint32_t mode;     /* as staged (the store's own copy has the write bits off) */
    uint64_t size;
    int64_t mtime;
    uint32_t mtime_ns;
    char sha256[65]; /* files */
} cc_store_file;

typedef struct {
    char *key;
    char *dir;  /* CACHE/store/v1/<key> */
    char *tree; /* dir/tree */
    char archive_sha256[65];
    uint64_t archive_size;
    cc_store_file *files; /* parents before children */
    size_t n;
} cc_store_entry;

/* "<sha256>-<components>-<any|cuda-tree>" (components: runtime+dev+static). NULL: no memory. */
char *cc_store_key(const char *archive_sha256, unsigned components, int cuda_tree);
/* CACHE/store (malloc'd), NULL out of memory. */
char *cc_store_root(cudnnctl_ctx *ctx);

/* The entry for key: *found 1 with e filled (manifest read trusted, entry dir trust-checked),
 * 0 when there is none (or only an unreadable/incomplete one, which is then quarantined).
 * CUDNNCTL_E_UNTRUSTED when the store or the entry is in a place others could write. */
cudnnctl_err cc_store_lookup(cudnnctl_ctx *ctx, const char *key, cc_store_entry *e, int *found);
void cc_store_entry_free(cc_store_entry *e);
void cc_store_files_free(cc_store_file *v, size_t n);

/* How staging is filled from an entry. */
typedef enum {
    CC_STORE_AUTO = 0, /* reflink where the filesystem can, else a copy */
    CC_STORE_COPY,     /* always a copy of the bytes */
    CC_STORE_REFLINK,  /* reflinks only (fails where the filesystem cannot) */
    CC_STORE_HARDLINK  /* hard links to the store's files (prefixes only) */
} cc_store_mode;

typedef struct {
    const char *how; /* "reflink", "copy", "hardlink", or "copy (hardlink fell back)" (static) */
    size_t n_files;
    uint64_t bytes;
} cc_store_placed;

/* Fill the (empty, existing) staging dir from e. Every store file is checked against its record
 * as it is used (regular, trusted, size, mtime and mode); one that differs is re-hashed, and a
 * hash that differs sets *bad (the caller empties staging, quarantines the entry and extracts
 * the archive again). */
cudnnctl_err cc_store_place(cudnnctl_ctx *ctx, const cc_store_entry *e, const char *staging,
                            cc_store_mode mode, cc_store_placed *out, int *bad);
/* Move the entry to CACHE/store/quarantine/<key>-<token>; *qpath (malloc'd) where it went. */
cudnnctl_err cc_store_quarantine(cudnnctl_ctx *ctx, const cc_store_entry *e, char **qpath);
/* Re-hash every file of e against its record: 0 all match, else the number that do not. */
size_t cc_store_verify(cudnnctl_ctx *ctx, const cc_store_entry *e);
/* Mark the entry used now (its dir's mtime is its last use). */
void cc_store_touch(const cc_store_entry *e);

/* Filling: begun before the extraction (store/tmp/<key>.<token>), fed each staged file as the
 * extractor finishes it (cc_store_fill_file, from the writer thread: copied and fsync'd in the
 * filler's own thread), committed after the archive's digest matched (the rest copied, links
 * and dirs made, the manifest written, one rename into store/v1/<key>). A crash or kill before
 * that rename leaves only a tmp dir, which nothing believes. */
typedef struct cc_store_fill cc_store_fill;
/* NULL when the store cannot be filled now (said in the debug log). */
cc_store_fill *cc_store_fill_begin(cudnnctl_ctx *ctx, const char *key, const char *staging);
void cc_store_fill_file(void *fill, const char *staged_path); /* an extractor's on_file hook */
/* known: the extractor's records (rel, size, sha256) so files are not hashed again. */
cudnnctl_err cc_store_fill_commit(cudnnctl_ctx *ctx, cc_store_fill *f, const cc_store_file *known,
                                  size_t n_known, const char *archive_sha256,
                                  uint64_t archive_size);
void cc_store_fill_abort(cudnnctl_ctx *ctx, cc_store_fill *f); /* NULL is fine; frees f */

/* The listing (store_admin.c): cb once per entry (kind "store"), unfinished fill ("store-partial")
 * and quarantined entry ("store-quarantine"); sha: the archive's SHA-256 its name says (NULL when
 * none), size: the bytes its manifest lists (a partial one: 0), last_used: its dir's mtime. */
typedef int (*cc_store_list_cb)(void *user, const char *path, const char *kind, const char *sha,
                                uint64_t size, int64_t last_used);
int cc_store_scan(cudnnctl_ctx *ctx, cc_store_list_cb cb, void *user); /* 0, or -1 no memory */
/* 1 when every file of the entry at dir hashes to its record. */
int cc_store_verify_dir(cudnnctl_ctx *ctx, const char *dir);

/* Manifest (store_manifest.c). */
cudnnctl_err cc_store_manifest_write(cudnnctl_ctx *ctx, const char *path, const char *key,
                                     const char *archive_sha256, uint64_t archive_size,
                                     const cc_store_file *v, size_t n);
cudnnctl_err cc_store_manifest_read(cudnnctl_ctx *ctx, const char *path, cc_store_entry *e);

#endif
