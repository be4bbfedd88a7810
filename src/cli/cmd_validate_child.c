/* cmd_validate_child.c: the hidden '__validate-child' command: the validation child process.
 * Reads the request from stdin, runs the checks, writes the report lines to stdout. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void emit_line(void *user, const char *line)
{
    (void)user;
    /* vendor libraries may have left a partial line on stdout: the parent finds our marker
     * anywhere in a line, but a fresh line keeps the vendor text readable */
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

int cmd_validate_child(cli_opts *o, cudnnctl_ctx *ctx)
{
    size_t cap = 4096, len = 0;
    char *req = malloc(cap);
    if (!req)
        return 1;
    size_t n;
    while ((n = fread(req + len, 1, cap - len - 1, stdin)) > 0) {
        len += n;
        if (len + 1 >= cap) {
            if (cap >= (1u << 20))
                break; /* a request is a few hundred bytes */
            char *nr = realloc(req, cap * 2);
            if (!nr) {
                free(req);
                return 1;
            }
            req = nr;
            cap *= 2;
        }
    }
    req[len] = '\0';
    /* unbuffered stdout: what was reported before a vendor crash must have reached the pipe */
    setvbuf(stdout, NULL, _IONBF, 0);
    cudnnctl_err e = cudnnctl_validate_child(ctx, req, emit_line, NULL);
    free(req);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    return 0;
}
