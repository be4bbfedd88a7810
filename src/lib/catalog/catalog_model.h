/* catalog_model.h: the catalog's data inside the library (manifests parsed, archives, flavours,
 * CUDA variants), shared by catalog/ and the plan/ folder above it (compatibility tables,
 * selection, the plan, mirrors). Not installed. */
#ifndef CC_CATALOG_MODEL_H
#define CC_CATALOG_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "source.h"

/* A growable array of archive entries (each owns its strings). */
typedef struct {
    cudnnctl_archive *v;
    size_t n, cap;
} cc_archive_vec;

/* Append a copy / take ownership of *a (its strings move into the vector; *a is zeroed). */
int cc_archive_vec_push_move(cc_archive_vec *vec, cudnnctl_archive *a);
void cc_archive_vec_free(cc_archive_vec *vec);
/* Deep copy; 0 ok, -1 out of memory (dst is then cleared). */
int cc_archive_copy(cudnnctl_archive *dst, const cudnnctl_archive *src);
void cc_archive_clear(cudnnctl_archive *a);

/* Parse one NVIDIA cuDNN redistrib JSON into archive entries of the "cudnn" component.
 * origin names the manifest in errors and in each entry's `manifest`; manifest_sha256 (may be
 * NULL) is recorded in each entry. Malformed → CUDNNCTL_E_MANIFEST naming origin and key;
 * nothing is appended then. */
cudnnctl_err cc_manifest_parse(cudnnctl_ctx *ctx, const char *json, size_t len, const char *origin,
                               const char *manifest_sha256, cc_archive_vec *out);

/* 1 for a manifest file name of NVIDIA's redist tree: redistrib_<d>(.<d>){1,3}.json. */
int cc_catalog_listing_name_ok(const char *name);
/* The manifest names a directory listing (any HTML, or none) links to, each once, in page order,
 * appended to names: 0; 1 when the page offers more than any redist listing would (the names
 * so far are kept); -1 out of memory. */
int cc_catalog_listing_parse(const char *text, size_t len, cc_strv *names);
/* What the bytes are when they are a web page or other markup rather than JSON ("an HTML login
 * page", "an HTML page", "markup (XML or HTML)"), else NULL (manifest_sniff.c). */
const char *cc_manifest_markup(const char *data, size_t len);

/* A manifest is a few KiB; anything this large is not one. */
#define CC_MANIFEST_MAX (16u << 20)

/* Fetch a manifest from an http(s) URL through the source layer; on success keep a copy in
 * <cache>/manifests/<sha256>.json with a per-URL reference, and when the network fails later,
 * fall back to that copy (with a warning). *data is malloc'd; hex gets the bytes' SHA-256. */
cudnnctl_err cc_manifest_fetch(cudnnctl_ctx *ctx, const char *url, char **data, size_t *len,
                               char hex[65]);

/* The bytes at an http(s) URL (at most CC_MANIFEST_MAX), fresh, through the source layer (its
 * retries, proxy, cacert); *hex gets their SHA-256. No cached fallback: `update` must see
 * what the server serves now. */
/* The whole body of o's URL into b (and its SHA-256 into hex, may be NULL): more than max bytes
 * is too_big, "<label><url> is larger than N MiB: not a <kind>". */
cudnnctl_err cc_url_read_all(cudnnctl_ctx *ctx, const cc_source_opts *o, size_t max,
                             cudnnctl_err too_big, const char *label, const char *kind,
                             cc_buf *b, char hex[65]);
cudnnctl_err cc_manifest_download(cudnnctl_ctx *ctx, const char *url, const char *cacert,
                                  cc_buf *b, char hex[65]);

/* Manifest trust: every disagreement (SHA-256 or size of one archive file name) between an
 * embedded entry and an added manifest's entry in v is appended to *found (once, with both
 * values and both sources) and warned about as an event. 0, or -1 out of memory. */
int cc_catalog_trust_scan(cudnnctl_ctx *ctx, const cc_archive_vec *v, cc_strv *found);

/* An empty catalog (tests and tools build one from chosen manifests with add_json). */
cudnnctl_catalog *cc_catalog_new(void);
/* The archives of one flavour (deep copies, same order): what selection chooses among. NULL on
 * out of memory. */
cudnnctl_catalog *cc_catalog_flavor_view(const cudnnctl_catalog *cat, cudnnctl_flavor flavor);

/* "13" → 13/-1, "13.4" → 13/4; 0 ok, -1 not a CUDA variant. */
int cc_cuda_variant_parse(const char *s, int *major, int *minor);
/* The CUDA variant a file name carries ("..._cuda13.4-archive.zip" → "13.4"); malloc'd, NULL
 * when the name has none. */
char *cc_cuda_variant_from_name(const char *file_name);
/* The cuDNN version a file name carries ("...-9.15.0.58_cuda13-archive..." → "9.15.0.58");
 * malloc'd, NULL when none. */
char *cc_cudnn_version_from_name(const char *file_name);
/* 0 when a manifest's relative_path is safe to join to a base (no "..", not absolute, ...);
 * else -1 and *why names the problem (static text). */
int cc_relative_path_check(const char *p, const char **why);

/* One archive as a cJSON object (cudnn_version, [platform, cuda_variant,] relative_path, sha256,
 * size, release_date, manifest, manifest_sha256); NULL on out of memory. */
struct cJSON;
struct cJSON *cc_archive_to_json(const cudnnctl_archive *a, int with_platform);

/* A selection's sizes as JSON: download, components, installed (null unless every selected
 * component was measured), each selected component's bytes (null: not measured), source. */
struct cJSON *cc_sizes_to_json(const cudnnctl_sizes *z);

#endif
