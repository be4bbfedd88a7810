/* cmd_detect.c: the 'detect' command (placeholder until its work lands). */
#include "cli.h"

int cmd_detect(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'detect' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
