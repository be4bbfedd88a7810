/* buildmeta.h: the build metadata an install carries (docs/build.md): pkg-config files and a
 * CMake package, generated into the staging tree before the commit so they are ordinary staged
 * files of the install — owned by its receipt, placed by the same journaled commit, removed by
 * uninstall and rollback exactly like the headers next to them. */
#ifndef CC_BUILDMETA_H
#define CC_BUILDMETA_H

#include "internal.h"

typedef struct {
    const char *staging; /* real path of the staged tree (include/, lib/, bin/) */
    const char *version; /* full cuDNN version, "9.19.0.56" */
    const char *cuda;    /* CUDA variant of the build, "13" */
    int windows;         /* the install is for Windows (DLLs in bin/, import libraries in lib/) */
    int relocatable;     /* prefix mode: paths relative to the files (the install moves whole) */
    /* Absolute paths as the target machine sees them (tree mode; prefix mode: unused). */
    const char *include_dir, *lib_dir, *bin_dir;
    const char *cuda_include; /* the toolkit's include dir (cudnn.h includes cuda_runtime_api.h);
                                 NULL when no toolkit of that major is known */
    const char *receipt_id;   /* named in the files' first lines */
    const char *libs_dir;     /* real dir of the installed libraries (lib/ or bin/), read when the
                                 staged tree has none: dev added to an installed runtime */
} cc_buildmeta_in;

/* Write lib/pkgconfig/cudnn.pc (+ one .pc per sub-library) and
 * lib/cmake/CUDNN/CUDNNConfig.cmake + CUDNNConfigVersion.cmake into the staging tree. *n_files
 * counts what was written (0 when the tree has no libcudnn to describe). */
cudnnctl_err cc_buildmeta_write(cudnnctl_ctx *ctx, const cc_buildmeta_in *in, size_t *n_files);

#endif
