/* cmd_compare.c: the 'compare' command (placeholder until its work lands). */
#include "cli.h"

int cmd_compare(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'compare' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
