/**
 * @file loader.h
 * @brief The dynamic loader, modelled: which file a process maps for a soname, and why
 * (glibc's search order, the real /etc/ld.so.cache), and which cuDNN / CUDA runtime / cuBLAS a
 * consumer (a program, a shared object, a Python interpreter's frameworks) will really load.
 * Included by cudnnctl.h; do not include directly. See docs/which.md.
 */
#ifndef CUDNNCTL_LOADER_H
#define CUDNNCTL_LOADER_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/loader.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The environment the model runs in. Every member may be NULL. */
typedef struct {
    const char *ld_library_path; /**< the LD_LIBRARY_PATH to model; NULL = unset */
    const char *cache_file;      /**< NULL: /etc/ld.so.cache under --root; "" = no cache */
    /** The program (its DT_RPATH applies to every object it loads when that object has no
     *  DT_RUNPATH); NULL = a program without RPATH / RUNPATH. */
    const char *main_exe;
} cudnnctl_loader_env;

/** The answer for one soname. Paths are root-relative under --root. */
typedef struct {
    char *soname;    /**< what was asked for ("libcudnn.so.9") */
    char *requester; /**< the object that asks (DT_NEEDED / dlopen caller); NULL = a program */
    char *path;      /**< the file mapped, as the loader names it (dir + soname); NULL: none */
    char *real_path; /**< path with links resolved */
    /** "rpath", "ld_library_path", "runpath", "ld.so.cache", "default_dirs", "path" (a name with
     *  a slash), "loaded" (already in the process), "not_found", "error" (the loader stops). */
    char *rule;
    char *dir;     /**< the dir it came from (the cache file for "ld.so.cache") */
    char *from;    /**< the object whose RPATH / RUNPATH named dir; NULL otherwise */
    char *why;     /**< one sentence */
    /** cuDNN: the release of the copy the file belongs to, read from the files ("9.19.0.56":
     *  the core library's tag, a versioned name, cudnn_version.h, the wheel's dist-info); other
     *  libraries: from the file name ("13.0.96", "13"). NULL when unknown */
    char *version;
    char **skipped; /**< "PATH: reason" for each candidate passed over, in search order */
    size_t n_skipped;
    char *version_source; /**< where version came from (one phrase); NULL when unknown */
} cudnnctl_load_result;

/**
 * Where would @p requester (an ELF path; NULL = a program without RPATH / RUNPATH) find
 * @p soname: DT_RPATH of the requester and of the program (only when the requester has no
 * DT_RUNPATH), LD_LIBRARY_PATH, the requester's DT_RUNPATH, ld.so.cache, the default dirs
 * (glibc-hwcaps subdirs first in each dir); $ORIGIN, $LIB, $PLATFORM expanded.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_loader_resolve(cudnnctl_ctx *ctx,
                                                  const cudnnctl_loader_env *env,
                                                  const char *requester, const char *soname,
                                                  cudnnctl_load_result **out);
CUDNNCTL_API void cudnnctl_load_result_free(cudnnctl_load_result *r);
/** JSON object {soname, requester, path, real_path, rule, dir, from, why, version, skipped[]}. */
CUDNNCTL_API cudnnctl_err cudnnctl_load_result_json(const cudnnctl_load_result *r, char **json);

/** Every object a program or shared object loads at start-up, breadth first as ld.so does. */
typedef struct {
    cudnnctl_load_result *v;
    size_t n;
} cudnnctl_load_tree;

/** The load tree of @p consumer (a program or shared object) under @p env; free it with
 *  cudnnctl_load_tree_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_loader_tree(cudnnctl_ctx *ctx, const cudnnctl_loader_env *env,
                                               const char *consumer, cudnnctl_load_tree **out);
CUDNNCTL_API void cudnnctl_load_tree_free(cudnnctl_load_tree *t);

/** The Windows DLL search order, as policy. */
typedef struct {
    const char *app_dir;          /**< the directory of the .exe */
    const char *dll_dir;          /**< the loading DLL's dir (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) */
    const char *system_dir;       /**< C:\\Windows\\System32 */
    const char *windows_dir;      /**< C:\\Windows */
    const char *cwd;              /**< current directory (standard order only) */
    const char *path;             /**< PATH, ';'-separated (standard order only) */
    const char *const *user_dirs; /**< AddDllDirectory / os.add_dll_directory dirs, in call order */
    size_t n_user_dirs;
    /** 1: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python >= 3.8 extension modules): app dir, user
     *  dirs, System32 — PATH is not searched. 0: the standard (SafeDllSearchMode) order. */
    int default_dirs;
} cudnnctl_dll_env;

/** The standard order as this process would search it for a plain LoadLibrary(@p dll): the
 *  running binary's dir, %SystemRoot%\\System32, %SystemRoot%, PATH (the current dir is left
 *  out). Policy on any OS; on Windows the real loader can be compared (`__load-probe`). */
CUDNNCTL_API cudnnctl_err cudnnctl_dll_which(cudnnctl_ctx *ctx, const char *dll,
                                             cudnnctl_load_result **out);
/** Which file LoadLibrary finds for @p dll (files looked up under --root). */
CUDNNCTL_API cudnnctl_err cudnnctl_dll_resolve(cudnnctl_ctx *ctx, const cudnnctl_dll_env *env,
                                               const char *dll, cudnnctl_load_result **out);

/** One consumer and what it will load: the environment itself (a program without RPATH /
 *  RUNPATH), an ELF consumer, or one framework found in a Python interpreter's site dirs. */
typedef struct {
    char *kind;      /**< "environment", "elf", "framework" */
    char *name;      /**< "torch", "onnxruntime-gpu", ...; the ELF path; "environment" */
    char *version;   /**< the distribution's version (dist-info METADATA); NULL */
    char *location;  /**< the package dir; NULL */
    char *extension; /**< the CUDA extension ELF that loads cuDNN (the requester); NULL */
    char *build_cudnn; /**< what it was built for: "==9.19.0.56", ">=9.12.0.46,<10.0", "9" */
    char *build_cuda;  /**< "13.0", "13", "12.5.1"; NULL when unknown */
    char *build_source; /**< where those came from ("METADATA Requires-Dist", "build_info.py") */
    int need_cudnn_major, need_cudnn_minor; /**< -1 when unknown */
    int need_cuda_major;                    /**< -1 when unknown */
    cudnnctl_load_result *libs; /**< libcudnn, libcudart, libcublas as it would load them */
    size_t n_libs;
    int loaded_cudnn_cuda_major; /**< CUDA major the loaded cuDNN was built for; -1 unknown */
    char *loaded_cudnn_cuda_source; /**< how that is known (DT_NEEDED, the wheel, ...) */
    /** "ok", "mismatch" (loads something that cannot work), "missing" (nothing found),
     *  "unknown" (nothing to check against) */
    char *verdict;
    char **problems; /**< one sentence each */
    size_t n_problems;
    /** 1 when a system-wide install (ld.so.conf.d, the default dirs) can change the cuDNN it
     *  loads; 0 when a rule that comes first (RPATH, LD_LIBRARY_PATH, RUNPATH) decides it. */
    int system_install_affects;
    int ld_library_path_affects; /**< 1 when LD_LIBRARY_PATH can change it (no RPATH before) */
    /** facts that are no problem, one sentence each ("libcudnn_graph.so.9 comes from another dir:
     *  the same release 9.19.0.56, so they fit") */
    char **notes;
    size_t n_notes;
    /** every cuDNN file it maps, links resolved, in load order: libcudnn.so.M, then the
     *  sub-libraries it loads itself (what /proc/self/maps shows after its first operation) */
    char **maps;
    size_t n_maps;
    unsigned causes;   /**< CUDNNCTL_CAUSE_* bits of its problems (0: nothing to fix) */
    /** the one fix for those causes, decided in one place (loader/consumer_fix.c) and printed
     *  by which and doctor alike; NULL when there is nothing to fix */
    char *fix;
    char *fix_command; /**< the shell command that applies it; NULL when it needs a person */
} cudnnctl_consumer;

/* cudnnctl_consumer::causes */
#define CUDNNCTL_CAUSE_NOT_FOUND 0x01u  /**< no libcudnn.so.M is found */
#define CUDNNCTL_CAUSE_BAD_FILE 0x02u   /**< the loader stops on a file that is no ELF */
#define CUDNNCTL_CAUSE_MAJOR 0x04u      /**< another cuDNN major than it was built for */
#define CUDNNCTL_CAUSE_TOO_OLD 0x08u    /**< an older minor than it was built for */
#define CUDNNCTL_CAUSE_CUDA_MAJOR 0x10u /**< a cuDNN built for another CUDA major */
#define CUDNNCTL_CAUSE_DRIVER 0x20u     /**< the driver is below its CUDA major's floor */
#define CUDNNCTL_CAUSE_MIXED 0x40u      /**< sub-libraries of another release */

/** What `which` looks at. */
typedef struct {
    cudnnctl_loader_env env;
    const char *consumer; /**< an ELF program or shared object; NULL */
    const char *python;   /**< a Python interpreter; NULL */
    const char *driver_version; /**< NULL: read from /proc/driver/nvidia/version */
    /** 1: model this process's LD_LIBRARY_PATH (env.ld_library_path is then ignored) */
    int inherit_ld_library_path;
    /** a shell activation file (`cudnnctl env` output): LD_LIBRARY_PATH after evaluating it
     *  with sh, starting from the one above; NULL = none */
    const char *env_of;
} cudnnctl_which_opts;

typedef struct {
    cudnnctl_consumer *v;
    size_t n;
    char *python;      /**< the interpreter asked about; NULL */
    char **site_dirs;  /**< its site dirs (from running it: paths only, nothing imported) */
    size_t n_site_dirs;
    char *ld_library_path; /**< the LD_LIBRARY_PATH modelled; NULL = unset */
    char *driver_version;  /**< NULL when no NVIDIA driver is loaded */
    /** The loader modelled (docs/which.md, "$PLATFORM and glibc-hwcaps"): its glibc version
     *  (NULL unknown), what `$PLATFORM` expands to (NULL: nothing; an element naming it is
     *  dropped), the glibc-hwcaps subdirs tried first in every dir, how that was decided, and 1
     *  when it is assumed rather than this machine's loader's answer (--root). */
    char *loader_glibc;
    char *loader_platform;
    char **loader_hwcaps;
    size_t n_loader_hwcaps;
    char *loader_source;
    int loader_assumed;
} cudnnctl_which_report;

/** Build the report (docs/which.md). */
CUDNNCTL_API cudnnctl_err cudnnctl_which(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                                         cudnnctl_which_report **out);
CUDNNCTL_API void cudnnctl_which_report_free(cudnnctl_which_report *r);
/** JSON: docs/which.md ("schema": "cudnnctl-which/1"). */
CUDNNCTL_API cudnnctl_err cudnnctl_which_report_json(const cudnnctl_which_report *r, char **json);

/** LD_LIBRARY_PATH after evaluating a shell activation file (`cudnnctl env` output) with sh
 *  (or bash / zsh when the text needs it), starting from @p base (NULL = unset). */
CUDNNCTL_API cudnnctl_err cudnnctl_env_of(cudnnctl_ctx *ctx, const char *file, const char *base,
                                          char **ld_library_path);

/** The effective check: which file the real loader maps for a soname. */
typedef struct {
    char *soname;
    char *scope;  /**< "current" (this environment) or "login" (a new login shell's) */
    char *mapped; /**< the file the child mapped (as the loader named it); NULL: not loadable */
    char *mapped_real;
    char *ld_library_path; /**< in that environment; NULL = unset */
    char *error;           /**< dlerror() text when it did not load */
    cudnnctl_load_result *model; /**< the model's answer for the same environment (the why) */
    char *expected; /**< the dir that should win; NULL = no expectation */
    int matches;  /**< 1 when mapped is inside the expected dir (or no expectation) */
    char *fix;    /**< a command that makes the expected copy win; NULL when matches */
    int not_run;  /**< the probe could not be started (no bash in that scope, ...), or as root was
                       not run (error says why: a start-up file another user can write) */
    /** 1: nothing was loaded: as root the loader model's prediction (mapped) touched a file or
     *  dir another user could write; error says which. mapped is then the model's answer. */
    int modelled;
    /** 1 when the file mapped is another copy of the expected copy's release (read from the
     *  files): it fits, so the line is information, not a warning (fix still names the way to
     *  make the expected copy's own files win) */
    int same_release;
} cudnnctl_effective;

/**
 * Re-run this program (@p self_exe; NULL = the running binary) as `__load-probe SONAME` in a
 * child: once with this process's environment ("current"), once (not under --root) in a new
 * login shell ("login": `bash -lic` started from a clean environment with the effective user's
 * passwd home and name, never $HOME, and no controlling terminal; as root only when the start-up
 * files it would run are root's: else not_run with the reason). As root the child loads nothing
 * the loader model says another user could have written (modelled). Compare
 * the file each maps with @p expect_dir (the lib dir just installed or selected; NULL =
 * no expectation). @p fix_current / @p fix_login: the command that makes it win in each scope
 * (NULL: cudnnctl_activation_fix for expect_dir). out[0..*n).
 */
CUDNNCTL_API cudnnctl_err cudnnctl_effective_check(cudnnctl_ctx *ctx, const char *self_exe,
                                                   const char *soname, const char *expect_dir,
                                                   const char *fix_current,
                                                   const char *fix_login, unsigned flags,
                                                   cudnnctl_effective **out, size_t *n);
/** cudnnctl_effective_check flag: the current environment only (no login shell). */
#define CUDNNCTL_EFFECTIVE_CURRENT_ONLY 1u
/** The effective check in two halves, so that its children start before the work they check
 *  and a login shell's start-up (the slow part: /etc/profile, modules, conda hooks) runs while
 *  an install commits: cudnnctl_effective_start spawns the children now (`__load-probe -`: their
 *  environments, and the login shell's start-up files, are those of now; the same rules as
 *  cudnnctl_effective_check, as root too), and each waits for the soname on its stdin;
 *  cudnnctl_effective_finish sends it (the loading, and so ld.so.cache and the files, are those
 *  of then), collects and judges as cudnnctl_effective_check does, and frees @p p;
 *  cudnnctl_effective_cancel stops the children unasked (the work failed). *out = NULL where the
 *  platform has no such loader (Windows): finish then returns no entries. */
typedef struct cudnnctl_effective_probe cudnnctl_effective_probe;
CUDNNCTL_API cudnnctl_err cudnnctl_effective_start(cudnnctl_ctx *ctx, const char *self_exe,
                                                   unsigned flags,
                                                   cudnnctl_effective_probe **out);
CUDNNCTL_API cudnnctl_err cudnnctl_effective_finish(cudnnctl_ctx *ctx, cudnnctl_effective_probe *p,
                                                    const char *soname, const char *expect_dir,
                                                    const char *fix_current,
                                                    const char *fix_login,
                                                    cudnnctl_effective **out, size_t *n);
CUDNNCTL_API void cudnnctl_effective_cancel(cudnnctl_effective_probe *p);
CUDNNCTL_API void cudnnctl_effective_free(cudnnctl_effective *v, size_t n);
CUDNNCTL_API cudnnctl_err cudnnctl_effective_json(const cudnnctl_effective *v, size_t n,
                                                  char **json);
/** The cudnnctl prefix P that holds @p lib_dir (P/current/lib, P/cudnn-<version>-cuda<M>/lib,
 *  with P/current present); NULL when it is no prefix's. Free with cudnnctl_free. */
CUDNNCTL_API char *cudnnctl_prefix_of(cudnnctl_ctx *ctx, const char *lib_dir);
/** The one command that makes the cuDNN in @p lib_dir the one programs map (issue 20: install,
 *  validate, use, env and doctor print this same command for the same situation). @p scope
 *  "current" (this shell) or "login" (new login shells, system-wide). @p env_args: the `cudnnctl
 *  env` selection that names the copy (" --prefix P", " 13.0"); NULL: derived from lib_dir — a
 *  prefix's dir gives `eval "$(cudnnctl env --prefix P)"` / `[sudo ]cudnnctl env --persist
 *  --system --prefix P`, any other dir an LD_LIBRARY_PATH export / `env --persist --system
 *  TREE`. Free with cudnnctl_free. */
CUDNNCTL_API char *cudnnctl_activation_fix(cudnnctl_ctx *ctx, const char *lib_dir,
                                           const char *scope, const char *env_args);
/** One line for a mismatch: the winner, why it wins, the fix. NULL when it matches. */
CUDNNCTL_API char *cudnnctl_effective_line(const cudnnctl_effective *e);

/** The child side of the check (the hidden `__load-probe` command): dlopen each soname by name
 *  and emit "cudnnctl-load: SONAME PATH" (or "cudnnctl-load: SONAME - ERROR") lines. */
CUDNNCTL_API cudnnctl_err cudnnctl_load_probe_child(cudnnctl_ctx *ctx, const char *const *sonames,
                                                    size_t n, void (*emit)(void *, const char *),
                                                    void *user);

/** 1 when a program without RPATH / RUNPATH and without LD_LIBRARY_PATH would map @p soname
 *  from @p dir (ld.so.cache or the default dirs lead there); 0 otherwise. */
CUDNNCTL_API int cudnnctl_loader_default_finds(cudnnctl_ctx *ctx, const char *soname,
                                               const char *dir);

/** The NVIDIA driver stack as user space sees it (under --root too). */
typedef struct {
    char *libcuda;         /**< the libcuda.so.1 a program maps (as the loader names it); NULL */
    char *libcuda_real;    /**< links resolved */
    char *libcuda_version; /**< "580.95.05" from the file's name; NULL when it does not say */
    int libcuda_compat;    /**< it comes from a CUDA forward-compatibility dir (.../compat/) */
    char *kernel_version;  /**< the kernel module's version; NULL when not readable */
    const char *kernel_source; /**< "/proc/driver/nvidia/version" or "/sys/module/nvidia/version" */
    char *container; /**< "docker", "podman", "kubernetes", "containerd", "lxc", "container"; NULL */
    int device_nodes;      /**< /dev/nvidia<N> nodes beside /dev/nvidiactl (0: none exposed) */
    char *visible_devices; /**< NVIDIA_VISIBLE_DEVICES (set by NVIDIA's images); NULL unset */
} cudnnctl_driver_stack;

/** Read the driver stack (libcuda the loader maps, the kernel module's version, the container
 *  and its device nodes) into *out; free it with cudnnctl_driver_stack_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_driver_stack_read(cudnnctl_ctx *ctx,
                                                     cudnnctl_driver_stack **out);
CUDNNCTL_API void cudnnctl_driver_stack_free(cudnnctl_driver_stack *s);

/** 1 when this process runs as root / elevated (fixes then need no sudo). */
CUDNNCTL_API int cudnnctl_is_elevated(void);

#ifdef __cplusplus
}
#endif
#endif
