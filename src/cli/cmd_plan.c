/* cmd_plan.c: the 'plan' command (placeholder until its work lands). */
#include "cli.h"

int cmd_plan(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'plan' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
