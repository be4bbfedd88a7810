/* cmd_env.c: the 'env' command (placeholder until its work lands). */
#include "cli.h"

int cmd_env(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'env' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
