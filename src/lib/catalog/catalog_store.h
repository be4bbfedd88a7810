/* catalog_store.h: the manifests `cudnnctl update` keeps under the state dir (catalog_store.c)
 * — read by the catalog (catalog.c), written by update (catalog_update.c), re-read by mirror. */
#ifndef CC_CATALOG_STORE_H
#define CC_CATALOG_STORE_H

#include <stdint.h>

#include "catalog_model.h"

typedef struct {
    char *name;       /* "redistrib_9.28.0.json" */
    char *sha256;     /* of its bytes: the pin */
    char *url;        /* where it was fetched from */
    char *fetched_at; /* ISO 8601 UTC */
    char *override;   /* --allow-manifest-override: the pin it replaced, NULL when none */
} cc_stored_manifest;

typedef struct {
    char *updated_at; /* the last update that ran to its end, NULL: never */
    char *source;     /* the listing it read */
    cc_stored_manifest *v;
    size_t n;
} cc_catalog_store;

/* STATE/catalog/index.json (absent: an empty store, OK). A damaged index is PARSE naming it. */
cudnnctl_err cc_store_load(cudnnctl_ctx *ctx, const char *state, cc_catalog_store *out);
void cc_store_free(cc_catalog_store *s);
/* Append a copy; 0, or -1 out of memory. */
int cc_store_add(cc_catalog_store *s, const cc_stored_manifest *m);
/* The stored bytes of m, checked against m->sha256 (HASH_MISMATCH naming the file). */
cudnnctl_err cc_store_read_manifest(cudnnctl_ctx *ctx, const char *state,
                                    const cc_stored_manifest *m, char **data, size_t *len);
/* index.json, atomically. */
cudnnctl_err cc_store_save(cudnnctl_ctx *ctx, const char *state, const cc_catalog_store *s);
char *cc_store_dir(const char *state);
char *cc_store_manifest_path(const char *state, const char *sha256);
int cc_store_sha_hex(const void *data, size_t len, char hex[65]);
/* "2026-09-29" / "2026-09-29T10:00:00Z" → seconds since the epoch, -1 when not a date. */
int64_t cc_iso_epoch(const char *iso);

#endif
