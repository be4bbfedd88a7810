/* cmd_install.c: the 'install' command (placeholder until its work lands). */
#include "cli.h"

int cmd_install(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'install' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
