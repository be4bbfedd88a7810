/* cmd_validate.c: the 'validate' command (placeholder until its work lands). */
#include "cli.h"

int cmd_validate(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'validate' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
