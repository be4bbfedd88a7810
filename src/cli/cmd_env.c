/* cmd_env.c: the 'env' command: print activation for a shell, or wire it persistently
 * (--persist [--system]) and take that back (--remove [--system]). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "effective_out.h"
#include "envwire_out.h"

static int print_changes(cli_opts *o, cudnnctl_changes *ch, const char *effective)
{
    if (o->json) {
        char *j = NULL;
        if (cudnnctl_changes_json(ch, &j) != CUDNNCTL_E_OK)
            return 1;
        cli_print_json_with(j, "effective_load", effective);
        cudnnctl_free(j);
    } else {
        cli_print_changes(o, ch);
    }
    return 0;
}

/* The env arguments again, for a fix line: " 13.0 --prefix /opt/p". */
static void env_args(const cli_opts *o, char *buf, size_t n)
{
    const char *target = o->n_args ? o->args[0] : o->cuda_home ? o->cuda_home : o->cuda;
    snprintf(buf, n, "%s%s%s%s", target ? " " : "", target ? target : "",
             o->prefix ? " --prefix " : "", o->prefix ? o->prefix : "");
}

/* The lib dir of the selection's cuDNN (Linux layout), or NULL. */
static const char *cudnn_lib_dir(const cudnnctl_env_selection *sel)
{
    return sel->cudnn_path && !sel->windows && sel->n_lib_dirs ? sel->lib_dirs[0] : NULL;
}

static char *effective_after_persist(cli_opts *o, cudnnctl_ctx *ctx,
                                     const cudnnctl_env_selection *sel)
{
    const char *lib = cudnn_lib_dir(sel);
    if (!lib)
        return NULL;
    char args[1024];
    env_args(o, args, sizeof(args));
    char *cur = cudnnctl_activation_fix(ctx, lib, "current", args);
    char *login = cudnnctl_activation_fix(ctx, lib, "login", args);
    char *js = cli_effective(o, ctx, sel->cudnn_version, lib, cur, o->system_wide ? NULL : login);
    cudnnctl_free(cur);
    cudnnctl_free(login);
    return js;
}

/* Activation that activates: a selected cuDNN the loader would not find by itself goes in front
 * of LD_LIBRARY_PATH (the user named it: that is the consent); --no-ld-library-path opts out.
 * Returns 1 when only the cuDNN dir is to be prepended. */
static int cudnn_needs_ldpath(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_env_selection *sel)
{
    const char *lib = cudnn_lib_dir(sel);
    if (!lib || o->no_ld_library_path || o->ld_library_path)
        return 0;
    char soname[32];
    snprintf(soname, sizeof(soname), "libcudnn.so.%d",
             sel->cudnn_version ? atoi(sel->cudnn_version) : 9);
    return !cudnnctl_loader_default_finds(ctx, soname, lib);
}

/* The option combinations env refuses: 2 after saying why, else 0. */
static int env_usage(const cli_opts *o, cudnnctl_shell *sh)
{
    if (o->shell && cudnnctl_shell_parse(o->shell, sh) != CUDNNCTL_E_OK) {
        fprintf(stderr, "cudnnctl: --shell takes sh, bash, zsh, fish, pwsh, cmd, lmod or tcl\n");
        return 2;
    }
    int module = o->shell && (*sh == CUDNNCTL_SHELL_LMOD || *sh == CUDNNCTL_SHELL_TCL);
    if (o->modulefiles && ((!o->persist && !o->remove) || o->system_wide)) {
        fprintf(stderr,
                "cudnnctl: --modulefiles DIR goes with --persist or --remove (not --system)\n");
        return 2;
    }
    if (o->persist && module && !o->modulefiles) {
        fprintf(stderr,
                "cudnnctl: a modulefile is written into a module dir: cudnnctl env --persist "
                "--modulefiles DIR (or printed: cudnnctl env --shell %s)\n",
                o->shell);
        return 2;
    }
    if (o->modulefiles)
        return 0; /* a modulefile is loaded per session: --ld-library-path is fine there */
    if (o->n_args > 1 || (o->n_args == 1) + !!o->cuda + !!o->cuda_home > 1) {
        fprintf(stderr, "cudnnctl: env takes one target: X.Y (or --cuda X.Y), a toolkit dir (or "
                        "--cuda-home DIR) or a prefix\n");
        return 2;
    }
    if (o->persist && o->remove) {
        fprintf(stderr, "cudnnctl: give either --persist or --remove\n");
        return 2;
    }
    if (o->ld_library_path && o->no_ld_library_path) {
        fprintf(stderr, "cudnnctl: give either --ld-library-path or --no-ld-library-path\n");
        return 2;
    }
    if ((o->persist || o->remove) && o->ld_library_path) {
        fprintf(stderr,
                "cudnnctl: --ld-library-path is for one shell session only: a persistent "
                "LD_LIBRARY_PATH with a cuDNN dir overrides the cuDNN every framework bundles.\n"
                "cudnnctl: wire libraries system-wide with: cudnnctl env --persist --system "
                "(/etc/ld.so.conf.d)\n");
        return 2;
    }
    if (o->system_wide && !o->persist && !o->remove) {
        fprintf(stderr, "cudnnctl: --system goes with --persist or --remove\n");
        return 2;
    }
    return 0;
}

/* env --remove: drop the persistent wiring. */
static int env_remove(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_persist_opts *po)
{
    cudnnctl_changes ch = {0};
    int rc;
    cudnnctl_err e = cudnnctl_env_unpersist(ctx, po, &ch);
    if (e != CUDNNCTL_E_OK)
        rc = cli_fail(o, ctx, e);
    else if ((rc = print_changes(o, &ch, NULL)) == 0 && ch.n == 0)
        cli_info(o, "nothing to remove: no cudnnctl wiring found");
    cudnnctl_changes_free(&ch);
    return rc;
}

/* env --persist: wire the selection into shell startup files (or system-wide). */
static int env_persist(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_env_selection *sel,
                       const cudnnctl_persist_opts *po)
{
    cudnnctl_changes ch = {0};
    int rc;
    cudnnctl_err e = cudnnctl_env_persist(ctx, sel, po, &ch);
    if (e != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
    } else {
        char *eff = effective_after_persist(o, ctx, sel);
        rc = print_changes(o, &ch, eff);
        cudnnctl_free(eff);
        if (rc == 0 && !o->system_wide)
            cli_info(o, "new shells pick up PATH and CUDA_HOME (libraries: see the effective check "
                        "above); this one: eval \"$(cudnnctl env)\"");
    }
    cudnnctl_changes_free(&ch);
    return rc;
}

/* env: the selection as JSON, or as the shell's commands. */
static int env_print(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_env_selection *sel,
                     cudnnctl_shell sh)
{
    char *text = NULL;
    int rc = 0;
    cudnnctl_err e;
    if (o->json) {
        if ((e = cudnnctl_env_selection_json(sel, &text)) != CUDNNCTL_E_OK)
            rc = cli_fail(o, ctx, e);
        else
            cli_print_json(text);
        cudnnctl_free(text);
        return rc;
    }
    unsigned rflags = o->ld_library_path ? CUDNNCTL_ENV_LD_LIBRARY_PATH : 0;
    cudnnctl_env_selection only_cudnn = *sel;
    const cudnnctl_env_selection *render = sel;
    if (cudnn_needs_ldpath(o, ctx, sel)) {
        only_cudnn.n_lib_dirs = 1; /* lib_dirs[0] is the cuDNN dir */
        render = &only_cudnn;
        rflags |= CUDNNCTL_ENV_LD_LIBRARY_PATH;
        if (o->verbose)
            cli_info(o, "LD_LIBRARY_PATH gets %s in front: the loader would not find this cuDNN "
                        "otherwise (--no-ld-library-path: leave it alone)",
                     sel->lib_dirs[0]);
    }
    if ((e = cudnnctl_env_render(ctx, render, sh, rflags, &text)) != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
    } else {
        fputs(text, stdout);
        fflush(stdout);
    }
    cudnnctl_free(text);
    return rc;
}

/* env --persist / --remove --modulefiles DIR: one modulefile per selection (docs/build.md). */
static int env_modulefiles(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_env_selection *sel,
                           cudnnctl_shell sh)
{
    cudnnctl_changes ch = {0};
    int rc;
    unsigned rflags = o->ld_library_path ? CUDNNCTL_ENV_LD_LIBRARY_PATH : 0;
    cudnnctl_env_selection only_cudnn;
    const cudnnctl_env_selection *render = sel;
    if (sel && o->persist && cudnn_needs_ldpath(o, ctx, sel)) {
        only_cudnn = *sel;
        only_cudnn.n_lib_dirs = 1; /* lib_dirs[0] is the cuDNN dir */
        render = &only_cudnn;
        rflags |= CUDNNCTL_ENV_LD_LIBRARY_PATH;
    }
    if (sh != CUDNNCTL_SHELL_TCL)
        sh = CUDNNCTL_SHELL_LMOD;
    cudnnctl_err e =
        o->persist ? cudnnctl_env_write_modulefile(ctx, render, sh, o->modulefiles, rflags, &ch)
                   : cudnnctl_env_remove_modulefiles(ctx, o->modulefiles, sel, &ch);
    if (e != CUDNNCTL_E_OK)
        rc = cli_fail(o, ctx, e);
    else if ((rc = print_changes(o, &ch, NULL)) == 0 && o->persist)
        cli_info(o, "MODULEPATH needs %s: module use %s; then: module load cudnn/%s-cuda%d",
                 o->modulefiles, o->modulefiles, sel->cudnn_version, sel->cudnn_cuda_major);
    else if (rc == 0 && ch.n == 0)
        cli_info(o, "nothing to remove: no cudnnctl modulefile in %s/cudnn", o->modulefiles);
    cudnnctl_changes_free(&ch);
    return rc;
}

int cmd_env(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_shell sh = cudnnctl_shell_default();
    cudnnctl_env_selection *sel = NULL;
    int rc = env_usage(o, &sh);
    if (rc != 0)
        return rc;
    const char *target = o->n_args ? o->args[0] : o->cuda_home ? o->cuda_home : o->cuda;
    const char *prefixes[1] = {o->prefix};
    cudnnctl_env_inputs in = {NULL, prefixes, o->prefix ? 1 : 0};
    cudnnctl_persist_opts po = {0, 0};
    if (o->system_wide)
        po.flags |= CUDNNCTL_PERSIST_SYSTEM;
    if (o->no_ldconfig)
        po.flags |= CUDNNCTL_PERSIST_NO_LDCONFIG;
    if (o->shell)
        po.shells = 1u << sh;
    if (o->remove && o->modulefiles && !target)
        return env_modulefiles(o, ctx, NULL, sh);
    if (o->remove && !o->modulefiles) {
        if (target) {
            fprintf(stderr, "cudnnctl: env --remove takes no target\n");
            return 2;
        }
        return env_remove(o, ctx, &po);
    }
    /* persistent wiring of the default target follows later `use` switches (a modulefile is
     * named by its version, so it names that version's dirs) */
    unsigned sflags = (o->persist && !target && !o->modulefiles) ? CUDNNCTL_SELECT_FOLLOW : 0;
    cudnnctl_err e = cudnnctl_env_select(ctx, &in, target, sflags, &sel);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    for (size_t i = 0; i < sel->n_notes && !o->quiet; i++)
        cli_warn(o, "%s", sel->notes[i]);
    if (o->modulefiles)
        rc = env_modulefiles(o, ctx, sel, sh);
    else
        rc = o->persist ? env_persist(o, ctx, sel, &po) : env_print(o, ctx, sel, sh);
    cudnnctl_env_selection_free(sel);
    return rc;
}
