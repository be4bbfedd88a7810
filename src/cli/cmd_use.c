/* cmd_use.c: the 'use' command (placeholder until its work lands). */
#include "cli.h"

int cmd_use(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'use' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
