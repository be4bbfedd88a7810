/* cmd_list.c: the 'list' command (placeholder until its work lands). */
#include "cli.h"

int cmd_list(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'list' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
