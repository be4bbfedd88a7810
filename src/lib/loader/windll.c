/* windll.c: the Windows DLL search order, as policy (LoadLibraryExW; docs/which.md):
 *  - with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python >= 3.8 loads extension modules so, with
 *    LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR too): the loading DLL's dir, the application dir, the
 *    AddDllDirectory / os.add_dll_directory dirs, System32 — never PATH;
 *  - the standard order (SafeDllSearchMode on): the application dir, System32, the Windows dir,
 *    the current dir, then PATH.
 * Known DLLs and the API-set schema apply only to system DLLs, never to cuDNN / CUDA DLLs, and
 * are left out. File names compare case-insensitively on Windows: the files are looked up as
 * given, then in lower case. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ldmodel.h"
#include "platform.h"

static int exists(cudnnctl_ctx *ctx, const char *dir, const char *dll, char **found)
{
    char *p = cc_asprintf("%s\\%s", dir, dll);
    if (!p)
        return 0;
    char *q = cc_strdup(p);
    for (char *c = q; c && *c; c++)
        if (*c == '\\')
            *c = '/';
    char *h = q ? cc_rooted(ctx, q) : NULL;
    cc_pf_stat_t st;
    int yes = h && cc_pf_stat(h, &st) == 0 && st.exists && st.is_reg;
    free(h);
    free(q);
    if (yes)
        *found = p;
    else
        free(p);
    return yes;
}

typedef struct {
    const char *dir, *rule, *why;
} step;

cudnnctl_err cudnnctl_dll_resolve(cudnnctl_ctx *ctx, const cudnnctl_dll_env *env, const char *dll,
                                  cudnnctl_load_result **out)
{
    *out = NULL;
    step steps[64];
    size_t n = 0;
    if (env->default_dirs) {
        if (env->dll_dir)
            steps[n++] = (step){env->dll_dir, "dll_load_dir", "the loading DLL's own dir"};
        if (env->app_dir)
            steps[n++] = (step){env->app_dir, "app_dir", "the application dir"};
        for (size_t i = 0; i < env->n_user_dirs && n < 60; i++)
            steps[n++] = (step){env->user_dirs[i], "add_dll_directory",
                                "an AddDllDirectory / os.add_dll_directory dir"};
        if (env->system_dir)
            steps[n++] = (step){env->system_dir, "system32", "System32"};
    } else {
        if (env->app_dir)
            steps[n++] = (step){env->app_dir, "app_dir", "the application dir"};
        if (env->system_dir)
            steps[n++] = (step){env->system_dir, "system32", "System32"};
        if (env->windows_dir)
            steps[n++] = (step){env->windows_dir, "windows_dir", "the Windows dir"};
        if (env->cwd)
            steps[n++] = (step){env->cwd, "cwd", "the current dir"};
    }
    cudnnctl_load_result *r = calloc(1, sizeof(*r));
    if (!r)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    r->soname = cc_strdup(dll);
    char *lower = cc_strdup(dll);
    for (char *c = lower; c && *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    char *path_copy = !env->default_dirs && env->path ? cc_strdup(env->path) : NULL;
    for (char *p = path_copy, *next; p && n < 64; p = next) {
        next = strchr(p, ';');
        if (next)
            *next++ = '\0';
        if (*p)
            steps[n++] = (step){p, "path", "a PATH entry"};
    }
    for (size_t i = 0; i < n && !r->path; i++) {
        char *found = NULL;
        if (exists(ctx, steps[i].dir, dll, &found) || exists(ctx, steps[i].dir, lower, &found)) {
            r->path = found;
            r->dir = cc_strdup(steps[i].dir);
            cc_ld_found(r, steps[i].rule, NULL, "%s (%s) holds %s%s", steps[i].dir, steps[i].why,
                        dll,
                        env->default_dirs ? " (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: PATH is not "
                                            "searched)"
                                          : "");
        }
    }
    if (!r->path)
        cc_ld_found(r, "not_found", NULL, "%s is in none of the %zu dirs searched%s", dll, n,
                    env->default_dirs ? " (PATH is not searched in this mode: "
                                        "os.add_dll_directory the dir that holds it)"
                                      : "");
    free(lower);
    free(path_copy);
    *out = r;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_dll_which(cudnnctl_ctx *ctx, const char *dll, cudnnctl_load_result **out)
{
    char *self = cc_pf_self_exe();
    char *app = NULL;
    if (self) {
        for (char *c = self; *c; c++)
            if (*c == '/')
                *c = '\\';
        char *slash = strrchr(self, '\\');
        app = slash ? cc_strndup(self, (size_t)(slash - self)) : NULL;
    }
    const char *root = cc_pf_getenv("SystemRoot");
    char *win = cc_strdup(root && *root ? root : "C:\\Windows");
    char *sys = win ? cc_asprintf("%s\\System32", win) : NULL;
    cudnnctl_dll_env env = {app, NULL, sys, win, NULL, cc_pf_getenv("PATH"), NULL, 0, 0};
    cudnnctl_err e = cudnnctl_dll_resolve(ctx, &env, dll, out);
    free(self);
    free(app);
    free(win);
    free(sys);
    return e;
}
