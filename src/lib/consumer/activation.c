/* activation.c: the one place that decides how to make a cuDNN lib dir the one programs map —
 * for this shell and for new login shells — so install, validate, use, env and doctor print the
 * same command for the same situation (issue 20). A dir inside a cudnnctl prefix
 * (P/current/lib, P/cudnn-<version>-cuda<M>/lib) is activated as the prefix: `cudnnctl env
 * --prefix P`; any other dir by an LD_LIBRARY_PATH export (this shell) or `env --persist --system`
 * of the dir's tree (new shells). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn_release.h"
#include "internal.h"
#include "consumer_int.h"
#include "pathtrust.h"
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

/* New shells are wired through /etc (ld.so.conf.d, profile.d), for every user: only for a dir
 * root may register (docs/security.md, "Running as root": the dir, every dir above it and every
 * file in it root's, as env --persist --system itself checks; under --root the image's owner's). */
static int registrable(cudnnctl_ctx *ctx, const char *lib_dir)
{
    char *real = cc_rooted(ctx, lib_dir);
    int ok = real && cc_trust_tree(real, ctx->root ? 0u : (unsigned)CC_PF_TRUST_AS_ROOT, 3) == 0;
    free(real);
    return ok;
}

/* For a dir root must not register: install the same release into a root-owned prefix and wire
 * that (the release read from the copy's bytes; the CUDA major from a cudnnctl version dir). */
static char *root_prefix_fix(cudnnctl_ctx *ctx, const char *lib_dir)
{
    char rel[64] = "";
    char *real = cc_rooted(ctx, lib_dir);
    for (int major = 9; real && major >= 8 && !rel[0]; major--)
        if (cc_cudnn_dir_release(real, major, rel, sizeof(rel)) != 0)
            rel[0] = '\0';
    free(real);
    const char *vd = strstr(lib_dir, "/cudnn-"); /* else the version dir cudnnctl named */
    if (!rel[0] && vd) {
        size_t n = strspn(vd + 7, "0123456789.");
        if (n > 0 && n < sizeof(rel) && strncmp(vd + 7 + n, "-cuda", 5) == 0)
            snprintf(rel, sizeof(rel), "%.*s", (int)n, vd + 7);
    }
    const char *cu = strstr(lib_dir, "-cuda");
    int cuda = cu && cu[5] >= '0' && cu[5] <= '9' ? atoi(cu + 5) : 0;
    char sel[96] = "";
    if (rel[0] && cuda)
        snprintf(sel, sizeof(sel), " --cudnn %s --cuda %d", rel, cuda);
    else if (rel[0])
        snprintf(sel, sizeof(sel), " --cudnn %s", rel);
    return cc_asprintf("%scudnnctl install --prefix /opt/cudnnctl%s && %scudnnctl env --persist "
                       "--system --prefix /opt/cudnnctl",
                       sudo(), sel, sudo());
}

char *cudnnctl_activation_fix(cudnnctl_ctx *ctx, const char *lib_dir, const char *scope,
                              const char *env_args)
{
    int login = scope && strcmp(scope, "login") == 0;
    if (login && lib_dir && !registrable(ctx, lib_dir))
        return root_prefix_fix(ctx, lib_dir);
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
