/**
 * @file envwire.h
 * @brief Environment wiring: shell activation (`env`) and persistent wiring (profile.d,
 * ld.so.conf.d, rc files). Switching the active CUDA toolkit (`use`): use.h.
 * Included by cudnnctl.h; do not include directly.
 *
 * All paths in these structures are as the user sees them (root-relative under --root).
 * A cuDNN dir is never written into a persistent LD_LIBRARY_PATH: system-wide library lookup is
 * wired through /etc/ld.so.conf.d (see docs/environment.md).
 */
#ifndef CUDNNCTL_ENVWIRE_H
#define CUDNNCTL_ENVWIRE_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/envwire.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Shells activation text can be rendered for. */
typedef enum {
    CUDNNCTL_SHELL_SH = 0, /**< POSIX sh (dash); also what bash and zsh get */
    CUDNNCTL_SHELL_BASH,
    CUDNNCTL_SHELL_ZSH,
    CUDNNCTL_SHELL_FISH,
    CUDNNCTL_SHELL_PWSH,
    CUDNNCTL_SHELL_CMD,
    CUDNNCTL_SHELL_LMOD, /**< an Lmod modulefile (Lua), for `module load` */
    CUDNNCTL_SHELL_TCL   /**< an Environment Modules modulefile (Tcl); Lmod reads it too */
} cudnnctl_shell;

/** Parse "sh", "dash", "bash", "zsh", "fish", "pwsh", "powershell", "cmd", "lmod", "tcl" (a
 * path is fine: its base name counts). CUDNNCTL_E_USAGE when unknown. */
CUDNNCTL_API cudnnctl_err cudnnctl_shell_parse(const char *name, cudnnctl_shell *out);
CUDNNCTL_API const char *cudnnctl_shell_name(cudnnctl_shell sh);
/** The shell of this session: $SHELL's base name on POSIX, pwsh on Windows; sh when unknown. */
CUDNNCTL_API cudnnctl_shell cudnnctl_shell_default(void);

/** What the environment functions work from. Every member may be left 0/NULL. */
typedef struct {
    /** Toolkits to choose from; NULL: the library runs cudnnctl_detect itself. */
    const cudnnctl_detect_result *detect;
    /** cudnnctl prefixes (dirs holding cudnn-<ver>-cuda<M> installs and a `current` link),
     *  in addition to those recorded in install receipts. */
    const char *const *prefixes;
    size_t n_prefixes;
} cudnnctl_env_inputs;

/** A resolved selection: which toolkit and which cuDNN install an activation puts in place. */
typedef struct {
    char *toolkit_path;    /**< CUDA_HOME / CUDA_PATH; NULL when no toolkit is part of it */
    char *toolkit_version; /**< "13.0" or "13.0.88"; NULL when unknown */
    int toolkit_major, toolkit_minor; /**< -1 when unknown */
    char *cudnn_path;                 /**< cuDNN install dir in a cudnnctl prefix; NULL when none */
    char *cudnn_version;  /**< from the install dir name ("9.19.0.56"); NULL when none */
    int cudnn_cuda_major; /**< CUDA major the cuDNN install was built for; -1 when none */
    char *prefix;         /**< the prefix holding cudnn_path; NULL when none */
    char **bin_dirs;      /**< prepended to PATH, in this order */
    size_t n_bin_dirs;
    char **lib_dirs; /**< for LD_LIBRARY_PATH (on request) and /etc/ld.so.conf.d */
    size_t n_lib_dirs;
    char **roots; /**< the selection's own dirs (exported as CUDNNCTL_ENV) */
    size_t n_roots;
    char **managed; /**< every cudnnctl-managed dir whose PATH entries are dropped */
    size_t n_managed;
    int windows;  /**< Windows layout: backslashes, ';', bin\\x64 for CUDA >= 13 */
    int follow;   /**< names /usr/local/cuda and PREFIX/current instead of versions */
    char **notes; /**< human notes (e.g. a shared toolkit root left off PATH) */
    size_t n_notes;
    /* What compilers and build systems read (docs/build.md), each list in front-to-back order:
     * the cuDNN install's dir first, then the toolkit's. Empty for a toolkit at a shared root. */
    char **include_dirs; /**< CPATH (and INCLUDE on Windows): cuDNN include, toolkit include */
    size_t n_include_dirs;
    char **link_dirs; /**< LIBRARY_PATH (and LIB on Windows): cuDNN lib, toolkit lib */
    size_t n_link_dirs;
    char **pkgconfig_dirs; /**< PKG_CONFIG_PATH: the dirs holding a cudnn.pc */
    size_t n_pkgconfig_dirs;
    char **cmake_prefixes; /**< CMAKE_PREFIX_PATH: the cuDNN install, the toolkit */
    size_t n_cmake_prefixes;
    char *cudnn_include_dir; /**< the cuDNN install's include dir; NULL when none */
    char *cudnn_lib_dir;     /**< the cuDNN install's lib dir (import libs on Windows); NULL */
} cudnnctl_env_selection;

/** A variable that builds read to find cuDNN, set by the activation to a dir of the selected
 *  cuDNN install (docs/build.md has who reads each, with the source file). */
typedef struct {
    const char *name;    /**< "CUDNN_PATH" */
    const char *what;    /**< "root", "include" or "lib": which dir of the install it names */
    const char *readers; /**< "cudnn-frontend cmake/cuDNN.cmake, PyTorch cpp_extension.py" */
} cudnnctl_build_var;

/** The root variables (static table, *n entries). */
CUDNNCTL_API const cudnnctl_build_var *cudnnctl_env_build_vars(size_t *n);
/** The value the activation gives @p v for @p s (NULL when the selection has no cuDNN). */
CUDNNCTL_API const char *cudnnctl_env_build_value(const cudnnctl_env_selection *s,
                                                  const cudnnctl_build_var *v);

/** Refer to the stable links (/usr/local/cuda, PREFIX/current) so that persistent wiring
 *  follows later `use` switches. Only with the default target. */
#define CUDNNCTL_SELECT_FOLLOW 1u

/**
 * Resolve @p target: NULL (the toolkit /usr/local/cuda leads to, i.e. the one `use` selected;
 * detect's active toolkit where there is no such link), a toolkit version "X.Y" / "X.Y.Z", a
 * toolkit dir, a cudnnctl prefix, or one install dir inside a prefix. The cuDNN installed for the
 * toolkit's CUDA major in a known prefix joins the selection (and the toolkit of that major
 * joins a prefix target). CUDNNCTL_E_NO_TOOLKIT (exit 5) lists what exists when nothing fits.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_env_select(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                                              const char *target, unsigned flags,
                                              cudnnctl_env_selection **out);
CUDNNCTL_API void cudnnctl_env_selection_free(cudnnctl_env_selection *s);
/** JSON object: toolkit, cudnn, path_prepend[], lib_dirs[], roots[], managed[], notes[],
 *  build {CPATH[], LIBRARY_PATH[], PKG_CONFIG_PATH[], CMAKE_PREFIX_PATH[], vars{NAME: dir}}. */
CUDNNCTL_API cudnnctl_err cudnnctl_env_selection_json(const cudnnctl_env_selection *s, char **json);

/** Also prepend the selection's lib dirs to LD_LIBRARY_PATH (this session only). */
#define CUDNNCTL_ENV_LD_LIBRARY_PATH 1u

/**
 * Activation text for @p sh, to be evaluated by that shell. It computes PATH (and
 * LD_LIBRARY_PATH) at evaluation time from their current values: entries under any managed
 * dir, or under a dir a previous activation exported in CUDNNCTL_ENV, are dropped; the user's
 * own entries keep their order; the selection's dirs go in front. Evaluating it twice changes
 * nothing. Free with cudnnctl_free.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_env_render(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                              cudnnctl_shell sh, unsigned flags, char **text);

typedef struct {
    char *action; /**< "write", "remove", "link", "line-add", "line-remove", "run", "keep" */
    char *path;   /**< the file or link (root-relative), or the command line for "run" */
    char *detail; /**< link target, line text, reason ... (may be NULL) */
} cudnnctl_change;

typedef struct {
    cudnnctl_change *v;
    size_t n;
} cudnnctl_changes;

/** Free the changes a persist, remove or use returned. */
CUDNNCTL_API void cudnnctl_changes_free(cudnnctl_changes *c);
/** JSON array of {action, path, detail}. */
CUDNNCTL_API cudnnctl_err cudnnctl_changes_json(const cudnnctl_changes *c, char **json);

/** Persist scope and behaviour. */
#define CUDNNCTL_PERSIST_SYSTEM 1u      /**< /etc (root or --root), not the user's files */
#define CUDNNCTL_PERSIST_NO_LDCONFIG 2u /**< do not run ldconfig after changing ld.so.conf.d */

typedef struct {
    unsigned flags;  /**< CUDNNCTL_PERSIST_* */
    unsigned shells; /**< per-user rc files: bit (1u << cudnnctl_shell); 0 = auto */
} cudnnctl_persist_opts;

/**
 * Persistent wiring of @p s.
 * System: /etc/profile.d/cudnnctl.sh (+ /etc/fish/conf.d/cudnnctl.fish where /etc/fish exists)
 * and /etc/ld.so.conf.d/cudnnctl-<name>.conf naming the selection's lib dirs (other
 * cudnnctl-*.conf removed), then `ldconfig` (never under --root).
 * User: $XDG_CONFIG_HOME/cudnnctl/env.sh and env.fish, and one marked line in ~/.bashrc,
 * ~/.zshrc, ~/.config/fish/config.fish (those that exist; else the $SHELL one), added once.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_env_persist(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                               const cudnnctl_persist_opts *o,
                                               cudnnctl_changes *out);
/** 1 when registering @p dir for every user (`env --persist --system`: /etc/ld.so.conf.d,
 *  /etc/profile.d) would be accepted as root: it, every dir above it and every file in it are
 *  root's and writable by nobody else (docs/security.md, "Running as root"); 0 otherwise. Lets a
 *  front end offer that fix only where it works. */
CUDNNCTL_API int cudnnctl_env_system_ok(cudnnctl_ctx *ctx, const char *dir);
/** Undo cudnnctl_env_persist for the scope in @p o (every marked line, every file). */
CUDNNCTL_API cudnnctl_err cudnnctl_env_unpersist(cudnnctl_ctx *ctx, const cudnnctl_persist_opts *o,
                                                 cudnnctl_changes *out);

/**
 * Write the modulefile of @p s (@p sh: CUDNNCTL_SHELL_LMOD or CUDNNCTL_SHELL_TCL; @p flags as
 * for cudnnctl_env_render) as DIR/cudnn/<version>-cuda<M>.lua (Tcl: without the extension),
 * atomically; an identical file is kept. The selection must include a cuDNN install
 * (CUDNNCTL_E_USAGE otherwise).
 */
CUDNNCTL_API cudnnctl_err cudnnctl_env_write_modulefile(cudnnctl_ctx *ctx,
                                                        const cudnnctl_env_selection *s,
                                                        cudnnctl_shell sh, const char *dir,
                                                        unsigned flags, cudnnctl_changes *out);
/** Remove the modulefiles cudnnctl wrote under DIR/cudnn/ (recognised by their first line):
 *  only those of @p s when it is given, else every one; DIR/cudnn goes when it is empty. */
CUDNNCTL_API cudnnctl_err cudnnctl_env_remove_modulefiles(cudnnctl_ctx *ctx, const char *dir,
                                                          const cudnnctl_env_selection *s,
                                                          cudnnctl_changes *out);

#ifdef __cplusplus
}
#endif
#endif
