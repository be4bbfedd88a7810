/**
 * @file catalog.h
 * @brief What NVIDIA offers (embedded + extra manifests) and what we would install (the plan).
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_CATALOG_H
#define CUDNNCTL_CATALOG_H

#ifdef __cplusplus
extern "C" {
#endif

/** One downloadable archive of the cudnn component. */
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
} cudnnctl_catalog_filter;

/** Entries that pass the filter, newest first (array owned by the caller: cudnnctl_free; the
 * entries belong to the catalog). BAD_VERSION for an unparseable filter. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_query(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                                 const cudnnctl_catalog_filter *filter,
                                                 const cudnnctl_archive ***out, size_t *n);
/** JSON array of the entries that pass the filter ("available --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_catalog_json(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                                const cudnnctl_catalog_filter *filter, char **json);
/** Number of manifests the catalog was built from (embedded + added). */
CUDNNCTL_API size_t cudnnctl_catalog_manifest_count(const cudnnctl_catalog *cat);

/** What the user asked for; NULL / 0 fields mean "decide from detection". */
typedef struct {
    const char *cudnn;          /**< "9", "9.13", "9.13.0.50" */
    const char *cuda;           /**< "13" or "12.4" */
    const char *platform;       /**< platform key */
    const char *for_pkg;        /**< "torch==2.9.1" or "tensorflow==2.18.0" */
    const char *cuda_home;      /**< target: merge into this CUDA tree */
    const char *prefix;         /**< target: per-version prefix root */
    const char *mirror;         /**< base URL or dir that relative_path is joined to */
    const char *driver_version; /**< override of the detected driver ("580.65.06"), for planning
                                   elsewhere */
} cudnnctl_selection;

/** A candidate that was not chosen, and why. */
typedef struct {
    const cudnnctl_archive *archive; /**< owned by the plan (a copy), valid until plan_free */
    char *reason;
    const char *kind; /**< "platform", "cuda", "cuda-minor", "cudnn", "consumer", "driver",
                           "older": which rule rejected it (static string) */
    size_t count;     /**< archives this line stands for: 1, or for "platform" every archive of
                           that other platform (archive is then the newest of them) */
} cudnnctl_rejection;

typedef enum { CUDNNCTL_TARGET_CUDA_TREE = 0, CUDNNCTL_TARGET_PREFIX = 1 } cudnnctl_target_mode;

typedef struct {
    cudnnctl_archive archive; /**< deep copy of the chosen entry */
    char *url;                /**< where it will be fetched from */
    cudnnctl_target_mode mode;
    char *target_path;     /**< CUDA tree root, or prefix root */
    char *install_dir;     /**< prefix mode: PREFIX/cudnn-<ver>-cuda<M>; tree mode: = target */
    char *lib_dir;         /**< where libraries will land */
    char *include_dir;     /**< where headers will land */
    char *bin_dir;         /**< Windows: where DLLs land; NULL on Linux */
    char *toolkit_version; /**< the toolkit the choice was made for, NULL when none */
    char *reason;          /**< why this archive */
    char **steps;          /**< the steps install would take */
    size_t n_steps;
    cudnnctl_rejection *rejected;
    size_t n_rejected;
    char **warnings;
    size_t n_warnings;
    char **step_names;    /**< n_steps short names: "download", "verify", "extract",
                               "commit", "links", "ldconfig", "receipt", "validate" */
    char *platform;       /**< the platform planned for */
    char *driver_version; /**< the driver checked against (detected or given), NULL if none */
    char *driver_floor;   /**< the chosen build's minimum driver for that platform */
    char *consumer;       /**< "torch==2.9.1+cu130" when --for was given, else NULL */
    char *consumer_cudnn; /**< the cuDNN the consumer pins ("9.13.0.50", or "9.3" = >= 9.3) */
} cudnnctl_plan;

/** Choose an archive and a target. Writes nothing. NO_MATCH / DRIVER_TOO_OLD carry the fix. */
CUDNNCTL_API cudnnctl_err cudnnctl_plan_make(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                             const cudnnctl_detect_result *det,
                                             const cudnnctl_selection *sel, cudnnctl_plan **out);
CUDNNCTL_API void cudnnctl_plan_free(cudnnctl_plan *plan);
/** JSON with the keys of CLI.md ("plan --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_plan_json(const cudnnctl_plan *plan, char **json);

#ifdef __cplusplus
}
#endif
#endif
