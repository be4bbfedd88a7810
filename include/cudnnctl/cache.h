/**
 * @file cache.h
 * @brief The download cache (`cudnnctl cache list|verify|clean`): content-addressed blobs
 * (blobs/sha256/<hex>), resumable downloads (<hex>.part), the quarantine (bytes whose SHA-256 did
 * not match) and cached manifests, under the context's cache dir.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_CACHE_H
#define CUDNNCTL_CACHE_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/cache.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *path;       /**< absolute */
    /** "blob", "part", "quarantine", "manifest", "other"; the unpacked store's "store" (an
     *  entry: an archive's verified, extracted tree), "store-partial" (a fill that never
     *  finished), "store-quarantine" (an entry that failed its recorded hashes) (static) */
    const char *kind;
    char *sha256;     /**< the hash its name says (blob, part, store: the archive's), else NULL */
    uint64_t size;
    int verified;     /**< blobs after a verify: 1 the bytes match the name, 0 not; -1 unchecked */
    int removed;      /**< clean: removed */
    int64_t last_used; /**< store entries: last install from it (seconds since the epoch);
                        *  others: the file's mtime */
} cudnnctl_cache_entry;

typedef struct {
    char *dir;                    /**< the cache dir */
    cudnnctl_cache_entry *entries;
    size_t n;
    uint64_t total;               /**< bytes of all entries */
    size_t n_bad;                 /**< blobs whose bytes do not match their name (verify) */
} cudnnctl_cache_listing;

/** What the cache holds; with @p verify every blob and every store file is re-hashed. */
CUDNNCTL_API cudnnctl_err cudnnctl_cache_list(cudnnctl_ctx *ctx, int verify,
                                              cudnnctl_cache_listing **out);
/** Remove blobs, parts, quarantine and cached manifests (the listing says what; with
 *  @p dry_run nothing is removed). Blobs are re-downloaded when needed. */
CUDNNCTL_API cudnnctl_err cudnnctl_cache_clean(cudnnctl_ctx *ctx, int dry_run,
                                               cudnnctl_cache_listing **out);
/** {"dir", "total_bytes", "mismatched", "entries": [{"path", "kind", "sha256", "size",
 *  "verified", "removed", "last_used"}]}; free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_cache_listing_json(const cudnnctl_cache_listing *l,
                                                      char **json);
CUDNNCTL_API void cudnnctl_cache_listing_free(cudnnctl_cache_listing *l);

#ifdef __cplusplus
}
#endif
#endif
