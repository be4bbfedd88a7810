/* receipt.h: install receipts — what one install put where, what it replaced (and where the
 * backup is), written by temp + fsync + rename into STATE/receipts/<id>.json. Paths of the
 * target are stored as the user sees them (without --root); backup paths are relative to the
 * state dir. Format: docs/formats.md. */
#ifndef CC_RECEIPT_H
#define CC_RECEIPT_H

#include <cjson/cJSON.h>

#include "internal.h"
#include "txfs.h"

typedef struct {
    char *path;       /* as the user sees it */
    cc_obj_type type; /* file or link */
    char sha256[65];  /* files */
    uint32_t mode;
    uint64_t size;
    char *link_target; /* links */
} cc_rentry;

typedef struct {
    char *path;       /* what was there before the install */
    cc_obj_type type; /* file, link or dir */
    uint32_t mode;
    uint64_t size;
    char *link_target;
    char *backup; /* relative to the state dir ("backups/000003/0") */
    char *reason; /* "overwritten" or "stale" */
} cc_rrepl;

typedef struct {
    char *id;
    long seq;
    char *installed_at;
    char *tool_version;
    char *cudnn_version, *cuda_variant, *platform;
    cudnnctl_flavor flavor;         /* "flavor" (receipts before it: full) */
    cudnnctl_components components; /* "components" this receipt placed (before: all) */
    cudnnctl_archive_ref archive; /* the install result's type (archive_ref.c) */
    cudnnctl_target_mode mode;
    char *target_path, *install_dir, *lib_dir, *include_dir, *bin_dir, *doc_dir;
    char *current_link; /* prefix: PREFIX/current, NULL in tree mode and when direct */
    int direct;         /* prefix on a filesystem without directory links: no current, the
                         * environment names install_dir (direct.h) */
    char *target_id;    /* "dev:ino" of the target dir when installed (NULL in old receipts) */
    cc_rentry *entries; /* files and links */
    size_t n_entries, cap_entries;
    cc_rrepl *replaced;
    size_t n_replaced, cap_replaced;
    cc_strv dirs_created; /* parents first */
    char *env_json;       /* JSON array of environment changes ("[]" until env wiring adds) */
    char *file;           /* real path of the receipt file once loaded / planned */
} cc_receipt;

void cc_receipt_free(cc_receipt *r); /* frees the members, not r */

/* archive_ref.c: the one clear, copy and JSON of cudnnctl_archive_ref (the install result and
 * the receipt). copy: a deep copy into a cleared *dst, 0 or -1 (out of memory, *dst cleared);
 * json: relative_path, url, sha256, size, verified, in_catalog into object a, 0 or -1. */
void cc_archive_ref_clear(cudnnctl_archive_ref *a);
int cc_archive_ref_copy(cudnnctl_archive_ref *dst, const cudnnctl_archive_ref *src);
int cc_archive_ref_json(cJSON *a, const cudnnctl_archive_ref *r);
/* *dst = a copy of src, or NULL for NULL; 0, or -1 out of memory (receipt.c's reader too). */
int cc_dup_opt(char **dst, const char *src);
cudnnctl_err cc_receipt_add_entry(cudnnctl_ctx *ctx, cc_receipt *r, const cc_rentry *e);
cudnnctl_err cc_receipt_add_replaced(cudnnctl_ctx *ctx, cc_receipt *r, const cc_rrepl *e);

cudnnctl_err cc_receipt_to_json(cudnnctl_ctx *ctx, const cc_receipt *r, char **json);
cudnnctl_err cc_receipt_parse(cudnnctl_ctx *ctx, const char *json, const char *origin,
                              cc_receipt *out);

/* Every receipt in STATE/receipts, sorted by seq (oldest first). A damaged receipt is skipped
 * with a warning, never guessed at. */
typedef struct {
    cc_receipt *v;
    size_t n;
} cc_receipts;
cudnnctl_err cc_receipts_load(cudnnctl_ctx *ctx, const char *state_dir, cc_receipts *out);
void cc_receipts_free(cc_receipts *rs);
long cc_receipts_next_seq(const cc_receipts *rs, const char *state_dir);

/* A reinstall supersedes: `later` put the same cuDNN version into the same target and install
 * dir as `earlier` (install --force, or a reinstall the caller asked for). The earlier receipt
 * then describes what the later one's backups hold: it is not active, rollback of the later
 * one makes it live again, uninstall of the later one removes both (docs/formats.md). */
int cc_receipt_supersedes(const cc_receipt *later, const cc_receipt *earlier);
/* Some receipt supersedes r? (any; NULL when none) */
const cc_receipt *cc_receipts_superseding(const cc_receipts *rs, const cc_receipt *r);
/* The newest receipt r supersedes, NULL when none. */
const cc_receipt *cc_receipts_superseded(const cc_receipts *rs, const cc_receipt *r);

/* "dev:ino" of a path (the identity a receipt records for its target), NULL when absent. */
char *cc_target_identity(const char *real);

/* "0644" etc. */
char *cc_mode_str(uint32_t mode);

#endif
