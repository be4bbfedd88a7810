/* output.c: how the front end talks to people: messages, errors, progress bar, tables, JSON. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static cli_opts *g_opts;

static void on_log(void *user, cudnnctl_log_level lvl, const char *msg)
{
    cli_opts *o = user;
    int max = o->quiet ? CUDNNCTL_LOG_ERROR : CUDNNCTL_LOG_WARN + o->verbose;
    if (o->debug)
        max = CUDNNCTL_LOG_DEBUG;
    if ((int)lvl > max)
        return;
    static const char *names[] = {"error", "warning", "info", "debug"};
    cli_progress_break();
    fprintf(stderr, "cudnnctl: %s: %s\n", names[lvl], msg);
}

/* Tests only: CUDNNCTL_TEST_STEP_PAUSE="<step prefix>:<ms>" sleeps in the event callback when a
 * step of that name starts, so a test can send a signal at a known point (the library goes on,
 * and polls the cancel callback, right after). */
static void test_pause(const cudnnctl_event *ev)
{
    const char *spec = cudnnctl_host_getenv("CUDNNCTL_TEST_STEP_PAUSE");
    const char *colon = spec ? strrchr(spec, ':') : NULL;
    if (!colon || !ev->text || strncmp(ev->text, spec, (size_t)(colon - spec)) != 0)
        return;
    cudnnctl_host_sleep_ms((unsigned)strtoul(colon + 1, NULL, 10));
}

static void on_event(void *user, const cudnnctl_event *ev)
{
    cli_opts *o = user;
    if (ev->kind == CUDNNCTL_EV_STEP)
        cli_progress_step(ev->text);
    if (ev->kind == CUDNNCTL_EV_WARNING && ev->text)
        cli_warn(o, "%s", ev->text);
    else if (ev->kind == CUDNNCTL_EV_STEP && ev->text && o->verbose)
        cli_info(o, "==> %s", ev->text);
    else if (ev->kind == CUDNNCTL_EV_RETRY && ev->text && !o->quiet)
        cli_warn(o, "retrying: %s", ev->text);
    if (ev->kind == CUDNNCTL_EV_STEP)
        test_pause(ev); /* after the step was shown: the test sees it, then signals */
}

void cli_setup_output(cli_opts *o, cudnnctl_ctx *ctx)
{
    g_opts = o;
    cudnnctl_set_log_cb(ctx, on_log, o);
    cudnnctl_set_event_cb(ctx, on_event, o);
    cli_progress_setup(o, 1);
    cli_progress_attach(ctx);
}

int cli_fail(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e)
{
    const cudnnctl_error_info *ei = cudnnctl_last_error(ctx);
    if (e == CUDNNCTL_E_INTERRUPTED && cli_signal_caught())
        cli_progress_newline(); /* cancelled by a signal: the line stays, the error below it */
    else
        cli_progress_break();
    const char *detail = (ei->code == e && ei->detail && *ei->detail) ? ei->detail
                                                                      : cudnnctl_strerror(e);
    fprintf(stderr, "cudnnctl: error: %s\n", detail);
    if (o->debug && ei->code == e && ei->func)
        fprintf(stderr, "cudnnctl: debug: %s (%s) at %s:%d\n", cudnnctl_err_name(e), ei->func,
                ei->file, ei->line);
    if (e == CUDNNCTL_E_INTERRUPTED && cli_signal_caught())
        return 128 + cli_signal_caught(); /* what a shell reports for a process a signal ended */
    return cudnnctl_err_exit_code(e);
}

void cli_print_json(const char *json)
{
    fputs(json, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

void cli_info(cli_opts *o, const char *fmt, ...)
{
    if (o->quiet)
        return;
    cli_progress_break();
    va_list ap;
    va_start(ap, fmt);
    FILE *f = o->json ? stderr : stdout;
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

void cli_warn(cli_opts *o, const char *fmt, ...)
{
    (void)o;
    cli_progress_break();
    va_list ap;
    va_start(ap, fmt);
    fputs("cudnnctl: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct cli_table {
    int ncols;
    char **cells; /* rows * ncols */
    int nrows, cap;
};

cli_table *cli_table_new(int ncols, const char *const *headers)
{
    cli_table *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->ncols = ncols;
    cli_table_row(t, headers);
    return t;
}

void cli_table_row(cli_table *t, const char *const *cells)
{
    if (!t)
        return;
    if (t->nrows + 1 > t->cap) {
        int nc = t->cap ? t->cap * 2 : 8;
        char **n = realloc(t->cells, sizeof(char *) * (size_t)(nc * t->ncols));
        if (!n)
            return;
        t->cells = n;
        t->cap = nc;
    }
    for (int i = 0; i < t->ncols; i++) {
        const char *s = cells[i] ? cells[i] : "-";
        size_t n = strlen(s);
        char *c = malloc(n + 1);
        if (c)
            memcpy(c, s, n + 1);
        t->cells[t->nrows * t->ncols + i] = c;
    }
    t->nrows++;
}

void cli_table_print(cli_table *t, FILE *f)
{
    if (!t)
        return;
    size_t w[32] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols && i < 32; i++) {
            const char *c = t->cells[r * t->ncols + i];
            size_t n = c ? strlen(c) : 0;
            if (n > w[i])
                w[i] = n;
        }
    for (int r = 0; r < t->nrows; r++) {
        for (int i = 0; i < t->ncols; i++) {
            const char *c = t->cells[r * t->ncols + i];
            if (i == t->ncols - 1)
                fprintf(f, "%s", c ? c : "");
            else
                fprintf(f, "%-*s  ", (int)w[i], c ? c : "");
        }
        fputc('\n', f);
    }
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t);
}
