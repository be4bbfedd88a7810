/**
 * @file plan.h
 * @brief What we would install: the user's selection, the chosen archive and target, and the
 * candidates rejected with why (cudnnctl plan). Writes nothing. Included by cudnnctl.h; do not
 * include directly.
 */
#ifndef CUDNNCTL_PLAN_H
#define CUDNNCTL_PLAN_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/plan.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Where an install's bytes come from (--source). */
typedef enum {
    CUDNNCTL_SOURCE_ARCHIVE = 0, /**< NVIDIA's redist archive (the default) */
    CUDNNCTL_SOURCE_WHEEL = 1,   /**< NVIDIA's wheel from the Python package index (pip) */
    CUDNNCTL_SOURCE_AUTO = 2     /**< the wheel when it carries the selection, else the archive */
} cudnnctl_source;
/** "archive", "wheel", "auto". */
CUDNNCTL_API const char *cudnnctl_source_name(cudnnctl_source s);
/** "archive" / "wheel" / "auto" → *out; 0, or -1 for anything else. */
CUDNNCTL_API int cudnnctl_source_parse(const char *s, cudnnctl_source *out);

/** NVIDIA's wheel of a release, from the embedded wheel catalog (data/wheels/wheels.json,
 *  gathered from the package index's JSON API). Static strings. */
typedef struct {
    const char *package;  /**< "nvidia-cudnn-cu13" */
    const char *version;  /**< "9.19.0.56" */
    const char *filename; /**< "nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl" */
    const char *tag;      /**< its platform tag, "manylinux_2_27_x86_64" */
    const char *sha256;
    uint64_t size;
    const char *url; /**< where the index the catalog was read from keeps it */
} cudnnctl_wheel;

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
    cudnnctl_flavor flavor;         /**< full (default) or the Graph JIT library */
    cudnnctl_components components; /**< what to install of the archive; 0: all */
    cudnnctl_source source;         /**< archive (default), wheel or auto */
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
    cudnnctl_flavor flavor;         /**< the flavour planned (= archive.flavor) */
    cudnnctl_components components; /**< the components planned (never 0) */
    cudnnctl_sizes sizes;           /**< download and installed size of that selection */
    cudnnctl_source source;         /**< the source chosen: archive or wheel (never auto) */
    char *source_reason;            /**< why that source (for auto: why not the other) */
    const cudnnctl_wheel *wheel;    /**< the release's wheel (NULL: none in the catalog); with
                                         source wheel, what is installed */
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
