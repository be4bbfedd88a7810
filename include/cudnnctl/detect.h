/**
 * @file detect.h
 * @brief What is on this machine: CUDA toolkits, the NVIDIA driver, every cuDNN copy. Read-only.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_DETECT_H
#define CUDNNCTL_DETECT_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/detect.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Where a toolkit's version was read (bit flags). */
enum {
    CUDNNCTL_SRC_VERSION_JSON = 1 << 0,
    CUDNNCTL_SRC_VERSION_TXT = 1 << 1,
    CUDNNCTL_SRC_NVCC = 1 << 2,
    CUDNNCTL_SRC_CUDA_H = 1 << 3,
    CUDNNCTL_SRC_CUDART_H = 1 << 4,
    CUDNNCTL_SRC_SONAME = 1 << 5,
    CUDNNCTL_SRC_REGISTRY = 1 << 6,
    CUDNNCTL_SRC_ENV = 1 << 7,
    CUDNNCTL_SRC_DIST_INFO = 1 << 8
};

/** One version reading of a toolkit: which source said what. */
typedef struct {
    unsigned source; /**< one CUDNNCTL_SRC_* flag */
    char *version;   /**< what it said: "13.0", "13.0.88", "13" (SONAME: major only) */
    int agrees;      /**< 1 when it agrees with the version detect settled on */
} cudnnctl_version_reading;

/** One CUDA toolkit. */
typedef struct {
    char *path;          /**< toolkit root as found (e.g. /usr/local/cuda-13.0), root-relative */
    char *version;       /**< "13.0": major.minor as the sources agree (patch: version_full) */
    int major, minor, patch; /**< patch -1 when unknown */
    unsigned sources;    /**< CUDNNCTL_SRC_* where the version was read */
    int sources_disagree; /**< 1 when sources gave different major.minor */
    char *lib_dir;       /**< dir holding libcudart (lib64, lib, targets/<arch>/lib, bin) */
    char *origin;        /**< "system", "conda", "wheel", "env" */
    int active;          /**< the toolkit a build would use now */
    char *active_reason; /**< why it is active ("/usr/local/cuda -> ...", "CUDA_HOME", "PATH") */
    char *found_via;     /**< how it was found ("/usr/local/cuda*", "CUDA_HOME", "PATH nvcc", ...) */
    /* added by the detect work: */
    /** "13.0.2" / "13.0.88" when a patch level is known, else NULL: from version.json /
     *  version.txt / env CUDA_VERSION, else nvcc's own V13.0.88. `version` stays "13.0". */
    char *version_full;
    char *include_dir;   /**< dir holding cuda_runtime_api.h / cuda.h, NULL when none */
    char **aliases;      /**< symlinks that lead here (/usr/local/cuda, /usr/local/cuda-13) */
    size_t n_aliases;
    cudnnctl_version_reading *readings; /**< every source read, agreeing or not */
    size_t n_readings;
    char **problems;     /**< human text: unreadable version.json, sources disagreeing, ... */
    size_t n_problems;
} cudnnctl_toolkit;

/** The NVIDIA driver. */
typedef struct {
    char *version;     /**< "580.159.04", NULL when only the CUDA version is known */
    int cuda_version;  /**< cuDriverGetVersion encoding, 13000; 0 when unknown */
    char *source;      /**< "libcuda", "/proc/driver/nvidia/version", "nvidia-smi" */
    /** 1 when cuda_version is a lower bound from the driver table (no libcuda to ask, e.g.
     *  under --root), 0 when cuDriverGetVersion said it. */
    int cuda_version_estimated;
} cudnnctl_driver;

/** One copy of cuDNN found on disk. */
typedef struct {
    char *path;          /**< dir of the libraries (or of the headers when there are none) */
    char *include_dir;   /**< dir of cudnn_version.h, NULL when none */
    char *version;       /**< "9.19.0" (libraries' version, else headers') */
    int major, minor, patch;
    char *header_version; /**< from cudnn_version.h, NULL when no header */
    char *origin;        /**< "cuda-tree", "system", "wheel", "conda", "prefix", "ld-path",
                              "nvidia-installer" (NVIDIA's Windows cuDNN installer) */
    char **libs;         /**< base names of the real library files found */
    size_t n_libs;
    char **problems;     /**< human text: mixed sub-library versions, header/library mismatch ... */
    size_t n_problems;
    int in_loader_path;  /**< its dir is searched by the loader (ld.so.conf / cache / default dirs, LD_LIBRARY_PATH) */
    /* added by the detect work: */
    char *version_source; /**< where version came from: "file-name", "header", "dist-info", "soname" */
    char *package_version; /**< 4-part package version from a wheel's dist-info, else NULL */
    int in_ld_library_path; /**< its dir is on LD_LIBRARY_PATH (overrides RUNPATH of every framework) */
    /** CUDA "X.Y" the copy is built for where its layout names it (NVIDIA's Windows installer:
     *  ...\\CUDNN\\v9.1\\bin\\12.4), else NULL. */
    char *cuda_version;
} cudnnctl_cudnn_copy;

typedef struct {
    char *platform;               /**< "linux-x86_64", "linux-sbsa", "linux-aarch64", "windows-x86_64" */
    cudnnctl_toolkit *toolkits;
    size_t n_toolkits;
    cudnnctl_driver *driver;      /**< NULL when no driver was found */
    cudnnctl_cudnn_copy *cudnn;
    size_t n_cudnn;
    char **notes;                 /**< human text about what was seen (e.g. broken links) */
    size_t n_notes;
} cudnnctl_detect_result;

/** Scan the machine (under the context's root). Never loads cuDNN, never hangs. */
CUDNNCTL_API cudnnctl_err cudnnctl_detect(cudnnctl_ctx *ctx, cudnnctl_detect_result **out);
CUDNNCTL_API void cudnnctl_detect_result_free(cudnnctl_detect_result *r);
/** The active toolkit (or the only / newest one), NULL when none. */
CUDNNCTL_API const cudnnctl_toolkit *cudnnctl_detect_active_toolkit(const cudnnctl_detect_result *r);
/** JSON name of one CUDNNCTL_SRC_* flag ("version.json", "cuda.h", "cuda_runtime_api.h", ...). */
CUDNNCTL_API const char *cudnnctl_detect_source_name(unsigned source);
/** JSON text with the keys of CLI.md ("detect --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_detect_result_json(const cudnnctl_detect_result *r, char **json);

#ifdef __cplusplus
}
#endif
#endif
