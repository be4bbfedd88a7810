/* cmd_doctor.c: the 'doctor' command: find problems, name causes and fixes. Exit 0 when no
 * finding is an error, 1 otherwise (docs/doctor.md). */
#include <string.h>

#include "cli.h"

/* Print text wrapped at width, every line after the first indented like the first. */
static void wrapped(FILE *f, const char *lead, const char *text, size_t width)
{
    size_t indent = strlen(lead), col = indent;
    fputs(lead, f);
    const char *s = text;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " ");
        if (!n)
            break;
        if (col > indent && col + 1 + n > width) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(s, 1, n, f);
        col += n;
        s += n;
    }
    fputc('\n', f);
}

static void print_human(cli_opts *o, const cudnnctl_doctor_result *r)
{
    FILE *f = stdout;
    int color = o->color == 1 || (o->color == 2 && cudnnctl_host_isatty(1) && !cudnnctl_host_getenv("NO_COLOR"));
    for (size_t i = 0; i < r->n_findings; i++) {
        const cudnnctl_finding *x = &r->findings[i]; /* every severity: the answer, also -q */
        const char *sev = cudnnctl_severity_name(x->severity);
        const char *on = !color                                ? ""
                         : x->severity == CUDNNCTL_SEV_ERROR   ? "\033[1;31m"
                         : x->severity == CUDNNCTL_SEV_WARNING ? "\033[1;33m"
                                                               : "\033[1;36m";
        fprintf(f, "%s%-7s%s %s%s%s\n", on, sev, color ? "\033[0m" : "", x->code,
                x->path ? "  " : "", x->path ? x->path : "");
        wrapped(f, "        ", x->message, 100);
        if (x->fix && *x->fix)
            wrapped(f, "   fix: ", x->fix, 100);
        if (x->command)
            fprintf(f, "   run: %s\n", x->command);
        fputc('\n', f);
    }
    if (!o->quiet) { /* the summary line is info */
        if (r->n_findings == 0)
            fprintf(f, "no problems found");
        else
            fprintf(f, "%zu error%s, %zu warning%s, %zu info", r->n_errors,
                    r->n_errors == 1 ? "" : "s", r->n_warnings, r->n_warnings == 1 ? "" : "s",
                    r->n_info);
        if (r->n_receipt_files)
            fprintf(f, "; %zu file%s of install receipts %s", r->n_receipt_files,
                    r->n_receipt_files == 1 ? "" : "s", r->deep ? "re-hashed" : "checked");
        fprintf(f, " (%.0f ms)\n", r->seconds * 1000.0);
    }
}

#define DO(f) CLI_COPY(cudnnctl_doctor_opts, f, f, CLI_COPY_SAME)
static const cli_copy doctor_copy[] = {DO(deep), DO(for_pkg), DO(platform), DO(windows_env),
                                       DO(python)};

int cmd_doctor(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args) {
        fprintf(stderr, "cudnnctl: doctor takes no arguments (did you mean --root DIR?)\n");
        return 2;
    }
    cudnnctl_doctor_opts dopts;
    memset(&dopts, 0, sizeof(dopts));
    cli_copy_opts(&dopts, o, doctor_copy, sizeof(doctor_copy) / sizeof(doctor_copy[0]));
    cudnnctl_doctor_result *r = NULL;
    cudnnctl_err e = cudnnctl_doctor(ctx, NULL, &dopts, &r);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    if (o->json) {
        char *json = NULL;
        if ((e = cudnnctl_doctor_result_json(r, &json)) != CUDNNCTL_E_OK) {
            cudnnctl_doctor_result_free(r);
            return cli_fail(o, ctx, e);
        }
        cli_print_json(json);
        cudnnctl_free(json);
    } else {
        print_human(o, r);
    }
    int rc = r->n_errors ? 1 : 0;
    cudnnctl_doctor_result_free(r);
    return rc;
}
