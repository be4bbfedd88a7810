/* cmd_recover.c: the 'recover' command — settle an interrupted run (its journal) and nothing
 * else; --json: {"recovered": null | "rolled-back" | "finished", "kind": ...}. */
#include <stdio.h>

#include "cli.h"

int cmd_recover(cli_opts *o, cudnnctl_ctx *ctx)
{
    const char *what = NULL;
    char *kind = NULL;
    cli_cancel_on_signals(ctx);
    cudnnctl_err e = cudnnctl_recover(ctx, &what, &kind);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_free(kind);
        return cli_fail(o, ctx, e);
    }
    if (o->json)
        printf("{\"recovered\": %s%s%s, \"kind\": %s%s%s}\n", what ? "\"" : "",
               what ? what : "null", what ? "\"" : "", kind ? "\"" : "", kind ? kind : "null",
               kind ? "\"" : "");
    else if (what)
        cli_info(o, "an interrupted %s was %s", kind ? kind : "run",
                 what[0] == 'f' ? "finished" : "rolled back");
    else
        cli_info(o, "nothing to recover");
    cudnnctl_free(kind);
    return 0;
}
