/* output.c: how the front end talks to people: messages, errors, progress bar, tables, JSON. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static cli_opts *g_opts;
/* --json: the document to print, held until the run ends so that a failure after it goes into
 * it ("error") instead of a second document; printed by cli_output_end (or the next one). */
static char *g_pending;
static char g_usage[1024]; /* the last usage error said (cli_usage_error), for --json */
static int g_printed;      /* a JSON document went out */
static char *g_error;      /* a failure's {"error": ...} not in a document yet (the document
                              may follow: install's comes after its validation's failure) */

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

/* A copy in this program's heap (the library's strings go back through cudnnctl_free). */
static char *own(const char *s)
{
    char *c = s ? malloc(strlen(s) + 1) : NULL;
    if (c)
        memcpy(c, s, strlen(s) + 1);
    return c;
}

static void put_json(const char *json)
{
    g_printed = 1;
    fputs(json, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* doc with err's "error" member in it (err: {"error": {...}}); the merged text, or NULL. */
static char *with_error(const char *doc, const char *err)
{
    char *merged = NULL, *out = NULL;
    const char *obj = strchr(err, ':'); /* {"error":{...}} -> {...} */
    char *inner = obj ? malloc(strlen(obj)) : NULL;
    if (inner) {
        memcpy(inner, obj + 1, strlen(obj + 1) - 1);
        inner[strlen(obj + 1) - 1] = '\0';
    }
    if (inner && cudnnctl_json_attach(doc, "error", inner, &merged) == CUDNNCTL_E_OK) {
        out = own(merged);
        cudnnctl_free(merged);
    }
    free(inner);
    return out;
}

/* --json: the failure as the document's "error" (one document whatever failed). */
static void fail_json(cudnnctl_err e, int exit_code, const char *detail)
{
    char *err = NULL;
    if (cudnnctl_error_json(e, exit_code, detail, &err) != CUDNNCTL_E_OK)
        return;
    char *merged = g_pending ? with_error(g_pending, err) : NULL;
    if (merged) {
        free(g_pending);
        g_pending = merged;
    } else if (!g_pending && !g_error) {
        g_error = own(err); /* the first failure: the one to report */
    }
    cudnnctl_free(err);
}

void cli_output_end(void)
{
    if (g_pending)
        put_json(g_pending);
    else if (g_error)
        put_json(g_error);
    free(g_pending);
    free(g_error);
    g_pending = g_error = NULL;
}

void cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_usage, sizeof(g_usage), fmt, ap);
    va_end(ap);
    fprintf(stderr, "cudnnctl: %s\n", g_usage);
}

void cli_usage_json(const char *cmd)
{
    if (g_pending || g_printed || g_error)
        return; /* the failure is in the document already */
    char fix[128];
    snprintf(fix, sizeof(fix), "; see cudnnctl %s%s--help", cmd ? cmd : "", cmd ? " " : "");
    size_t n = strlen(g_usage);
    if (!n)
        snprintf(g_usage, sizeof(g_usage), "%s", cudnnctl_strerror(CUDNNCTL_E_USAGE));
    if (!strstr(g_usage, "; ") && n + strlen(fix) < sizeof(g_usage))
        memcpy(g_usage + strlen(g_usage), fix, strlen(fix) + 1);
    fail_json(CUDNNCTL_E_USAGE, 2, g_usage);
    cli_output_end();
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
    int rc = e == CUDNNCTL_E_INTERRUPTED && cli_signal_caught()
                 ? 128 + cli_signal_caught() /* what a shell reports for a process a signal ended */
                 : cudnnctl_err_exit_code(e);
    if (o->json)
        fail_json(e, rc, detail);
    return rc;
}

void cli_print_json(const char *json)
{
    if (!g_opts || !g_opts->json) {
        put_json(json);
        return;
    }
    if (g_pending) { /* a command with two documents: the first goes out as it was */
        put_json(g_pending);
        free(g_pending);
        g_pending = NULL;
    }
    char *err = g_error;
    g_error = NULL;
    g_pending = err ? with_error(json, err) : NULL; /* a failure said before it: in it */
    if (!g_pending)
        g_pending = own(json);
    free(err);
    if (!g_pending)
        put_json(json);
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
