/* doctor_int.h: what the doctor_*.c files share: the finding codes (one X-macro list with their
 * severities), the run state, and the check groups. Not installed. */
#ifndef CC_DOCTOR_INT_H
#define CC_DOCTOR_INT_H

#include "internal.h"

/* X(name, severity, summary). Codes are stable: add, never rename (docs/doctor.md). */
#define CC_DOCTOR_CODES(X)                                                                         \
    X(NO_TOOLKIT, WARNING, "no CUDA toolkit found")                                                \
    X(TOOLKIT_VERSION_DISAGREE, WARNING, "a toolkit's version sources disagree")                   \
    X(TOOLKIT_PROBLEM, WARNING, "a toolkit is partly unreadable")                                  \
    X(CUDA_LINK_DANGLING, ERROR, "/usr/local/cuda (or cuda-M) points at a missing dir")            \
    X(CUDA_LINK_NOT_TOOLKIT, WARNING, "/usr/local/cuda points at a dir that is no toolkit")        \
    X(NO_DRIVER, WARNING, "no NVIDIA driver found")                                                \
    X(DRIVER_TOO_OLD, ERROR, "the driver is older than the CUDA major in use needs")               \
    X(NO_CUDNN, INFO, "no cuDNN found")                                                            \
    X(CUDNN_LOADER_CONFLICT, WARNING, "several cuDNN versions of one major visible to the loader") \
    X(CUDNN_IN_LD_LIBRARY_PATH, INFO, "a cuDNN dir is on LD_LIBRARY_PATH, nothing swapped")           \
    X(CUDNN_LD_LIBRARY_PATH_OVERRIDE, ERROR,                                                       \
      "LD_LIBRARY_PATH swaps the cuDNN of programs that bundle another version")                   \
    X(CUDNN_MIXED_SUBLIBS, ERROR, "sub-libraries of different versions in one dir")                \
    X(CUDNN_INCOMPLETE, ERROR, "libcudnn.so.M or libcudnn_graph.so.M missing")                     \
    X(CUDNN_SUBLIB_MISSING, WARNING, "a standard sub-library of the major is missing")             \
    X(CUDNN_HEADER_MISMATCH, WARNING, "headers and libraries are different versions")              \
    X(CUDNN_HEADERS_ONLY, WARNING, "cuDNN headers without libraries")                              \
    X(CUDNN_BAD_LIBRARY, ERROR,                                                                    \
      "a libcudnn file is no ELF, lacks or mismatches its SONAME, or "                             \
      "is for another architecture")                                                               \
    X(CUDNN_DIST_INFO_MISMATCH, WARNING, "a wheel's dist-info disagrees with its files")           \
    X(CUDNN_VERSION_UNKNOWN, INFO, "only the major version of a copy is known")                    \
    X(CUDNN_PROBLEM, WARNING, "another problem detect saw in a cuDNN copy")                        \
    X(CUDNN_CUDA_MAJOR_MISMATCH, ERROR, "cuDNN built for another CUDA major than it runs with")    \
    X(CUDNN_NO_COPY_FOR_TOOLKIT, INFO, "no cuDNN for the active toolkit's CUDA major")             \
    X(CUDNN8_NO_LIBCUDA_SO, ERROR, "cuDNN 8 cannot dlopen the unversioned libcuda.so")             \
    X(CUDNN8_NO_LIBNVRTC_SO, ERROR, "cuDNN 8 cannot dlopen the unversioned libnvrtc.so")           \
    X(CUDNN_SONAME_LINK_MISSING, ERROR, "libX.so.M (the SONAME) is missing in a cuDNN dir")        \
    X(CUDNN_SONAME_LINK_BROKEN, ERROR, "libX.so.M dangles or points at another version")           \
    X(CUDNN_SONAME_FILE_SHADOWS, WARNING, "libX.so.M is a separate file beside libX.so.M.m.p")     \
    X(CUDNN_DEV_LINK_MISSING, WARNING, "libX.so (for linking) is missing in a cuDNN dir")          \
    X(CUDNN_DEV_LINK_BROKEN, WARNING, "libX.so dangles or points at another file than libX.so.M")  \
    X(RECEIPT_FILE_MISSING, ERROR, "a file an install placed is gone")                             \
    X(RECEIPT_FILE_MODIFIED, WARNING, "a file an install placed was changed")                      \
    X(RECEIPT_FILE_TOUCHED, INFO, "a file an install placed is newer than the install")            \
    X(RECEIPT_UNREADABLE, WARNING, "an install receipt cannot be read")                            \
    X(STALE_JOURNAL, ERROR, "an interrupted install or uninstall left its journal")             \
    X(CUDNN_SONAME_LINK_DANGLING, ERROR, "libX.so.M is a link to a file that does not exist")    \
    X(CUDNN_LIB_UNREADABLE, ERROR, "a cuDNN library exists but the user may not read it")        \
    X(CUDNN8_STALE_SUBLIBS, ERROR, "cuDNN 8 sub-libraries left beside a cuDNN 9")                \
    X(NVCC_NOT_CUDA_HOME, WARNING, "the nvcc on PATH belongs to another toolkit than CUDA_HOME") \
    X(TOOLKIT_NOT_IN_LOADER_PATH, WARNING, "the active toolkit's lib dir is in no loader path")  \
    X(CUDNN_NOT_IN_LOADER_PATH, WARNING, "a cuDNN lib dir is in no loader path")                 \
    X(CUDNN_SHADOWED, WARNING, "LD_LIBRARY_PATH makes another copy of a cuDNN major win")        \
    X(CONSUMER_CUDNN_MAJOR_MISSING, ERROR, "the --for consumer needs a cuDNN major not present") \
    X(CONSUMER_CUDNN_TOO_OLD, ERROR, "the --for consumer needs a newer cuDNN of its major")      \
    X(CONSUMER_CUDA_MISMATCH, ERROR, "the --for consumer's cuDNN is built for another CUDA")     \
    X(WIN_ZLIBWAPI_MISSING, ERROR, "a Windows cuDNN 8.3-9.1 has no zlibwapi.dll it can load")    \
    X(WIN_CUDA_BIN_X64_NOT_ON_PATH, ERROR, "CUDA 13's bin\\x64 (its DLLs) is not on PATH")       \
    X(WIN_CUDA_PATH_MISSING, ERROR, "CUDA_PATH (or CUDA_PATH_Vx_y) names a removed toolkit")     \
    X(WIN_CUDNN_DLL_SETS_ON_PATH, WARNING, "two cuDNN DLL sets of one major on PATH")            \
    X(WIN_CUDNN_NOT_ON_PATH, WARNING, "a Windows cuDNN's DLL dir is not on PATH")                  \
    X(PYTHON_FRAMEWORK_CUDNN_MISMATCH, ERROR,                                                      \
      "a framework of --python EXE would load a cuDNN it cannot use")                              \
    X(PYTHON_FRAMEWORK_NO_CUDNN, ERROR, "a framework of --python EXE finds no cuDNN")             \
    X(CUDNN_JIT_NO_LEGACY_API, WARNING,                                                            \
      "a JIT-flavour cuDNN: legacy-API programs load libcudnn_ops/_cnn/_adv from elsewhere")   \
    X(BUILD_CUDNN_MISMATCH, WARNING,                                                               \
      "a compiler's cudnn.h or ld's libcudnn is another release than programs load")   \
    X(CUDNN_PREFIX_NOT_ACTIVE, INFO,                                                               \
      "a cudnnctl prefix install is not what programs here map (another release is)")             \
    X(DRIVER_LIBRARY_MISMATCH, ERROR,                                                              \
      "the user-space driver (libcuda) is another release than the kernel module")

typedef enum {
#define X(name, sev, summary) CC_DC_##name,
    CC_DOCTOR_CODES(X)
#undef X
        CC_DC__COUNT
} cc_doctor_code;

/* An install made by cudnnctl, as its receipt tells (doctor_state.c). */
typedef struct {
    char *lib_dir; /* as the user sees it */
    char *install_dir;
    int cuda_major; /* -1 unknown */
} cc_diag_install;

/* The state of one doctor run. */
typedef struct {
    cudnnctl_ctx *ctx;
    const cudnnctl_detect_result *det;
    const cudnnctl_doctor_opts *opts;
    cudnnctl_doctor_result *r;
    size_t cap;
    int oom;
    cc_diag_install *installs; /* from the receipts */
    size_t n_installs;
    void *receipts; /* doctor_state.c's loaded receipts */
    void *catalog;  /* the embedded catalog, loaded by the first fix that names an install */
    int catalog_failed;
    cc_strv loader_dirs; /* resolved dirs of ld.so.conf, its cache and the defaults */
    cc_strv llp_dirs;    /* resolved LD_LIBRARY_PATH dirs, in order */
    int loader_done;
    char elf_how[320]; /* cc_diag_copy_variant's evidence when it came from a library's ELF */
    cudnnctl_err err; /* a usage error a check found (a bad --for); the run fails with it */
} cc_doctor_run;

/* Add a finding (message from fmt; fix and path copied, may be NULL). Out of memory is
 * remembered in run->oom and reported once at the end. */
void cc_diag_add(cc_doctor_run *run, cc_doctor_code code, const char *path, const char *fix,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The same with a shell command that applies the fix (cudnnctl_finding::command). */
void cc_diag_add_cmd(cc_doctor_run *run, cc_doctor_code code, const char *path, const char *fix,
                     const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* cc_diag_add_cmd that takes fix and command (malloc'd or NULL) and frees them. */
void cc_diag_add_own(cc_doctor_run *run, cc_doctor_code code, const char *path, char *fix,
                     char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* CUDNN_JIT_NO_LEGACY_API about the JIT-flavour cuDNN in lib_dir (once per dir). */
void cc_diag_jit_finding(cc_doctor_run *run, const char *lib_dir, const char *version, int major);
/* 1 when a finding of code (about path, NULL: any) was already added. */
int cc_diag_has(const cc_doctor_run *run, cc_doctor_code code, const char *path);
/* A word quoted for sh when it needs it (malloc'd). */
char *cc_diag_quote(const char *s);
/* The host path of a root-relative path, quoted for sh (malloc'd). */
char *cc_diag_qhost(cc_doctor_run *run, const char *path);
/* "cudnnctl [--root R] ARGS" (malloc'd): a cudnnctl command that acts on the same root. */
char *cc_diag_cli(cc_doctor_run *run, const char *args);
/* The activation of the cudnnctl prefix that holds lib_dir, for this shell: the very command
 * install and validate print (cudnnctl_activation_fix), with --root when doctor runs under one;
 * NULL when lib_dir is no prefix's. */
char *cc_diag_activation(cc_doctor_run *run, const char *lib_dir);

/* The check groups, in the order cudnnctl_doctor runs them. Each returns 0, -1 on OOM. */
int cc_diag_check_toolkits(cc_doctor_run *run); /* doctor_system.c */
int cc_diag_check_driver(cc_doctor_run *run);   /* doctor_system.c */
int cc_diag_check_cudnn(cc_doctor_run *run);    /* doctor_cudnn.c */
int cc_diag_check_links(cc_doctor_run *run);    /* doctor_links.c */
int cc_diag_check_loader(cc_doctor_run *run);   /* doctor_links.c: cuDNN 8 dlopen targets */
int cc_diag_check_state(cc_doctor_run *run);    /* doctor_state.c: receipts and journal */
int cc_diag_check_files(cc_doctor_run *run);    /* doctor_files.c: dangling, unreadable, stale 8 */
int cc_diag_check_paths(cc_doctor_run *run);    /* doctor_paths.c: nvcc, loader path, shadowing */
int cc_diag_check_consumer(cc_doctor_run *run); /* doctor_consumer.c: --for */
int cc_diag_check_windows(cc_doctor_run *run);  /* doctor_windows.c: --platform windows-x86_64 */
/* "--cudnn M.m --cuda C" of the newest catalog release of cuDNN major (at least minor when
 * >= 0) that has a build for CUDA cuda_major on this platform, or NULL when the catalog has
 * none (then no `cudnnctl install` may be suggested). doctor_fixes.c. */
char *cc_diag_install_args(cc_doctor_run *run, int major, int minor, int cuda_major);
void cc_diag_catalog_free(cc_doctor_run *run);
/* Fill run->loader_dirs / llp_dirs once (doctor_finding.c). 0 ok, -1 OOM. */
int cc_diag_loader(cc_doctor_run *run);
/* LD_LIBRARY_PATH as the user wrote it without the entries that resolve to the resolved dir
 * (malloc'd; "" when nothing is left). doctor_paths.c. */
char *cc_diag_llp_without(cc_doctor_run *run, const char *dir);
/* "export LD_LIBRARY_PATH=..." without the entries of a root-relative dir (malloc'd). */
char *cc_diag_llp_cmd(cc_doctor_run *run, const char *dir);
/* 1 when a copy is only cuDNN 8 sub-libraries left in a dir of a cuDNN 9 (doctor_finding.c). */
int cc_diag_stale8(cc_doctor_run *run, const cudnnctl_cudnn_copy *c);
/* The CUDA major a library's own ELF says it was built for: DT_NEEDED libcudart.so.N,
 * libcublasLt.so.N, libcublas.so.N, libnvrtc.so.N, or a RUNPATH naming .../cuN/lib (NVIDIA's
 * wheels); -1 unknown. *what names the evidence (static buffer of the run). doctor_files.c. */
int cc_diag_elf_variant(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, char *what, size_t n);
int cc_diag_check_python(cc_doctor_run *run); /* doctor_python.c: --python EXE */
int cc_diag_check_build(cc_doctor_run *run);  /* doctor_build.c: built against X, runs with Y */
/* Load the receipts (before the checks: variants come from them too) and free them again. */
int cc_diag_state_load(cc_doctor_run *run);
void cc_diag_state_free(cc_doctor_run *run);

/* Helpers shared by the checks. */
/* The host path of a root-relative path (malloc'd). */
char *cc_diag_host(cc_doctor_run *run, const char *path);
/* lstat a root-relative path. */
int cc_diag_lstat(cc_doctor_run *run, const char *path, cc_pf_stat_t *st);
/* Follow a root-relative path's links (absolute targets re-rooted) to the root-relative file
 * it ends at (malloc'd). *dangling = 1 when some step does not exist; NULL on a loop / OOM. */
char *cc_diag_resolve(cc_doctor_run *run, const char *path, int *dangling);
/* Names in a root-relative dir starting with prefix (sorted). 0 ok, -1 unreadable. */
int cc_diag_list(cc_doctor_run *run, const char *dir, const char *prefix, cc_strv *out);
/* The CUDA major a cuDNN copy was built for, when something says so (wheel dist-info name,
 * prefix dir name cudnn-<v>-cuda<M>, an install receipt); -1 unknown. *how names the source. */
int cc_diag_copy_variant(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char **how);
/* Two copies' releases compared by major.minor.patch: -1, 0, 1; -2 when either is unknown
 * (doctor_finding.c). */
int cc_diag_release_cmp(const cudnnctl_cudnn_copy *a, const cudnnctl_cudnn_copy *b);
/* The copy a program without RPATH / RUNPATH maps for libcudnn.so.<major> in this environment
 * (the loader model with the user's LD_LIBRARY_PATH); NULL when none or not a detected copy. */
const cudnnctl_cudnn_copy *cc_diag_env_winner(cc_doctor_run *run, int major);
/* 1 when dir is the lib dir of an install cudnnctl's receipts know (what its activation wires). */
int cc_diag_is_install(const cc_doctor_run *run, const char *dir);
/* doctor_variant.c: the site-packages dir of a wheel copy (".../site-packages/nvidia/cudnn/lib"),
 * malloc'd, NULL for other copies; the CUDA-major check of one copy. */
char *cc_diag_wheel_site(const char *path);
void cc_diag_variant_check(cc_doctor_run *run, const cudnnctl_cudnn_copy *c);
/* doctor_owner.c: the command that reinstalls a copy's release through its owner (NULL: none
 * known); the finding for a library built for another CPU (problem p). */
char *cc_diag_reinstall_cmd(cc_doctor_run *run, const cudnnctl_cudnn_copy *c);
void cc_diag_foreign_arch(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *p);
/* The toolkit whose tree holds a dir, NULL when none. */
const cudnnctl_toolkit *cc_diag_toolkit_of(const cudnnctl_detect_result *det, const char *dir);

#endif
