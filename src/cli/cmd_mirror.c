/* cmd_mirror.c: the 'mirror' command (placeholder until its work lands). */
#include "cli.h"

int cmd_mirror(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'mirror' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
