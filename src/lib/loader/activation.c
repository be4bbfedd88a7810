/* activation.c: the one place that decides how to make a cuDNN lib dir the one programs map —
 * for this shell and for new login shells — so install, validate, use, env and doctor print the
 * same command for the same situation (issue 20). A dir inside a cudnnctl prefix
 * (P/current/lib, P/cudnn-<version>-cuda<M>/lib) is activated as the prefix: `cudnnctl env
 * --prefix P`; any other dir by an LD_LIBRARY_PATH export (this shell) or `env --persist --system`
 * of the dir's tree (new shells). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "loader_int.h"
#include "platform.h"

/* "cudnn-9.19.0.56-cuda13": cudnnctl's per-version dir name. */
static int version_dir(const char *name)
{
    if (!cc_str_starts(name, "cudnn-"))
        return 0;
    const char *cu = strstr(name, "-cuda");
    return cu && cu[5] >= '0' && cu[5] <= '9' && name[6] >= '0' && name[6] <= '9';
}

char *cudnnctl_prefix_of(cudnnctl_ctx *ctx, const char *lib_dir)
{
    if (!lib_dir)
        return NULL;
    char *d = cc_strdup(lib_dir);
    size_t n = d ? strlen(d) : 0;
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    char *out = NULL;
    if (d && cc_str_ends(d, "/lib")) {
        d[n - 4] = '\0'; /* P/current or P/cudnn-V-cudaM */
        const char *leaf = cc_path_base(d);
        char *prefix = cc_path_dir(d);
        char *cur = prefix ? cc_path_join(prefix, "current") : NULL;
        char *host = cur ? cc_rooted(ctx, cur) : NULL;
        cc_pf_stat_t st;
        int has_current = host && cc_pf_lstat(host, &st) == 0 && st.exists;
        if (prefix && has_current && (strcmp(leaf, "current") == 0 || version_dir(leaf)))
            out = prefix;
        else
            free(prefix);
        free(cur);
        free(host);
    }
    free(d);
    return out;
}

static const char *sudo(void)
{
    return cc_pf_is_root() ? "" : "sudo ";
}

char *cudnnctl_activation_fix(cudnnctl_ctx *ctx, const char *lib_dir, const char *scope,
                              const char *env_args)
{
    int login = scope && strcmp(scope, "login") == 0;
    char *prefix = env_args ? NULL : cudnnctl_prefix_of(ctx, lib_dir);
    char *q = prefix ? cc_sh_quote(prefix) : NULL;
    char *args = env_args ? cc_strdup(env_args) : q ? cc_asprintf(" --prefix %s", q) : NULL;
    char *out = NULL;
    if (args && login)
        out = cc_asprintf("%scudnnctl env --persist --system%s", sudo(), args);
    else if (args)
        out = cc_asprintf("eval \"$(cudnnctl env%s)\"", args);
    else if (lib_dir && login) {
        char *tree = cc_path_dir(lib_dir);
        char *qt = tree ? cc_sh_quote(tree) : NULL;
        out = qt ? cc_asprintf("%scudnnctl env --persist --system %s", sudo(), qt) : NULL;
        free(qt);
        free(tree);
    } else if (lib_dir) {
        char *ql = cc_sh_quote(lib_dir);
        out = ql ? cc_asprintf("export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", ql)
                 : NULL;
        free(ql);
    }
    free(args);
    free(q);
    free(prefix);
    return out;
}
