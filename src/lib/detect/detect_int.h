/* detect_int.h: what the detect_*.c files share: the run state, root-aware path resolution, and
 * the pure parsers (unit-tested on their own). Not installed. */
#ifndef CC_DETECT_INT_H
#define CC_DETECT_INT_H

#include "internal.h"

/* A version as read from one source: -1 = unknown part. */
typedef struct {
    int major, minor, patch;
} cc_dt_ver;

/* ---- pure parsers (detect_parse.c) ---------------------------------------------------------- */
/* version.json: the "cuda" component's version. *date_patch = 1 when the patch is a build date
 * (12.1.20230222): patch is then -1. 0 ok, -1 no cuda.version, -2 not JSON. */
int cc_dt_parse_version_json(const char *text, cc_dt_ver *v, int *date_patch);
/* version.txt: "CUDA Version 10.2.89". */
int cc_dt_parse_version_txt(const char *text, cc_dt_ver *v);
/* nvcc --version: "release 13.0, V13.0.88". */
int cc_dt_parse_nvcc(const char *text, cc_dt_ver *v);
/* "#define NAME <integer>" anywhere in text; 0 found. Expressions are not values. */
int cc_dt_parse_define(const char *text, const char *name, long *value);
/* CUDA_VERSION / CUDART_VERSION encoding: major*1000 + minor*10. */
int cc_dt_cuda_encoded(long value, cc_dt_ver *v);
/* cudnn_version.h (or cudnn.h of 7.x): CUDNN_MAJOR/MINOR/PATCHLEVEL, else CUDNN_VERSION in the
 * 8.x (M*1000+m*100+p) or 9.x (M*10000+m*100+p) encoding. */
int cc_dt_parse_cudnn_header(const char *text, cc_dt_ver *v);
/* libcudart SONAME: libcudart.so.13 -> 13.x; libcudart.so.11.0 -> 11.x (every 11.x);
 * libcudart.so.10.2 -> 10.2. */
int cc_dt_parse_cudart_soname(const char *soname, cc_dt_ver *v);
/* /proc/driver/nvidia/version: the driver version of the "NVRM version:" line (malloc'd). */
int cc_dt_parse_proc_driver(const char *text, char **version);
/* First non-empty line of nvidia-smi --query-gpu=driver_version output (malloc'd). */
int cc_dt_parse_smi(const char *text, char **version);
/* Lower bound of the CUDA version a driver supports (cuDriverGetVersion encoding), from the
 * toolkit -> bundled driver table (cudnn-distribution.md 4.2). 0 when below every entry. */
int cc_dt_driver_cuda_floor(const char *driver_version);
/* "libcudnn_ops.so.9.14.0" -> stem "libcudnn_ops", version 9.14.0 (n parts; 0 for bare .so).
 * -1 when the name is not "<stem>.so[.<digits>...]". */
int cc_dt_parse_libname(const char *name, char **stem, cc_version *v);
/* "nvidia_cudnn_cu13-9.19.0.56.dist-info" with pkg "nvidia_cudnn" -> 9.19.0.56. Accepts
 * "<pkg>-<ver>.dist-info" and "<pkg>_cu<N>-<ver>.dist-info" only. */
int cc_dt_parse_dist_info(const char *name, const char *pkg, cc_version *v);
/* /etc/ld.so.cache: the paths of the entries whose name starts with prefix (NULL: all), appended
 * to paths without duplicates. 0 ok, -1 not a cache (or OOM). */
int cc_dt_parse_ld_cache(const char *data, size_t len, const char *prefix, cc_strv *paths);
/* The platform key of NVIDIA's manifests. */
char *cc_dt_platform_key(const char *os, const char *machine, int tegra);
/* Simple glob: '*' and '?' only (ld.so.conf include lines, python3* dirs). */
int cc_dt_glob(const char *pattern, const char *name);

/* ---- root-aware paths (detect_path.c) ------------------------------------------------------- */
/* Resolve every symlink of an absolute root-relative path, component by component, re-rooting
 * absolute link targets. Returns the resolved root-relative path (malloc'd) and *missing = 1
 * when some component does not exist (the rest is then appended unresolved). NULL on a link
 * loop, a relative path, or OOM. */
char *cc_dt_resolve(const cudnnctl_ctx *ctx, const char *path, int *missing);
/* The host path of a root-relative path that exists after resolution (malloc'd), else NULL. */
char *cc_dt_host(const cudnnctl_ctx *ctx, const char *path);
/* stat after resolution; st->exists = 0 when absent. */
void cc_dt_stat(const cudnnctl_ctx *ctx, const char *path, cc_pf_stat_t *st);
/* Read at most max bytes of a file (NUL-terminated, malloc'd). 0 ok, -1 absent/unreadable. */
int cc_dt_read(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data);
/* The same, with the byte count (for files holding NUL bytes). */
int cc_dt_read_n(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data, size_t *len);
/* Entries of a directory starting with prefix (NULL: all), sorted (names only). 0 ok, -1 not a
 * readable directory. */
int cc_dt_list(const cudnnctl_ctx *ctx, const char *dir, const char *prefix, cc_strv *names);
/* "a -> b -> c" for a path whose last component is a link chain; NULL when it is no link. */
char *cc_dt_link_chain(const cudnnctl_ctx *ctx, const char *path, int *dangling);
/* An environment value taken as a root-relative absolute path (a host path under the root is
 * unrooted first); NULL when unset, empty or relative. */
char *cc_dt_env_path(const cudnnctl_ctx *ctx, const char *value);
/* Lexically clean an absolute path: no "//", ".", trailing '/' (".." kept). */
char *cc_dt_clean(const char *path);

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
cudnnctl_toolkit *cc_dt_toolkit_slot(cc_detect_run *run, cudnnctl_detect_result *r);

int cc_dt_note(cc_detect_run *run, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Free what a toolkit / cuDNN copy / driver owns (not the struct itself). */
void cc_dt_toolkit_clear(cudnnctl_toolkit *t);
void cc_dt_cudnn_clear(cudnnctl_cudnn_copy *c);
void cc_dt_driver_free(cudnnctl_driver *d);
/* Append a string to a (char **, size_t) list; takes s. 0 ok, -1 OOM. */
int cc_dt_list_push(char ***v, size_t *n, char *s);

/* Toolkit version sources (detect_tkversion.c). The include dir holding cuda.h /
 * cuda_runtime_api.h and the lib dir holding libcudart (root-relative as found, NULL when none);
 * -1 on OOM. */
int cc_dt_tk_include_dir(cc_detect_run *run, const char *dir, char **out);
int cc_dt_tk_lib_dir(cc_detect_run *run, const char *dir, char **lib_dir);
/* Read every version source of the toolkit at dir into t (t->include_dir / t->lib_dir set by the
 * caller; site: its site-packages for a wheel; env_applies: CUDA_VERSION describes it) and settle
 * on a version. -1 on OOM; t->version stays NULL when no source gave one. */
int cc_dt_toolkit_versions(cc_detect_run *run, const char *dir, const char *site, int env_applies,
                           cudnnctl_toolkit *t);

/* The scanners, in the order cudnnctl_detect calls them. */
cudnnctl_err cc_dt_find_sites(cc_detect_run *run);    /* detect_sites.c */
cudnnctl_err cc_dt_find_loader(cc_detect_run *run);   /* detect_sites.c */
cudnnctl_err cc_dt_find_toolkits(cc_detect_run *run); /* detect_toolkit.c */
cudnnctl_err cc_dt_find_driver(cc_detect_run *run);   /* detect_driver.c */
cudnnctl_err cc_dt_find_cudnn(cc_detect_run *run);    /* detect_cudnn.c */
/* Windows: CUDA_PATH*, the registry, the default dir, cuDNN DLLs (no-op elsewhere). */
cudnnctl_err cc_dt_find_windows(cc_detect_run *run);  /* detect_windows.c */

/* Windows paths (detect_windows.c): '\\' separators, compared case-insensitively; files read
 * through cc_rooted (C:\\X is ROOT/c/X under --root with a Windows host profile). */
char *cc_dt_win_norm(const char *p);
int cc_dt_win_same_path(const char *a, const char *b);
int cc_dt_win_ci_prefix(const char *a, const char *b, size_t n);
char *cc_dt_win_join(const char *a, const char *b);
int cc_dt_win_exists(cudnnctl_ctx *ctx, const char *p, int want_dir);
cc_pf_dir *cc_dt_win_opendir(cudnnctl_ctx *ctx, const char *p);
char *cc_dt_win_slurp(cudnnctl_ctx *ctx, const char *path, size_t max); /* NULL when absent */
int cc_dt_win_parse_vdir(const char *name, int *major, int *minor); /* "v12.4" -> 12, 4 */
/* cuDNN copies in the toolkits' bin dirs and NVIDIA's installer dirs (detect_wincudnn.c). */
int cc_dt_win_find_cudnn(cc_detect_run *run);

#endif
