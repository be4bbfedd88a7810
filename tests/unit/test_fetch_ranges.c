/* test_fetch_ranges.c: one download over several connections (fetch_ranges.c) against the real
 * local HTTP server (tests/tools/httpd.py) with a per-connection rate limit: bytes reach the
 * consumer in order and verified, the server log shows the bounded ranges, and every fallback:
 * no range support, a wrong Content-Range, a range cut mid-way, resume across runs with the
 * ranges kept, a flipped byte in one range (refused, the range fetched again by the next run),
 * and a side file left for a one-stream run. Linux and, cross-built, wine (fetch_fixture.h). */
#include "fetch_fixture.h" /* tmp, www, logpath, write_file, sha256sum, start_server, new_ctx */

#define SIZE (6u * 1024u * 1024u + 777u)
#define PIECE (512u * 1024u)

static char data_hex[65];
static unsigned char *data;
static long slow_pid = -1, fast_pid = -1;
static int slow_port, fast_port;

/* The requests of the log from line `from` on for this path: count, bytes asked for by bounded
 * ranges, and how many asked for a bounded range at all. */
typedef struct {
    int requests, bounded, status200;
    unsigned long long bounded_bytes;
    int covers; /* bounded ranges that cover byte `at` */
} log_stats;

static int log_lines(void)
{
    FILE *f = fopen(logpath, "r");
    int n = 0, c;
    if (!f)
        return 0;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static log_stats read_log(int from, const char *path, unsigned long long at)
{
    log_stats st = {0};
    FILE *f = fopen(logpath, "r");
    assert_non_null(f);
    char line[2048], want[600];
    snprintf(want, sizeof(want), "\"path\": \"%s\"", path);
    for (int i = 0; fgets(line, sizeof(line), f); i++) {
        if (i < from || !strstr(line, want))
            continue;
        st.requests++;
        st.status200 += strstr(line, "\"status\": 200") != NULL;
        unsigned long long a, b;
        const char *r = strstr(line, "\"range\": \"bytes=");
        if (r && sscanf(r, "\"range\": \"bytes=%llu-%llu\"", &a, &b) == 2) {
            st.bounded++;
            st.bounded_bytes += b - a + 1;
            st.covers += a <= at && at <= b;
        }
    }
    fclose(f);
    return st;
}

static cc_source_opts ranged_opts(const char *url, unsigned connections)
{
    cc_source_opts o = opts_for(url, data_hex, SIZE);
    o.connections = connections;
    o.piece_bytes = PIECE;
    return o;
}

/* Read everything, checking every byte against the payload in order, then finish. */
static int check_bytes = 1; /* off where a test serves a flipped byte on purpose */

static cudnnctl_err run(cudnnctl_ctx *ctx, const cc_source_opts *o, uint64_t stop_after)
{
    cc_source *src = NULL;
    cudnnctl_err e = cc_source_open(ctx, o, &src);
    if (e != CUDNNCTL_E_OK)
        return e;
    unsigned char buf[70001];
    uint64_t off = 0;
    long long n;
    while ((n = cc_source_read(src, buf, sizeof(buf))) > 0) {
        assert_true(off + (uint64_t)n <= SIZE);
        if (check_bytes)
            assert_memory_equal(buf, data + off, (size_t)n);
        off += (uint64_t)n;
        if (stop_after && off >= stop_after) {
            cc_source_close(src); /* cancelled mid-way, like Ctrl-C */
            return CUDNNCTL_E_INTERRUPTED;
        }
    }
    if (n < 0) {
        e = cudnnctl_last_error(ctx)->code;
        cc_source_close(src);
        return e;
    }
    char h[65];
    e = cc_source_finish(src, h, NULL);
    if (e == CUDNNCTL_E_OK) {
        assert_int_equal(off, SIZE);
        assert_string_equal(h, data_hex);
        char got[65];
        sha256sum(cc_source_path(src), got); /* the blob in the cache, independently */
        assert_string_equal(got, data_hex);
    }
    cc_source_close(src);
    return e;
}

/* Files of cache/DIR/ matching "DIR/STAR" or "DIR/STARSUFFIX" (STAR: *, the only patterns used). */
static int count_glob(const char *cache, const char *pattern)
{
    const char *star = strrchr(pattern, '*');
    assert_non_null(star);
    assert_true(star > pattern && star[-1] == '/');
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/%.*s", cache, (int)(star - 1 - pattern), pattern);
    const char *suffix = star + 1;
    size_t ls = strlen(suffix);
    int n = 0;
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *name;
    while (d && (name = cc_pf_readdir(d)) != NULL) {
        size_t ln = strlen(name);
        n += name[0] != '.' && ln >= ls && strcmp(name + ln - ls, suffix) == 0;
    }
    if (d)
        cc_pf_closedir(d);
    return n;
}

static void url_at(char *out, size_t n, int at_port, const char *path)
{
    snprintf(out, n, "http://127.0.0.1:%d%s", at_port, path);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void parallel_download_is_in_order_and_verified(void **state)
{
    (void)state;
    char url[300], cache[400];
    url_at(url, sizeof(url), slow_port, "/payload.bin?t=parallel");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    int from = log_lines();
    cc_source_opts o = ranged_opts(url, 4);
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    log_stats st = read_log(from, "/payload.bin?t=parallel", 0);
    print_message("parallel: %d requests, %d bounded ranges (%llu bytes)\n", st.requests,
                  st.bounded, st.bounded_bytes);
    /* the probe (a bounded range of the whole file) plus the pieces */
    assert_true(st.bounded >= 6);
    assert_int_equal(st.status200, 0);
    assert_true(st.bounded_bytes >= SIZE);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    assert_int_equal(count_glob(cache, "blobs/sha256/*"), 1);
    cudnnctl_ctx_free(ctx);
}

static void auto_choice_on_a_fast_link_keeps_one_stream(void **state)
{
    (void)state;
    char url[300];
    url_at(url, sizeof(url), fast_port, "/payload.bin?t=auto");
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    int from = log_lines();
    cc_source_opts o = ranged_opts(url, 0);
    o.piece_bytes = 1024 * 1024; /* 6 MiB: eligible under auto only with small pieces... */
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    log_stats st = read_log(from, "/payload.bin?t=auto", 0);
    /* ...but below 16 MiB auto keeps one plain stream: one request, no range */
    assert_int_equal(st.requests, 1);
    assert_int_equal(st.bounded, 0);
    cudnnctl_ctx_free(ctx);
}

static void no_range_support_falls_back_to_one_stream(void **state)
{
    (void)state;
    char url[300];
    url_at(url, sizeof(url), slow_port, "/__fault/norange/payload.bin");
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    int from = log_lines();
    cc_source_opts o = ranged_opts(url, 4);
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    log_stats st = read_log(from, "/__fault/norange/payload.bin", 0);
    assert_true(st.status200 >= 1);
    assert_true(st.requests <= 2); /* the probe, then one stream */
    cudnnctl_ctx_free(ctx);
}

static void wrong_content_range_falls_back_without_corruption(void **state)
{
    (void)state;
    char url[300], cache[400];
    /* the probe is answered right; the 2nd and 3rd ranged answers start 4096 bytes late */
    url_at(url, sizeof(url), slow_port, "/__fault/badrange,arg=4096,skip=1,times=2/payload.bin");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = ranged_opts(url, 4);
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK); /* every byte checked in order by run() */
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    cudnnctl_ctx_free(ctx);
}

static void a_range_cut_mid_way_is_fetched_again_from_where_it_stopped(void **state)
{
    (void)state;
    char url[300];
    url_at(url, sizeof(url), slow_port, "/__fault/cut,arg=100000,times=2/payload.bin");
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    int from = log_lines();
    cc_source_opts o = ranged_opts(url, 4);
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    /* the probe was cut after 100000 bytes: its rest was asked for from there */
    FILE *f = fopen(logpath, "r");
    char line[2048];
    int resumed = 0;
    for (int i = 0; fgets(line, sizeof(line), f); i++)
        if (i >= from && strstr(line, "\"range\": \"bytes=100000-"))
            resumed++;
    fclose(f);
    assert_true(resumed >= 1);
    cudnnctl_ctx_free(ctx);
}

static void resume_across_runs_keeps_every_range(void **state)
{
    (void)state;
    char url[300], cache[400];
    url_at(url, sizeof(url), slow_port, "/payload.bin?t=resume");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = ranged_opts(url, 4);
    /* run 1: cancelled once the consumer saw 2 MiB; other connections were ahead */
    assert_int_equal(run(ctx, &o, 2u * 1024u * 1024u), CUDNNCTL_E_INTERRUPTED);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 1);
    cudnnctl_ctx_free(ctx);
    /* run 2, same cache, through the fast server */
    char url2[300];
    url_at(url2, sizeof(url2), fast_port, "/payload.bin?t=resume");
    ctx = new_ctx(NULL, NULL);
    assert_int_equal(cudnnctl_set_cache_dir(ctx, cache), CUDNNCTL_E_OK);
    int from = log_lines();
    o = ranged_opts(url2, 4);
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    log_stats st = read_log(from, "/payload.bin?t=resume", 0);
    print_message("resume: run 2 asked for %llu of %u bytes in %d ranges\n", st.bounded_bytes,
                  SIZE, st.bounded);
    assert_true(st.bounded >= 1);
    assert_true(st.bounded_bytes < SIZE - 2u * 1024u * 1024u); /* the kept ranges were not */
    assert_int_equal(st.status200, 0);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    cudnnctl_ctx_free(ctx);
}

static void a_flipped_byte_in_one_range_is_refused_then_fetched_again(void **state)
{
    (void)state;
    char url[300], cache[400];
    unsigned long long at = SIZE - 300000; /* in a late piece, not the probe's part */
    char path[200];
    snprintf(path, sizeof(path), "/__fault/flip,arg=%llu,times=1/payload.bin", at);
    url_at(url, sizeof(url), slow_port, path);
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = ranged_opts(url, 4);
    check_bytes = 0;
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_HASH_MISMATCH);
    check_bytes = 1;
    assert_int_equal(count_glob(cache, "quarantine/*"), 1);
    assert_int_equal(count_glob(cache, "blobs/sha256/*"), 0);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    int from = log_lines();
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK); /* the fault is used up */
    log_stats st = read_log(from, path, at);
    assert_true(st.covers >= 1); /* the range with the bad byte was fetched again */
    cudnnctl_ctx_free(ctx);
}

static void a_one_stream_run_after_ranges_keeps_only_the_prefix(void **state)
{
    (void)state;
    char url[300], cache[400];
    url_at(url, sizeof(url), slow_port, "/payload.bin?t=settle");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = ranged_opts(url, 4);
    assert_int_equal(run(ctx, &o, 1024u * 1024u), CUDNNCTL_E_INTERRUPTED);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 1);
    o = ranged_opts(url, 1); /* now one connection: the holes must not be taken as data */
    int from = log_lines();
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_OK);
    log_stats st = read_log(from, "/payload.bin?t=settle", 0);
    assert_int_equal(st.requests, 1);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    cudnnctl_ctx_free(ctx);
}

static void a_size_the_manifest_does_not_give_discards_the_part(void **state)
{
    (void)state;
    char url[300], cache[400];
    url_at(url, sizeof(url), slow_port, "/payload.bin?t=size");
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    cc_source_opts o = ranged_opts(url, 4);
    o.expected_size = SIZE - 1000; /* the manifest says otherwise than the server's range total */
    assert_int_equal(run(ctx, &o, 0), CUDNNCTL_E_SIZE_MISMATCH);
    /* refused for its content: nothing kept to resume, as for one stream */
    assert_int_equal(count_glob(cache, "blobs/sha256/*.part"), 0);
    assert_int_equal(count_glob(cache, "blobs/sha256/*.ranges"), 0);
    cudnnctl_ctx_free(ctx);
}

/* ---- setup ------------------------------------------------------------------------------------ */

static int ranges_setup(void **state)
{
    (void)state;
    fetch_tmp("ranges");
    data = malloc(SIZE);
    uint64_t x = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < SIZE; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (unsigned char)(x >> 24);
    }
    char path[400];
    snprintf(path, sizeof(path), "%s/payload.bin", www);
    write_file(path, data, SIZE);
    sha256sum(path, data_hex);
    char pf[400];
    snprintf(pf, sizeof(pf), "%s/slow-port", tmp);
    /* 4 MB/s a connection: the probe lasts past its 300 ms, and 4 connections beat one */
    slow_pid = start_server(pf, "--throttle", "4000000", NULL, NULL, &slow_port);
    snprintf(pf, sizeof(pf), "%s/fast-port", tmp);
    fast_pid = start_server(pf, NULL, NULL, NULL, NULL, &fast_port);
    return 0;
}

static int ranges_teardown(void **state)
{
    (void)state;
    stop_server(slow_pid);
    stop_server(fast_pid);
    fetch_tmp_remove();
    free(data);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parallel_download_is_in_order_and_verified),
        cmocka_unit_test(auto_choice_on_a_fast_link_keeps_one_stream),
        cmocka_unit_test(no_range_support_falls_back_to_one_stream),
        cmocka_unit_test(wrong_content_range_falls_back_without_corruption),
        cmocka_unit_test(a_range_cut_mid_way_is_fetched_again_from_where_it_stopped),
        cmocka_unit_test(resume_across_runs_keeps_every_range),
        cmocka_unit_test(a_flipped_byte_in_one_range_is_refused_then_fetched_again),
        cmocka_unit_test(a_one_stream_run_after_ranges_keeps_only_the_prefix),
        cmocka_unit_test(a_size_the_manifest_does_not_give_discards_the_part),
    };
    return cmocka_run_group_tests(tests, ranges_setup, ranges_teardown);
}
