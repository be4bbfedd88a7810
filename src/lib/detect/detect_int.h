/* detect_int.h: what the detect_*.c files share: the run state and the scanners (private to
 * detect/). The parsers (detect_parse.h) and the root-aware paths (detect_path.h), which other
 * stages use too, have headers of their own. Not installed. */
#ifndef CC_DETECT_INT_H
#define CC_DETECT_INT_H

#include "detect_parse.h"
#include "detect_path.h"
#include "internal.h"

/* ---- a run of cudnnctl_detect --------------------------------------------------------------- */
typedef struct {
    cudnnctl_ctx *ctx;
    cudnnctl_detect_result *r;
    size_t cap_toolkits, cap_cudnn;
    cc_strv notes;
    cc_strv sites;  /* resolved site-packages dirs holding an nvidia/ dir */
    cc_strv loader; /* resolved dirs the dynamic loader searches (ld.so.conf, cache, defaults) */
    cc_strv ld_library_path; /* resolved LD_LIBRARY_PATH dirs */
    cc_strv multiarch;       /* "x86_64-linux-gnu", "aarch64-linux-gnu" */
    cc_strv arch_targets;    /* "x86_64-linux", "sbsa-linux", "aarch64-linux" */
} cc_detect_run;

/* A zeroed toolkit slot at r->toolkits[r->n_toolkits] (patch = -1), growing the array;
 * NULL when out of memory. The caller fills it and then counts it (r->n_toolkits++). */
cudnnctl_toolkit *cc_detect_toolkit_slot(cc_detect_run *run, cudnnctl_detect_result *r);
/* A zeroed cuDNN copy, already counted in run->r->n_cudnn; NULL when out of memory. */
cudnnctl_cudnn_copy *cc_detect_cudnn_slot(cc_detect_run *run);

int cc_detect_note(cc_detect_run *run, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Free what a toolkit / cuDNN copy / driver owns (not the struct itself; detect_result.c). */
void cc_detect_toolkit_clear(cudnnctl_toolkit *t);
void cc_detect_cudnn_clear(cudnnctl_cudnn_copy *c);
void cc_detect_driver_free(cudnnctl_driver *d);
/* Append a string to a (char **, size_t) list; takes s. 0 ok, -1 OOM. */
/* The lib dirs of the installs the state dir's receipts name (detect_receipts.c), with their
 * include dir ("" when none) and target mode ("prefix", "cuda-tree"). -1 on OOM. */
int cc_detect_receipt_dirs(cudnnctl_ctx *ctx, cc_strv *libs, cc_strv *incs, cc_strv *modes);

/* Toolkit version sources (detect_tkversion.c). The include dir holding cuda.h /
 * cuda_runtime_api.h and the lib dir holding libcudart (root-relative as found, NULL when none);
 * -1 on OOM. */
int cc_detect_tk_include_dir(cc_detect_run *run, const char *dir, char **out);
int cc_detect_tk_lib_dir(cc_detect_run *run, const char *dir, char **lib_dir);
/* Read every version source of the toolkit at dir into t (t->include_dir / t->lib_dir set by the
 * caller; site: its site-packages for a wheel; env_applies: CUDA_VERSION describes it) and settle
 * on a version. -1 on OOM; t->version stays NULL when no source gave one. */
int cc_detect_toolkit_versions(cc_detect_run *run, const char *dir, const char *site,
                               int env_applies, cudnnctl_toolkit *t);

/* The scanners, in the order cudnnctl_detect calls them. */
cudnnctl_err cc_detect_find_sites(cc_detect_run *run);    /* detect_sites.c */
cudnnctl_err cc_detect_find_loader(cc_detect_run *run);   /* detect_sites.c */
cudnnctl_err cc_detect_find_toolkits(cc_detect_run *run); /* detect_toolkit.c */
cudnnctl_err cc_detect_find_driver(cc_detect_run *run);   /* detect_driver.c */
cudnnctl_err cc_detect_find_cudnn(cc_detect_run *run);    /* detect_cudnn.c */
/* Windows: CUDA_PATH*, the registry, the default dir, cuDNN DLLs (no-op elsewhere). */
cudnnctl_err cc_detect_find_windows(cc_detect_run *run); /* detect_windows.c */

/* Windows paths (detect_windows.c): '\\' separators, compared case-insensitively; files read
 * through cc_rooted (C:\\X is ROOT/c/X under --root with a Windows host profile). */
char *cc_detect_win_norm(const char *p);
int cc_detect_win_same_path(const char *a, const char *b);
int cc_detect_win_ci_prefix(const char *a, const char *b, size_t n);
char *cc_detect_win_join(const char *a, const char *b);
int cc_detect_win_exists(cudnnctl_ctx *ctx, const char *p, int want_dir);
cc_pf_dir *cc_detect_win_opendir(cudnnctl_ctx *ctx, const char *p);
char *cc_detect_win_slurp(cudnnctl_ctx *ctx, const char *path, size_t max); /* NULL when absent */
int cc_detect_win_parse_vdir(const char *name, int *major, int *minor);     /* "v12.4" -> 12, 4 */
/* cuDNN copies in the toolkits' bin dirs and NVIDIA's installer dirs (detect_wincudnn.c). */
int cc_detect_win_find_cudnn(cc_detect_run *run);

#endif
