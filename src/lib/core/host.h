/* host.h: the host profile a context carries — which OS's rules the library applies (Linux or
 * Windows), the path style that goes with it, where environment variables and the registry come
 * from. By default it is the machine the library runs on (cc_pf_is_windows(), the process
 * environment, the real registry). Tests set another profile: a Windows profile on Linux with an
 * in-memory registry and environment runs the Windows policy (detect_windows.c, winenv.c,
 * use_windows.c) against a fake tree under --root, where drive letters map to ROOT/c/...,
 * ROOT/d/... */
#ifndef CC_HOST_H
#define CC_HOST_H

#include <stddef.h>

typedef struct cudnnctl_ctx cudnnctl_ctx;

typedef enum { CC_HOST_LINUX = 0, CC_HOST_WINDOWS = 1 } cc_host_os;

/* Where registry values come from (platform.h's cc_pf_reg_* semantics, CC_PF_REG_* types). */
typedef struct {
    int (*get)(void *user, const char *key, const char *name, char **value, int *type);
    int (*set)(void *user, const char *key, const char *name, const char *value, int type);
    int (*del)(void *user, const char *key, const char *name);
    char **(*subkeys)(void *user, const char *key);
    int (*broadcast)(void *user);
    void *user;
} cc_host_registry;

/* Where environment variables come from; NULL env_get = the process environment. */
typedef const char *(*cc_host_getenv_fn)(void *user, const char *name);

typedef struct {
    cc_host_os os;
    int native;           /* the OS the library runs on: programs of the host can be run */
    cc_host_registry reg; /* the real registry (Windows), or an in-memory one */
    cc_host_getenv_fn env_get;
    void *env_user;
} cc_host;

/* The profile of the running machine. */
void cc_host_default(cc_host *h);
/* Replace the context's profile (tests; cudnnctl_set_host_os for the CLI). */
void cc_host_set(cudnnctl_ctx *ctx, const cc_host *h);
const cc_host *cc_host_get(const cudnnctl_ctx *ctx);

int cc_host_is_windows(const cudnnctl_ctx *ctx);
/* 1 when the machine this process runs on is Windows, whatever the context's profile says: for
 * what belongs to the real machine (its loader's file names, its compilers, child processes, the
 * default shell). Policy asks cc_host_is_windows(ctx). The one caller of cc_pf_is_windows(). */
int cc_host_native_windows(void);
/* 1 when the profile is the machine's own OS (executables, loaders and the registry are real). */
int cc_host_is_native(const cudnnctl_ctx *ctx);
const char *cc_host_os_name(const cudnnctl_ctx *ctx); /* "linux" / "windows" */

const char *cc_host_getenv(const cudnnctl_ctx *ctx, const char *name);

int cc_host_reg_get(const cudnnctl_ctx *ctx, const char *key, const char *name, char **value,
                    int *type);
int cc_host_reg_set(const cudnnctl_ctx *ctx, const char *key, const char *name, const char *value,
                    int type);
int cc_host_reg_delete(const cudnnctl_ctx *ctx, const char *key, const char *name);
char **cc_host_reg_subkeys(const cudnnctl_ctx *ctx, const char *key);
int cc_host_env_broadcast(const cudnnctl_ctx *ctx);
/* %VAR% expanded from the profile's environment (unknown names stay as written, like Windows). */
char *cc_host_expand_env(const cudnnctl_ctx *ctx, const char *s);

/* ---- paths in the profile's style ---------------------------------------------------------- */
/* Absolute in the profile's style: "/x" (Linux); "C:\x", "C:/x", "\\server\share", "/x" (Windows).
 */
int cc_host_is_abs(const cudnnctl_ctx *ctx, const char *path);
/* 'A'..'Z' when the path starts with a drive letter and a separator ("C:\", "c:/"), else 0. */
int cc_host_drive(const char *path);
/* Separator of the profile ('\\' on Windows) for paths shown to users and written to the
 * registry; a malloc'd copy with '/' turned into it. */
char *cc_host_native_path(const cudnnctl_ctx *ctx, const char *path);
/* Case-insensitive on Windows, '/' and '\\' equal there, trailing separators ignored. */
int cc_host_same_path(const cudnnctl_ctx *ctx, const char *a, const char *b);

/* ---- an in-memory registry (tests; a foreign profile from the CLI) -------------------------- */
typedef struct cc_memreg cc_memreg;
cc_memreg *cc_memreg_new(void);
void cc_memreg_free(cc_memreg *m);
/* Fill @p out with a backend working on @p m (m outlives the context's use of it). */
void cc_memreg_backend(cc_memreg *m, cc_host_registry *out);
/* Number of WM_SETTINGCHANGE broadcasts it received. */
unsigned cc_memreg_broadcasts(const cc_memreg *m);

#endif
