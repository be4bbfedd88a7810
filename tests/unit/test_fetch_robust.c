/* test_fetch_robust.c: cc_source when things go wrong around the download rather than on the
 * wire: a second download of the same blob (the lock), closing during a slow download (prompt),
 * a stalled consumer (the ring spills into the part and the bytes are read back, still verified),
 * the transport's hand-over (batches, and every byte of a broken transfer), and every sys call
 * failed in turn (no bad blob is ever left). Linux and, cross-built, wine
 * (fetch_fixture.h). */
#include "fetch_fixture.h"
#include "transport.h"

/* ---- the transport's hand-over: libcurl's 16 KiB pieces gathered into batches ---------------- */
typedef struct {
    unsigned char *got;
    size_t n, cap, calls, largest;
} body_rec;

static cudnnctl_err rec_data(void *user, const void *data, size_t len, char **why)
{
    (void)why;
    body_rec *b = user;
    if (b->n + len > b->cap) {
        b->cap = (b->n + len) * 2;
        b->got = realloc(b->got, b->cap);
        assert_non_null(b->got);
    }
    memcpy(b->got + b->n, data, len);
    b->n += len;
    b->calls++;
    if (len > b->largest)
        b->largest = len;
    return CUDNNCTL_E_OK;
}

static void get_body(const char *path, body_rec *b, cc_transport_res *res)
{
    char url[200];
    url_of(url, sizeof(url), path);
    memset(b, 0, sizeof(*b));
    cc_transport_req req;
    memset(&req, 0, sizeof(req));
    req.url = url;
    req.max_redirects = 2;
    req.connect_timeout_secs = 10;
    req.on_data = rec_data;
    req.user = b;
    const cc_transport_ops *ops = cc_transport_curl();
    cc_transport *t = ops->open();
    assert_non_null(t);
    ops->get(t, &req, res);
    ops->close(t);
}

static void the_body_is_handed_over_in_batches_not_per_network_piece(void **state)
{
    (void)state;
    body_rec b;
    cc_transport_res res;
    get_body("/big.bin?t=batch", &b, &res);
    assert_int_equal(res.code, CUDNNCTL_E_OK);
    assert_int_equal(b.n, BIG);
    assert_int_equal(res.body_bytes, BIG);
    assert_memory_equal(b.got, big_data, BIG);
    /* 3 MiB: 199 pieces of libcurl's 16 KiB; gathered into 256 KiB, 13 calls (the last short) */
    assert_true(b.largest > 16384);
    assert_true(b.calls <= BIG / (256u * 1024u) + 2);
    free(b.got);
}

/* A transfer from path that breaks after n bytes: it fails retryably, with exactly those bytes
 * handed over. */
static void expect_broken_after(const char *path, size_t n)
{
    body_rec b;
    cc_transport_res res;
    get_body(path, &b, &res);
    assert_int_not_equal(res.code, CUDNNCTL_E_OK);
    assert_true(res.retryable);
    assert_int_equal(b.n, n);
    assert_int_equal(res.body_bytes, n);
    assert_memory_equal(b.got, big_data, n);
    free(res.detail);
    free(b.got);
}

static void a_broken_transfer_still_hands_over_every_byte_that_arrived(void **state)
{
    (void)state;
    /* reset after 100000 bytes: less than one batch, all of it gathered when the reset came */
    expect_broken_after("/__fault/reset,arg=100000/big.bin", 100000);
    expect_broken_after("/__fault/cut,arg=300000/big.bin", 300000); /* a batch, then 37856 */
}

static void concurrent_download_of_one_blob_is_locked(void **state)
{
    (void)state;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    url_of(url, sizeof(url), "/big.bin?t=lock");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    cc_source *a = NULL, *b = NULL;
    assert_int_equal(cc_source_open(ctx, &o, &a), CUDNNCTL_E_OK);
    assert_int_equal(cc_source_open(ctx, &o, &b), CUDNNCTL_E_LOCKED);
    assert_null(b);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_LOCKED), 8);
    cc_source_close(a); /* early close: no hang, the part stays for a resume */
    assert_int_equal(cc_source_open(ctx, &o, &b), CUDNNCTL_E_OK);
    assert_int_equal(cc_source_finish(b, NULL, NULL), CUDNNCTL_E_OK);
    cc_source_close(b);
    cudnnctl_ctx_free(ctx);
}

static void close_during_a_slow_download_is_prompt(void **state)
{
    (void)state;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    url_of(url, sizeof(url), "/__fault/drip,arg=20000/big.bin?t=cancel");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    cc_source *src = NULL;
    assert_int_equal(cc_source_open(ctx, &o, &src), CUDNNCTL_E_OK);
    char buf[100];
    assert_true(cc_source_read(src, buf, sizeof(buf)) > 0);
    uint64_t t0 = cc_pf_now_ms();
    cc_source_close(src);
    assert_true(cc_pf_now_ms() - t0 < 3000);
    cudnnctl_ctx_free(ctx);
}

/* The decoder stalls (here: reads nothing) while the download goes on: with a 64 KiB ring the
 * whole 3 MiB still arrives in the part, and the consumer then reads it back from there. */
static void a_stalled_consumer_does_not_stall_the_download(void **state)
{
    (void)state;
    char cache[400], url[200], part[700], blob[600], hex[65];
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    url_of(url, sizeof(url), "/big.bin?t=spill");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    o.ring_bytes = 64 * 1024;
    cc_source *src = NULL;
    assert_int_equal(cc_source_open(ctx, &o, &src), CUDNNCTL_E_OK);
    snprintf(blob, sizeof(blob), "%s/blobs/sha256/%s", cache, big_hex);
    snprintf(part, sizeof(part), "%s.part", blob);
    int whole = 0;
    for (int i = 0; i < 1000 && !whole; i++) {
        whole = file_size(part) == (long long)BIG;
        if (!whole)
            cc_pf_sleep_ms(10);
    }
    assert_true(whole); /* a blocking 64 KiB ring would hold the part near 128 KiB */
    unsigned char *got = malloc(BIG);
    assert_non_null(got);
    uint64_t off = 0;
    long long n;
    while ((n = cc_source_read(src, got + off, BIG - off < 70000 ? BIG - off : 70000)) > 0)
        off += (uint64_t)n;
    assert_int_equal(n, 0);
    assert_int_equal(off, BIG);
    assert_memory_equal(got, big_data, BIG);
    assert_int_equal(cc_source_finish(src, hex, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, big_hex);
    assert_string_equal(cc_source_path(src), blob);
    cc_source_close(src);
    free(got);
    cudnnctl_ctx_free(ctx);
}

/* A flipped byte is still caught when the consumer read the bytes back from the part. */
static void spilled_download_with_a_flipped_byte_is_refused(void **state)
{
    (void)state;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    url_of(url, sizeof(url), "/flipped.bin?t=spill");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    o.ring_bytes = 4096;
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HASH_MISMATCH);
    cudnnctl_ctx_free(ctx);
}

/* Fail every sys call in turn: each run ends either verified (blob right) or with an error, and
 * a failed run never leaves a blob behind. */
static void torture(size_t ring_bytes)
{
    char cache[400], url[200], blob[600];
    url_of(url, sizeof(url), "/small.bin?t=torture");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    o.ring_bytes = ring_bytes;
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, NULL, NULL, NULL), CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(ctx);
    assert_true(calls > 3);
    cudnnctl_ctx_free(ctx);
    int failures = 0;
    for (unsigned long n = 1; n <= calls + 1; n++) {
        ctx = new_ctx(NULL, cache);
        snprintf(blob, sizeof(blob), "%s/blobs/sha256/%s", cache, small_hex);
        cudnnctl_set_fault_injection(ctx, n);
        cudnnctl_err e = run_source(ctx, &o, small_data, SMALL, NULL, NULL, NULL);
        if (e == CUDNNCTL_E_OK) {
            char h[65];
            sha256sum(blob, h);
            assert_string_equal(h, small_hex);
        } else {
            failures++;
            assert_false(file_exists(blob));
            assert_non_null(cudnnctl_last_error(ctx)->detail);
        }
        cudnnctl_ctx_free(ctx);
    }
    assert_true(failures >= 3);
}

static void sys_call_faults_never_leave_a_bad_blob(void **state)
{
    (void)state;
    torture(0);
    torture(512); /* spilling: the read-back from the part is injected too */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_download_of_one_blob_is_locked),
        cmocka_unit_test(the_body_is_handed_over_in_batches_not_per_network_piece),
        cmocka_unit_test(a_broken_transfer_still_hands_over_every_byte_that_arrived),
        cmocka_unit_test(close_during_a_slow_download_is_prompt),
        cmocka_unit_test(sys_call_faults_never_leave_a_bad_blob),
        cmocka_unit_test(a_stalled_consumer_does_not_stall_the_download),
        cmocka_unit_test(spilled_download_with_a_flipped_byte_is_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
