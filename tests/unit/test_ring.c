/* test_ring.c: the bounded byte ring between the download thread and the decoder: order and
 * content across wrap-around under random chunk sizes, end / failure / cancel / wake-up; and
 * spill mode, where the producer never waits and the consumer reads overflow from a file. */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform.h"
#include "ring.h"

static unsigned char pattern(uint64_t off)
{
    return (unsigned char)((off * 2654435761u) >> 13);
}

typedef struct {
    cc_ring *r;
    uint64_t total;
    int fail_at_end;
    int write_rc;
    unsigned seed;
    FILE *f;  /* spill mode: every byte goes here first, as a download writes its cache part */
    int done; /* set (atomically) once all was handed over */
} producer;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static void produce(void *arg)
{
    producer *p = arg;
    unsigned char buf[100000];
    uint64_t off = 0;
    p->write_rc = 0;
    while (off < p->total) {
        size_t n = 1 + next_rand(&p->seed) % sizeof(buf);
        if (n > p->total - off)
            n = (size_t)(p->total - off);
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(off + i);
        if (p->f && (fwrite(buf, 1, n, p->f) != n || fflush(p->f) != 0)) {
            p->write_rc = -2;
            return;
        }
        if (cc_ring_write(p->r, buf, n) != 0) {
            p->write_rc = -1;
            return;
        }
        off += n;
    }
    __atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
    cc_ring_close(p->r, p->fail_at_end);
}

static void bytes_arrive_in_order_across_wraps(void **state)
{
    (void)state;
    /* cap sizes that are not a divisor of anything used, and one bigger than every chunk */
    size_t caps[] = {1, 4097, 65536, 1 << 20};
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
        cc_ring *r = cc_ring_new(caps[c]);
        assert_non_null(r);
        producer p = {r, caps[c] == 1 ? 30000 : 8u * 1024u * 1024u + 7, 0, 0, 42, NULL, 0};
        cc_pf_thread *t = NULL;
        assert_int_equal(cc_pf_thread_start(&t, produce, &p), 0);
        unsigned char buf[70001];
        unsigned seed = 7;
        uint64_t off = 0;
        long long n;
        for (;;) {
            size_t want = 1 + next_rand(&seed) % sizeof(buf);
            n = cc_ring_read(r, buf, want);
            if (n <= 0)
                break;
            assert_true((size_t)n <= want);
            for (long long i = 0; i < n; i++)
                if (buf[i] != pattern(off + (uint64_t)i))
                    fail_msg("byte %llu wrong (cap %zu)", (unsigned long long)(off + i), caps[c]);
            off += (uint64_t)n;
        }
        assert_int_equal(n, 0);
        assert_int_equal(off, p.total);
        assert_int_equal(cc_ring_read(r, buf, 10), 0); /* the end stays the end */
        cc_pf_thread_join(t);
        assert_int_equal(p.write_rc, 0);
        cc_ring_free(r);
    }
}

static void failure_comes_after_the_data(void **state)
{
    (void)state;
    cc_ring *r = cc_ring_new(1 << 16);
    unsigned char data[1000], buf[4096];
    memset(data, 0xab, sizeof(data));
    assert_int_equal(cc_ring_write(r, data, sizeof(data)), 0);
    cc_ring_close(r, 1);
    assert_int_equal(cc_ring_read(r, buf, sizeof(buf)), 1000);
    assert_memory_equal(buf, data, 1000);
    assert_int_equal(cc_ring_read(r, buf, sizeof(buf)), -1);
    cc_ring_free(r);
}

static void cancel_releases_a_blocked_writer(void **state)
{
    (void)state;
    cc_ring *r = cc_ring_new(4096);
    producer p = {r, 1u << 20, 0, 0, 1, NULL, 0};
    cc_pf_thread *t = NULL;
    assert_int_equal(cc_pf_thread_start(&t, produce, &p), 0);
    unsigned char buf[100];
    assert_int_equal(cc_ring_read(r, buf, sizeof(buf)), 100);
    assert_int_equal(cc_ring_sleep(r, 50), 0); /* let the producer fill the ring and block */
    cc_ring_cancel(r);
    cc_pf_thread_join(t); /* returns: the blocked write failed */
    assert_int_equal(p.write_rc, -1);
    assert_true(cc_ring_cancelled(r));
    assert_int_equal(cc_ring_write(r, buf, 1), -1);
    cc_ring_free(r);
}

static void cancel_cuts_a_back_off_sleep_short(void *arg)
{
    cc_ring *r = arg;
    cc_ring_cancel(r);
}

static void wake_and_sleep(void **state)
{
    (void)state;
    cc_ring *r = cc_ring_new(64);
    unsigned char buf[8];
    cc_ring_wake(r);
    assert_int_equal(cc_ring_read(r, buf, sizeof(buf)), -2); /* nothing to read, woken */
    assert_int_equal(cc_ring_write(r, "abc", 3), 0);
    cc_ring_wake(r);
    assert_int_equal(cc_ring_read(r, buf, sizeof(buf)), 3); /* data wins over the wake */
    uint64_t t0 = cc_pf_now_ms();
    assert_int_equal(cc_ring_sleep(r, 120), 0);
    uint64_t slept = cc_pf_now_ms() - t0;
    assert_true(slept >= 110 && slept < 2000);

    cc_pf_thread *t = NULL;
    t0 = cc_pf_now_ms();
    assert_int_equal(cc_pf_thread_start(&t, cancel_cuts_a_back_off_sleep_short, r), 0);
    assert_int_equal(cc_ring_sleep(r, 20000), 1);
    assert_true(cc_pf_now_ms() - t0 < 5000);
    cc_pf_thread_join(t);
    cc_ring_free(r);
}

static void cond_wait_times_out(void **state)
{
    (void)state;
    cc_pf_mutex *m = cc_pf_mutex_new();
    cc_pf_cond *c = cc_pf_cond_new();
    assert_non_null(m);
    assert_non_null(c);
    cc_pf_mutex_lock(m);
    uint64_t t0 = cc_pf_now_ms();
    int timed_out = 0;
    while (!timed_out)
        timed_out = cc_pf_cond_wait(c, m, 30);
    assert_true(cc_pf_now_ms() - t0 >= 25);
    cc_pf_mutex_unlock(m);
    cc_pf_cond_free(c);
    cc_pf_mutex_free(m);
    volatile unsigned long n = 0;
    assert_int_equal(cc_pf_atomic_inc(&n), 1);
    assert_int_equal(cc_pf_atomic_inc(&n), 2);
}

/* ---- spill mode ------------------------------------------------------------------------------ */

/* A scratch file in the working dir (the build tree), open for writing and for reading. */
static void spill_file(char path[64], FILE **wf, FILE **rf)
{
    static unsigned seq;
    snprintf(path, 64, "ring-spill-%llu-%u.tmp", (unsigned long long)cc_pf_now_ms(), ++seq);
    *wf = fopen(path, "wb");
    *rf = fopen(path, "rb");
    assert_non_null(*wf);
    assert_non_null(*rf);
}

/* The producer joined (it handed everything over), the ring and the scratch file gone. */
static void spill_done(cc_pf_thread *t, producer *p, FILE *wf, FILE *rf, const char *path)
{
    cc_pf_thread_join(t);
    assert_int_equal(p->write_rc, 0);
    cc_ring_free(p->r);
    fclose(wf);
    fclose(rf);
    remove(path);
}

/* Read the whole stream through ring + file; returns the bytes seen (checked against pattern). */
static uint64_t spill_consume(cc_ring *r, FILE *rf, unsigned seed, int *file_reads)
{
    unsigned char buf[70001];
    uint64_t off = 0;
    *file_reads = 0;
    for (;;) {
        size_t want = 1 + next_rand(&seed) % sizeof(buf);
        uint64_t foff = 0, avail = 0;
        long long n = cc_ring_read_ex(r, buf, want, &foff, &avail);
        if (n == CC_RING_IN_FILE) {
            assert_int_equal(foff, off); /* the file picks up exactly where the ring stopped */
            assert_true(avail > 0);
            size_t k = avail < want ? (size_t)avail : want;
            assert_int_equal(fseek(rf, (long)foff, SEEK_SET), 0);
            assert_int_equal(fread(buf, 1, k, rf), k);
            cc_ring_read_from_file(r, k);
            n = (long long)k;
            (*file_reads)++;
        }
        if (n <= 0) {
            assert_int_equal(n, 0);
            break;
        }
        assert_true((size_t)n <= want);
        for (long long i = 0; i < n; i++)
            if (buf[i] != pattern(off + (uint64_t)i))
                fail_msg("byte %llu wrong", (unsigned long long)(off + (uint64_t)i));
        off += (uint64_t)n;
    }
    return off;
}

/* One spilling stream of total bytes through a cap-byte ring, consumed after the producer is
 * done (consumer_waits) or racing it; returns how many reads went to the file. */
static int run_spill(size_t cap, uint64_t total, unsigned seed, int consumer_waits)
{
    char path[64];
    FILE *wf, *rf;
    spill_file(path, &wf, &rf);
    cc_ring *r = cc_ring_new(cap);
    cc_ring_enable_spill(r);
    producer p = {r, total, 0, 0, seed, wf, 0};
    cc_pf_thread *t = NULL;
    assert_int_equal(cc_pf_thread_start(&t, produce, &p), 0);
    if (consumer_waits) {
        /* the consumer reads nothing yet: every byte still goes out */
        for (int i = 0; i < 500 && !__atomic_load_n(&p.done, __ATOMIC_SEQ_CST); i++)
            cc_pf_sleep_ms(10);
        assert_true(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST));
    }
    int file_reads = 0;
    assert_int_equal(spill_consume(r, rf, seed * 3, &file_reads), total);
    spill_done(t, &p, wf, rf, path);
    return file_reads;
}

static void spill_producer_never_waits_for_a_slow_consumer(void **state)
{
    (void)state;
    /* 8 MiB through a 4 KiB ring while the consumer sleeps */
    assert_true(run_spill(4096, 8u * 1024u * 1024u + 3, 9, 1) > 0);
}

static void spill_and_ring_alternate_with_a_racing_consumer(void **state)
{
    (void)state;
    /* consumer and producer race: the stream switches between ring and file many times, and
     * every byte arrives once, in order */
    size_t caps[] = {1, 4097, 1 << 20};
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
        run_spill(caps[c], 6u * 1024u * 1024u + 11, 5 + (unsigned)c, 0);
}

/* A batched reader (a zip scanner ahead of the download) is woken once a batch is there, not per
 * chunk: every read before the end sees at least the batch, the last one the rest; all bytes in
 * order, once. */
static void spill_batch_wakes_a_reader_once_per_batch(void **state)
{
    (void)state;
    char path[64];
    FILE *wf, *rf;
    spill_file(path, &wf, &rf);
    cc_ring *r = cc_ring_new(1);
    cc_ring_enable_spill(r);
    const uint64_t batch = 64u << 10, total = (1u << 20) + 4321;
    cc_ring_set_batch(r, batch);
    producer p = {r, total, 0, 0, 77, wf, 0};
    cc_pf_thread *t = NULL;
    assert_int_equal(cc_pf_thread_start(&t, produce, &p), 0);
    static unsigned char buf[1 << 20];
    uint64_t off = 0;
    int reads = 0;
    for (;;) {
        uint64_t foff = 0, avail = 0;
        long long n = cc_ring_read_ex(r, buf, sizeof(buf), &foff, &avail);
        if (n == 0)
            break;
        assert_int_equal(n, CC_RING_IN_FILE);
        assert_int_equal(foff, off);
        if (avail < batch) /* only the tail, once the producer closed */
            assert_true(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST) && off + avail == total);
        size_t k = avail < sizeof(buf) ? (size_t)avail : sizeof(buf);
        assert_int_equal(fseek(rf, (long)foff, SEEK_SET), 0);
        assert_int_equal(fread(buf, 1, k, rf), k);
        for (size_t i = 0; i < k; i++)
            if (buf[i] != pattern(off + i))
                fail_msg("byte %llu wrong", (unsigned long long)(off + i));
        cc_ring_read_from_file(r, k);
        off += k;
        reads++;
    }
    assert_int_equal(off, total);
    assert_true(reads <= (int)(total / batch) + 1);
    spill_done(t, &p, wf, rf, path);
}

static void spill_failure_and_cancel(void **state)
{
    (void)state;
    cc_ring *r = cc_ring_new(16);
    cc_ring_enable_spill(r);
    unsigned char buf[64];
    uint64_t off = 0, avail = 0;
    assert_int_equal(cc_ring_write(r, "0123456789", 10), 0);                 /* fits */
    assert_int_equal(cc_ring_write(r, "abcdefghijklmnopqrstuvwxyz", 26), 0); /* spills */
    assert_int_equal(cc_ring_write(r, "!", 1), 0); /* stays spilled: order is kept */
    cc_ring_close(r, 1);
    assert_int_equal(cc_ring_read_ex(r, buf, sizeof(buf), &off, &avail), 10);
    assert_memory_equal(buf, "0123456789", 10);
    assert_int_equal(cc_ring_read_ex(r, buf, sizeof(buf), &off, &avail), CC_RING_IN_FILE);
    assert_int_equal(off, 10);
    assert_int_equal(avail, 27);
    cc_ring_read_from_file(r, 20);
    assert_int_equal(cc_ring_read_ex(r, buf, sizeof(buf), &off, &avail), CC_RING_IN_FILE);
    assert_int_equal(off, 30);
    assert_int_equal(avail, 7);
    cc_ring_read_from_file(r, 7);
    /* the failure comes after every byte */
    assert_int_equal(cc_ring_read_ex(r, buf, sizeof(buf), &off, &avail), -1);
    cc_ring_free(r);

    r = cc_ring_new(16);
    cc_ring_enable_spill(r);
    cc_ring_cancel(r);
    assert_int_equal(cc_ring_write(r, "x", 1), -1);
    cc_ring_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes_arrive_in_order_across_wraps),
        cmocka_unit_test(failure_comes_after_the_data),
        cmocka_unit_test(cancel_releases_a_blocked_writer),
        cmocka_unit_test(wake_and_sleep),
        cmocka_unit_test(cond_wait_times_out),
        cmocka_unit_test(spill_producer_never_waits_for_a_slow_consumer),
        cmocka_unit_test(spill_and_ring_alternate_with_a_racing_consumer),
        cmocka_unit_test(spill_batch_wakes_a_reader_once_per_batch),
        cmocka_unit_test(spill_failure_and_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
