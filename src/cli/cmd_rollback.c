/* cmd_rollback.c: the 'rollback' command (placeholder until its work lands). */
#include "cli.h"

int cmd_rollback(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'rollback' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
