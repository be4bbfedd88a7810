/* install_internal.h: what install.c, install_source.c and install_json.c share. */
#ifndef CC_INSTALL_INTERNAL_H
#define CC_INSTALL_INTERNAL_H

#include "commit.h"
#include "extract.h"
#include "internal.h"
#include "lock.h"

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
    cudnnctl_flavor flavor;         /* the archive's */
    cudnnctl_components components; /* what is extracted (never 0): the selection, or for an
                                     * install that adds components, the ones still missing */
    cudnnctl_components have;       /* adding: the components the install already has */
    int via_mirror;  /* url is under the user's --mirror (for the fixes messages name) */
    /* NVIDIA's wheel of the release (wheels.h) when the bytes are a wheel: an --archive the
     * wheel catalog names, or --source wheel|auto choosing it; NULL: an archive */
    const struct cc_wheel_row_s *wheel;
    int via_pip;        /* the wheel is fetched by the Python packaging tools (install_wheel.c) */
    char *source_why;   /* why this source (--source auto, plan and install say it) */
} cc_source_choice;

/* Plan (or take the given plan) and pick the source: the catalog's NVIDIA URL, --mirror joined
 * with relative_path, or --archive matched to the catalog by file name (an unmatched archive
 * needs --sha256 or --insecure-skip-verify, and says so loudly). */
cudnnctl_err cc_install_choose(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                               const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                               cc_source_choice *out, cc_strv *warnings);
void cc_source_choice_free(cc_source_choice *c);

/* Fill the (empty, existing) staging dir with the verified archive contents; digest/size of
 * the archive bytes. Production: fetch + verify + extract; tests: a hand-made tree. */
typedef cudnnctl_err (*cc_populate_fn)(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                       const char *staging, cc_staging *st, char digest[65],
                                       uint64_t *size);
/* cudnnctl_install with the staging step replaced (the seam unit tests drive). */
cudnnctl_err cc_install_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                             const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                             cc_populate_fn populate, void *user, cudnnctl_install_result **out);

/* opts.validate: validate what the install put in place and set r->postcheck; returns the
 * validation's error when a check failed (the install stands), else OK (install_validate.c). */
cudnnctl_err cc_install_validate(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                                 cudnnctl_install_result *r);

/* Make the link current name want (a name beside it), journaled; *flipped = 1 when it moved.
 * A current that is not a link is left alone (install --force replaces it). switch.c. */
cudnnctl_err cc_switch_current(cudnnctl_ctx *ctx, const char *state, const char *current,
                               const char *want, int *flipped, cc_strv *steps);

/* The prepared install (cudnnctl_install_prepare → _commit → _release). Everything the two
 * halves share: the prepare half fills it (nothing visible in the target but the hidden staging
 * dir), the commit half runs its journal. */
struct cudnnctl_install_handle {
    cudnnctl_install_opts opts; /* the caller's (strings borrowed until release) */
    cc_populate_fn populate;
    void *user;
    uint64_t t0;
    cudnnctl_install_result *res; /* the caller's; kept up to date by every call */
    cc_strv steps, warnings;
    cc_source_choice ch;
    cc_lock lock;  /* STATE/lock */
    cc_lock tlock; /* the target's lock */
    cc_txn *txn;   /* planned, not run yet (NULL once run or aborted) */
    cc_receipts rs;
    cc_receipt rec;
    cc_dest dest;
    cc_tree tree;
    cc_staging st;
    char *state, *staging, *target_shown;
    char digest[65];
    uint64_t got_size;
    int env_on;
    int pending;   /* prepared and not committed yet */
    int validated; /* opts.validate ran (once) */
};

/* The prepare half with the staging step replaced (production: fetch_extract). On failure
 * everything it did is undone and *h is NULL; *out is set either way. */
cudnnctl_err cc_install_prepare_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                     const cudnnctl_detect_result *det,
                                     const cudnnctl_install_opts *o, cc_populate_fn populate,
                                     void *user, cudnnctl_install_handle **h,
                                     cudnnctl_install_result **out);
/* Steps / warnings gathered so far, copied into h->res (replacing what it had). */
void cc_install_publish(cudnnctl_install_handle *h);
/* *v, *n = a copy of from (what was there freed). install_handle.c */
void cc_install_copy_strv(char ***v, size_t *n, const cc_strv *from);

/* install_dest.c */
void cc_install_step(cudnnctl_ctx *ctx, cc_strv *steps, char *text); /* takes text */
cudnnctl_err cc_install_dest(cudnnctl_ctx *ctx, const cudnnctl_plan *p, const cc_source_choice *c,
                             cc_dest *d, char **target_shown);
/* The newest receipt of the same build on the target, *have = the components its chain of
 * receipts placed (an install can add components later). */
const cc_receipt *cc_install_already(const cudnnctl_ctx *ctx, const cc_receipts *rs,
                                     const cc_source_choice *c, cudnnctl_target_mode mode,
                                     const char *target_shown, const char *install_dir_shown,
                                     cudnnctl_components *have);
/* One flavour per target (per version dir in a prefix): the other one there is CONFLICT unless
 * force (then a warning: it is replaced). */
cudnnctl_err cc_install_flavor_check(cudnnctl_ctx *ctx, const cc_receipts *rs,
                                     const cc_source_choice *c, cudnnctl_target_mode mode,
                                     const char *target_shown, const char *install_dir_shown,
                                     int force, cc_strv *warnings);
cudnnctl_err cc_install_space_check(cudnnctl_ctx *ctx, const char *where, uint64_t archive_size);
cudnnctl_err cc_install_perm_hint(cudnnctl_ctx *ctx, cudnnctl_err rc, const char *target);
cudnnctl_err cc_install_wire_env(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                                 const cudnnctl_plan *p, const cc_dest *d, int dry,
                                 char **env_json, int *n_changed);


#endif
