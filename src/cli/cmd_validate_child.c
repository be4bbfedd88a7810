/* cmd_validate_child.c: the 'validate_child' command (placeholder until its work lands). */
#include "cli.h"

int cmd_validate_child(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'validate_child' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
