/* progress.c: the progress display of long stages (download, verify, unpack, commit, validate).
 *
 * On a terminal: one live line at the bottom holds every running stage side by side (download
 * and unpack run at the same time, so they share the line instead of overwriting each other),
 * redrawn whole ("\r", text, spaces over what is left of a longer one) at most 10 times a
 * second; a stage shows up there only once it has run for a second (no bar for sub-second
 * stages). When a stage ends it
 * gets a permanent line of its own ("download  894.5 MiB in 7.4 s (120.9 MiB/s)"). Rates are
 * EWMAs with a 1 s time constant over samples >= 200 ms apart; the ETA is what is left at that
 * rate. Not a terminal, or TERM=dumb: only the permanent lines. Any other output, an error, the
 * end of the run and an interrupt (the platform layer's handler) first end the live line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *label; /* what the user sees */
    int bytes;         /* 1: done/total are bytes; 0: files */
    uint64_t done, total, half; /* half: commit's prepare part (files) */
    uint64_t t0, t_sample, b_sample;
    double rate; /* per second, smoothed */
    int finished;
} stage;

enum { MODE_OFF = 0, MODE_LIVE, MODE_PLAIN };

static int g_mode;
static stage g_st[8];
static int g_n;
static volatile int g_line_open; /* a live line is on the screen, not ended by a newline */
static int g_line_len;           /* its width: a shorter redraw blanks the rest with spaces (no
                                    escape sequences, so any console shows it right) */
static uint64_t g_last_draw;

static void human(char *buf, size_t n, double v)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB"};
    int i = 0;
    while (v >= 1024 && i < 3) {
        v /= 1024;
        i++;
    }
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static void amount(char *buf, size_t n, const stage *s, uint64_t v)
{
    if (s->bytes)
        human(buf, n, (double)v);
    else
        snprintf(buf, n, "%llu files", (unsigned long long)v);
}

void cli_progress_break(void)
{
    if (g_line_open) {
        fprintf(stderr, "\r%*s\r", g_line_len, "");
        fflush(stderr);
        g_line_open = 0;
        g_line_len = 0;
        g_last_draw = 0;
    }
}

void cli_progress_newline(void)
{
    if (g_line_open) {
        fputc('\n', stderr); /* the line keeps its text; what follows starts a new one */
        fflush(stderr);
        g_line_open = 0;
        g_line_len = 0;
        g_last_draw = 0;
    }
}

void cli_progress_end(void)
{
    cli_progress_break();
}

void cli_progress_setup(cli_opts *o, int enabled)
{
    const char *term = cudnnctl_host_getenv("TERM");
    if (!enabled || o->json || o->quiet || o->no_progress)
        g_mode = MODE_OFF;
    else if (cudnnctl_host_isatty(2) && !(term && strcmp(term, "dumb") == 0))
        g_mode = MODE_LIVE;
    else
        g_mode = MODE_PLAIN;
    cudnnctl_host_interrupt_newline(&g_line_open);
}

int cli_progress_on(void)
{
    return g_mode != MODE_OFF;
}

static stage *new_slot(const char *label, int bytes, uint64_t now);

/* The stage's slot by its user-visible label (created on first use). */
static stage *slot(const char *label, int bytes, uint64_t now)
{
    for (int i = 0; i < g_n; i++)
        if (strcmp(g_st[i].label, label) == 0 && !g_st[i].finished)
            return &g_st[i];
    return new_slot(label, bytes, now);
}

/* A finished stage of that label that this report only repeats the end of (NULL if none). */
static stage *repeat_of(const char *label, uint64_t done)
{
    for (int i = g_n - 1; i >= 0; i--)
        if (strcmp(g_st[i].label, label) == 0)
            return g_st[i].finished && done >= g_st[i].done ? &g_st[i] : NULL;
    return NULL;
}

static stage *new_slot(const char *label, int bytes, uint64_t now)
{
    if (g_n == (int)(sizeof(g_st) / sizeof(g_st[0]))) { /* drop the oldest */
        memmove(g_st, g_st + 1, sizeof(g_st) - sizeof(g_st[0]));
        g_n--;
    }
    stage *s = &g_st[g_n++];
    memset(s, 0, sizeof(*s));
    s->label = label;
    s->bytes = bytes;
    s->t0 = s->t_sample = now;
    return s;
}

static void sample(stage *s, uint64_t now)
{
    uint64_t dt = now - s->t_sample;
    if (dt < 200)
        return;
    double inst = (double)(s->done - s->b_sample) * 1000.0 / (double)dt;
    double a = 1.0 - exp(-(double)dt / 1000.0);
    s->rate = s->rate > 0 ? s->rate + a * (inst - s->rate) : inst;
    s->t_sample = now;
    s->b_sample = s->done;
}

/* "download [#######.............]  35%  310.2 MiB / 894.5 MiB  120.3 MiB/s  ETA 0:04" */
static int segment(char *buf, size_t n, const stage *s)
{
    char d[32], t[32], r[40] = "";
    amount(d, sizeof(d), s, s->done);
    if (s->rate > 0 && s->bytes) {
        char x[32];
        human(x, sizeof(x), s->rate);
        snprintf(r, sizeof(r), "%s/s", x);
    }
    if (!s->total)
        return snprintf(buf, n, "%-8s %s%s%s", s->label, d, *r ? "  " : "", r);
    amount(t, sizeof(t), s, s->total);
    int pct = (int)(100.0 * (double)s->done / (double)s->total);
    char bar[21];
    for (int i = 0; i < 20; i++)
        bar[i] = i < pct / 5 ? '#' : '.';
    bar[20] = '\0';
    char eta[24] = "";
    if (s->rate > 0) {
        double left = (double)(s->total - s->done) / s->rate;
        snprintf(eta, sizeof(eta), "  ETA %d:%02d", (int)left / 60, (int)left % 60);
    }
    return snprintf(buf, n, "%-8s [%s] %3d%%  %s / %s  %s%s", s->label, bar, pct, d, t, r, eta);
}

static void draw(uint64_t now)
{
    char line[512] = "";
    size_t len = 0;
    /* in pipeline order: download (or read), unpack, commit, others */
    static const char *const order[] = {"download", "read", "unpack", "commit", NULL};
    for (int k = 0; k < 5; k++)
    for (int i = 0; i < g_n; i++) {
        const stage *s = &g_st[i];
        int mine = 4;
        for (int j = 0; order[j]; j++)
            if (strcmp(s->label, order[j]) == 0)
                mine = j;
        if (mine != k || s->finished || now - s->t0 < 1000)
            continue;
        char seg[200];
        segment(seg, sizeof(seg), s);
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? "  |  " : "", seg);
        if (len >= sizeof(line))
            len = sizeof(line) - 1;
    }
    if (!len && !g_line_open)
        return;
    int cols = cudnnctl_host_term_cols(2);
    if (cols > 1 && len > (size_t)(cols - 1))
        line[len = (size_t)(cols - 1)] = '\0';
    fprintf(stderr, "\r%s%*s", line, g_line_len > (int)len ? g_line_len - (int)len : 0, "");
    g_line_len = (int)len;
    fflush(stderr);
    g_line_open = len > 0;
    g_last_draw = now;
}

/* The permanent line of a finished stage. */
static void finish(stage *s, uint64_t now)
{
    s->finished = 1;
    double secs = (double)(now - s->t0) / 1000.0;
    char d[32], r[40] = "";
    amount(d, sizeof(d), s, s->done);
    if (s->bytes && secs >= 0.05) {
        char x[32];
        human(x, sizeof(x), (double)s->done / secs);
        snprintf(r, sizeof(r), " (%s/s)", x);
    }
    cli_progress_break();
    fprintf(stderr, "%-8s  %s in %.1f s%s\n", s->label, d, secs, r);
    if (g_mode == MODE_LIVE)
        draw(now);
}

static void on_progress(void *user, const cudnnctl_progress *p)
{
    (void)user;
    uint64_t now = cudnnctl_host_now_ms();
    const char *k = p->stage;
    stage *s;
    if (strcmp(k, "prepare") == 0 || strcmp(k, "commit") == 0) {
        /* the journal's two passes (sync + back up, then rename) are one "commit" of N files */
        s = slot("commit", 0, now);
        int second = strcmp(k, "commit") == 0;
        if (!second)
            s->half = p->total;
        s->total = p->total * (s->half ? 2 : 1);
        s->done = (second ? s->half : 0) + p->done;
        if (second && s->done >= s->total) {
            s->done = s->total = p->total; /* files committed */
            finish(s, now);
            return;
        }
    } else {
        const char *label = strcmp(k, "extract") == 0 ? "unpack" : k;
        if (p->total && p->done >= p->total && repeat_of(label, p->done))
            return; /* the end of a stage, reported once more */
        s = slot(label, 1, now);
        s->done = p->done;
        s->total = p->total;
        sample(s, now);
        if (p->total && p->done >= p->total) {
            finish(s, now);
            return;
        }
    }
    if (g_mode == MODE_LIVE && now - g_last_draw >= 100)
        draw(now);
}

/* Steps the library announces that are stages to the user: the verification (checked while the
 * bytes streamed) and the GPU validation. */
void cli_progress_step(const char *text)
{
    if (g_mode == MODE_OFF || !text)
        return;
    if (strcmp(text, "extract") == 0) {
        slot("unpack", 1, cudnnctl_host_now_ms()); /* it runs from now, beside the download */
        return;
    }
    if (strncmp(text, "verify: ", 8) == 0) {
        cli_progress_break();
        fprintf(stderr, "%-8s  %s\n", "verify", text + 8);
    } else if (strcmp(text, "validate") == 0) {
        cli_progress_break();
        fprintf(stderr, "%-8s  loading cuDNN in a child process, then a convolution on the GPU\n",
                "validate");
    }
    if (g_mode == MODE_LIVE)
        draw(cudnnctl_host_now_ms());
}

void cli_progress_attach(cudnnctl_ctx *ctx)
{
    if (g_mode != MODE_OFF)
        cudnnctl_set_progress_cb(ctx, on_progress, NULL);
}
