/* cmd_uninstall.c: the 'uninstall' command (placeholder until its work lands). */
#include "cli.h"

int cmd_uninstall(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'uninstall' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
