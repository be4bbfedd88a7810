/* cmd_available.c: the 'available' command (placeholder until its work lands). */
#include "cli.h"

int cmd_available(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'available' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
