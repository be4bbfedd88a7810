/**
 * @file mirror.h
 * @brief Copy NVIDIA's manifests and the chosen archives into a directory or file:// tree for
 * offline installs (cudnnctl mirror). Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_MIRROR_H
#define CUDNNCTL_MIRROR_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/mirror.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What to copy where. Zero-initialise. */
typedef struct {
    /** Destination dir (created; resolved under the context's root). Required. */
    const char *to;
    /** cuDNN version prefix ("9", "9.13", "9.13.0.50"); NULL: every version (needs @ref all or
     *  @ref cuda). */
    const char *cudnn;
    /** CUDA major ("13") or major.minor; NULL: every CUDA variant. */
    const char *cuda;
    /** Platform key; NULL: the detected platform (this machine's). */
    const char *platform;
    /** Every platform the catalog offers. */
    int all_platforms;
    /** Every release matching @ref cudnn, not only the newest. */
    int all_versions;
    /** Where to fetch archives from: a base URL or dir that relative_path is joined to.
     *  NULL: NVIDIA's redist base. */
    const char *source;
    const char *cacert;
    /** Connections for each archive's download (as cudnnctl_install_opts.connections). */
    unsigned connections;
    /** Mirror even when an added manifest contradicts NVIDIA's embedded one (the SHA-256 or size
     *  of an archive file name it knows); without it that fails closed with
     *  CUDNNCTL_E_MANIFEST_CONFLICT before anything is written (as install does). */
    int allow_manifest_override;
    /** "full" (NULL) or "jit": which component's archives to copy. */
    const char *flavor;
    /** "torch==2.9.1", "tensorflow==2.18.0": the cuDNN that framework build was made with (its
     *  exact pin, or the newest of its major) for its CUDA major, as plan --for means it; an
     *  explicit cudnn / cuda wins. */
    const char *for_pkg;
} cudnnctl_mirror_opts;

/** One archive of a mirror run. */
typedef struct {
    char *relative_path;
    char *cudnn_version;
    char *platform;
    char *cuda_variant;
    char *sha256;
    uint64_t size;
    const char *result; /**< "downloaded", "present" (already there, hash checked), "failed" */
    char *path;         /**< where it is in the mirror (as the user sees it) */
} cudnnctl_mirror_item;

typedef struct {
    char *dir;        /**< the mirror dir (as the user sees it) */
    char **manifests; /**< manifest files written (as the user sees them) */
    size_t n_manifests;
    char *index; /**< DIR/index.html, the listing `cudnnctl update --mirror` reads */
    cudnnctl_mirror_item *items;
    size_t n_items;
    uint64_t bytes_downloaded;
    double seconds;
} cudnnctl_mirror_result;

/**
 * Copy the manifests (their text as it came: the embedded copy, the --manifest file or URL)
 * and the archives the selection picks from @p cat into a dir laid out like NVIDIA's redist
 * tree: DIR/redistrib_<label>.json and DIR/<relative_path>, and DIR/index.html listing every
 * manifest in DIR (for `cudnnctl update --mirror URL` when DIR is served over HTTP). Each archive is fetched through
 * the download cache and its SHA-256 and size verified before it is renamed into place; an
 * archive already in the mirror is re-hashed and kept when it matches. Afterwards
 * `install --mirror DIR --manifest DIR/redistrib_<label>.json` works without a network.
 * NO_MATCH when the selection picks nothing. *out is set even on failure (as far as it got).
 */
CUDNNCTL_API cudnnctl_err cudnnctl_mirror(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                          const cudnnctl_mirror_opts *opts,
                                          cudnnctl_mirror_result **out);
CUDNNCTL_API void cudnnctl_mirror_result_free(cudnnctl_mirror_result *r);
CUDNNCTL_API cudnnctl_err cudnnctl_mirror_result_json(const cudnnctl_mirror_result *r, char **json);

#ifdef __cplusplus
}
#endif
#endif
