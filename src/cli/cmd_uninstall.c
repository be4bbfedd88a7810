/* cmd_uninstall.c: the 'uninstall' command — remove exactly what receipts list, restore what
 * they replaced. Shares its rendering with 'rollback' (cmd_rollback.c). */
#include <string.h>

#include "cli.h"
#include "cli_fault.h"

/* Target of uninstall / rollback / list: --cuda-home, --prefix or one positional argument. */
const char *cli_undo_target(cli_opts *o);
int cli_undo_report(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e, cudnnctl_uninstall_result *r,
                    const char *verb);

const char *cli_undo_target(cli_opts *o)
{
    if (o->cuda_home)
        return o->cuda_home;
    if (o->prefix)
        return o->prefix;
    return o->n_args > 0 ? o->args[0] : NULL;
}

int cli_undo_report(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e, cudnnctl_uninstall_result *r,
                    const char *verb)
{
    if (r && o->json) {
        char *js = NULL;
        if (cudnnctl_uninstall_result_json(r, &js) == CUDNNCTL_E_OK)
            cli_print_json(js);
        cudnnctl_free(js);
    } else if (r && e == CUDNNCTL_E_OK) {
        if (r->recovered)
            cli_info(o, "recovered an interrupted run (%s)", r->recovered);
        for (size_t i = 0; i < r->n_removed_ids; i++)
            cli_info(o, "%s cuDNN %s (receipt %s) from %s", verb,
                     i < r->n_versions ? r->versions[i] : "?", r->removed_ids[i],
                     r->target_path ? r->target_path : "?");
        cli_info(o, "  %zu removed, %zu restored from backups, %zu kept (changed by you)",
                 r->n_files_removed, r->n_files_restored, r->n_files_kept);
        if (o->verbose) {
            for (size_t i = 0; i < r->n_files_removed; i++)
                cli_info(o, "  - %s", r->files_removed[i]);
            for (size_t i = 0; i < r->n_files_restored; i++)
                cli_info(o, "  + %s", r->files_restored[i]);
        }
        if (r->ldconfig)
            cli_info(o, "  ldconfig  %s", r->ldconfig);
    }
    return e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
}

int cmd_uninstall(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->all && o->version) {
        fprintf(stderr, "cudnnctl: give either --version V or --all, not both\n");
        return 2;
    }
    cudnnctl_uninstall_opts uo = {cli_undo_target(o), o->version, o->all, o->no_ldconfig};
    cudnnctl_uninstall_result *r = NULL;
    cli_cancel_on_signals(ctx);
    cli_fault_arm(ctx);
    cudnnctl_err e = cudnnctl_uninstall(ctx, &uo, &r);
    cli_fault_disarm(ctx);
    int code = cli_undo_report(o, ctx, e, r, "removed");
    cudnnctl_uninstall_result_free(r);
    return code;
}
