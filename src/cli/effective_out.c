/* effective_out.c: the effective check that ends install, use and env --persist: a child with
 * this environment and one with a new login shell's dlopen libcudnn.so.<M> by name; when the
 * file mapped is not in the dir just installed or selected, one line names the winner, why it
 * wins and the fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "effective_out.h"

/* --no-login-check: this environment only (a login shell runs the user's start-up files) */
static unsigned effective_flags(const cli_opts *o)
{
    return o->no_login_check ? CUDNNCTL_EFFECTIVE_CURRENT_ONLY : 0u;
}

cudnnctl_effective_probe *cli_effective_early(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_effective_probe *p = NULL;
    if (o->root || cudnnctl_effective_start(ctx, NULL, effective_flags(o), &p) != CUDNNCTL_E_OK)
        return NULL;
    return p;
}

char *cli_effective(cli_opts *o, cudnnctl_ctx *ctx, const char *cudnn_version,
                    const char *expect_dir, const char *fix_current, const char *fix_login)
{
    return cli_effective_with(o, ctx, NULL, cudnn_version, expect_dir, fix_current, fix_login);
}

char *cli_effective_with(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_effective_probe *pre,
                         const char *cudnn_version, const char *expect_dir,
                         const char *fix_current, const char *fix_login)
{
    if (o->root) {
        cudnnctl_effective_cancel(pre);
        if (o->verbose)
            cli_info(o, "effective check skipped: under --root the loader of this machine does "
                        "not apply");
        return NULL;
    }
    int major = cudnn_version ? atoi(cudnn_version) : 9;
    char soname[32];
    snprintf(soname, sizeof(soname), "libcudnn.so.%d", major > 0 ? major : 9);
    cudnnctl_effective *v = NULL;
    size_t n = 0;
    cudnnctl_err ce = pre ? cudnnctl_effective_finish(ctx, pre, soname, expect_dir, fix_current,
                                                      fix_login, &v, &n)
                          : cudnnctl_effective_check(ctx, NULL, soname, expect_dir, fix_current,
                                                     fix_login, effective_flags(o), &v, &n);
    if (ce != CUDNNCTL_E_OK) {
        cli_warn(o, "effective check could not run: %s", cudnnctl_last_error(ctx)->detail);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char *line = cudnnctl_effective_line(&v[i]);
        if (line && v[i].same_release) /* another copy of the same release: it fits */
            cli_info(o, "  effective %s: %s", v[i].scope, line);
        else if (line)
            cli_warn(o, "%s", line);
        else if (!o->quiet && !o->json)
            cli_info(o, "  effective %s: %s maps %s", v[i].scope, soname,
                     v[i].mapped ? v[i].mapped : "nothing");
        cudnnctl_free(line);
    }
    char *js = NULL;
    if (n == 0)
        return NULL; /* not this platform's loader */
    if (cudnnctl_effective_json(v, n, &js) != CUDNNCTL_E_OK)
        js = NULL;
    cudnnctl_effective_free(v, n);
    return js;
}

void cli_print_json_with(const char *doc, const char *key, const char *value_json)
{
    char *merged = NULL;
    if (value_json && cudnnctl_json_attach(doc, key, value_json, &merged) == CUDNNCTL_E_OK) {
        cli_print_json(merged);
        cudnnctl_free(merged);
    } else {
        cli_print_json(doc);
    }
}
