/* extract.h: archive bytes → staging tree, with our own check of every entry first and
 * libarchive's ARCHIVE_EXTRACT_SECURE_* flags as the second line. Owned by the extract work
 * (extract.c, pathcheck.c, layout.c); consumed by install.c. */
#ifndef CC_EXTRACT_H
#define CC_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"
#include "source.h"
#include "str.h"

/* Normalised staging layout, whatever the archive era:
 *   STAGING/include/   headers
 *   STAGING/lib/       Linux: libcudnn*.so* (real files + the links the archive had);
 *                      Windows: *.lib import libraries
 *   STAGING/bin/       Windows: *.dll
 *   STAGING/LICENSE    licence text, under whatever name the archive used, kept as LICENSE */
typedef enum {
    CC_LAYOUT_UNKNOWN = 0,
    CC_LAYOUT_TAR_9X,     /* cudnn-<plat>-<ver>_cudaN-archive/{include,lib} (8.3+ too) */
    CC_LAYOUT_TGZ_LEGACY, /* cuda/{include,lib64 | targets/<arch>/lib} (<= 8.2) */
    CC_LAYOUT_ZIP_BIN,    /* <top>/{bin,include,lib}            (8.3-8.6 Windows) */
    CC_LAYOUT_ZIP_LIBX64, /* <top>/{bin,include,lib/x64}        (8.8-9.17 Windows) */
    CC_LAYOUT_ZIP_BINX64, /* <top>/{bin/x64,include,lib/x64}    (9.18+ CUDA 13 Windows) */
    CC_LAYOUT_ZIP_LEGACY  /* cuda/{bin,include,lib/x64}         (<= 8.2 Windows) */
} cc_layout;

typedef struct {
    char *path;   /* relative to the staging root, '/'-separated ("lib/libcudnn.so.9.19.0") */
    int is_link;
    char *link_target; /* for links */
    uint32_t mode;
    uint64_t size;
    char sha256[65];   /* of regular files */
} cc_staged_file;

typedef struct {
    cc_layout layout;
    char *top_dir;          /* the archive's top directory */
    cc_staged_file *files;
    size_t n_files;
    uint64_t bytes;         /* total regular-file bytes */
} cc_staging;

/* Extract everything the source yields into staging_dir (which must exist and be empty).
 * name_hint: the archive's file name, to tell tar.xz / tgz / zip apart when needed.
 * Unsafe entry → CUDNNCTL_E_UNSAFE_ARCHIVE naming the entry; nothing outside staging_dir. */
cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out);
void cc_staging_free(cc_staging *st);

#endif
