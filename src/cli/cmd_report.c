/* cmd_report.c: the 'report' command: one JSON document recording this environment (always
 * JSON: it is a record for files and fleets; --json changes nothing). Exit 0 when the record
 * was written, whatever a --validate inside it found (docs/formats.md, "report"). */
#include <string.h>

#include "cli.h"

int cmd_report(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args > 1 || (o->n_args && !o->validate)) {
        fprintf(stderr, "cudnnctl: report takes no arguments but, with --validate, the target "
                        "to validate (as for validate); redirect its output to a file: cudnnctl "
                        "report > host.json\n");
        return 2;
    }
    cudnnctl_report_opts ro;
    memset(&ro, 0, sizeof(ro));
    ro.doctor = 1;
    ro.validate = o->validate;
    ro.validate_opts = cli_validate_opts(o);
    char *json = NULL;
    cudnnctl_err e = cudnnctl_report(ctx, NULL, &ro, &json);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    cli_print_json(json);
    cudnnctl_free(json);
    return 0;
}
