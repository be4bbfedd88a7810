/* env_build.c: what an activation gives compilers and build systems (docs/build.md): the
 * CPATH / LIBRARY_PATH / PKG_CONFIG_PATH / CMAKE_PREFIX_PATH dirs of a selection and the root
 * variables that the main cuDNN consumers' builds read. The shells render them (env_shell.c,
 * env_modules.c) with the same list hygiene as PATH. */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

/* Who reads each one: docs/build.md has the table with the source files. Only variables that
 * name a directory are here (CUDNN_LIBRARY names a file: not set). */
static const cudnnctl_build_var build_vars[] = {
    {"CUDNN_PATH", "root",
     "cudnn-frontend cmake/cuDNN.cmake; PyTorch torch/utils/cpp_extension.py"},
    {"CUDNN_HOME", "root", "ONNX Runtime tools/ci_build/build.py; PyTorch cpp_extension.py"},
    {"CUDNN_ROOT_DIR", "root", "PyTorch cmake/Modules_CUDA_fix/FindCUDNN.cmake"},
    {"CUDNN_INSTALL_PATH", "root", "TensorFlow third_party/gpus/find_cuda_config.py"},
    {"LOCAL_CUDNN_PATH", "root",
     "XLA / JAX / TensorFlow third_party/gpus/cuda/hermetic/cuda_redist_init_repositories.bzl"},
    {"CUDNN_INCLUDE_DIR", "include", "PyTorch FindCUDNN.cmake (via setup.py)"},
    {"CUDNN_INCLUDE_PATH", "include", "cudnn-frontend cmake/cuDNN.cmake"},
    {"CUDNN_LIB_DIR", "lib", "PyTorch setup.py (passed on as CUDNN_LIBRARY)"},
    {"CUDNN_LIBRARY_PATH", "lib", "cudnn-frontend cmake/cuDNN.cmake"},
};

const cudnnctl_build_var *cudnnctl_env_build_vars(size_t *n)
{
    *n = sizeof(build_vars) / sizeof(build_vars[0]);
    return build_vars;
}

const char *cudnnctl_env_build_value(const cudnnctl_env_selection *s, const cudnnctl_build_var *v)
{
    if (!s || !v || !s->cudnn_path)
        return NULL;
    if (strcmp(v->what, "include") == 0)
        return s->cudnn_include_dir;
    if (strcmp(v->what, "lib") == 0)
        return s->cudnn_lib_dir;
    return s->cudnn_path;
}

static int push_own(cc_strv *v, char *s)
{
    if (!s)
        return -1;
    if (cc_strv_contains(v, s)) {
        free(s);
        return 0;
    }
    return cc_strv_push_own(v, s);
}

/* A copy of the list as the (char **, size_t) pair of the public struct. */
static void take(cc_strv *sv, char ***v, size_t *n)
{
    *v = sv->v;
    *n = sv->n;
    memset(sv, 0, sizeof(*sv));
}

/* <dir>/pkgconfig when it is there. */
static int push_pc(cudnnctl_ctx *ctx, cc_strv *pc, const char *lib, int windows)
{
    char *d = lib ? cc_env_join(lib, "pkgconfig", windows) : NULL;
    if (d && cc_env_is_dir(ctx, d))
        return push_own(pc, d);
    free(d);
    return 0;
}

/* The cuDNN install's include and lib dirs (prefix layout: include/, lib/ or lib64/). */
static int cudnn_dirs(cudnnctl_ctx *ctx, cudnnctl_env_selection *s)
{
    int w = s->windows;
    s->cudnn_include_dir = cc_env_join(s->cudnn_path, "include", w);
    s->cudnn_lib_dir = cc_env_join(s->cudnn_path, "lib64", w);
    if (s->cudnn_lib_dir && (w || !cc_env_is_dir(ctx, s->cudnn_lib_dir))) {
        free(s->cudnn_lib_dir);
        s->cudnn_lib_dir = cc_env_join(s->cudnn_path, "lib", w);
    }
    return s->cudnn_include_dir && s->cudnn_lib_dir ? 0 : -1;
}

cudnnctl_err cc_env_build_dirs(cudnnctl_ctx *ctx, cudnnctl_env_selection *s)
{
    cc_strv inc = {0}, lnk = {0}, pc = {0}, cm = {0};
    int w = s->windows, bad = 0;
    if (s->cudnn_path) {
        bad = cudnn_dirs(ctx, s) != 0 || cc_strv_push(&inc, s->cudnn_include_dir) != 0 ||
              cc_strv_push(&lnk, s->cudnn_lib_dir) != 0 || cc_strv_push(&cm, s->cudnn_path) != 0 ||
              push_pc(ctx, &pc, s->cudnn_lib_dir, w) != 0;
    }
    /* a toolkit at a shared root (/usr) is on every default search path already */
    if (!bad && s->toolkit_path && !cc_env_is_shared_root(s->toolkit_path)) {
        char *lib = w ? cc_env_join(s->toolkit_path, "lib\\x64", 1)
                      : cc_env_toolkit_libdir(ctx, s->toolkit_path);
        bad = push_own(&inc, cc_env_join(s->toolkit_path, "include", w)) != 0 ||
              (lib && push_pc(ctx, &pc, lib, w) != 0) || (lib && push_own(&lnk, lib) != 0) ||
              cc_strv_push(&cm, s->toolkit_path) != 0;
    }
    if (bad) {
        cc_strv_free(&inc);
        cc_strv_free(&lnk);
        cc_strv_free(&pc);
        cc_strv_free(&cm);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    take(&inc, &s->include_dirs, &s->n_include_dirs);
    take(&lnk, &s->link_dirs, &s->n_link_dirs);
    take(&pc, &s->pkgconfig_dirs, &s->n_pkgconfig_dirs);
    take(&cm, &s->cmake_prefixes, &s->n_cmake_prefixes);
    return CUDNNCTL_E_OK;
}

void cc_env_build_free(cudnnctl_env_selection *s)
{
    char **lists[] = {s->include_dirs, s->link_dirs, s->pkgconfig_dirs, s->cmake_prefixes};
    size_t ns[] = {s->n_include_dirs, s->n_link_dirs, s->n_pkgconfig_dirs, s->n_cmake_prefixes};
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < ns[k]; i++)
            free(lists[k][i]);
        free(lists[k]);
    }
    free(s->cudnn_include_dir);
    free(s->cudnn_lib_dir);
}

size_t cc_env_list_vars(const cudnnctl_env_selection *s, cc_env_list_var v[CC_ENV_LIST_VARS])
{
    static const char *const inc[] = {"include", NULL};
    static const char *const lib[] = {"lib", "lib\\x64", "lib64", NULL};
    static const char *const pc[] = {"lib\\pkgconfig", "lib\\x64\\pkgconfig", NULL};
    static const char *const top[] = {"", NULL};
    /* the selection's lists by variable; INCLUDE and LIB are what MSVC's cl and link read */
    size_t k = 0;
    v[k++] = (cc_env_list_var){"CPATH", s->include_dirs, s->n_include_dirs, inc};
    v[k++] = (cc_env_list_var){"LIBRARY_PATH", s->link_dirs, s->n_link_dirs, lib};
    v[k++] = (cc_env_list_var){"PKG_CONFIG_PATH", s->pkgconfig_dirs, s->n_pkgconfig_dirs, pc};
    v[k++] = (cc_env_list_var){"CMAKE_PREFIX_PATH", s->cmake_prefixes, s->n_cmake_prefixes, top};
    if (s->windows) {
        v[k++] = (cc_env_list_var){"INCLUDE", s->include_dirs, s->n_include_dirs, inc};
        v[k++] = (cc_env_list_var){"LIB", s->link_dirs, s->n_link_dirs, lib};
    }
    return k;
}
