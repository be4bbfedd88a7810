/* cmd_use.c: the 'use' command: make CUDA toolkit X.Y the active one; without a version, list
 * the toolkits, mark the active one and say what makes it active. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "effective_out.h"
#include "envwire_out.h"

static int list_toolkits(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_detect_result *det = NULL;
    cudnnctl_cuda_link *link = NULL;
    char *json = NULL;
    int rc = 0;
    cudnnctl_err e = cudnnctl_detect(ctx, &det);
    if (e == CUDNNCTL_E_OK)
        e = cudnnctl_cuda_link_info(ctx, &link);
    if (e != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
        goto out;
    }
    if (o->json) {
        if ((e = cudnnctl_use_status_json(ctx, det, link, &json)) != CUDNNCTL_E_OK)
            rc = cli_fail(o, ctx, e);
        else
            cli_print_json(json);
        goto out;
    }
    if (det->n_toolkits == 0) {
        cli_info(o, "no CUDA toolkit found (install one, then: cudnnctl use X.Y)");
        goto out;
    }
    const cudnnctl_toolkit *act = cudnnctl_detect_active_toolkit(det);
    static const char *const hdr[] = {"", "VERSION", "PATH", "ORIGIN"};
    cli_table *t = cli_table_new(4, hdr);
    for (size_t i = 0; i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *k = &det->toolkits[i];
        const char *row[] = {k == act && k->active ? "*" : "", k->version, k->path, k->origin};
        cli_table_row(t, row);
    }
    if (!o->quiet)
        cli_table_print(t, stdout);
    cli_table_free(t);
    if (act && act->active)
        cli_info(o, "\nactive: CUDA %s (%s)", act->version ? act->version : "?",
                 act->active_reason ? act->active_reason : act->path);
    else
        cli_info(o, "\nno toolkit is active");
    if (link->mechanism == CUDNNCTL_MECH_REGISTRY) {
        cli_info(o, "Windows has no /usr/local/cuda: CUDA_PATH picks the toolkit; for one shell: "
                    "cudnnctl env --shell pwsh X.Y | Out-String | Invoke-Expression");
        goto out;
    }
    if (link->kind == CUDNNCTL_CUDA_LINK_ALTERNATIVES)
        cli_info(o, "%s is managed by update-alternatives (group '%s', %s mode) -> %s", link->link,
                 link->alt_name, link->alt_mode, link->target ? link->target : "(dangling)");
    else if (link->kind == CUDNNCTL_CUDA_LINK_LINK)
        cli_info(o, "%s -> %s", link->link, link->target ? link->target : "(dangling)");
    else
        cli_info(o, "%s is %s", link->link,
                 link->kind == CUDNNCTL_CUDA_LINK_MISSING ? "missing" : "not a link");
    cli_info(o, "switch for everyone: cudnnctl use X.Y   (this shell only: eval \"$(cudnnctl env "
                "X.Y)\")");
out:
    cudnnctl_free(json);
    cudnnctl_cuda_link_free(link);
    cudnnctl_detect_result_free(det);
    return rc;
}

/* use --cudnn V --prefix P: switch between versions installed side by side. */
static int use_cudnn(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args > 0) {
        fprintf(stderr, "cudnnctl: use switches a toolkit (use X.Y) or a cuDNN in a prefix (use "
                        "--cudnn V --prefix DIR), one at a time\n");
        return 2;
    }
    cudnnctl_switch_opts so = {o->prefix, o->cudnn, o->cuda, o->deep};
    cudnnctl_switch_result *r = NULL;
    char *json = NULL;
    int rc = 0;
    cudnnctl_err e = cudnnctl_switch(ctx, &so, &r);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_switch_result_free(r);
        return cli_fail(o, ctx, e);
    }
    if (o->json) {
        if ((e = cudnnctl_switch_result_json(r, &json)) != CUDNNCTL_E_OK)
            rc = cli_fail(o, ctx, e);
        else
            cli_print_json(json);
    } else {
        if (o->verbose)
            for (size_t i = 0; i < r->n_steps; i++)
                cli_info(o, "  - %s", r->steps[i]);
        cli_info(o, "cuDNN %s (CUDA %s) is %s current in %s: current -> %s (was %s)",
                 r->cudnn_version, r->cuda_variant ? r->cuda_variant : "?",
                 r->result == CUDNNCTL_SWITCH_SWITCHED ? "now" : "already", r->prefix,
                 r->install_dir, r->previous ? r->previous : "nothing");
        cli_info(o, "  %s, %.0f ms", r->deep ? "every file re-hashed against its receipt"
                                            : "verified at install; files present (--deep "
                                              "re-hashes them)",
                 r->seconds * 1000.0);
    }
    cudnnctl_free(json);
    cudnnctl_switch_result_free(r);
    return rc;
}

/* The effective check for the prefix cuDNN `use` made current (Linux; none without one). */
static char *effective_after_use(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_use_result *r)
{
    if (!r->cudnn_path || r->mechanism == CUDNNCTL_MECH_REGISTRY)
        return NULL;
    const char *base = strrchr(r->cudnn_path, '/');
    base = base ? base + 1 : r->cudnn_path;
    const char *ver = strncmp(base, "cudnn-", 6) == 0 ? base + 6 : "9";
    char lib[1200];
    snprintf(lib, sizeof(lib), "%s/lib", r->cudnn_path);
    return cli_effective(o, ctx, ver, lib, NULL, NULL); /* the prefix's activation */
}

int cmd_use(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->cudnn)
        return use_cudnn(o, ctx);
    if (o->n_args > 1 || (o->n_args == 1 && o->cuda)) {
        fprintf(stderr, "cudnnctl: use takes one toolkit version: cudnnctl use X.Y\n");
        return 2;
    }
    const char *version = o->n_args ? o->args[0] : o->cuda;
    if (!version)
        return list_toolkits(o, ctx);
    const char *prefixes[1] = {o->prefix};
    cudnnctl_env_inputs in = {NULL, prefixes, o->prefix ? 1 : 0};
    cudnnctl_use_result *r = NULL;
    char *json = NULL;
    int rc = 0;
    cudnnctl_err e =
        cudnnctl_use(ctx, &in, version,
                     (o->no_ldconfig ? CUDNNCTL_USE_NO_LDCONFIG : 0u) |
                         (o->system_wide ? CUDNNCTL_USE_SYSTEM : 0u),
                     &r);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    for (size_t i = 0; i < r->n_notes; i++)
        cli_warn(o, "%s", r->notes[i]);
    char *eff = effective_after_use(o, ctx, r);
    if (o->json) {
        if ((e = cudnnctl_use_result_json(r, &json)) != CUDNNCTL_E_OK)
            rc = cli_fail(o, ctx, e);
        else
            cli_print_json_with(json, "effective_load", eff);
    } else {
        cli_print_changes(o, &r->changes);
        if (r->mechanism == CUDNNCTL_MECH_REGISTRY) {
            cli_info(o, "CUDA %s is %s active: CUDA_PATH = %s (programs started from now on; "
                        "this shell: cudnnctl env --shell pwsh)",
                     r->toolkit_version ? r->toolkit_version : version,
                     r->changed ? "now" : "already", r->toolkit_path);
            goto done;
        }
        cli_info(o, "CUDA %s is %s active: /usr/local/cuda -> %s%s%s",
                 r->toolkit_version ? r->toolkit_version : version, r->changed ? "now" : "already",
                 r->toolkit_path, r->cudnn_path ? ", cuDNN " : "",
                 r->cudnn_path ? r->cudnn_path : "");
        if (r->changed)
            cli_info(o, "shells started before keep their PATH; update one with: "
                        "eval \"$(cudnnctl env)\"");
    }
done:
    cudnnctl_free(eff);
    cudnnctl_free(json);
    cudnnctl_use_result_free(r);
    return rc;
}
