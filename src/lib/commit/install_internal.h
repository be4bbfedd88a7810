/* install_internal.h: what install.c, install_source.c and install_json.c share. */
#ifndef CC_INSTALL_INTERNAL_H
#define CC_INSTALL_INTERNAL_H

#include "extract.h"
#include "internal.h"

/* The archive to install and where its bytes come from. */
typedef struct {
    cudnnctl_plan *owned_plan; /* made here (freed with the choice) */
    const cudnnctl_plan *plan;
    char *url;           /* http(s)/file URL or a local path */
    char *file_name;     /* the archive's file name */
    char *relative_path; /* catalog relative_path, or the file name of an unmatched archive */
    char *sha256;        /* expected digest, lowercase; NULL only with insecure_skip_verify */
    uint64_t size;       /* expected size, 0 when unknown */
    int in_catalog;
    char *manifest;        /* origin of the catalog entry */
    char *manifest_sha256; /* SHA-256 of that manifest's bytes, NULL when unknown */
    char *manifest_override; /* what --allow-manifest-override accepted (for the receipt) */
    char *cudnn_version, *cuda_variant, *platform;
} cc_source_choice;

/* Plan (or take the given plan) and pick the source: the catalog's NVIDIA URL, --mirror joined
 * with relative_path, or --archive matched to the catalog by file name (an unmatched archive
 * needs --sha256 or --insecure-skip-verify, and says so loudly). */
cudnnctl_err cc_install_choose(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                               const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                               cc_source_choice *out, cc_strv *warnings);
void cc_source_choice_free(cc_source_choice *c);

/* "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" / "cudnn-11.3-linux-x64-v8.2.0.53.tgz"
 * → version, platform key, CUDA variant. 0 on success. */
int cc_archive_name_parse(const char *file_name, char **version, char **platform, char **cuda);

/* Fill the (empty, existing) staging dir with the verified archive contents; digest/size of
 * the archive bytes. Production: fetch + verify + extract; tests: a hand-made tree. */
typedef cudnnctl_err (*cc_populate_fn)(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                       const char *staging, cc_staging *st, char digest[65],
                                       uint64_t *size);
/* cudnnctl_install with the staging step replaced (the seam unit tests drive). */
cudnnctl_err cc_install_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                             const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                             cc_populate_fn populate, void *user, cudnnctl_install_result **out);

/* Refresh the loader cache after a system-wide install on Linux; *what says what happened. */
void cc_ldconfig(cudnnctl_ctx *ctx, int no_ldconfig, char **what);

#endif
