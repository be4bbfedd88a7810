/* cmd_doctor.c: the 'doctor' command (placeholder until its work lands). */
#include "cli.h"

int cmd_doctor(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "cudnnctl: 'doctor' is not implemented in this build yet\n");
    (void)o;
    return 1;
}
