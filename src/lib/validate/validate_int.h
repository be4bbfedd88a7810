/* validate_int.h: what the validate files share: the parent/child protocol, target resolution,
 * the pure checks (version encodings, file-name versions, loaded-from rule, fp16) and the result
 * builder. Not installed. */
#ifndef CC_VALIDATE_INT_H
#define CC_VALIDATE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Every report line of the child starts with this marker, followed by one JSON object. Text
 * without it is what vendor libraries printed (they share the child's stdout and stderr). */
#define CC_VAL_MARK "@@cudnnctl-validate@@ "

/* ---- target resolution (validate_target.c) ------------------------------------------------- */
typedef struct {
    char *lib_dir;     /* real dir (rooted) holding libcudnn.so.<M> */
    char *cudnn_lib;   /* lib_dir/libcudnn.so.<M> */
    int major;         /* M */
    char *include_dir; /* dir of the cudnn version header, NULL when none found */
    char *header_file; /* that header */
    char *header_version; /* "9.19.0" */
    cc_strv toolkit_dirs; /* dirs to take libcudart / cuBLAS / nvrtc from, best first */
    int jit; /* the Graph JIT flavour: libcudnn_graph and the runtime-compiled engines, no
              * libcudnn_ops / _cnn / _adv (cc_val_is_jit) */
} cc_val_target;

cudnnctl_err cc_val_resolve_target(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *opts,
                                   cc_val_target *t);
void cc_val_target_free(cc_val_target *t);
/* As root: CUDNNCTL_E_UNTRUSTED (exit 9) when a file the child would load (the target's lib dir,
 * the toolkit dirs) or a dir above one could have been written by another user; the error names
 * it and the fix (validate it as that user: runuser -u USER -- cudnnctl validate ...). */
cudnnctl_err cc_val_trust(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *o,
                          const cc_val_target *t);
/* Files named <stem>.so.<N> or <stem>.so.<N>.<n> (CUDA 11's libcudart.so.11.0) in dir: the
 * highest N, or exactly want when want >= 0; -1 when none. *name (optional) gets the file's base
 * name (malloc'd). */
int cc_val_find_soname(const char *dir, const char *stem, int want, char **name);
/* 1 when lib_dir holds the JIT flavour of cuDNN <major>: libcudnn_graph.so.M and
 * libcudnn_engines_runtime_compiled.so.M, and none of the legacy-API sub-libraries
 * (libcudnn_ops / _cnn / _adv). */
int cc_val_is_jit(const char *lib_dir, int major);
/* Parse CUDNN_MAJOR / CUDNN_MINOR / CUDNN_PATCHLEVEL from a header's text: "9.19.0" (malloc'd)
 * or NULL. */
char *cc_val_header_version(const char *text);
/* A toolkit root, a lib dir or a libcudart file → the lib dirs to search (appended to out). */
int cc_val_toolkit_dirs(const char *path, cc_strv *out);

/* ---- pure helpers (validate_util.c) --------------------------------------------------------- */
/* cudnnGetVersion() → major/minor/patch: 9.x = M*10000+m*100+p, up to 8.x = M*1000+m*100+p. */
void cc_val_decode_cudnn_version(long v, int *major, int *minor, int *patch);
/* The version a library file name carries after ".so." ("libcudnn_ops.so.9.19.0" → 3 parts);
 * returns the number of parts (0 when none). */
int cc_val_file_version(const char *name, int parts[3]);
/* The loaded-from rule for one mapped libcudnn* file: its dir (links in the dir resolved) must be
 * the target dir, and every version its mapped name and real name carry must match the library's
 * (major, minor, patch). Returns NULL when it passes, else a malloc'd reason naming the file. */
char *cc_val_judge_module(const char *mapped, const char *real, const char *mapped_dir_real,
                          const char *target_dir_real, int major, int minor, int patch);
/* IEEE half <-> float (round to nearest even). */
uint16_t cc_val_f2h(float f);
float cc_val_h2f(uint16_t h);
/* The scrubbed environment for the child: allowlisted variables only, PATH without dirs that hold
 * cuDNN libraries, never LD_LIBRARY_PATH / LD_PRELOAD. NULL-terminated "K=V" list in out. */
int cc_val_child_env(cc_strv *out);

/* ---- CPU references and deterministic data (validate_ref.c) --------------------------------- */
/* Values k/8 for k in -8..8: exact in fp16, TF32 and fp32, so products and sums are exact. */
void cc_val_fill(float *v, size_t n, uint32_t seed);
/* NCHW cross-correlation (cuDNN's CUDNN_CROSS_CORRELATION) with zero padding, in double. */
void cc_val_ref_conv(const float *x, const float *w, double *y, int n, int c, int h, int wd, int k,
                     int r, int s, int pad, int stride, int oh, int ow);
void cc_val_ref_relu(const float *x, double *y, size_t n);
/* Max pooling, window win x win, stride win, no padding. */
void cc_val_ref_maxpool(const float *x, double *y, int n, int c, int h, int w, int win, int oh,
                        int ow);
/* Largest |got - ref| and whether every |got - ref| <= tol * (1 + |ref|). */
int cc_val_compare(const float *got, const double *ref, size_t n, double tol, double *max_abs);

/* ---- child side (validate_child.c, validate_vendor.c, validate_compute.c, validate_check.c) -- */
typedef struct cc_val_child cc_val_child;
/* Report helpers used by the child's files (validate_check.c). */
void cc_val_step(cc_val_child *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Report one check. error NULL = passed. max_abs/tol < 0 = not applicable. */
void cc_val_check(cc_val_child *c, const char *name, int ok, int skipped, double seconds,
                  double max_abs, double tol, const char *error, const char *detail);
double cc_val_now(void); /* seconds, monotonic */

/* ---- result (validate_result.c) ------------------------------------------------------------- */
/* Build the result from the child's whole output (report lines + vendor text), its exit state
 * (cc_pf_run's status: exit code, -1 timeout, -2 signal) and the timeout used. */
cudnnctl_err cc_val_parse_report(cudnnctl_ctx *ctx, const char *out, size_t len, int status,
                                 unsigned timeout_ms, cudnnctl_validate_result *r);
/* Append a check to a result (strings copied). */
int cc_val_result_add_check(cudnnctl_validate_result *r, const char *name, int ok, int skipped,
                            double seconds, double max_abs, double tol, const char *error,
                            const char *detail);
/* status from the checks: failed if any check failed, no-gpu if the GPU part was skipped. */
void cc_val_result_finish(cudnnctl_validate_result *r, int gpu_skipped);

/* validate_effective.c: the effective_load check (a process that dlopens libcudnn.so.<M> by
 * name in this environment: does it map the validated dir?). Informational: added after the
 * status is decided. */
void cc_val_effective(cudnnctl_ctx *ctx, cudnnctl_validate_result *r, const char *exe, int major);

#endif
