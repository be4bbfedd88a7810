/* fetch_ranges.c: one archive over several connections. The first request asks for the whole
 * rest as a range; its answer proves range support (206 with the right Content-Range) and its
 * first ~300 ms give the per-connection rate, from which the number of connections is chosen
 * (enough for ~200 MB/s, 1–8, or what the user set). The rest is cut into pieces fetched by
 * the transport's batch (libcurl multi: one thread), each written at its offset in the cache
 * part; the bytes are hashed and handed to the decoder strictly in order as soon as the prefix
 * is complete, so extraction still overlaps the download. A side file <part>.ranges lists the
 * byte ranges on disk so that a later run resumes every range. A server that answers a range
 * with 200 or the wrong Content-Range makes the download fall back to one stream from the
 * in-order prefix, the rest of the part cut off. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_ranges.h"
#include "grow.h"

#define MIB (1024u * 1024u)
#define PROBE_MS 300u
#define TARGET_RATE (200.0 * 1000 * 1000) /* bytes/s: past this more connections help nobody */
#define AUTO_MIN_SIZE (16u * MIB)         /* smaller archives: one stream */
#define DEFAULT_PIECE (8u * MIB)
#define SIDE_EVERY_MS 1000u

typedef struct {
    uint64_t start, end; /* [start, end) */
    uint64_t got;        /* bytes on disk from start */
    unsigned failures;   /* consecutive, without a MiB of progress */
    uint64_t not_before; /* back-off: cc_pf_now_ms() before which it is not retried */
    uint64_t attempt_got;
    int running;
} piece;

typedef struct rf {
    cc_source *s;
    cc_pf_fd wfd, rfd;
    uint64_t size, w; /* w: bytes hashed and handed over, in order */
    uint64_t on_disk; /* every byte of the part received, in any order (the progress) */
    piece *p;
    size_t n, cap, wi; /* wi: the piece holding w */
    uint64_t piece_bytes;
    unsigned want;  /* connections asked for (0 = choose) */
    int probing;    /* the first request decides */
    uint64_t probe_t0;
    int fallback;   /* the server mishandles ranges: one stream from w */
    cudnnctl_err err;
    char *why;
    char *side;     /* <part>.ranges */
    uint64_t side_ms;
    cc_transport_batch b;
    unsigned char *buf;
    struct req_ref {
        struct rf *r;
        size_t i; /* piece index (the array may move; the index stays) */
        int used;
    } refs[16];
} rf;

static cudnnctl_err fail(rf *r, cudnnctl_err e, char *why_owned)
{
    if (r->err == CUDNNCTL_E_OK) {
        r->err = e;
        r->why = why_owned;
    } else {
        free(why_owned);
    }
    return e;
}

static uint64_t piece_len(const piece *p)
{
    return p->end - p->start;
}

static int push_piece(rf *r, uint64_t start, uint64_t end, uint64_t got)
{
    if (cc_grow(&r->p, &r->cap, r->n + 1, sizeof(*r->p)) != 0)
        return -1;
    memset(&r->p[r->n], 0, sizeof(piece));
    r->p[r->n].start = start;
    r->p[r->n].end = end;
    r->p[r->n].got = got;
    r->n++;
    return 0;
}

/* Cut [a, b) into pieces to fetch. */
static int push_gap(rf *r, uint64_t a, uint64_t b)
{
    while (a < b) {
        uint64_t e = b - a > r->piece_bytes ? a + r->piece_bytes : b;
        if (push_piece(r, a, e, 0) != 0)
            return -1;
        a = e;
    }
    return 0;
}

/* ---- the side file ------------------------------------------------------------------------- */

char *cc_ranges_side_path(const char *part)
{
    return cc_asprintf("%s.ranges", part);
}

/* Written without fsync, like the part itself: after a crash the final SHA-256 still decides. */
static void side_write(rf *r)
{
    size_t cap = 96 + r->n * 48;
    char *t = malloc(cap), *tmp = cc_asprintf("%s.tmp", r->side);
    if (!t || !tmp)
        goto out;
    int k = snprintf(t, cap, "cudnnctl-ranges 1\nsize %llu\ndone 0 %llu\n",
                     (unsigned long long)r->size, (unsigned long long)r->w);
    for (size_t i = r->wi; i < r->n && k > 0 && (size_t)k < cap; i++)
        if (r->p[i].got > 0 && r->p[i].start + r->p[i].got > r->w)
            k += snprintf(t + k, cap - (size_t)k, "done %llu %llu\n",
                          (unsigned long long)(r->p[i].start > r->w ? r->p[i].start : r->w),
                          (unsigned long long)(r->p[i].start + r->p[i].got));
    cc_pf_fd fd = cc_sys_open(r->s->ctx, tmp, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
    if (fd < 0)
        goto out;
    int ok = cc_pf_truncate(fd, 0) == 0 && cc_sys_write_all(r->s->ctx, fd, t, (size_t)k) == 0;
    cc_sys_close(r->s->ctx, fd);
    if (ok)
        cc_sys_rename(r->s->ctx, tmp, r->side);
    else
        cc_sys_unlink(r->s->ctx, tmp);
out:
    r->side_ms = cc_pf_now_ms();
    free(t);
    free(tmp);
}

typedef struct {
    uint64_t a, b;
} span;

/* Read the side file: the ranges on disk, sorted, clipped to what the part holds. 0 = usable. */
static int side_read(rf *r, uint64_t part_size, span **out, size_t *n_out)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    *n_out = 0;
    if (cc_sys_read_trusted(r->s->ctx, r->side, 1u << 20, &data, &len) != 0)
        return -1;
    unsigned long long size = 0;
    int ok = sscanf(data, "cudnnctl-ranges 1\nsize %llu\n", &size) == 1 && size == r->size;
    span *v = NULL;
    size_t n = 0;
    for (char *line = strstr(data, "\ndone "); ok && line; line = strstr(line + 1, "\ndone ")) {
        unsigned long long a, b;
        if (sscanf(line, "\ndone %llu %llu", &a, &b) != 2 || a > b || b > size || b > part_size ||
            (n && a < v[n - 1].b)) {
            ok = 0;
            break;
        }
        if (cc_grow(&v, NULL, n + 1, sizeof(*v)) != 0) {
            ok = 0;
            break;
        }
        v[n].a = a;
        v[n].b = b;
        n++;
    }
    free(data);
    if (!ok) {
        free(v);
        return -1;
    }
    *out = v;
    *n_out = n;
    return 0;
}

uint64_t cc_ranges_settle(cc_source *s, uint64_t expected_size)
{
    char *side = cc_ranges_side_path(s->path);
    cc_pf_stat_t st;
    uint64_t keep = 0;
    if (!side || cc_pf_stat(side, &st) != 0 || !st.exists) {
        free(side);
        return UINT64_MAX; /* no side file: the part is a plain prefix */
    }
    rf r;
    memset(&r, 0, sizeof(r));
    r.s = s;
    r.side = side;
    r.size = expected_size;
    span *v = NULL;
    size_t n = 0;
    cc_pf_stat_t pst;
    if (cc_pf_stat(s->path, &pst) == 0 && pst.exists && side_read(&r, pst.size, &v, &n) == 0 &&
        n > 0 && v[0].a == 0)
        keep = v[0].b;
    free(v);
    cc_pf_fd fd = cc_sys_open(s->ctx, s->path, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
    if (fd >= 0) {
        if (cc_pf_truncate(fd, keep) != 0)
            keep = 0;
        cc_sys_close(s->ctx, fd);
    }
    cc_sys_unlink(s->ctx, side);
    free(side);
    return keep;
}

/* ---- in-order hand-over ----------------------------------------------------------------------- */

/* Hash and hand over every byte on disk that now continues the in-order prefix. */
static cudnnctl_err advance(rf *r)
{
    while (r->wi < r->n) {
        piece *p = &r->p[r->wi];
        uint64_t have = p->start + p->got;
        if (r->w >= p->end) {
            r->wi++;
            continue;
        }
        if (have <= r->w)
            return CUDNNCTL_E_OK;
        if (cc_pf_seek(r->rfd, r->w) != 0)
            return fail(r, cc_pf_last_error(),
                        cc_asprintf("cannot read the download back from %s: %s", r->s->path,
                                    cc_pf_last_error_text()));
        while (r->w < have) {
            size_t want = have - r->w < 65536 ? (size_t)(have - r->w) : 65536;
            long long k = cc_sys_read(r->s->ctx, r->rfd, r->buf, want);
            if (k <= 0)
                return fail(r, k < 0 ? cc_pf_last_error() : CUDNNCTL_E_IO,
                            cc_asprintf("cannot read the download back from %s at byte %llu: %s",
                                        r->s->path, (unsigned long long)r->w,
                                        k < 0 ? cc_pf_last_error_text() : "short file"));
            if (cc_source_deliver(r->s, r->buf, (size_t)k) != 0)
                return fail(r, CUDNNCTL_E_INTERRUPTED, cc_strdup("download cancelled"));
            r->w += (uint64_t)k;
        }
    }
    return CUDNNCTL_E_OK;
}

/* ---- the first request decides how many connections ----------------------------------------- */

static unsigned choose_connections(rf *r, const piece *probe)
{
    if (r->want)
        return r->want;
    uint64_t ms = cc_pf_now_ms() - r->probe_t0;
    double rate = ms ? (double)probe->attempt_got * 1000.0 / (double)ms : 0;
    if (rate <= 0)
        return 4;
    double k = TARGET_RATE / rate;
    return k >= 8 ? 8u : k <= 1 ? 1u : (unsigned)(k + 0.999);
}

/* The probe (piece 0, the whole rest) has run long enough: cut it, and queue the rest. */
static void decide(rf *r, piece *probe)
{
    r->probing = 0;
    unsigned n = choose_connections(r, probe);
    uint64_t at = probe->start + probe->got + r->piece_bytes;
    if (n <= 1 || at + r->piece_bytes >= r->size) {
        r->b.max_parallel = 1; /* one stream to the end: the probe goes on */
        return;
    }
    r->b.max_parallel = n;
    probe->end = at;
    uint64_t probe_got = probe->attempt_got; /* push_gap may move the array probe points into */
    if (push_gap(r, at, r->size) != 0) {
        fail(r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
        return;
    }
    r->p[0].end = at; /* push_gap may have moved the array */
    side_write(r);    /* before any byte lands out of order */
    cc_source_push_event(
        r->s, CUDNNCTL_EV_STEP,
        cc_asprintf("downloading %s over %u connections (%.1f MB/s on the first)", r->s->url, n,
                    (double)probe_got / 1000.0 / (double)(cc_pf_now_ms() - r->probe_t0 + 1)));
}

/* ---- transport callbacks ----------------------------------------------------------------------- */

static cudnnctl_err on_head(void *user, const cc_transport_head *h, char **why)
{
    struct req_ref *q = user;
    rf *r = q->r;
    piece *p = &r->p[q->i];
    uint64_t asked = p->start + p->got;
    if (h->status == 206 && h->total_size >= 0 && (uint64_t)h->total_size != r->size) {
        *why = cc_source_size_refused(r->s, h->final_url, h->total_size);
        return CUDNNCTL_E_SIZE_MISMATCH;
    }
    if (h->status != 206 || (uint64_t)h->range_start != asked) {
        /* no range support, or a wrong Content-Range: nothing of this answer is written */
        if (!r->fallback)
            cc_source_push_event(
                r->s, CUDNNCTL_EV_STEP,
                h->status != 206
                    ? cc_asprintf("%s does not serve byte ranges (HTTP %ld): one connection",
                                  h->final_url, h->status)
                    : cc_asprintf("%s answered the range from %llu with bytes from %lld: one "
                                  "connection from byte %llu",
                                  h->final_url, (unsigned long long)asked,
                                  (long long)h->range_start, (unsigned long long)r->w));
        r->fallback = 1;
        *why = cc_strdup("range not honoured");
        return CUDNNCTL_E_NETWORK;
    }
    if (r->probing && q->i == 0)
        r->probe_t0 = cc_pf_now_ms();
    return CUDNNCTL_E_OK;
}

static cudnnctl_err on_data(void *user, const void *data, size_t len, char **why)
{
    struct req_ref *q = user;
    rf *r = q->r;
    piece *p = &r->p[q->i];
    uint64_t at = p->start + p->got;
    if (at + len > p->end)
        len = (size_t)(p->end - at); /* the probe was cut: keep what is ours, then stop */
    if (len > 0) {
        if (cc_pf_seek(r->wfd, at) != 0 || cc_sys_write_all(r->s->ctx, r->wfd, data, len) != 0) {
            *why = cc_asprintf("cannot write the download to %s: %s", r->s->path,
                               cc_pf_last_error_text());
            return cc_pf_last_error();
        }
        if (at == r->w && q->i == r->wi) { /* the in-order prefix: straight to the decoder */
            if (cc_source_deliver(r->s, data, len) != 0) {
                *why = cc_strdup("download cancelled");
                return CUDNNCTL_E_INTERRUPTED;
            }
            r->w += len;
        }
        p->got += len;
        p->attempt_got += len;
        r->on_disk += len;
        cc_source_received(r->s, r->on_disk);
    }
    if (r->probing && q->i == 0 && cc_pf_now_ms() - r->probe_t0 >= PROBE_MS)
        decide(r, &r->p[0]);
    p = &r->p[q->i]; /* decide() may have moved the array */
    if (advance(r) != CUDNNCTL_E_OK) {
        *why = cc_strdup(r->why ? r->why : "download failed");
        return r->err;
    }
    if (cc_pf_now_ms() - r->side_ms >= SIDE_EVERY_MS && !r->probing)
        side_write(r);
    if (p->start + p->got >= p->end) {
        *why = cc_strdup("piece complete");
        return CUDNNCTL_E_INTERRUPTED; /* done() sees the piece complete */
    }
    return CUDNNCTL_E_OK;
}

static int is_cancelled(void *user)
{
    struct req_ref *q = user;
    return cc_ring_cancelled(q->r->s->ring);
}

static int next_req(void *user, cc_transport_req *req)
{
    rf *r = user;
    if (r->err != CUDNNCTL_E_OK || r->fallback)
        return -1;
    uint64_t now = cc_pf_now_ms();
    int waiting = 0;
    for (size_t i = r->wi; i < r->n; i++) {
        piece *p = &r->p[i];
        if (p->running || p->start + p->got >= p->end)
            continue;
        if (p->not_before > now) {
            waiting = 1;
            continue;
        }
        struct req_ref *q = NULL;
        for (size_t k = 0; k < sizeof(r->refs) / sizeof(r->refs[0]) && !q; k++)
            if (!r->refs[k].used)
                q = &r->refs[k];
        if (!q)
            return 0;
        q->used = 1;
        q->r = r;
        q->i = i;
        p->running = 1;
        p->attempt_got = 0;
        req->url = r->s->url;
        req->offset = p->start + p->got;
        req->limit = p->end;
        req->cacert = r->s->cacert;
        req->proxy = r->s->ctx->proxy;
        req->what = r->s->what;
        req->via_mirror = r->s->via_mirror;
        req->low_speed_bytes = r->s->low_speed_bytes;
        req->low_speed_secs = r->s->low_speed_secs;
        req->connect_timeout_secs = r->s->connect_timeout_secs;
        req->max_redirects = 5;
        req->on_head = on_head;
        req->on_data = on_data;
        req->cancelled = is_cancelled;
        req->user = q;
        return 1;
    }
    for (size_t i = r->wi; i < r->n; i++)
        if (r->p[i].running)
            return 0;
    return waiting ? 0 : -1;
}

static void done_req(void *user, const cc_transport_req *req, cc_transport_res *res)
{
    rf *r = user;
    struct req_ref *q = req->user;
    piece *p = &r->p[q->i];
    q->used = 0;
    p->running = 0;
    if (p->start + p->got >= p->end || r->fallback || r->err != CUDNNCTL_E_OK) {
        free(res->detail);
        if (r->err == CUDNNCTL_E_OK && !r->fallback) {
            advance(r);
            side_write(r);
        }
        return;
    }
    if (res->code == CUDNNCTL_E_OK) { /* a clean end that is still short */
        res->code = CUDNNCTL_E_NETWORK;
        res->retryable = 1;
        free(res->detail);
        res->detail = cc_asprintf("%s ended the range %llu-%llu after %llu bytes", r->s->url,
                                  (unsigned long long)req->offset,
                                  (unsigned long long)(req->limit - 1),
                                  (unsigned long long)p->attempt_got);
    }
    if (r->probing && q->i == 0)
        decide(r, p = &r->p[0]); /* a cut probe still taught us the rate */
    p = &r->p[q->i];
    p->failures = p->attempt_got >= MIB ? 1 : p->failures + 1;
    if (!res->retryable || p->failures >= r->s->max_tries || cc_ring_cancelled(r->s->ring)) {
        char *d = res->detail;
        if (res->retryable && p->failures >= r->s->max_tries)
            d = cc_asprintf("%s (gave up after %u tries of the range from byte %llu)",
                            res->detail ? res->detail : "", p->failures,
                            (unsigned long long)(p->start + p->got));
        else
            res->detail = NULL;
        if (d != res->detail)
            free(res->detail);
        fail(r, res->code, d);
        return;
    }
    unsigned ms = cc_source_backoff_ms(r->s, p->failures);
    p->not_before = cc_pf_now_ms() + ms;
    cc_source_push_event(
        r->s, CUDNNCTL_EV_RETRY,
        cc_asprintf("%s; retrying that range in %.1f s (try %u of %u) from byte %llu",
                    res->detail ? res->detail : "transfer failed", ms / 1000.0, p->failures + 1,
                    r->s->max_tries, (unsigned long long)(p->start + p->got)));
    free(res->detail);
}

static int stop_req(void *user)
{
    rf *r = user;
    return r->err != CUDNNCTL_E_OK || r->fallback || cc_ring_cancelled(r->s->ring);
}

/* ---- entry points ------------------------------------------------------------------------------ */

int cc_ranges_eligible(const cc_source *s)
{
    if (s->connections == 1 || !s->expected_size || !s->tops->get_many)
        return 0;
    uint64_t pb = s->piece_bytes ? s->piece_bytes : DEFAULT_PIECE;
    if (s->connections > 1)
        return s->expected_size >= 2 * pb;
    return s->expected_size >= AUTO_MIN_SIZE && s->expected_size >= 2 * pb;
}

/* Resume from the side file: replay the in-order prefix, keep every other range on disk. */
static cudnnctl_err resume(rf *r, uint64_t part_size)
{
    span *v = NULL;
    size_t n = 0;
    if (side_read(r, part_size, &v, &n) != 0 || n == 0) {
        free(v);
        return push_gap(r, 0, r->size) == 0 ? CUDNNCTL_E_OK
                                            : fail(r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    }
    uint64_t at = 0, kept = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = push_gap(r, at, v[i].a);
        if (rc == 0 && v[i].b > v[i].a)
            rc = push_piece(r, v[i].a, v[i].b, v[i].b - v[i].a);
        kept += v[i].b - v[i].a;
        at = v[i].b;
    }
    r->on_disk = kept;
    if (rc == 0)
        rc = push_gap(r, at, r->size);
    free(v);
    if (rc != 0)
        return fail(r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    cc_source_push_event(r->s, CUDNNCTL_EV_STEP,
                         cc_asprintf("resuming the download of %s: %llu of %llu bytes are kept",
                                     r->s->url, (unsigned long long)kept,
                                     (unsigned long long)r->size));
    r->probing = 0;
    r->b.max_parallel = r->want ? r->want : 4;
    return advance(r);
}

/* No side file: a new ranged download. A plain prefix from an earlier one-stream run is kept as
 * the first range; the rest is the probe (the first request, which decides the connections). */
static void start_fresh(rf *r, int have_part, uint64_t part_size)
{
    cc_source *s = r->s;
    uint64_t keep = have_part && part_size <= r->size ? part_size : 0;
    if (have_part && part_size > keep)
        cc_pf_truncate(r->wfd, keep);
    if (keep > 0 && push_piece(r, 0, keep, keep) != 0)
        fail(r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    r->on_disk = keep;
    if (keep > 0)
        cc_source_push_event(s, CUDNNCTL_EV_STEP,
                             cc_asprintf("resuming the download of %s after %llu bytes", s->url,
                                         (unsigned long long)keep));
    if (keep < r->size && push_piece(r, keep, r->size, 0) != 0)
        fail(r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    r->probing = 1;
    r->probe_t0 = cc_pf_now_ms();
    if (r->err == CUDNNCTL_E_OK)
        advance(r);
    if (r->n > 0 && r->p[0].got == piece_len(&r->p[0]) && r->n > 1) {
        /* the probe is the first piece still to fetch */
        memmove(&r->p[0], &r->p[1], (r->n - 1) * sizeof(piece));
        r->n--;
        r->wi = 0;
    }
}

/* After the transfers: a short end is an error (cancelled or stopped); a fallback keeps only the
 * in-order prefix; a complete part drops its side file; a failed one records what is on disk. */
static void settle(rf *r, int *fallback)
{
    cc_source *s = r->s;
    if (r->err == CUDNNCTL_E_OK && !r->fallback && r->w < r->size && cc_ring_cancelled(s->ring))
        fail(r, CUDNNCTL_E_INTERRUPTED, cc_strdup("download cancelled"));
    if (r->err == CUDNNCTL_E_OK && !r->fallback && r->w < r->size)
        fail(r, CUDNNCTL_E_NETWORK,
             cc_asprintf("%s: the download stopped at byte %llu of %llu", s->url,
                         (unsigned long long)r->w, (unsigned long long)r->size));
    if (r->fallback && r->err == CUDNNCTL_E_OK) {
        /* keep only the in-order prefix: a server that mishandles ranges gets no trust */
        if (cc_pf_truncate(r->wfd, r->w) != 0)
            fail(r, cc_pf_last_error(),
                 cc_asprintf("cannot cut the partial download %s: %s", s->path,
                             cc_pf_last_error_text()));
        cc_sys_unlink(s->ctx, r->side);
        *fallback = r->err == CUDNNCTL_E_OK;
    } else if (r->err == CUDNNCTL_E_OK) {
        cc_sys_unlink(s->ctx, r->side); /* complete: the part is a plain file again */
    } else if (r->n > 0 && r->w > 0) {
        side_write(r); /* what is on disk, for the next run */
    }
}

cudnnctl_err cc_fetch_ranges(cc_source *s, uint64_t *have, int *fallback, char **why)
{
    rf r;
    memset(&r, 0, sizeof(r));
    r.s = s;
    r.size = s->expected_size;
    r.want = s->connections;
    r.piece_bytes = s->piece_bytes ? s->piece_bytes : DEFAULT_PIECE;
    r.wfd = r.rfd = -1;
    r.side = cc_ranges_side_path(s->path);
    r.buf = malloc(65536);
    r.b = (cc_transport_batch){1, next_req, done_req, stop_req, &r};
    *fallback = 0;
    cc_pf_stat_t side_st, part_st;
    int have_side = r.side && cc_pf_stat(r.side, &side_st) == 0 && side_st.exists;
    int have_part = cc_pf_stat(s->path, &part_st) == 0 && part_st.exists;
    if (!r.side || !r.buf) {
        fail(&r, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
        goto out;
    }
    r.wfd = cc_sys_open(s->ctx, s->path, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
    r.rfd = cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
    if (r.wfd < 0 || r.rfd < 0) {
        fail(&r, cc_pf_last_error(),
             cc_asprintf("cannot write the download to %s: %s; free some space or use "
                         "--cache-dir DIR",
                         s->path, cc_pf_last_error_text()));
        goto out;
    }
    char *replaced = NULL;
    if (cc_source_note_part(s, r.wfd, &replaced) != 0) {
        fail(&r, CUDNNCTL_E_UNTRUSTED, replaced);
        goto out;
    }
    if (have_side && have_part) {
        resume(&r, part_st.size);
    } else {
        start_fresh(&r, have_part, part_st.size);
    }
    if (r.err == CUDNNCTL_E_OK && r.w < r.size) {
        cc_transport *t = s->tops->open();
        if (!t)
            fail(&r, CUDNNCTL_E_NETWORK, cc_asprintf("cannot start the %s transport", s->tops->name));
        else
            s->tops->get_many(t, &r.b);
        if (t)
            s->tops->close(t);
    }
    settle(&r, fallback);
out:
    *have = r.w;
    if (r.wfd >= 0)
        cc_sys_close(s->ctx, r.wfd);
    if (r.rfd >= 0)
        cc_sys_close(s->ctx, r.rfd);
    free(r.buf);
    free(r.side);
    free(r.p);
    *why = r.why;
    return r.err;
}
