/* cmd_report.c: the 'report' command (placeholder until its work lands). */
#include "cli.h"

int cmd_report(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'report' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
