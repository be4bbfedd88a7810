/* buildmeta.c: pkg-config files and a CMake package for an install, written into its staging
 * tree (buildmeta.h). A prefix install gets relocatable files (${pcfiledir}, the config file's
 * own dir), a CUDA tree absolute ones; the libraries are the ones the staged tree holds. */
#include <stdlib.h>
#include <string.h>

#include "buildmeta.h"
#include "grow.h"
#include "libnames.h"

/* One library of the install: target name "cudnn_graph", its files relative to the install. */
typedef struct {
    char name[128];
    char *location; /* lib/libcudnn_graph.so.9, bin/cudnn_graph64_9.dll */
    char *soname;   /* libcudnn_graph.so.9; NULL on Windows */
    char *implib;   /* lib/cudnn_graph.lib (Windows); NULL */
} bm_lib;

typedef struct {
    bm_lib *v;
    size_t n;
} bm_libs;

static void libs_free(bm_libs *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].location);
        free(l->v[i].soname);
        free(l->v[i].implib);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static int lib_cmp(const void *a, const void *b)
{
    const bm_lib *x = a, *y = b;
    /* cudnn itself first, then the sub-libraries by name */
    int xm = strcmp(x->name, "cudnn") == 0, ym = strcmp(y->name, "cudnn") == 0;
    return xm != ym ? ym - xm : strcmp(x->name, y->name);
}

static int exists_in(const char *staging, const char *rel)
{
    char *p = cc_path_join(staging, rel);
    cc_pf_stat_t st;
    int ok = p && cc_pf_lstat(p, &st) == 0 && st.exists;
    free(p);
    return ok;
}

/* A Windows import library of a DLL stem: lib/<stem>.lib, else lib/<stem>64_<M>.lib. */
static char *win_implib(const char *staging, const char *stem, int major)
{
    char *a = cc_asprintf("lib/%s.lib", stem);
    if (a && exists_in(staging, a))
        return a;
    free(a);
    char *b = cc_asprintf("lib/%s64_%d.lib", stem, major);
    if (b && exists_in(staging, b))
        return b;
    free(b);
    return NULL;
}

/* Add the library a file name stands for (libX.so.M on Linux, X64_M.dll on Windows). */
static int add_lib(bm_libs *l, const char *staging, const char *name, int windows)
{
    cc_libname ln;
    if (!cc_lib_classify(name, &ln) || strstr(ln.stem, "static"))
        return 0;
    if (windows ? ln.kind != CC_LIB_DLL : ln.kind != CC_LIB_SO_MAJOR)
        return 0;
    const char *target = windows ? ln.stem : ln.stem + 3; /* "libcudnn_ops" -> "cudnn_ops" */
    if (cc_grow(&l->v, NULL, l->n + 1, sizeof(*l->v)) != 0)
        return -1;
    bm_lib *b = &l->v[l->n];
    memset(b, 0, sizeof(*b));
    size_t tn = strlen(target) < sizeof(b->name) - 1 ? strlen(target) : sizeof(b->name) - 1;
    memcpy(b->name, target, tn);
    b->name[tn] = '\0';
    b->location = cc_asprintf("%s/%s", windows ? "bin" : "lib", name);
    if (windows)
        b->implib = win_implib(staging, ln.stem, ln.major);
    else
        b->soname = cc_strdup(name);
    l->n++;
    return b->location && (windows || b->soname) ? 0 : -1;
}

static cudnnctl_err scan_dir(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, char *dir, bm_libs *l);

static cudnnctl_err scan_libs(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, bm_libs *l)
{
    cudnnctl_err rc = scan_dir(ctx, in, cc_path_join(in->staging, in->windows ? "bin" : "lib"), l);
    if (rc == CUDNNCTL_E_OK && l->n == 0 && in->libs_dir)
        rc = scan_dir(ctx, in, cc_strdup(in->libs_dir), l);
    return rc;
}

/* Every library in dir (taken and freed). */
static cudnnctl_err scan_dir(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, char *dir, bm_libs *l)
{
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    const char *nm;
    int bad = !dir;
    while (d && !bad && (nm = cc_pf_readdir(d)) != NULL)
        bad = add_lib(l, in->staging, nm, in->windows) != 0;
    if (d)
        cc_pf_closedir(d);
    free(dir);
    if (bad)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (l->n)
        qsort(l->v, l->n, sizeof(*l->v), lib_cmp);
    return CUDNNCTL_E_OK;
}

/* ---- text helpers -----------------------------------------------------------------------------
 */

static int has_ctrl(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; s && *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* A path in a CMake quoted argument: '/' separators, '"', '$', '\\' and ';' escaped. */
static void cm_path(cc_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            cc_buf_puts(b, "/");
        else if (*s == '"' || *s == '$' || *s == ';')
            cc_buf_printf(b, "\\%c", *s);
        else
            cc_buf_append(b, s, 1);
    }
}

/* A path in a .pc value: '/' separators; ' ', '#', '"', '\'' escaped with '\\'; '$' as "$$". */
static void pc_path(cc_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            cc_buf_puts(b, "/");
        else if (*s == '$')
            cc_buf_puts(b, "$$");
        else if (*s == ' ' || *s == '#' || *s == '"' || *s == '\'')
            cc_buf_printf(b, "\\%c", *s);
        else
            cc_buf_append(b, s, 1);
    }
}

static cudnnctl_err put_file(cudnnctl_ctx *ctx, const char *staging, const char *rel, cc_buf *b,
                             size_t *n)
{
    char *path = cc_path_join(staging, rel);
    char *dir = path ? cc_path_dir(path) : NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!path || !dir || !b->data)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (cc_sys_mkdir_p(ctx, dir, 0755) != 0)
        rc = CC_ERR_PF(ctx, "cannot create", dir);
    else if (cc_sys_write_file_atomic(ctx, path, b->data, b->len, 0644) != 0)
        rc = CC_ERR_PF(ctx, "cannot write", path);
    else
        (*n)++;
    free(path);
    free(dir);
    cc_buf_free(b);
    return rc;
}

/* ---- pkg-config --------------------------------------------------------------------------- */

static void pc_head(cc_buf *b, const cc_buildmeta_in *in)
{
    cc_buf_printf(b,
                  "# cuDNN %s for CUDA %s: written by cudnnctl with the install (receipt %s);\n"
                  "# uninstall removes it. pkg-config --cflags --libs cudnn\n",
                  in->version, in->cuda, in->receipt_id ? in->receipt_id : "?");
    if (in->relocatable) {
        cc_buf_puts(b, "prefix=${pcfiledir}/../..\nincludedir=${prefix}/include\n"
                       "libdir=${prefix}/lib\n");
    } else {
        cc_buf_puts(b, "includedir=");
        pc_path(b, in->include_dir);
        cc_buf_puts(b, "\nlibdir=");
        pc_path(b, in->lib_dir);
        cc_buf_puts(b, "\n");
    }
    if (in->cuda_include && (in->relocatable || strcmp(in->cuda_include, in->include_dir) != 0)) {
        cc_buf_puts(b, "cuda_includedir=");
        pc_path(b, in->cuda_include);
        cc_buf_puts(b, "\n");
    }
}

static cudnnctl_err write_pc(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, const bm_libs *l,
                             size_t *n)
{
    cc_buf b = {0};
    pc_head(&b, in);
    int cuda = strstr(b.data ? b.data : "", "cuda_includedir=") != NULL;
    cc_buf_printf(&b,
                  "\nName: cuDNN\nDescription: NVIDIA CUDA Deep Neural Network library (built "
                  "for CUDA %s)\nVersion: %s\nCflags: -I${includedir}%s\nLibs: -L${libdir} "
                  "-lcudnn\n",
                  in->cuda, in->version, cuda ? " -I${cuda_includedir}" : "");
    cudnnctl_err rc = put_file(ctx, in->staging, "lib/pkgconfig/cudnn.pc", &b, n);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < l->n; i++) {
        if (strcmp(l->v[i].name, "cudnn") == 0)
            continue;
        pc_head(&b, in);
        cc_buf_printf(&b,
                      "\nName: cuDNN %s\nDescription: the %s sub-library of cuDNN %s\n"
                      "Version: %s\nRequires: cudnn = %s\nLibs: -L${libdir} -l%s\n",
                      l->v[i].name, l->v[i].name, in->version, in->version, in->version,
                      l->v[i].name);
        char *rel = cc_asprintf("lib/pkgconfig/%s.pc", l->v[i].name);
        rc = rel ? put_file(ctx, in->staging, rel, &b, n)
                 : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(rel);
    }
    cc_buf_free(&b);
    return rc;
}

/* ---- CMake -------------------------------------------------------------------------------- */

/* Where the install's dirs are, as the config file computes them. */
static void cm_dirs(cc_buf *b, const cc_buildmeta_in *in)
{
    if (in->relocatable) {
        /* lib/cmake/CUDNN/ -> the install dir, whatever it is called (PREFIX/current too) */
        cc_buf_puts(b,
                    "get_filename_component(_cudnn_prefix \"${CMAKE_CURRENT_LIST_DIR}/../../..\" "
                    "ABSOLUTE)\nset(CUDNN_INCLUDE_DIR \"${_cudnn_prefix}/include\")\n"
                    "set(CUDNN_LIBRARY_DIR \"${_cudnn_prefix}/lib\")\n"
                    "set(_cudnn_bin_dir \"${_cudnn_prefix}/bin\")\n");
        return;
    }
    const char *names[3] = {"CUDNN_INCLUDE_DIR", "CUDNN_LIBRARY_DIR", "_cudnn_bin_dir"};
    const char *vals[3] = {in->include_dir, in->lib_dir, in->bin_dir ? in->bin_dir : in->lib_dir};
    for (int i = 0; i < 3; i++) {
        cc_buf_printf(b, "set(%s \"", names[i]);
        cm_path(b, vals[i]);
        cc_buf_puts(b, "\")\n");
    }
}

/* The CUDA include dir: the user's CUDNN_CUDA_INCLUDE_DIR, the project's CUDAToolkit, the toolkit
 * the install was made with, then CUDA_HOME / CUDA_PATH: the first that has cuda_runtime_api.h. */
static void cm_cuda(cc_buf *b, const cc_buildmeta_in *in)
{
    cc_buf_puts(b,
                "set(_cudnn_cuda_candidates ${CUDNN_CUDA_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}");
    if (in->cuda_include) {
        cc_buf_puts(b, " \"");
        cm_path(b, in->cuda_include);
        cc_buf_puts(b, "\"");
    }
    cc_buf_puts(
        b, " \"$ENV{CUDA_HOME}/include\" \"$ENV{CUDA_PATH}/include\")\n"
           "set(CUDNN_CUDA_INCLUDE_DIR_FOUND \"\")\n"
           "foreach(_cudnn_d IN LISTS _cudnn_cuda_candidates)\n"
           "  if(NOT CUDNN_CUDA_INCLUDE_DIR_FOUND AND EXISTS \"${_cudnn_d}/cuda_runtime_api.h\")\n"
           "    set(CUDNN_CUDA_INCLUDE_DIR_FOUND \"${_cudnn_d}\")\n"
           "  endif()\nendforeach()\n"
           "set(CUDNN_INCLUDE_DIRS \"${CUDNN_INCLUDE_DIR}\")\n"
           "if(CUDNN_CUDA_INCLUDE_DIR_FOUND AND NOT CUDNN_CUDA_INCLUDE_DIR_FOUND STREQUAL "
           "CUDNN_INCLUDE_DIR)\n"
           "  list(APPEND CUDNN_INCLUDE_DIRS \"${CUDNN_CUDA_INCLUDE_DIR_FOUND}\")\nendif()\n");
}

static void cm_target(cc_buf *b, const cc_buildmeta_in *in, const bm_lib *lib)
{
    const char *dir_var = in->windows ? "_cudnn_bin_dir" : "CUDNN_LIBRARY_DIR";
    const char *file = strchr(lib->location, '/') + 1;
    cc_buf_printf(b,
                  "if(NOT TARGET CUDNN::%s)\n  add_library(CUDNN::%s SHARED IMPORTED)\n"
                  "  set_target_properties(CUDNN::%s PROPERTIES\n"
                  "    IMPORTED_LOCATION \"${%s}/%s\"\n"
                  "    INTERFACE_INCLUDE_DIRECTORIES \"${CUDNN_INCLUDE_DIRS}\"",
                  lib->name, lib->name, lib->name, dir_var, file);
    if (lib->soname)
        cc_buf_printf(b, "\n    IMPORTED_SONAME \"%s\"", lib->soname);
    if (lib->implib)
        cc_buf_printf(b, "\n    IMPORTED_IMPLIB \"${CUDNN_LIBRARY_DIR}/%s\"",
                      strchr(lib->implib, '/') + 1);
    cc_buf_puts(b, ")\nendif()\n");
}

static cudnnctl_err write_config(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, const bm_libs *l,
                                 size_t *n)
{
    cc_buf b = {0};
    cc_version v;
    if (cc_version_parse(in->version, &v) != 0 || v.n < 3)
        CC_RET_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT, "cuDNN version %s has no major.minor.patch",
                   in->version);
    cc_buf_printf(&b,
                  "# cuDNN %s for CUDA %s: CMake package written by cudnnctl with the install "
                  "(receipt %s); uninstall removes it.\n"
                  "#   find_package(CUDNN %d.%d CONFIG REQUIRED)\n"
                  "#   target_link_libraries(app PRIVATE CUDNN::cudnn)   # or CUDNN::cudnn_all\n"
                  "# Targets: CUDNN::cudnn_all and one per library of the install.\n"
                  "set(CUDNN_VERSION \"%s\")\nset(CUDNN_VERSION_MAJOR %d)\n"
                  "set(CUDNN_VERSION_MINOR %d)\nset(CUDNN_VERSION_PATCH %d)\n"
                  "set(CUDNN_CUDA_MAJOR %s)\n",
                  in->version, in->cuda, in->receipt_id ? in->receipt_id : "?", v.part[0],
                  v.part[1], in->version, v.part[0], v.part[1], v.part[2], in->cuda);
    cm_dirs(&b, in);
    cm_cuda(&b, in);
    for (size_t i = 0; i < l->n; i++)
        cm_target(&b, in, &l->v[i]);
    /* cudnn-frontend's cmake/cuDNN.cmake takes CUDNN::cudnn + CUDNN::cudnn_all as an integrated
     * build and searches no further */
    cc_buf_puts(&b, "if(NOT TARGET CUDNN::cudnn_all)\n"
                    "  add_library(CUDNN::cudnn_all INTERFACE IMPORTED)\n"
                    "  set_target_properties(CUDNN::cudnn_all PROPERTIES INTERFACE_LINK_LIBRARIES\n"
                    "    \"");
    for (size_t i = 0; i < l->n; i++)
        cc_buf_printf(&b, "%sCUDNN::%s", i ? ";" : "", l->v[i].name);
    cc_buf_puts(&b, "\")\nendif()\nset(CUDNN_LIBRARIES CUDNN::cudnn)\nset(CUDNN_FOUND TRUE)\n");
    return put_file(ctx, in->staging, "lib/cmake/CUDNN/CUDNNConfig.cmake", &b, n);
}

/* find_package(CUDNN X[.Y] CONFIG): same major, at least X.Y; ranges (CMake >= 3.19) too. */
static cudnnctl_err write_version(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, size_t *n)
{
    cc_buf b = {0};
    cc_version v;
    if (cc_version_parse(in->version, &v) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT, "bad cuDNN version %s", in->version);
    cc_buf_printf(
        &b,
        "# cuDNN %s: the version check of find_package(CUDNN ...), written by cudnnctl.\n"
        "# Compatible: the same major and at least the version asked for (or inside a range);\n"
        "# exact: the parts asked for match (9.27 EXACT takes 9.27.x.y).\n"
        "set(PACKAGE_VERSION \"%s\")\nset(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
        "set(PACKAGE_VERSION_EXACT FALSE)\n"
        "if(PACKAGE_FIND_VERSION_RANGE)\n"
        "  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MIN)\n"
        "  elseif(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL \"INCLUDE\" AND PACKAGE_VERSION "
        "VERSION_GREATER PACKAGE_FIND_VERSION_MAX)\n"
        "  elseif(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL \"EXCLUDE\" AND PACKAGE_VERSION "
        "VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MAX)\n"
        "  else()\n    set(PACKAGE_VERSION_COMPATIBLE TRUE)\n  endif()\n"
        "elseif(NOT PACKAGE_FIND_VERSION)\n  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
        "elseif(PACKAGE_FIND_VERSION_MAJOR EQUAL %d AND NOT PACKAGE_VERSION VERSION_LESS "
        "PACKAGE_FIND_VERSION)\n  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
        "  # EXACT compares the parts asked for: 9.27 EXACT is any 9.27.x.y\n"
        "  string(REPLACE \".\" \";\" _cudnn_parts \"${PACKAGE_VERSION}\")\n"
        "  list(SUBLIST _cudnn_parts 0 ${PACKAGE_FIND_VERSION_COUNT} _cudnn_parts)\n"
        "  string(JOIN \".\" _cudnn_asked ${_cudnn_parts})\n"
        "  if(_cudnn_asked VERSION_EQUAL PACKAGE_FIND_VERSION)\n"
        "    set(PACKAGE_VERSION_EXACT TRUE)\n  endif()\nendif()\n"
        "if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P EQUAL 8)\n"
        "  set(PACKAGE_VERSION \"%s (64-bit)\")\n  set(PACKAGE_VERSION_UNSUITABLE TRUE)\nendif()\n",
        in->version, in->version, v.part[0], in->version);
    return put_file(ctx, in->staging, "lib/cmake/CUDNN/CUDNNConfigVersion.cmake", &b, n);
}

cudnnctl_err cc_buildmeta_write(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, size_t *n_files)
{
    bm_libs l = {0};
    *n_files = 0;
    const char *paths[4] = {in->include_dir, in->lib_dir, in->bin_dir, in->cuda_include};
    for (int i = 0; i < 4; i++)
        if (has_ctrl(paths[i]))
            CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                       "a target path has a control character in it: no build metadata can "
                       "name it; install into a path without one");
    cudnnctl_err rc = scan_libs(ctx, in, &l);
    int has_main = 0;
    for (size_t i = 0; i < l.n; i++)
        has_main |= strcmp(l.v[i].name, "cudnn") == 0;
    if (rc == CUDNNCTL_E_OK && has_main && (rc = write_pc(ctx, in, &l, n_files)) == CUDNNCTL_E_OK &&
        (rc = write_config(ctx, in, &l, n_files)) == CUDNNCTL_E_OK)
        rc = write_version(ctx, in, n_files);
    libs_free(&l);
    return rc;
}
