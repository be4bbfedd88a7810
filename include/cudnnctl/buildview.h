/**
 * @file buildview.h
 * @brief Which cuDNN a build takes: the cudnn.h a C/C++ compiler and nvcc include and the
 * libcudnn.so `ld -lcudnn` links, read from the compilers' own search lists in this
 * environment, set against what the loader maps at run time (`which --build`, docs/build.md).
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_BUILDVIEW_H
#define CUDNNCTL_BUILDVIEW_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/buildview.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** One compiler and the cudnn.h it includes. */
typedef struct {
    char *name;          /**< "cc", "c++", "nvcc" (the command, as given or from $CC / $CXX) */
    char *path;          /**< the program found on PATH; NULL when there is none */
    char **include_dirs; /**< its `#include <...>` search list in this environment, in order */
    size_t n_include_dirs;
    char *header;         /**< the first cudnn.h on that list; NULL when none */
    char *header_version; /**< "9.19.0" (CUDNN_MAJOR.MINOR.PATCHLEVEL); NULL when unknown */
    char *error;          /**< why the list could not be read; NULL */
} cudnnctl_build_compiler;

/** The whole answer. */
typedef struct {
    cudnnctl_build_compiler *compilers; /**< cc, c++, nvcc (when found) */
    size_t n_compilers;
    char **lib_dirs; /**< what `cc ... -lcudnn` searches, in order: cc's list (LIBRARY_PATH
                          first), then ld's own SEARCH_DIRs */
    size_t n_lib_dirs;
    char *library;                 /**< the libcudnn.so (or libcudnn.a) -lcudnn takes; NULL: none */
    char *library_real;            /**< its real file */
    char *library_soname;          /**< its DT_SONAME, what the program will ask the loader for */
    char *library_version;         /**< "9.19.0" from its file name or the headers beside it */
    cudnnctl_load_result *runtime; /**< what the loader maps for that SONAME (a program without
                                        RPATH / RUNPATH); libcudnn.so.<header major> when
                                        nothing links; NULL when there is nothing to ask */
    /** 1: every header and the linked library are the release the loader maps; 0: some
     *  differ (problems say which); -1: nothing to compare (no cuDNN for a build, or none at
     *  run time and none to build with) */
    int agree;
    char **problems; /**< "cc compiles against cuDNN 9.19.0 (...), programs load 9.27.0 (...)" */
    size_t n_problems;
} cudnnctl_build_view;

typedef struct {
    const char *cc;   /**< NULL: $CC, else "cc" */
    const char *cxx;  /**< NULL: $CXX, else "c++" */
    const char *nvcc; /**< NULL: nvcc on PATH, else $CUDA_HOME/bin/nvcc when there */
    /** the run-time side, as for cudnnctl_loader_resolve (main_exe is not used) */
    cudnnctl_loader_env env;
    int inherit_ld_library_path; /**< 1: model this process's LD_LIBRARY_PATH */
} cudnnctl_build_opts;

/** Run the compilers (a second each at most) and build the view. Linux only
 *  (CUDNNCTL_E_UNSUPPORTED elsewhere and under --root: the compilers are this machine's). */
CUDNNCTL_API cudnnctl_err cudnnctl_build_view_make(cudnnctl_ctx *ctx, const cudnnctl_build_opts *o,
                                                   cudnnctl_build_view **out);
CUDNNCTL_API void cudnnctl_build_view_free(cudnnctl_build_view *v);
/** JSON object: compilers[] {name, path, include_dirs[], header, header_version, error},
 *  lib_dirs[], library, library_real, library_soname, library_version, runtime (a load result
 *  or null), agree (true / false / null), problems[]. */
CUDNNCTL_API cudnnctl_err cudnnctl_build_view_json(const cudnnctl_build_view *v, char **json);

#ifdef __cplusplus
}
#endif
#endif
