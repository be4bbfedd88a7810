/* envwire_int.h: what the environment-wiring files (env_*.c, use.c, alternatives.c) share:
 * root-aware link resolution, atomic link replacement, cudnnctl prefixes, toolkit lookup,
 * update-alternatives state. Not installed. */
#ifndef CC_ENVWIRE_INT_H
#define CC_ENVWIRE_INT_H

#include "internal.h"
#include "lock.h"

/* ---- changes list --------------------------------------------------------------------------- */
int cc_changes_add(cudnnctl_changes *c, const char *action, const char *path, const char *detail);

/* ---- paths under the root (all arguments and results are root-relative) --------------------- */
/* Resolve every symbolic link in an absolute path the way the kernel would inside the root
 * (absolute link targets restart at the root). Missing components are kept lexically. */
char *cc_env_realpath(cudnnctl_ctx *ctx, const char *path);
/* An absolute root-relative path for a user-given one ("./cuda-12.4" from the working dir). */
char *cc_env_abs(cudnnctl_ctx *ctx, const char *path);
int cc_env_is_dir(cudnnctl_ctx *ctx, const char *path);
/* 1 when /usr/local/cuda leads to a dir (never on Windows, which has no such link). */
int cc_env_has_cuda_link(cudnnctl_ctx *ctx);
int cc_env_exists(cudnnctl_ctx *ctx, const char *path); /* anything, even a dangling link */
/* The text to store in a link at @p link pointing to @p dest: relative ("cuda-12.4") when both
 * live in the same directory (works inside chroots and fake roots), else @p dest. */
char *cc_env_link_text(const char *link, const char *dest);
/* Atomically point @p link at @p text: a new link under a temporary name in the same
 * directory, then rename over the old one (there is never a moment without it). */
cudnnctl_err cc_env_replace_link(cudnnctl_ctx *ctx, const char *link, const char *text,
                                 cudnnctl_changes *ch);
/* 1 for dirs that are shared with the rest of the system ("/", "/usr", "/usr/local", "/opt",
 * drive roots): their bin/lib entries are never added to or dropped from PATH. */
int cc_env_is_shared_root(const char *path);
/* 1 for "C:\...", "C:/...", "\\server\...": the selection uses the Windows layout. */
int cc_env_is_windows_path(const char *path);
/* Join with the separator of the path's style. */
char *cc_env_join(const char *dir, const char *name, int windows);
/* The toolkit's library dir under @p home (lib64, lib, targets/<arch>/lib); NULL when none. */
char *cc_env_toolkit_libdir(cudnnctl_ctx *ctx, const char *home);
/* Version of a toolkit dir read from version.json / version.txt (when detect did not list it). */
int cc_env_read_toolkit_version(cudnnctl_ctx *ctx, const char *home, char **version, int *major,
                                int *minor);

/* ---- cudnnctl prefixes ---------------------------------------------------------------------- */
typedef struct {
    char *path;    /* PREFIX/cudnn-<ver>-cuda<M> */
    char *version; /* <ver> */
    int cuda_major;
} cc_env_install;

typedef struct {
    char *prefix;
    cc_env_install *v;
    size_t n;
    int current; /* index of the install `current` leads to, -1 when none */
    int direct;  /* no `current` (a filesystem without directory links): current is the install
                  * the state records as selected (txn/direct.h) */
} cc_env_prefix;

/* 1 when the name is cudnn-<ver>-cuda<M>; fills version (malloc'd) and major. */
int cc_env_parse_install_name(const char *name, char **version, int *major);
/* Scan a prefix; a dir without installs gives n == 0 (not an error). */
cudnnctl_err cc_env_scan_prefix(cudnnctl_ctx *ctx, const char *prefix, cc_env_prefix *out);
void cc_env_prefix_free(cc_env_prefix *p);
/* Index of the install for CUDA @p major: the one `current` leads to when it matches, else the
 * newest; -1 when the prefix has none. */
int cc_env_prefix_pick(const cc_env_prefix *p, int major);
/* Prefixes cudnnctl knows of: those given in @p in, then those recorded in install receipts. */
cudnnctl_err cc_env_known_prefixes(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, cc_strv *out);

/* ---- toolkits -------------------------------------------------------------------------------- */
/* Run detect unless the inputs carry a result; *owned is freed by the caller. */
cudnnctl_err cc_env_detect(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                           const cudnnctl_detect_result **det, cudnnctl_detect_result **owned);
/* "11.8 (/usr/local/cuda-11.8), 12.4 (...)" or "none" (malloc'd). */
char *cc_env_toolkit_list(const cudnnctl_detect_result *det);
/* Find the toolkit for "X", "X.Y", "X.Y.Z" (or a dir). NULL with the error set (NO_TOOLKIT
 * listing what exists, USAGE when ambiguous). */
const cudnnctl_toolkit *cc_env_find_toolkit(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                            const char *spec);
/* 1 when @p s looks like a version ("12", "12.4", "12.4.1"). */
int cc_env_is_version(const char *s);

/* What `use X.Y` starts with on every host: detect (unless the inputs carry a result), the
 * toolkit X.Y, and a result naming it (its real path when @p real_path, its version). On error
 * *r may hold a partial result: the caller frees it, as it frees *owned. */
cudnnctl_err cc_env_use_target(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                               const char *version, int real_path,
                               const cudnnctl_detect_result **det, cudnnctl_detect_result **owned,
                               const cudnnctl_toolkit **tk, cudnnctl_use_result **r);

/* One `use` run on either host (use.c, use_windows.c): what cc_env_use_target found, the
 * state lock, the result until it is handed out. Start it with CC_USE_RUN_INIT. */
typedef struct {
    const cudnnctl_detect_result *det;
    cudnnctl_detect_result *owned;
    const cudnnctl_toolkit *tk;
    cudnnctl_use_result *r;
    cc_lock lock;
    char *state;
} cc_use_run;
#define CC_USE_RUN_INIT                                                                            \
    {                                                                                              \
        NULL, NULL, NULL, NULL, {-1, NULL, 0, NULL, 0}, NULL                                       \
    }
/* use_result.c: take the state lock for `use` (installs flip and write the same things). */
cudnnctl_err cc_use_run_lock(cudnnctl_ctx *ctx, cc_use_run *u);
/* The run's end: the result to *out when rc is CUDNNCTL_E_OK, the lock released, the rest
 * freed; returns rc. */
cudnnctl_err cc_use_run_end(cudnnctl_ctx *ctx, cc_use_run *u, cudnnctl_err rc,
                            cudnnctl_use_result **out);

/* `use` on Windows (use_windows.c): CUDA_PATH, CUDA_PATH_Vx_y, PATH in the registry. */
cudnnctl_err cc_use_windows(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, const char *version,
                            unsigned flags, cudnnctl_use_result **out);

/* ---- update-alternatives state (/var/lib/dpkg/alternatives/<name>) --------------------------- */
typedef struct {
    char *path;
    char *priority;
    char **slave_paths; /* one per slave of the group; "" when this choice has none */
} cc_alt_choice;

typedef struct {
    char *name;
    char *mode; /* "auto" or "manual" */
    char *link; /* master link, e.g. /usr/local/cuda */
    char **slave_names;
    char **slave_links;
    size_t n_slaves;
    cc_alt_choice *choices;
    size_t n_choices;
} cc_alt;

/* Parse the state text of group @p name. */
cudnnctl_err cc_alt_parse(cudnnctl_ctx *ctx, const char *name, const char *text, cc_alt *out);
/* The state text update-alternatives writes. */
char *cc_alt_format(const cc_alt *a);
void cc_alt_free(cc_alt *a);
/* 1 when @p link (root-relative) is a link to /etc/alternatives/<name> and the group's state
 * file exists; *name is malloc'd. */
int cc_alt_manages(cudnnctl_ctx *ctx, const char *link, char **name);
cudnnctl_err cc_alt_load(cudnnctl_ctx *ctx, const char *name, cc_alt *out);
/* Index of the choice that is @p path (string or resolved), -1 when not registered. */
int cc_alt_find(cudnnctl_ctx *ctx, const cc_alt *a, const char *path);
/* Select @p path in group @p name: under --root by writing the links and the state file
 * (manual mode) the way update-alternatives does; without a root by running
 * `update-alternatives --set`. */
cudnnctl_err cc_alt_set(cudnnctl_ctx *ctx, const char *name, const char *path,
                        cudnnctl_changes *ch);

/* ---- what builds read (env_build.c) -------------------------------------------------------- */
/* Fill the selection's include / link / pkg-config / CMake dirs and its cuDNN include and lib
 * dirs (after its bin and lib dirs are known). */
cudnnctl_err cc_env_build_dirs(cudnnctl_ctx *ctx, cudnnctl_env_selection *s);
void cc_env_build_free(cudnnctl_env_selection *s); /* those members only */
/* One list variable of an activation and the dirs it gets in front. */
typedef struct {
    const char *name;
    char **dirs;
    size_t n;
    const char *const *subdirs; /* where under an install its entries lie (NULL-ended; Windows
                                   spelling): what cmd.exe, which cannot match a prefix, drops */
} cc_env_list_var;
#define CC_ENV_LIST_VARS 6
/* The list variables of a selection (INCLUDE and LIB only for Windows layouts): their count. */
size_t cc_env_list_vars(const cudnnctl_env_selection *s, cc_env_list_var v[CC_ENV_LIST_VARS]);

/* ---- a wiring file (env_write.c) ------------------------------------------------------------ */
/* Write text to real (the host path of path, which messages and changes name): "keep" when it
 * already holds text, else parents created, written atomically with mode, "write" recorded.
 * A failed mkdir names shown_dir, or real's dir when NULL. */
cudnnctl_err cc_env_write_file(cudnnctl_ctx *ctx, const char *real, const char *path,
                               const char *shown_dir, const char *text, uint32_t mode,
                               cudnnctl_changes *ch);

/* ---- modulefiles (env_modules.c) ------------------------------------------------------------ */
/* Append the Lmod (Lua) or Tcl modulefile of a selection to @p b; -1 on OOM. */
int cc_env_render_module(const cudnnctl_env_selection *s, cudnnctl_shell sh, unsigned flags,
                         cc_buf *b);
/* ---- what an activation may set (env_check.c) ----------------------------------------------- */
/* 1 when the shell's quoting cannot hold v (a control character; for cmd.exe a '"'). */
int cc_env_unquotable(const char *v, cudnnctl_shell sh);
/* CUDNNCTL_E_USAGE (exit 2, naming the dir and the byte) when a value the text for sh would set
 * is unquotable, or a list entry holds the list's separator (ldp: LD_LIBRARY_PATH is set). */
cudnnctl_err cc_env_check_values(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 cudnnctl_shell sh, int ldp);

/* ---- what may be registered for every user (env_trust.c) ------------------------------------ */
/* CUDNNCTL_E_UNTRUSTED (exit 9) when a lib or bin dir of @p s, a dir above it or a file in it
 * fails the trust rule as root applies it (docs/security.md, "Running as root"); the error
 * names it (owner, mode), says nothing was written, and how to install into a root-owned prefix
 * instead. @p what: the command ("env --persist --system"). */
cudnnctl_err cc_env_trust_system(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 const char *what);

/* ---- persistence shared with use ------------------------------------------------------------- */
/* Rewrite /etc/ld.so.conf.d/cudnnctl-*.conf for @p s when one exists (use), or always (persist);
 * runs ldconfig unless under --root or @p no_ldconfig. Callers first ask cc_env_ldconf_allowed
 * (the trust rule), before they change anything. */
cudnnctl_err cc_env_write_ldconf(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 int only_if_present, int no_ldconfig, cudnnctl_changes *ch);
/* The check cc_env_write_ldconf makes before it writes, alone (use runs it before it flips
 * anything): CUDNNCTL_E_OK when there is nothing to rewrite (@p only_if_present and no
 * cudnnctl-*.conf) or the selection may be registered. */
cudnnctl_err cc_env_ldconf_allowed(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                   int only_if_present, const char *what);

#endif
