/* progress.c: the progress display of long stages (download, verify, unpack, commit, validate).
 *
 * On a terminal: one live line at the bottom holds every running stage side by side (download
 * and unpack run at the same time, so they share the line instead of overwriting each other),
 * redrawn whole ("\r", text, spaces over what is left of a longer one) at most 10 times a
 * second; a stage shows up there only once it has run for a second (no bar for sub-second
 * stages). When a stage ends it
 * gets a permanent line of its own ("download  894.5 MiB in 7.4 s (120.9 MiB/s)"). The bytes
 * are every byte received (the library counts ranges that arrived out of order too), and the
 * shown amount and percentage never go back. The rate is the average since the stage began for
 * its first RATE_TAU_MS, then an EWMA with that time constant over samples >= 200 ms apart, so
 * neither it nor the ETA (what is left at that rate) jumps with each burst of a connection. The
 * line fits the terminal at any width: parts are dropped in order of importance (the bar first,
 * then a second stage's rate, the totals, the second stage, amounts and rate; the percentage
 * and the ETA last) instead of cutting the text. Not a terminal, or TERM=dumb: only the
 * permanent lines. Any other output, an error, the end of the run and an interrupt (the
 * platform layer's handler) first end the live line. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *label; /* what the user sees */
    int bytes;         /* 1: done/total are bytes; 0: files */
    uint64_t done, total, half; /* half: commit's prepare part (files) */
    uint64_t t0, t_sample, b_sample;
    uint64_t b0;  /* done when the stage began (a resumed download's kept bytes) */
    double rate;  /* per second, smoothed */
    int pct;      /* the highest percentage shown: it never goes down */
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

static void amount(char *buf, size_t n, const stage *s, uint64_t v)
{
    if (s->bytes)
        cudnnctl_size_text((double)v, buf, n);
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

#define RATE_TAU_MS 3000.0

static void sample(stage *s, uint64_t now)
{
    uint64_t dt = now - s->t_sample;
    if (dt < 200)
        return;
    if ((double)(now - s->t0) <= RATE_TAU_MS) { /* the start: the average so far */
        s->rate = (double)(s->done - s->b0) * 1000.0 / (double)(now - s->t0);
    } else {
        double inst = (double)(s->done - s->b_sample) * 1000.0 / (double)dt;
        s->rate += (1.0 - exp(-(double)dt / RATE_TAU_MS)) * (inst - s->rate);
    }
    s->t_sample = now;
    s->b_sample = s->done;
}

/* The parts of the live line, each with its importance: when the line is wider than the
 * terminal the least important part goes first, until it fits. */
typedef struct {
    char text[48]; /* with its leading separator */
    int keep;      /* importance: higher stays longer */
} part;

enum { MAX_PARTS = 40 };

static void add_part(part *v, int *n, int keep, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void add_part(part *v, int *n, int keep, const char *fmt, ...)
{
    if (*n >= MAX_PARTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v[*n].text, sizeof(v[*n].text), fmt, ap);
    va_end(ap);
    v[(*n)++].keep = keep;
}

/* One stage's parts. The first stage on the line (first) is what the user waits for: its
 * percentage and ETA stay longest; a second one (unpack beside the download) goes before the
 * first's amounts. Full: "download [####......]  35%  310.2 MiB / 894.5 MiB  120.3 MiB/s  ETA
 * 0:04", then "  |  unpack 300.1 MiB  118.0 MiB/s". */
static void segment(part *v, int *n, stage *s, int first)
{
    char d[32], t[32], r[32] = "";
    amount(d, sizeof(d), s, s->done);
    if (s->rate > 0 && s->bytes)
        cudnnctl_size_text(s->rate, r, sizeof(r));
    if (!s->total) {
        add_part(v, n, first ? 100 : 40, "%s%-8s %s", first ? "" : "  |  ", s->label, d);
        if (*r)
            add_part(v, n, first ? 60 : 20, "  %s/s", r);
        return;
    }
    amount(t, sizeof(t), s, s->total);
    int pct = (int)(100.0 * (double)s->done / (double)s->total);
    if (pct > s->pct)
        s->pct = pct;
    char bar[23] = "[";
    for (int i = 0; i < 20; i++)
        bar[1 + i] = i < s->pct / 5 ? '#' : '.';
    bar[21] = ']';
    add_part(v, n, first ? 100 : 40, "%s%-8s", first ? "" : "  |  ", s->label);
    add_part(v, n, first ? 10 : 11, " %s", bar);
    add_part(v, n, first ? 90 : 39, " %3d%%", s->pct);
    add_part(v, n, first ? 50 : 30, "  %s", d);
    add_part(v, n, first ? 30 : 25, " / %s", t);
    if (*r)
        add_part(v, n, first ? 60 : 20, "  %s/s", r);
    if (s->rate > 0) {
        double left = (double)(s->total - s->done) / s->rate;
        int secs = left > 99 * 60 + 59 ? 99 * 60 + 59 : (int)(left + 0.5);
        add_part(v, n, first ? 80 : 38, "  ETA %d:%02d", secs / 60, secs % 60);
    }
}

/* Join the parts that fit into cols - 1 columns (the last column would wrap on some consoles),
 * dropping the least important first. Returns the length. */
static size_t fit(char *line, size_t cap, part *v, int n, int cols)
{
    size_t width = 0;
    for (int i = 0; i < n; i++)
        width += strlen(v[i].text);
    while (cols > 1 && width > (size_t)(cols - 1)) {
        int drop = -1;
        for (int i = 0; i < n; i++)
            if (v[i].keep > 0 && v[i].keep < 100 && (drop < 0 || v[i].keep < v[drop].keep))
                drop = i;
        if (drop < 0)
            break; /* only the label is left: cut below */
        width -= strlen(v[drop].text);
        v[drop].keep = 0;
    }
    size_t len = 0;
    line[0] = '\0';
    for (int i = 0; i < n && len + 1 < cap; i++)
        if (v[i].keep > 0)
            len += (size_t)snprintf(line + len, cap - len, "%s", v[i].text);
    if (len >= cap)
        len = cap - 1;
    if (cols > 1 && len > (size_t)(cols - 1))
        line[len = (size_t)(cols - 1)] = '\0';
    return len;
}

static void draw(uint64_t now)
{
    part v[MAX_PARTS];
    int n = 0, shown = 0;
    /* in pipeline order: download (or read), unpack, commit, others */
    static const char *const order[] = {"download", "read", "unpack", "commit", NULL};
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < g_n; i++) {
            stage *s = &g_st[i];
            int mine = 4;
            for (int j = 0; order[j]; j++)
                if (strcmp(s->label, order[j]) == 0)
                    mine = j;
            if (mine != k || s->finished || now - s->t0 < 1000)
                continue;
            segment(v, &n, s, !shown++);
        }
    if (!n && !g_line_open)
        return;
    char line[512];
    size_t len = fit(line, sizeof(line), v, n, cudnnctl_host_term_cols(2));
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
        cudnnctl_size_text((double)s->done / secs, x, sizeof(x));
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
        if (s->t0 == now && !s->done)
            s->b0 = s->b_sample = p->done; /* a new stage: bytes it starts with are not its rate */
        if (p->done > s->done)
            s->done = p->done; /* never back: a fallback to one stream re-counts from the prefix */
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
