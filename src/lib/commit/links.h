/* links.h: cuDNN library names and the .so link chain. Linux: libX.so -> libX.so.M ->
 * libX.so.M.m.p for every sub-library whose real file carries a 3-part version; wheel-style
 * libX.so.M regular files stay as they are (plus libX.so -> libX.so.M). The ELF SONAME of every
 * real file must equal its libX.so.M name. Windows DLLs / import libraries need no links. */
#ifndef CC_LINKS_H
#define CC_LINKS_H

#include "internal.h"

typedef enum {
    CC_LIB_NONE = 0,
    CC_LIB_SO_DEV,   /* libX.so */
    CC_LIB_SO_MAJOR, /* libX.so.M */
    CC_LIB_SO_FULL,  /* libX.so.M.m[.p...] */
    CC_LIB_STATIC,   /* libX_static.a */
    CC_LIB_STATIC_V, /* libX_static_vM.a */
    CC_LIB_DLL,      /* X64_M.dll */
    CC_LIB_IMPLIB,   /* X.lib */
    CC_LIB_IMPLIB_V  /* X64_M.lib */
} cc_lib_kind;

typedef struct {
    cc_lib_kind kind;
    char stem[128]; /* "libcudnn_ops" / "cudnn_ops" */
    int major;      /* -1 when the name carries none */
} cc_libname;

/* Classify a base name as a cuDNN library file (stem starts with libcudnn / cudnn). */
int cc_lib_classify(const char *name, cc_libname *out); /* 1 = a cuDNN library name */

/* Make the link chain right inside a staged lib dir (not live: no journal needed) and check
 * every real file's SONAME. made: "name -> target" of links created or fixed (may be NULL).
 * SONAME mismatch → CUDNNCTL_E_SONAME; two versions of one sub-library → BAD_LAYOUT. */
cudnnctl_err cc_links_fix(cudnnctl_ctx *ctx, const char *lib_dir, cc_strv *made);

/* The cuDNN major the staged libraries carry (-1 when none). */
int cc_links_major(const char *lib_dir, const char *bin_dir);

#endif
