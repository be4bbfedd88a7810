/**
 * @file use.h
 * @brief Switch the active CUDA toolkit (cudnnctl use): what decides it here (/usr/local/cuda,
 * update-alternatives, CUDA_PATH on Windows), and flipping it with each prefix's current cuDNN.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_USE_H
#define CUDNNCTL_USE_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/use.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What /usr/local/cuda is (cudnnctl_cuda_link_kind_name: the JSON string). */
typedef enum {
    CUDNNCTL_CUDA_LINK_MISSING = 0,  /**< "missing" (always on Windows) */
    CUDNNCTL_CUDA_LINK_LINK,         /**< "link" */
    CUDNNCTL_CUDA_LINK_ALTERNATIVES, /**< "alternatives": an update-alternatives group's link */
    CUDNNCTL_CUDA_LINK_DIRECTORY,    /**< "directory": a real directory (use will not replace it) */
    CUDNNCTL_CUDA_LINK_OTHER         /**< "other": a real file */
} cudnnctl_cuda_link_kind;
CUDNNCTL_API const char *cudnnctl_cuda_link_kind_name(cudnnctl_cuda_link_kind kind);

/** How the active toolkit is switched on this host (cudnnctl_use_mechanism_name: the JSON
 *  string). */
typedef enum {
    CUDNNCTL_MECH_NONE = 0,                /**< "" */
    CUDNNCTL_MECH_LINK,                    /**< "link": /usr/local/cuda flipped */
    CUDNNCTL_MECH_ALTERNATIVES,            /**< "alternatives": its links and state written */
    CUDNNCTL_MECH_UPDATE_ALTERNATIVES,     /**< "update-alternatives" run */
    CUDNNCTL_MECH_REGISTRY                 /**< "registry": Windows, CUDA_PATH in the registry */
} cudnnctl_use_mechanism;
CUDNNCTL_API const char *cudnnctl_use_mechanism_name(cudnnctl_use_mechanism mechanism);

/** What decides the active toolkit: /usr/local/cuda (Linux), CUDA_PATH (Windows). */
typedef struct {
    char *link;                   /**< "/usr/local/cuda" */
    cudnnctl_cuda_link_kind kind; /**< what it is */
    cudnnctl_use_mechanism mechanism; /**< how cudnnctl use switches toolkits here */
    char *target;       /**< fully resolved dir it leads to; NULL when missing / dangling */
    char *alt_name;     /**< alternatives group ("cuda") when kind is "alternatives" */
    char *alt_mode;     /**< "auto" / "manual" */
    char **alt_choices; /**< registered choices of the group */
    size_t n_alt_choices;
} cudnnctl_cuda_link;

/** What /usr/local/cuda (or CUDA_PATH) is on this machine; free it with cudnnctl_cuda_link_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_cuda_link_info(cudnnctl_ctx *ctx, cudnnctl_cuda_link **out);
CUDNNCTL_API void cudnnctl_cuda_link_free(cudnnctl_cuda_link *l);
/** JSON for `use` without a version: {"toolkits": [{path, version, major, minor, active,
 *  selected}], "link": {link, kind, target, alt_name, alt_mode, alt_choices[]}, "active": path
 *  or null}. "selected" marks the toolkit /usr/local/cuda leads to. */
CUDNNCTL_API cudnnctl_err cudnnctl_use_status_json(cudnnctl_ctx *ctx,
                                                   const cudnnctl_detect_result *det,
                                                   const cudnnctl_cuda_link *link, char **json);

/** Result of cudnnctl_use. */
typedef struct {
    char *toolkit_path; /**< the toolkit now active (its real dir) */
    char *toolkit_version;
    char *previous;   /**< what /usr/local/cuda led to before; NULL when missing */
    cudnnctl_use_mechanism mechanism; /**< how it was switched */
    char *cudnn_path; /**< the prefix install now `current` for this toolkit; NULL */
    int changed;      /**< 0 when everything already pointed there */
    cudnnctl_changes changes;
    char **notes;
    size_t n_notes;
} cudnnctl_use_result;

#define CUDNNCTL_USE_NO_LDCONFIG 1u
/** Windows: the machine environment (HKLM) instead of the user's (HKCU\\Environment). */
#define CUDNNCTL_USE_SYSTEM 2u

/**
 * Make the toolkit @p version ("X.Y", "X.Y.Z" or a toolkit dir) the active one: flip
 * /usr/local/cuda atomically (a new link under a temporary name renamed over it), through
 * update-alternatives where that manages it (under --root: its links and state file written
 * the way update-alternatives does, manual mode), and /usr/local/cuda-<M> where it is a link;
 * flip each known prefix's `current` to its install for that CUDA major; rewrite an existing
 * /etc/ld.so.conf.d/cudnnctl-*.conf. CUDNNCTL_E_NO_TOOLKIT (exit 5) lists what exists.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_use(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                                       const char *version, unsigned flags,
                                       cudnnctl_use_result **out);
CUDNNCTL_API void cudnnctl_use_result_free(cudnnctl_use_result *r);
CUDNNCTL_API cudnnctl_err cudnnctl_use_result_json(const cudnnctl_use_result *r, char **json);

#ifdef __cplusplus
}
#endif
#endif
