/* cache.h: the content-addressed download cache (blobs/sha256/<hex>, resumable <hex>.part,
 * per-blob locks, quarantine/ for bytes whose hash did not match). Internal to the fetch work. */
#ifndef CC_CACHE_H
#define CC_CACHE_H

#include <stdint.h>

#include "internal.h"

typedef struct {
    char *root;       /* the cache dir */
    char *blob;       /* blobs/sha256/<hex> (NULL when the hash is unknown) */
    char *part;       /* where the download is written */
    int resumable;    /* part is keyed by the expected hash and survives between runs */
    cc_pf_fd lock_fd; /* held while this process writes part */
} cc_cache_entry;

/* Prepare the entry for a download of sha256_hex (NULL: unknown hash → a private temporary
 * part, not resumable), creating the directories and taking the entry's lock.
 * CUDNNCTL_E_LOCKED when another process downloads the same blob. */
cudnnctl_err cc_cache_entry_open(cudnnctl_ctx *ctx, const char *sha256_hex, cc_cache_entry *e);
void cc_cache_entry_close(cudnnctl_ctx *ctx, cc_cache_entry *e);

/* Remove PART.prefix, the part's prefix record (fetch.c), if there is one. */
void cc_cache_drop_record(cudnnctl_ctx *ctx, const char *part);

/* Move a verified part to blobs/sha256/<actual_hex> (fsync'd); *blob_out gets its path. */
cudnnctl_err cc_cache_commit(cudnnctl_ctx *ctx, cc_cache_entry *e, const char *actual_hex,
                             char **blob_out);

/* Move path into <cache>/quarantine/<actual_hex>-<name>; *qpath gets the new place. */
cudnnctl_err cc_cache_quarantine(cudnnctl_ctx *ctx, const char *path, const char *actual_hex,
                                 const char *name, char **qpath);

#endif
