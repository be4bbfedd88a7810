/* main.c: entry point of the cudnnctl command-line tool. */
#include <stdlib.h>

#include "cli.h"
#include "platform.h"

int main(int argc, char **argv)
{
    cli_opts o;
    const cli_command *cmd = NULL;
    argv = cc_pf_args_utf8(argc, argv); /* Windows: UTF-8 from the wide command line */
    int rc = cli_parse(argc, argv, &o, &cmd);
    if (rc >= 0) {
        free(o.args);
        return rc;
    }
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK) {
        free(o.args);
        return 1;
    }
    cli_setup_output(&o, ctx);
    if ((o.root && cudnnctl_set_root(ctx, o.root) != CUDNNCTL_E_OK) ||
        (o.cache_dir && cudnnctl_set_cache_dir(ctx, o.cache_dir) != CUDNNCTL_E_OK) ||
        (o.state_dir && cudnnctl_set_state_dir(ctx, o.state_dir) != CUDNNCTL_E_OK))
        rc = cli_fail(&o, ctx, cudnnctl_last_error(ctx)->code);
    else
        rc = cmd->run(&o, ctx);
    cudnnctl_ctx_free(ctx);
    free(o.args); /* the positional arguments (the ASan stage's leak check) */
    return rc;
}
