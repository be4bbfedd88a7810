/* cmd_validate.c: the 'validate' command: prove on the GPU that an installed cuDNN works. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_human(cli_opts *o, const cudnnctl_validate_result *r)
{
    (void)o; /* the verdict is the answer: -q does not hide it */
    printf("cuDNN %s in %s (%s)\n", r->cudnn_version ? r->cudnn_version : "?",
           r->lib_dir ? r->lib_dir : "?", r->cudnn_lib ? r->cudnn_lib : "?");
    printf("  built for CUDA %s; runtime %s from %s; driver %s (CUDA %s)\n",
           r->cudnn_cudart_version ? r->cudnn_cudart_version : "?",
           r->cudart_version ? r->cudart_version : "?",
           r->toolkit_lib_dir ? r->toolkit_lib_dir : "?",
           r->driver_version ? r->driver_version : "-",
           r->driver_cuda_version ? r->driver_cuda_version : "-");
    if (r->compute_capability)
        printf("  GPU: %s, SM %d.%d\n", r->gpu_name ? r->gpu_name : "?",
               r->compute_capability / 10, r->compute_capability % 10);
    const char *hdr[] = {"check", "result", "time", "max |err|", "error"};
    cli_table *t = cli_table_new(5, hdr);
    for (size_t i = 0; i < r->n_checks; i++) {
        const cudnnctl_validate_check *k = &r->checks[i];
        char secs[32], err[32];
        snprintf(secs, sizeof(secs), "%.3f s", k->seconds);
        if (k->max_abs_err >= 0)
            snprintf(err, sizeof(err), "%.2g", k->max_abs_err);
        else
            snprintf(err, sizeof(err), "-");
        const char *res = k->ok ? "ok" : k->skipped ? "skip" : k->advisory ? "warn" : "FAIL";
        const char *cells[] = {k->name, res, secs, err,
                               k->error ? k->error : (k->detail ? k->detail : "")};
        cli_table_row(t, cells);
    }
    cli_table_print(t, stdout);
    cli_table_free(t);
    printf("loaded from:\n");
    for (size_t i = 0; i < r->n_loaded; i++) {
        if (strcmp(r->loaded[i].path, r->loaded[i].realpath) == 0)
            printf("  %s\n", r->loaded[i].path);
        else
            printf("  %s -> %s\n", r->loaded[i].path, r->loaded[i].realpath);
    }
    printf("result: %s (%.2f s)\n", cudnnctl_validate_status_name(r->status), r->seconds);
}

int cmd_validate(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args > 1) {
        fprintf(stderr, "cudnnctl: validate takes one target (a cuDNN lib dir, prefix or CUDA "
                        "tree)\n");
        return 2;
    }
    if (o->prefix && o->n_args) {
        fprintf(stderr, "cudnnctl: give the target either as an argument or with --prefix\n");
        return 2;
    }
    cudnnctl_validate_opts vo = cli_validate_opts(o);
    cudnnctl_validate_result *r = NULL;
    cudnnctl_err e = cudnnctl_validate(ctx, &vo, &r);
    if (!r)
        return cli_fail(o, ctx, e);
    if (o->json) {
        char *json = NULL;
        if (cudnnctl_validate_result_json(r, &json) == CUDNNCTL_E_OK)
            cli_print_json(json);
        cudnnctl_free(json);
    } else {
        print_human(o, r);
    }
    int rc = 0;
    if (e == CUDNNCTL_E_NO_GPU) {
        cli_warn(o, "%s", cudnnctl_last_error(ctx)->detail);
        rc = cudnnctl_err_exit_code(e);
    } else if (e != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
    }
    cudnnctl_validate_result_free(r);
    return rc;
}
