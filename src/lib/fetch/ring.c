/* ring.c: the bounded single-producer / single-consumer byte ring (mutex + two condvars), and
 * its spill mode: a producer whose bytes are also in a file never waits; what does not fit is
 * read back from the file by the consumer. */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

#include "platform.h"

struct cc_ring {
    unsigned char *buf;
    size_t cap;
    size_t head; /* next byte to read */
    size_t len;  /* bytes stored */
    int closed, failed, cancelled, woken;
    int reader_waiting, writer_waiting;
    /* spill mode: positions in the stream. The ring holds [consumed, consumed + len) unless
     * spilled, when it is empty and [consumed, produced) is only in the producer's file. */
    int spill, spilled;
    uint64_t produced, consumed;
    uint64_t batch; /* cc_ring_set_batch: a waiting reader wants this many bytes (0: any) */
    uint64_t want;  /* what the waiting reader waits for (1 unless batched) */
    cc_pf_mutex *mu;
    cc_pf_cond *can_read;
    cc_pf_cond *can_write;
};

cc_ring *cc_ring_new(size_t cap)
{
    cc_ring *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->cap = cap;
    r->buf = malloc(cap);
    r->mu = cc_pf_mutex_new();
    r->can_read = cc_pf_cond_new();
    r->can_write = cc_pf_cond_new();
    if (!r->buf || !r->mu || !r->can_read || !r->can_write) {
        cc_ring_free(r);
        return NULL;
    }
    return r;
}

void cc_ring_free(cc_ring *r)
{
    if (!r)
        return;
    free(r->buf);
    cc_pf_mutex_free(r->mu);
    cc_pf_cond_free(r->can_read);
    cc_pf_cond_free(r->can_write);
    free(r);
}

void cc_ring_set_batch(cc_ring *r, uint64_t bytes)
{
    cc_pf_mutex_lock(r->mu);
    r->batch = bytes;
    cc_pf_mutex_unlock(r->mu);
}

void cc_ring_enable_spill(cc_ring *r)
{
    cc_pf_mutex_lock(r->mu);
    r->spill = 1;
    cc_pf_mutex_unlock(r->mu);
}

/* Copy n bytes (n <= the free room) after the stored ones, wrapping at the buffer's end. */
static void put(cc_ring *r, const unsigned char *p, size_t n)
{
    size_t tail = (r->head + r->len) % r->cap;
    size_t first = n < r->cap - tail ? n : r->cap - tail;
    memcpy(r->buf + tail, p, first);
    memcpy(r->buf, p + first, n - first);
    r->len += n;
    r->produced += n;
}

/* Spill mode: into the ring when all of it fits and nothing is waiting in the file, else leave
 * it to the file. Never waits. *wake: the waiting reader has what it waits for. */
static int offer(cc_ring *r, const unsigned char *p, size_t len, int *wake)
{
    if (r->cancelled)
        return -1;
    if (!r->spilled && r->cap - r->len >= len) {
        put(r, p, len);
    } else {
        r->spilled = 1;
        r->produced += len;
    }
    *wake = r->reader_waiting && r->produced - r->consumed >= r->want;
    return 0;
}

int cc_ring_write(cc_ring *r, const void *data, size_t len)
{
    const unsigned char *p = data;
    cc_pf_mutex_lock(r->mu);
    if (r->spill) {
        int wake = 0, rc = offer(r, p, len, &wake);
        cc_pf_mutex_unlock(r->mu);
        if (wake) /* after the unlock: the reader woken does not block on the mutex at once */
            cc_pf_cond_signal(r->can_read);
        return rc;
    }
    while (len > 0) {
        while (r->len == r->cap && !r->cancelled) {
            r->writer_waiting = 1;
            cc_pf_cond_wait(r->can_write, r->mu, 0);
            r->writer_waiting = 0;
        }
        if (r->cancelled) {
            cc_pf_mutex_unlock(r->mu);
            return -1;
        }
        size_t n = len < r->cap - r->len ? len : r->cap - r->len;
        put(r, p, n);
        p += n;
        len -= n;
        if (r->reader_waiting && r->produced - r->consumed >= r->want)
            cc_pf_cond_signal(r->can_read);
    }
    cc_pf_mutex_unlock(r->mu);
    return 0;
}

void cc_ring_read_from_file(cc_ring *r, uint64_t n)
{
    cc_pf_mutex_lock(r->mu);
    r->consumed += n;
    if (r->consumed >= r->produced) {
        /* caught up: the producer's next bytes go through the ring again */
        r->spilled = 0;
        r->head = 0;
        r->len = 0;
    }
    cc_pf_mutex_unlock(r->mu);
}

void cc_ring_close(cc_ring *r, int failed)
{
    cc_pf_mutex_lock(r->mu);
    r->closed = 1;
    r->failed = failed != 0;
    cc_pf_cond_broadcast(r->can_read);
    cc_pf_mutex_unlock(r->mu);
}

long long cc_ring_read(cc_ring *r, void *buf, size_t len)
{
    uint64_t off, avail;
    long long n = cc_ring_read_ex(r, buf, len, &off, &avail);
    return n == CC_RING_IN_FILE ? -1 : n; /* a spilling ring is read with cc_ring_read_ex */
}

long long cc_ring_read_ex(cc_ring *r, void *buf, size_t len, uint64_t *file_off,
                          uint64_t *file_avail)
{
    unsigned char *p = buf;
    long long got = 0;
    cc_pf_mutex_lock(r->mu);
    /* batched (spill mode only: a producer that never waits): wake once that many are there */
    uint64_t need = 1;
    if (r->batch && r->spill && len > 1)
        need = len < r->batch ? len : r->batch;
    while (r->produced - r->consumed < need && !r->closed && !r->woken) {
        r->want = need;
        r->reader_waiting = 1;
        cc_pf_cond_wait(r->can_read, r->mu, 0);
        r->reader_waiting = 0;
    }
    if (r->len == 0 && r->consumed < r->produced) {
        /* spilled: the next bytes are only in the producer's file */
        *file_off = r->consumed;
        *file_avail = r->produced - r->consumed;
        r->woken = 0;
        cc_pf_mutex_unlock(r->mu);
        return CC_RING_IN_FILE;
    }
    if (r->len == 0) {
        if (r->woken) {
            r->woken = 0;
            got = -2;
        } else {
            got = r->failed ? -1 : 0;
        }
        cc_pf_mutex_unlock(r->mu);
        return got;
    }
    r->woken = 0;
    while (len > 0 && r->len > 0) {
        size_t n = len < r->len ? len : r->len;
        if (n > r->cap - r->head)
            n = r->cap - r->head;
        memcpy(p, r->buf + r->head, n);
        r->head = (r->head + n) % r->cap;
        r->len -= n;
        r->consumed += n;
        p += n;
        len -= n;
        got += (long long)n;
    }
    if (r->writer_waiting)
        cc_pf_cond_signal(r->can_write);
    cc_pf_mutex_unlock(r->mu);
    return got;
}

void cc_ring_cancel(cc_ring *r)
{
    cc_pf_mutex_lock(r->mu);
    r->cancelled = 1;
    cc_pf_cond_broadcast(r->can_write);
    cc_pf_mutex_unlock(r->mu);
}

int cc_ring_cancelled(cc_ring *r)
{
    cc_pf_mutex_lock(r->mu);
    int c = r->cancelled;
    cc_pf_mutex_unlock(r->mu);
    return c;
}

void cc_ring_wake(cc_ring *r)
{
    cc_pf_mutex_lock(r->mu);
    r->woken = 1;
    cc_pf_cond_signal(r->can_read);
    cc_pf_mutex_unlock(r->mu);
}

int cc_ring_sleep(cc_ring *r, unsigned ms)
{
    uint64_t end = cc_pf_now_ms() + ms;
    cc_pf_mutex_lock(r->mu);
    while (!r->cancelled) {
        uint64_t now = cc_pf_now_ms();
        if (now >= end)
            break;
        /* can_write is the producer's wait queue; cancel broadcasts it */
        r->writer_waiting = 1;
        cc_pf_cond_wait(r->can_write, r->mu, (unsigned)(end - now));
        r->writer_waiting = 0;
    }
    int c = r->cancelled;
    cc_pf_mutex_unlock(r->mu);
    return c;
}
