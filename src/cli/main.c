/* main.c: entry point of the cudnnctl command-line tool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cudnnctl/cudnnctl_test.h"

/* The output that did not get out is a failure, as in coreutils' close_stdout: `cudnnctl
 * available > /dev/full` must not exit 0. */
static int close_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout) && fclose(stdout) == 0)
        return rc;
    fprintf(stderr, "cudnnctl: error: write error on standard output%s%s\n", errno ? ": " : "",
            errno ? strerror(errno) : "");
    return rc ? rc : 1;
}

/* --json on the command line (also when parsing it failed before it was read). */
static int wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    cli_opts o;
    const cli_command *cmd = NULL;
    argv = cudnnctl_host_args_utf8(argc, argv); /* Windows: UTF-8 from the wide command line */
    int rc = cli_parse(argc, argv, &o, &cmd);
    if (rc >= 0) {
        if (rc == 2 && wants_json(argc, argv))
            cli_usage_json(cmd ? cmd->name : NULL); /* one document, also for a usage error */
        free(o.args);
        return close_stdout(rc);
    }
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK) {
        free(o.args);
        return 1;
    }
    cli_setup_output(&o, ctx);
    /* tests: a stand-in for this machine's loader and CPU in the loader model (docs/which.md) */
    cudnnctl_set_loader_facts(cudnnctl_host_getenv("CUDNNCTL_TEST_LOADER_FACTS"));
    cudnnctl_set_lock_wait(ctx, o.lock_wait);
    if ((rc = cli_check_root(&o, cmd, ctx)) != 0)
        ; /* --root names no directory: said */
    else if (o.root && cudnnctl_set_root(ctx, o.root) != CUDNNCTL_E_OK)
        rc = cli_fail(&o, ctx, cudnnctl_last_error(ctx)->code);
    else if ((rc = cli_check_paths(&o, cmd, ctx)) != 0)
        ; /* a path option names nothing there: said (exit 2) */
    else if (cmd->name[0] != '_' && (rc = cli_config_apply(&o, cmd, ctx)) != 0)
        ; /* the configuration failed (out of memory); the error is printed */
    else if ((o.cache_dir && cudnnctl_set_cache_dir(ctx, o.cache_dir) != CUDNNCTL_E_OK) ||
        (o.state_dir && cudnnctl_set_state_dir(ctx, o.state_dir) != CUDNNCTL_E_OK))
        rc = cli_fail(&o, ctx, cudnnctl_last_error(ctx)->code);
    else
        rc = cmd->run(&o, ctx);
    if (rc == 2 && o.json)
        cli_usage_json(cmd->name); /* unless the command's document says it already */
    cli_output_end();
    cli_progress_end();
    cli_config_free();
    cudnnctl_ctx_free(ctx);
    free(o.args); /* the positional arguments (the ASan stage's leak check) */
    return close_stdout(rc);
}
