/* cmd_rollback.c: the 'rollback' command — undo the newest install on a target (the tree is
 * then exactly as before it; an earlier install there is the active one again). */
#include "cli.h"
#include "cli_fault.h"

const char *cli_undo_target(cli_opts *o);
int cli_undo_report(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e, cudnnctl_uninstall_result *r,
                    const char *verb);

int cmd_rollback(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_uninstall_result *r = NULL;
    cli_cancel_on_signals(ctx);
    cli_fault_arm(ctx);
    cudnnctl_err e = cudnnctl_rollback(ctx, cli_undo_target(o), o->no_ldconfig, &r);
    cli_fault_disarm(ctx);
    int code = cli_undo_report(o, ctx, e, r, "rolled back");
    cudnnctl_uninstall_result_free(r);
    return code;
}
