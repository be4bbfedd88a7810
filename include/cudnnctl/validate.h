/**
 * @file validate.h
 * @brief Prove that an installed cuDNN really works: versions, sub-libraries, a real convolution,
 * activation and pooling on the GPU against a CPU reference, and which files the process mapped.
 *
 * Everything that touches vendor code (libcuda, libcudart, libcudnn, cuBLAS, nvrtc) runs in a
 * child process with a scrubbed environment, so a crash or hang in a vendor library cannot hurt
 * the caller. The child is the caller's own binary re-executed with the hidden sub-command
 * `__validate-child` (or cudnnctl_validate_opts::child_exe), which must hand its standard input to
 * cudnnctl_validate_child().
 *
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_VALIDATE_H
#define CUDNNCTL_VALIDATE_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/validate.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What to validate. Zero-initialise, then set what you need. */
typedef struct {
    /** A dir holding libcudnn.so.<M> (a CUDA tree's lib dir, a wheel's nvidia/cudnn/lib, a
     * distribution's lib dir), a prefix install (DIR/lib, DIR/current/lib), a CUDA tree (lib64,
     * targets/<arch>-linux/lib, lib), a wheel's nvidia/cudnn dir, or the libcudnn file itself.
     * NULL: the cuDNN in @ref cuda_home when that is given (the flag names the target, as in
     * install and uninstall), else the active CUDA toolkit (cudnnctl_detect). Resolved under
     * the context's root. */
    const char *target;
    /** Dir of cudnn_version.h. NULL: looked for beside the libraries (../include, the
     * distribution's include/<triplet>). */
    const char *include_dir;
    /** Where libcudart, cuBLAS and nvrtc come from: a toolkit root, its lib dir, or a libcudart
     * file. NULL: the target's own CUDA tree, else the active toolkit, else /usr/local/cuda. */
    const char *cuda_home;
    /** GPU index (as CUDA numbers them under CUDA_VISIBLE_DEVICES). */
    int device;
    /** Kill the child after this long; 0 = 60000. */
    unsigned timeout_ms;
    /** Binary that implements `__validate-child`; NULL = the running binary. */
    const char *child_exe;
} cudnnctl_validate_opts;

typedef enum {
    CUDNNCTL_VALIDATE_OK = 0,     /**< every check passed, compute included */
    CUDNNCTL_VALIDATE_NO_GPU = 1, /**< no GPU / no driver: versions and loading checked, compute skipped */
    CUDNNCTL_VALIDATE_FAILED = 2  /**< at least one check failed */
} cudnnctl_validate_status;

/** One check. */
typedef struct {
    char *name;         /**< "load_cudnn", "cudnn_version", "sublib_ops", "conv_fp32_a", "loaded_from", ... */
    int ok;             /**< 1 passed; 0 failed or skipped */
    int skipped;        /**< 1 when it could not run (no GPU, no header): not a failure */
    double seconds;     /**< wall time of the check */
    double max_abs_err; /**< compute checks: largest |GPU - CPU reference|; < 0 when not applicable */
    double tolerance;   /**< compute checks: allowed |err| is tolerance * (1 + |reference|); < 0 n/a */
    char *error;        /**< what went wrong and how to fix it; NULL when ok */
    char *detail;       /**< what was checked (paths, versions, shapes); may be NULL */
    /** 1: reported, not counted in the status. effective_load is one: whether a program that
     *  loads cuDNN by name gets these files is wiring (its error names the fix), not whether
     *  they work. Shown as "warn" when it fails. */
    int advisory;
} cudnnctl_validate_check;

/** A library file the validation process had mapped. */
typedef struct {
    char *path;     /**< as the loader mapped it (dlpi_name): the dir is what the check compares */
    char *realpath; /**< the file it resolves to (links followed) */
} cudnnctl_validate_module;

/** Result. Strings are NULL when unknown. */
typedef struct {
    cudnnctl_validate_status status;
    char *lib_dir;        /**< the cuDNN library dir validated (unrooted) */
    char *cudnn_lib;      /**< libcudnn.so.<M> loaded by absolute path */
    char *include_dir;    /**< where cudnn_version.h was read, NULL when none */
    char *toolkit_lib_dir; /**< where libcudart / cuBLAS / nvrtc were taken from */
    char *cudnn_version;  /**< "9.19.0" from cudnnGetVersion() */
    long cudnn_version_raw; /**< cudnnGetVersion() as returned (91900, 8907) */
    char *header_version; /**< "9.19.0" from cudnn_version.h */
    char *cudnn_cudart_version; /**< CUDA cuDNN was built with, "13.1" (cudnnGetCudartVersion) */
    char *cudart_version; /**< "13.0" from cudaRuntimeGetVersion() */
    char *driver_version; /**< driver release "580.159.04" when readable */
    char *driver_cuda_version; /**< "13.0" from cuDriverGetVersion() */
    char *gpu_name;       /**< "NVIDIA H200" */
    int compute_capability; /**< 90 for 9.0; 0 when unknown */
    int max_device_version; /**< cudnnGetMaxDeviceVersion() (1210 = SM 12.1); 0 when unknown */
    cudnnctl_validate_module *loaded; /**< every libcudnn* mapped */
    size_t n_loaded;
    cudnnctl_validate_module *vendor_libs; /**< libcuda, libcudart, libcublas(Lt), libnvrtc mapped */
    size_t n_vendor_libs;
    cudnnctl_validate_check *checks;
    size_t n_checks;
    char *child_ld_library_path; /**< LD_LIBRARY_PATH as the child saw it (NULL: unset) */
    double seconds;       /**< wall time of the whole validation (child start to end) */
    char *vendor_output;  /**< what the vendor libraries printed (last few KiB), NULL when nothing */
    /** The flavour the validated dir holds (by its sub-libraries): the JIT one is proven with
     *  the graph API (a convolution from backend descriptors on a runtime-compiled engine), never
     *  with the legacy API it does not have. */
    cudnnctl_flavor flavor;
} cudnnctl_validate_result;

/**
 * Validate a cuDNN install in a child process.
 *
 * Returns CUDNNCTL_E_OK (status ok), CUDNNCTL_E_NO_GPU (status no-gpu), CUDNNCTL_E_LOAD or
 * CUDNNCTL_E_VALIDATE_FAILED (status failed; the error detail names the first failed check): in
 * these cases *out holds the full result. Any other code (target not found, the child could not
 * be started) leaves *out NULL.
 *
 * `install` calls this at its end (unless --no-validate) with target = the installed lib dir and
 * cuda_home = the toolkit it installed for; CUDNNCTL_E_NO_GPU is not an install failure.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_validate(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *opts,
                                            cudnnctl_validate_result **out);
CUDNNCTL_API void cudnnctl_validate_result_free(cudnnctl_validate_result *r);
/** JSON with the keys of CLI.md ("validate --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_validate_result_json(const cudnnctl_validate_result *r,
                                                        char **json);
/** "ok", "no-gpu", "failed". */
CUDNNCTL_API const char *cudnnctl_validate_status_name(cudnnctl_validate_status s);

/** Receives one line of the child's report (no newline); write it out and flush. */
typedef void (*cudnnctl_validate_emit_cb)(void *user, const char *line);

/**
 * The child side: run the checks the request (JSON written by cudnnctl_validate on the child's
 * standard input) asks for, reporting line by line through @p emit. Vendor libraries may print
 * too: the parent separates their text from the report. Returns CUDNNCTL_E_OK once the report is
 * complete (whatever the checks found), CUDNNCTL_E_PARSE for a malformed request.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_validate_child(cudnnctl_ctx *ctx, const char *request_json,
                                                  cudnnctl_validate_emit_cb emit, void *user);

#ifdef __cplusplus
}
#endif
#endif
