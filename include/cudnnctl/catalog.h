/**
 * @file catalog.h
 * @brief What NVIDIA offers: the embedded manifests plus any added, as a catalog of archives.
 * What we would install from it: plan.h.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_CATALOG_H
#define CUDNNCTL_CATALOG_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/catalog.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Which cuDNN build an archive (or an install) is: NVIDIA's full library (manifest component
 *  "cudnn") or the Graph JIT library (component "cudnn_jit", Linux only, in the manifests since
 *  9.10: libcudnn, libcudnn_graph and libcudnn_engines_runtime_compiled only, no legacy API). */
typedef enum { CUDNNCTL_FLAVOR_FULL = 0, CUDNNCTL_FLAVOR_JIT = 1 } cudnnctl_flavor;
/** "full" or "jit". */
CUDNNCTL_API const char *cudnnctl_flavor_name(cudnnctl_flavor f);
/** "full" / "jit" → *out; 0, or -1 for anything else. */
CUDNNCTL_API int cudnnctl_flavor_parse(const char *s, cudnnctl_flavor *out);

/** A selection of an install's components, a bitmask (a plain value: issue 24's unpacked store
 *  keys on archive SHA-256 + this). runtime = the versioned shared libraries (lib/libX.so.N*,
 *  bin/cudnn*.dll) and LICENSE; dev = the headers, the unversioned .so links, Windows import
 *  libraries and build metadata (*.pc, *.cmake, lib/pkgconfig/, lib/cmake/, share/); static =
 *  the static archives (*.a). 0 means "not given": the default, all of them. */
typedef unsigned cudnnctl_components;
#define CUDNNCTL_COMPONENT_RUNTIME 1u
#define CUDNNCTL_COMPONENT_DEV 2u
#define CUDNNCTL_COMPONENT_STATIC 4u
#define CUDNNCTL_COMPONENTS_ALL 7u
/** "runtime,dev" (any subset, any order, "all") → *out; 0, or -1 naming nothing or an unknown
 *  word. */
CUDNNCTL_API int cudnnctl_components_parse(const char *list, cudnnctl_components *out);
/** The selection as text in @p buf ("runtime,dev,static"; "none" for 0); returns buf. */
CUDNNCTL_API const char *cudnnctl_components_text(cudnnctl_components c, char *buf, size_t n);
/** The one component a staged path belongs to ("lib/libcudnn.so.9.27.0" → RUNTIME,
 *  "include/cudnn.h" → DEV, "lib/libcudnn_ops_static.a" → STATIC); paths relative to the
 *  normalised layout (include/, lib/, bin/, LICENSE). */
CUDNNCTL_API cudnnctl_components cudnnctl_component_of(const char *staged_path);

/** One downloadable archive of the cudnn or cudnn_jit component. */
typedef struct {
    char *cudnn_version; /**< 4 parts, "9.13.0.50" */
    char *platform;      /**< "linux-x86_64", ... */
    char *cuda_variant;  /**< "13", or "11.5" / "13.4" for minor-specific archives */
    char *relative_path; /**< "cudnn/linux-x86_64/cudnn-...-archive.tar.xz" */
    char *sha256;        /**< 64 hex chars */
    char *md5;           /**< may be NULL */
    uint64_t size;       /**< bytes */
    char *release_date;  /**< may be NULL */
    char *manifest; /**< where the entry came from ("embedded:redistrib_9.13.0.json", a path, a URL)
                     */
    char *manifest_sha256; /**< SHA-256 of that manifest's bytes (for receipts) */
    int cuda_major;        /**< 13 for "13" and "13.4" */
    int cuda_minor;        /**< 4 for "13.4"; -1 for a build that covers the whole major */
    cudnnctl_flavor flavor; /**< the manifest component it came from */
} cudnnctl_archive;

typedef struct cudnnctl_catalog cudnnctl_catalog;

/** The embedded catalog (generated at build time from NVIDIA's manifests). */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_load(cudnnctl_ctx *ctx, cudnnctl_catalog **out);
/** Add a manifest file or URL (http, https, file). Later additions win on identical paths. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_add_manifest(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                                        const char *file_or_url);
/** Parse one manifest text (for tests and tools). */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_add_json(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                                    const char *json, size_t len,
                                                    const char *origin);
CUDNNCTL_API size_t cudnnctl_catalog_count(const cudnnctl_catalog *cat);
CUDNNCTL_API const cudnnctl_archive *cudnnctl_catalog_get(const cudnnctl_catalog *cat, size_t i);
/** Find the entry whose relative_path ends in this file name, NULL when none. */
CUDNNCTL_API const cudnnctl_archive *cudnnctl_catalog_find_file(const cudnnctl_catalog *cat,
                                                                const char *file_name);
CUDNNCTL_API void cudnnctl_catalog_free(cudnnctl_catalog *cat);
/** Manifest trust: disagreements between an added manifest and the embedded NVIDIA catalog
 *  about the SHA-256 or size of one archive file name, each a sentence with both values and
 *  both sources (also sent as warning events when found). cudnnctl_install refuses a catalog
 *  with any (CUDNNCTL_E_MANIFEST_CONFLICT, exit 3) unless allow_manifest_override is set. */
CUDNNCTL_API size_t cudnnctl_catalog_conflict_count(const cudnnctl_catalog *cat);
CUDNNCTL_API const char *cudnnctl_catalog_conflict(const cudnnctl_catalog *cat, size_t i);

/** A filter over the catalog (the `available` command). NULL fields match everything. */
typedef struct {
    const char *cudnn;    /**< version prefix: "9", "9.13", "9.13.0.50" */
    const char *cuda;     /**< "13" (any 13 build) or "13.4" (builds usable with toolkit 13.4) */
    const char *platform; /**< platform key; NULL or "all" for every platform */
    const char *flavor;   /**< "full" or "jit"; NULL: full; "any": both */
} cudnnctl_catalog_filter;

/** Entries that pass the filter, newest first (array owned by the caller: cudnnctl_free; the
 * entries belong to the catalog). BAD_VERSION for an unparseable filter. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_query(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                                 const cudnnctl_catalog_filter *filter,
                                                 const cudnnctl_archive ***out, size_t *n);
/** JSON array of the entries that pass the filter ("available --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_json(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                                const cudnnctl_catalog_filter *filter, char **json);
/** What an archive with a component selection costs: the download (always the whole archive:
 *  the stream is verified whole) and the bytes installed, per component where a measurement of
 *  that archive exists (an embedded table, data/sizes/: scripts/measure-sizes says how each
 *  number was obtained). */
typedef struct {
    uint64_t download;            /**< the archive's size (the manifest's) */
    uint64_t installed;           /**< sum over the selected components whose size is known */
    uint64_t component[3];        /**< runtime, dev, static in bytes (0 where not known) */
    cudnnctl_components selected; /**< the selection the numbers are for (never 0) */
    cudnnctl_components known;    /**< the selected components with a measured size */
    const char *source; /**< where the installed sizes come from (static text); NULL: this
                             archive was never measured */
} cudnnctl_sizes;
/** Sizes of @p a for the selection @p sel (0: all). */
CUDNNCTL_API void cudnnctl_archive_sizes(const cudnnctl_archive *a, cudnnctl_components sel,
                                         cudnnctl_sizes *out);

/** `cudnnctl update`: read a redist directory listing, fetch the manifests it links to, validate
 *  them, and keep the new ones (with their SHA-256: the pin) in the catalog under the state dir,
 *  which cudnnctl_catalog_load adds to the embedded manifests from then on. */
typedef struct {
    /** The listing: a base URL (its index page: NVIDIA's, an autoindex, Artifactory, Nexus,
     *  python's http.server, a `cudnnctl mirror` dir served over HTTP) or a local dir (its
     *  redistrib_*.json files). NULL: NVIDIA's compute/cudnn/redist/. */
    const char *base;
    const char *cacert;
    /** Accept a pinned label whose file now has another digest (and other archives): stored
     *  over the pin, with a note the receipts of installs from it carry. Default: refused,
     *  CUDNNCTL_E_MANIFEST_PINNED (exit 3), nothing changed. */
    int allow_manifest_override;
    /** The Python package index whose PEP 691 project pages list NVIDIA's cuDNN wheels
     *  ("https://pypi.org/simple/"): its wheels of cuDNN releases join the wheel catalog (the
     *  source `--source wheel` installs from), each pinned by file name and SHA-256 like a
     *  manifest. NULL: the wheel catalog is not refreshed. */
    const char *index_url;
    /** 1: an index that cannot be read is no failure (index_warning says why, the wheel catalog
     *  stays as it was); 0: it fails the update and nothing changes. A refused wheel fails it
     *  either way. */
    int index_optional;
} cudnnctl_update_opts;

/** One manifest of the listing and what update made of it. */
typedef struct {
    char *name;         /**< "redistrib_9.28.0.json" */
    char *url;          /**< where it was fetched from */
    char *sha256;       /**< its bytes' digest now */
    const char *result; /**< "added", "known" (the pinned bytes), "same-archives" (other bytes,
                             the same archives: the pin is kept), "refused" (another digest and
                             other archives than the pin), "overridden" */
    char *pinned_sha256; /**< the pin it was compared with, NULL for a new label */
    char *pinned_from;   /**< where the pin came from ("embedded in cudnnctl", a URL and date) */
} cudnnctl_update_item;

typedef struct {
    char *source;      /**< the listing read */
    char *catalog_dir; /**< STATE/catalog (as the user sees it) */
    cudnnctl_update_item *items;
    size_t n_items;
    size_t n_added;    /**< new labels stored by this run (overrides included) */
    size_t n_refused;
    size_t n_stored;   /**< manifests in the store afterwards */
    char *updated_at;  /**< when it ended (ISO 8601 UTC), NULL when it failed */
    char *newest;      /**< the newest manifest the catalog now knows */
    double seconds;
    /** The wheel catalog's refresh (opts.index_url): one item per wheel file of a cuDNN release
     *  the index lists (name: the file name; result "added", "known" or "refused"). */
    char *index_source; /**< the index read, NULL when none was */
    char *index_warning; /**< an optional index that could not be read: why; NULL otherwise */
    cudnnctl_update_item *wheel_items;
    size_t n_wheel_items;
    size_t n_wheels_added;
    size_t n_wheels_refused;
    size_t n_wheels_stored; /**< wheel files the stored wheel catalog holds afterwards */
} cudnnctl_update_result;

/** *out is set even on failure (as far as it got). Offline: NETWORK (exit 10), nothing
 *  changed. A refused label: MANIFEST_PINNED (exit 3), nothing changed. */
CUDNNCTL_API cudnnctl_err cudnnctl_update(cudnnctl_ctx *ctx, const cudnnctl_update_opts *opts,
                                          cudnnctl_update_result **out);
CUDNNCTL_API void cudnnctl_update_result_free(cudnnctl_update_result *r);
CUDNNCTL_API cudnnctl_err cudnnctl_update_result_json(const cudnnctl_update_result *r,
                                                      char **json);

/** What the catalog holds and how old it is (`available`, `--version`, install's warning). */
typedef struct {
    size_t embedded;             /**< manifests compiled in */
    const char *embedded_newest; /**< file name of the newest of them */
    char *embedded_date;         /**< its release_date ("2026-09-29"), NULL when unknown */
    size_t stored;               /**< manifests `cudnnctl update` stored under the state dir */
    char *stored_newest;         /**< the newest of those, NULL when none */
    char *updated_at;            /**< the last update's end, NULL: never */
    char *source;                /**< the listing it read */
    char *catalog_dir;           /**< STATE/catalog (as the user sees it) */
    /** Days since the catalog was last brought up to date: since the last update, or, never
     *  updated, since the newest embedded manifest's release date; -1 when unknown. */
    long age_days;
} cudnnctl_catalog_info;

/** What the catalog holds and how old it is (`available`, `--version`): fill, clear, as JSON. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_info_get(cudnnctl_ctx *ctx, cudnnctl_catalog_info *out);
CUDNNCTL_API void cudnnctl_catalog_info_clear(cudnnctl_catalog_info *info);
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_info_json(const cudnnctl_catalog_info *info,
                                                     char **json);
/** Past this many days install of a selection (--cudnn 9, not one build) warns to update. */
#define CUDNNCTL_CATALOG_STALE_DAYS 30

/** Number of manifests the catalog was built from (embedded + added). */
CUDNNCTL_API size_t cudnnctl_catalog_manifest_count(const cudnnctl_catalog *cat);

/**
 * The one meaning of a cuDNN version the user gives — plan, install, mirror, available and
 * uninstall --version all resolve it here. Among @p versions (the candidates: the archives for
 * the selected CUDA major and platform, or the installs on a target):
 * "9.19.0.56" is that build; "9.19.0" the newest 9.19.0 build; "9.19" the release 9.19.0 (its
 * newest build) or, when no candidate is a 9.19.0, the newest 9.19.x; "9.19.x" and "9" the newest
 * of the series; NULL or "" the newest of all.
 * @return the index of the chosen version, -1 when none matches, -2 when @p spec is no version.
 */
CUDNNCTL_API long cudnnctl_cudnn_resolve(const char *spec, const char *const *versions, size_t n);

#ifdef __cplusplus
}
#endif
#endif
