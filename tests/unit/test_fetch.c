/* test_fetch.c: cc_source against the real local HTTP(S) server (tests/tools/httpd.py): full
 * download, hash mismatch → quarantine, resume after a cut (Range in the server log), retries,
 * HTTP errors, Content-Length, redirect loop, stall timeout, cache hit (no request), TLS with and
 * without --cacert, proxies from the environment, local paths and file:// URLs, locks, and a
 * sys-call fault loop. POSIX only (fork/exec of the server). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "internal.h"
#include "source.h"

#define BIG (3u * 1024u * 1024u + 12345u)
#define SMALL (200u * 1024u)

static char tmp[256], www[300], logpath[300], cert[300];
static char big_path[320], small_path[320];
static char big_hex[65], small_hex[65];
static unsigned char *big_data, *small_data;
static pid_t srv_pid = -1, tls_pid = -1;
static int port, tls_port;
static int cache_seq;

/* ---- helpers -------------------------------------------------------------------------------- */

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static unsigned char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* The independent oracle: coreutils sha256sum. */
static void sha256sum(const char *path, char hex[65])
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%64s", hex), 1);
    assert_int_equal(pclose(p), 0);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static pid_t start_server(const char *port_file, const char *extra1, const char *extra2,
                          const char *extra3, const char *extra4, int *port_out)
{
    unlink(port_file);
    char script[512];
    snprintf(script, sizeof(script), "%s/tests/tools/httpd.py", CUDNNCTL_SOURCE_DIR);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execlp("python3", "python3", script, "--root", www, "--port-file", port_file, "--log",
               logpath, "--max-lifetime", "300", extra1, extra2, extra3, extra4, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", port_out) == 1;
            fclose(f);
            if (ok)
                return pid;
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            fail_msg("tests/tools/httpd.py exited at start (is python3 installed?)");
        usleep(50 * 1000);
    }
    fail_msg("tests/tools/httpd.py did not write its port within 10 s");
    return -1;
}

static void stop_server(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
}

/* Count log lines for exactly this request path (and, if given, with this Range header). */
static int log_count(const char *path, const char *range)
{
    size_t len = 0;
    unsigned char *log = read_whole(logpath, &len);
    if (!log)
        return 0;
    log[len] = 0;
    char want[600], want_range[200];
    snprintf(want, sizeof(want), "\"path\": \"%s\"", path);
    if (range)
        snprintf(want_range, sizeof(want_range), "\"range\": \"%s\"", range);
    int n = 0;
    for (char *line = strtok((char *)log, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, want) && (!range || strstr(line, want_range)))
            n++;
    free(log);
    return n;
}

typedef struct {
    int retries, cache_hits, warnings;
    char last_retry[1024];
    uint64_t last_done, last_total;
    int progress_calls;
} seen;

static void on_event(void *user, const cudnnctl_event *ev)
{
    seen *s = user;
    if (ev->kind == CUDNNCTL_EV_RETRY) {
        s->retries++;
        snprintf(s->last_retry, sizeof(s->last_retry), "%s", ev->text);
    } else if (ev->kind == CUDNNCTL_EV_CACHE_HIT) {
        s->cache_hits++;
    } else if (ev->kind == CUDNNCTL_EV_WARNING) {
        s->warnings++;
    }
}

static void on_progress(void *user, const cudnnctl_progress *p)
{
    seen *s = user;
    s->last_done = p->done;
    s->last_total = p->total;
    s->progress_calls++;
}

/* A context with a cache dir of its own. */
static cudnnctl_ctx *new_ctx(seen *s, char *cache_out)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    char dir[400];
    snprintf(dir, sizeof(dir), "%s/cache-%d", tmp, ++cache_seq);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(cudnnctl_set_cache_dir(ctx, dir), CUDNNCTL_E_OK);
    if (cache_out)
        strcpy(cache_out, dir);
    if (s) {
        memset(s, 0, sizeof(*s));
        cudnnctl_set_event_cb(ctx, on_event, s);
        cudnnctl_set_progress_cb(ctx, on_progress, s);
    }
    return ctx;
}

static cc_source_opts opts_for(const char *url, const char *hex, uint64_t size)
{
    cc_source_opts o;
    memset(&o, 0, sizeof(o));
    o.url = url;
    o.expected_sha256 = hex;
    o.expected_size = size;
    o.use_cache = 1;
    o.retry_delay_ms = 10;
    o.connect_timeout_secs = 5;
    return o;
}

/* Open, read everything (checking the bytes against want when given), finish. Returns the first
 * error; *got_bytes = bytes the consumer saw. */
static cudnnctl_err run_source(cudnnctl_ctx *ctx, const cc_source_opts *o,
                               const unsigned char *want, size_t want_len, char hex[65],
                               char **path_out, uint64_t *got_bytes)
{
    cc_source *src = NULL;
    if (path_out)
        *path_out = NULL;
    if (got_bytes)
        *got_bytes = 0;
    cudnnctl_err e = cc_source_open(ctx, o, &src);
    if (e != CUDNNCTL_E_OK) {
        assert_null(src);
        assert_int_equal(cudnnctl_last_error(ctx)->code, e);
        return e;
    }
    unsigned char buf[70000]; /* an odd size: reads straddle the ring's wrap */
    uint64_t off = 0;
    long long n;
    while ((n = cc_source_read(src, buf, sizeof(buf))) > 0) {
        if (want) {
            assert_true(off + (uint64_t)n <= want_len);
            assert_memory_equal(buf, want + off, (size_t)n);
        }
        off += (uint64_t)n;
    }
    if (got_bytes)
        *got_bytes = off;
    if (n < 0) {
        e = cudnnctl_last_error(ctx)->code;
        assert_int_not_equal(e, CUDNNCTL_E_OK);
        assert_int_equal(cc_source_status(src), e);
        cc_source_close(src);
        return e;
    }
    char h[65] = {0};
    uint64_t size = 0;
    e = cc_source_finish(src, h, &size);
    if (e == CUDNNCTL_E_OK) {
        assert_int_equal(size, off);
        if (hex)
            memcpy(hex, h, 65);
        assert_non_null(cc_source_path(src));
        if (path_out)
            *path_out = strdup(cc_source_path(src));
    } else {
        assert_null(cc_source_path(src));
    }
    cc_source_close(src);
    return e;
}

static void url_of(char *out, size_t n, const char *path)
{
    snprintf(out, n, "http://127.0.0.1:%d%s", port, path);
}

/* ---- setup ---------------------------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    /* a proxy inherited from the machine would take our loopback traffic elsewhere */
    const char *proxies[] = {"http_proxy", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY",
                             "all_proxy",  "ALL_PROXY",   "no_proxy",    "NO_PROXY"};
    for (size_t i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
        unsetenv(proxies[i]);
    snprintf(tmp, sizeof(tmp), "/tmp/cc-test-fetch-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    snprintf(www, sizeof(www), "%s/www", tmp);
    assert_int_equal(mkdir(www, 0755), 0);
    snprintf(logpath, sizeof(logpath), "%s/requests.log", tmp);

    /* deterministic pseudo-random payloads (xorshift), incompressible enough */
    big_data = malloc(BIG);
    small_data = malloc(SMALL);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < BIG; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        big_data[i] = (unsigned char)(x >> 24);
    }
    for (size_t i = 0; i < SMALL; i++)
        small_data[i] = big_data[BIG - 1 - i] ^ 0x5a;
    snprintf(big_path, sizeof(big_path), "%s/big.bin", www);
    snprintf(small_path, sizeof(small_path), "%s/small.bin", www);
    write_file(big_path, big_data, BIG);
    write_file(small_path, small_data, SMALL);
    sha256sum(big_path, big_hex);
    sha256sum(small_path, small_hex);
    /* the same file with one byte flipped in the middle */
    char flipped[400];
    snprintf(flipped, sizeof(flipped), "%s/flipped.bin", www);
    big_data[BIG / 2] ^= 0x01;
    write_file(flipped, big_data, BIG);
    big_data[BIG / 2] ^= 0x01;

    char pf[400];
    snprintf(pf, sizeof(pf), "%s/port", tmp);
    srv_pid = start_server(pf, NULL, NULL, NULL, NULL, &port);

    /* a self-signed certificate for 127.0.0.1, made now with the openssl CLI */
    char cmd[1400], key[300];
    snprintf(cert, sizeof(cert), "%s/cert.pem", tmp);
    snprintf(key, sizeof(key), "%s/key.pem", tmp);
    snprintf(cmd, sizeof(cmd),
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "
             "'%s' -out '%s' -days 2 "
             "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
             key, cert);
    if (system(cmd) != 0)
        fail_msg("openssl CLI failed to make a test certificate (scripts/bootstrap installs it)");
    snprintf(pf, sizeof(pf), "%s/tls-port", tmp);
    tls_pid = start_server(pf, "--tls-cert", cert, "--tls-key", key, &tls_port);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    stop_server(srv_pid);
    stop_server(tls_pid);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return -1;
    free(big_data);
    free(small_data);
    return 0;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void full_download_verifies_and_caches(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    url_of(url, sizeof(url), "/big.bin?t=full");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    char *path = NULL;
    uint64_t got = 0;
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, &path, &got), CUDNNCTL_E_OK);
    assert_int_equal(got, BIG);
    assert_string_equal(hex, big_hex);
    /* the blob is content-addressed and byte-identical; no part is left */
    char blob[600], part[700];
    snprintf(blob, sizeof(blob), "%s/blobs/sha256/%s", cache, big_hex);
    snprintf(part, sizeof(part), "%s.part", blob);
    assert_string_equal(path, blob);
    char h2[65];
    sha256sum(blob, h2);
    assert_string_equal(h2, big_hex);
    assert_false(file_exists(part));
    assert_int_equal(s.last_done, BIG);
    assert_int_equal(s.last_total, BIG);
    assert_int_equal(log_count("/big.bin?t=full", NULL), 1);
    assert_true(cc_cache_has(ctx, big_hex, BIG));
    free(path);
    cudnnctl_ctx_free(ctx);
}

static void flipped_byte_is_quarantined(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], flipped_hex[65], fpath[400];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    snprintf(fpath, sizeof(fpath), "%s/flipped.bin", www);
    sha256sum(fpath, flipped_hex);
    url_of(url, sizeof(url), "/flipped.bin?t=flip");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HASH_MISMATCH);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_HASH_MISMATCH), 3);
    const char *d = cudnnctl_last_error(ctx)->detail;
    assert_non_null(strstr(d, big_hex));
    assert_non_null(strstr(d, flipped_hex));
    assert_non_null(strstr(d, "quarantine"));
    assert_non_null(strstr(d, "--sha256"));
    char q[700], blob[600];
    snprintf(q, sizeof(q), "%s/quarantine/%s-flipped.bin", cache, flipped_hex);
    assert_non_null(strstr(d, q));
    assert_int_equal(file_size(q), BIG);
    snprintf(blob, sizeof(blob), "%s/blobs/sha256/%s", cache, big_hex);
    assert_false(file_exists(blob));
    strcat(blob, ".part");
    assert_false(file_exists(blob));
    assert_false(cc_cache_has(ctx, big_hex, 0));
    cudnnctl_ctx_free(ctx);
}

static void cut_download_resumes_with_range(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], hex[65], part[600];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    const char *path = "/__fault/cut,arg=1000000,times=1/big.bin?t=resume";
    url_of(url, sizeof(url), path);
    cc_source_opts o = opts_for(url, big_hex, BIG);
    o.max_tries = 1; /* the first run gives up after the cut */
    uint64_t got = 0;
    assert_int_equal(run_source(ctx, &o, big_data, BIG, NULL, NULL, &got), CUDNNCTL_E_NETWORK);
    assert_int_equal(got, 1000000);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "resumes"));
    snprintf(part, sizeof(part), "%s/blobs/sha256/%s.part", cache, big_hex);
    assert_int_equal(file_size(part), 1000000);
    assert_int_equal(log_count(path, "bytes=1000000-"), 0);

    /* the rerun re-hashes the 1,000,000 bytes and asks only for the rest */
    char *bpath = NULL;
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, &bpath, &got), CUDNNCTL_E_OK);
    assert_int_equal(got, BIG);
    assert_string_equal(hex, big_hex);
    assert_int_equal(log_count(path, "bytes=1000000-"), 1);
    assert_int_equal(log_count(path, NULL), 2);
    assert_false(file_exists(part));
    char h2[65];
    sha256sum(bpath, h2);
    assert_string_equal(h2, big_hex);
    free(bpath);
    cudnnctl_ctx_free(ctx);
}

/* PART.prefix: "<len> <SHA-256 of the first len bytes>", as an earlier run leaves it. */
static void write_record(const char *part, const void *data, size_t len)
{
    char rec[700], hex[65], text[100];
    cc_sha256 *h = cc_sha256_new();
    assert_non_null(h);
    assert_int_equal(cc_sha256_update(h, data, len), 0);
    assert_int_equal(cc_sha256_final_hex(h, hex), 0);
    cc_sha256_free(h);
    snprintf(rec, sizeof(rec), "%s.prefix", part);
    snprintf(text, sizeof(text), "%zu %s\n", len, hex);
    write_file(rec, text, strlen(text));
}

static void server_ignoring_range_still_resumes(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], hex[65], part[600], dir[500];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    snprintf(part, sizeof(part), "%s/blobs/sha256/%s.part", cache, big_hex);
    snprintf(dir, sizeof(dir), "%s/blobs", cache);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof(dir), "%s/blobs/sha256", cache);
    assert_int_equal(mkdir(dir, 0755), 0);
    write_file(part, big_data, 777777); /* as if an earlier run stopped there */
    write_record(part, big_data, 777777);
    url_of(url, sizeof(url), "/__fault/norange/big.bin?t=norange");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    uint64_t got = 0;
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, NULL, &got), CUDNNCTL_E_OK);
    assert_int_equal(got, BIG);
    assert_string_equal(hex, big_hex);
    assert_int_equal(log_count("/__fault/norange/big.bin?t=norange", "bytes=777777-"), 1);
    cudnnctl_ctx_free(ctx);
}

static void oversized_part_is_discarded(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], hex[65], part[600], dir[500];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    snprintf(dir, sizeof(dir), "%s/blobs", cache);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof(dir), "%s/blobs/sha256", cache);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(part, sizeof(part), "%s/blobs/sha256/%s.part", cache, small_hex);
    unsigned char junk[SMALL + 10];
    memset(junk, 0xee, sizeof(junk));
    write_file(part, junk, sizeof(junk)); /* longer than the archive: useless */
    url_of(url, sizeof(url), "/small.bin?t=oversized");
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, small_hex);
    assert_int_equal(log_count("/small.bin?t=oversized", NULL), 1);
    assert_int_equal(log_count("/small.bin?t=oversized", "bytes=0-"), 0);
    cudnnctl_ctx_free(ctx);
}

static void server_errors_then_ok_are_retried(void **state)
{
    (void)state;
    seen s;
    char url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(&s, NULL);
    const char *path = "/__fault/500,times=2/big.bin?t=retry";
    url_of(url, sizeof(url), path);
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, big_hex);
    assert_int_equal(s.retries, 2);
    assert_non_null(strstr(s.last_retry, "HTTP 500"));
    assert_int_equal(log_count(path, NULL), 3);
    cudnnctl_ctx_free(ctx);
}

static void persistent_500_gives_up(void **state)
{
    (void)state;
    seen s;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(&s, NULL);
    const char *path = "/__fault/503/big.bin?t=giveup";
    url_of(url, sizeof(url), path);
    cc_source_opts o = opts_for(url, big_hex, BIG);
    o.max_tries = 3;
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HTTP_STATUS);
    assert_int_equal(s.retries, 2);
    assert_int_equal(log_count(path, NULL), 3);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "gave up after 3 tries"));
    cudnnctl_ctx_free(ctx);
}

static void reset_mid_body_is_resumed_in_the_same_run(void **state)
{
    (void)state;
    seen s;
    char url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(&s, NULL);
    const char *path = "/__fault/reset,arg=600000,times=1/big.bin?t=reset";
    url_of(url, sizeof(url), path);
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, big_hex);
    assert_int_equal(s.retries, 1);
    assert_int_equal(log_count(path, NULL), 2);
    cudnnctl_ctx_free(ctx);
}

static void not_found_is_http_status(void **state)
{
    (void)state;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    url_of(url, sizeof(url), "/no-such-archive.tar.xz");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HTTP_STATUS);
    const char *d = cudnnctl_last_error(ctx)->detail;
    assert_non_null(strstr(d, "404"));
    assert_non_null(strstr(d, url));
    assert_non_null(strstr(d, "--mirror"));
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_HTTP_STATUS), 10);
    assert_int_equal(log_count("/no-such-archive.tar.xz", NULL), 1); /* 404 is not retried */
    cudnnctl_ctx_free(ctx);
}

static void wrong_content_length_stops_before_the_body(void **state)
{
    (void)state;
    char cache[400], url[200], part[600];
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    url_of(url, sizeof(url), "/__fault/badlen,arg=5000/big.bin?t=badlen");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_SIZE_MISMATCH);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_SIZE_MISMATCH), 3);
    char announced[32];
    snprintf(announced, sizeof(announced), "%u", BIG + 5000);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, announced));
    snprintf(part, sizeof(part), "%s/blobs/sha256/%s.part", cache, big_hex);
    assert_int_equal(file_size(part), -1); /* nothing of the body was taken; the part is gone */
    cudnnctl_ctx_free(ctx);
}

/* A part whose bytes disagree with its prefix record (or that has none) is not resumed: the
 * download starts again from byte 0 and succeeds the first time. */
static void part_without_a_matching_record_starts_again(void **state)
{
    (void)state;
    char cache[400], url[200], hex[65], part[600], dir[500], rec[700];
    for (int with_record = 0; with_record < 2; with_record++) {
        seen s;
        cudnnctl_ctx *ctx = new_ctx(&s, cache);
        snprintf(part, sizeof(part), "%s/blobs/sha256/%s.part", cache, big_hex);
        snprintf(dir, sizeof(dir), "%s/blobs", cache);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(dir, sizeof(dir), "%s/blobs/sha256", cache);
        assert_int_equal(mkdir(dir, 0755), 0);
        unsigned char *junk = malloc(500000);
        assert_non_null(junk);
        memcpy(junk, big_data, 500000);
        junk[123456] ^= 0x5a; /* one byte of the kept prefix is wrong */
        write_file(part, junk, 500000);
        if (with_record)
            write_record(part, big_data, 500000); /* the record of the right bytes */
        free(junk);
        char q[64];
        snprintf(q, sizeof(q), "/big.bin?t=record%d", with_record);
        url_of(url, sizeof(url), q);
        cc_source_opts o = opts_for(url, big_hex, BIG);
        uint64_t got = 0;
        assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, NULL, &got), CUDNNCTL_E_OK);
        assert_string_equal(hex, big_hex);
        assert_int_equal(log_count(q, NULL), 1); /* one GET ... */
        assert_int_equal(log_count(q, "bytes=500000-"), 0); /* ... from byte 0, not resumed */
        snprintf(rec, sizeof(rec), "%s.prefix", part);
        assert_int_equal(file_size(rec), -1); /* the blob is committed, its record gone */
        cudnnctl_ctx_free(ctx);
    }
}

static void redirects_are_bounded(void **state)
{
    (void)state;
    char url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    url_of(url, sizeof(url), "/__fault/loop/big.bin?t=loop");
    cc_source_opts o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_NETWORK);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "redirect"));
    assert_int_equal(log_count("/__fault/loop/big.bin?t=loop", NULL), 6); /* 1 + 5 redirects */
    cudnnctl_ctx_free(ctx);

    ctx = new_ctx(NULL, NULL); /* one hop is fine */
    url_of(url, sizeof(url), "/__fault/redirect/small.bin?t=hop");
    o = opts_for(url, small_hex, SMALL);
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, small_hex);
    cudnnctl_ctx_free(ctx);
}

static void slow_drip_times_out(void **state)
{
    (void)state;
    seen s;
    char url[200];
    cudnnctl_ctx *ctx = new_ctx(&s, NULL);
    url_of(url, sizeof(url), "/__fault/drip,arg=300/small.bin?t=drip");
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    o.low_speed_bytes = 1024;
    o.low_speed_secs = 1;
    o.max_tries = 2;
    uint64_t t0 = cc_pf_now_ms();
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, NULL, NULL, NULL),
                     CUDNNCTL_E_NET_TIMEOUT);
    uint64_t ms = cc_pf_now_ms() - t0;
    assert_true(ms >= 1500 && ms < 10000);
    assert_int_equal(s.retries, 1);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "stalled"));
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_NET_TIMEOUT), 10);
    cudnnctl_ctx_free(ctx);
}

static void cache_hit_downloads_nothing_and_rehashes(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    url_of(url, sizeof(url), "/small.bin?t=prime");
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);

    url_of(url, sizeof(url), "/small.bin?t=hit");
    o = opts_for(url, small_hex, SMALL);
    char *path = NULL;
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, &path, NULL), CUDNNCTL_E_OK);
    assert_int_equal(s.cache_hits, 1);
    assert_int_equal(log_count("/small.bin?t=hit", NULL), 0);
    char blob[600];
    snprintf(blob, sizeof(blob), "%s/blobs/sha256/%s", cache, small_hex);
    assert_string_equal(path, blob);
    free(path);

    /* a corrupted blob is caught by the re-hash, quarantined, and the next run downloads */
    FILE *f = fopen(blob, "r+b");
    assert_non_null(f);
    fseek(f, 100, SEEK_SET);
    fputc(small_data[100] ^ 0xff, f);
    fclose(f);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HASH_MISMATCH);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "cached copy was corrupt"));
    assert_false(file_exists(blob));
    assert_int_equal(log_count("/small.bin?t=hit", NULL), 0);
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_int_equal(log_count("/small.bin?t=hit", NULL), 1);
    assert_true(file_exists(blob));

    /* a blob of the wrong size is not used */
    assert_int_equal(truncate(blob, 10), 0);
    int before = s.warnings;
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_int_equal(s.warnings, before + 1);
    assert_int_equal(log_count("/small.bin?t=hit", NULL), 2);
    assert_int_equal(file_size(blob), SMALL);
    cudnnctl_ctx_free(ctx);
}

static void tls_needs_a_trusted_certificate(void **state)
{
    (void)state;
    char url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    snprintf(url, sizeof(url), "https://127.0.0.1:%d/small.bin?t=tls", tls_port);
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_TLS);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--cacert"));
    assert_int_equal(log_count("/small.bin?t=tls", NULL), 0); /* refused before any request */
    o.cacert = cert;
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_string_equal(hex, small_hex);
    assert_int_equal(log_count("/small.bin?t=tls", NULL), 1);
    cudnnctl_ctx_free(ctx);
}

static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd); /* nobody listens there now */
    return ntohs(a.sin_port);
}

static void proxy_from_environment_is_honoured(void **state)
{
    (void)state;
    char url[200], proxy[100], hex[65];
    cudnnctl_ctx *ctx = new_ctx(NULL, NULL);
    snprintf(proxy, sizeof(proxy), "http://127.0.0.1:%d", dead_port());
    setenv("HTTPS_PROXY", proxy, 1);
    snprintf(url, sizeof(url), "https://127.0.0.1:%d/small.bin?t=proxy", tls_port);
    cc_source_opts o = opts_for(url, small_hex, SMALL);
    o.cacert = cert;
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_NETWORK);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, proxy));
    assert_int_equal(log_count("/small.bin?t=proxy", NULL), 0);

    setenv("NO_PROXY", "127.0.0.1", 1);
    assert_int_equal(run_source(ctx, &o, small_data, SMALL, hex, NULL, NULL), CUDNNCTL_E_OK);
    assert_int_equal(log_count("/small.bin?t=proxy", NULL), 1);
    unsetenv("HTTPS_PROXY");
    unsetenv("NO_PROXY");
    cudnnctl_ctx_free(ctx);
}

static void local_paths_file_urls_and_mirror_dirs(void **state)
{
    (void)state;
    seen s;
    char cache[400], url[600], hex[65];
    cudnnctl_ctx *ctx = new_ctx(&s, cache);
    /* --mirror DIR: relative_path joined to the directory, read in place */
    char *joined = cc_source_join(www, "/big.bin");
    assert_string_equal(joined, big_path);
    cc_source_opts o = opts_for(joined, big_hex, BIG);
    char *path = NULL;
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, &path, NULL), CUDNNCTL_E_OK);
    assert_string_equal(path, big_path);
    assert_string_equal(hex, big_hex);
    assert_int_equal(s.last_done, BIG);
    free(path);
    free(joined);
    /* file:// with %-escapes */
    snprintf(url, sizeof(url), "file://%s/big%%2Ebin", www);
    o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, big_data, BIG, hex, &path, NULL), CUDNNCTL_E_OK);
    assert_string_equal(path, big_path);
    free(path);
    /* a mirror URL joins with one slash */
    joined = cc_source_join("http://h/m/", "cudnn/x.tar.xz");
    assert_string_equal(joined, "http://h/m/cudnn/x.tar.xz");
    free(joined);
    assert_true(cc_source_is_local("/a/b"));
    assert_true(cc_source_is_local("FILE:///a"));
    assert_false(cc_source_is_local("https://a/b"));
    /* wrong size: refused at open; wrong bytes: refused at finish, the user's file untouched */
    o = opts_for(big_path, big_hex, BIG + 1);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_SIZE_MISMATCH);
    snprintf(url, sizeof(url), "%s/flipped.bin", www);
    o = opts_for(url, big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_HASH_MISMATCH);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "left where it is"));
    assert_int_equal(file_size(url), BIG);
    o = opts_for("/nonexistent/x.tar.xz", big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_NOT_FOUND);
    o = opts_for("ftp://h/x", big_hex, BIG);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_USAGE);
    cudnnctl_ctx_free(ctx);
}

static void hash_required_unless_insecure(void **state)
{
    (void)state;
    char cache[400], url[200], hex[65];
    cudnnctl_ctx *ctx = new_ctx(NULL, cache);
    url_of(url, sizeof(url), "/small.bin?t=nohash");
    cc_source_opts o = opts_for(url, NULL, 0);
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_NO_HASH);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--sha256"));
    o.expected_sha256 = "xyz";
    assert_int_equal(run_source(ctx, &o, NULL, 0, NULL, NULL, NULL), CUDNNCTL_E_USAGE);

    /* unverified: the bytes are usable until close, then gone; nothing enters the cache */
    o = opts_for(url, NULL, 0);
    o.insecure_skip_verify = 1;
    cc_source *src = NULL;
    assert_int_equal(cc_source_open(ctx, &o, &src), CUDNNCTL_E_OK);
    uint64_t size = 0;
    assert_int_equal(cc_source_finish(src, hex, &size), CUDNNCTL_E_OK);
    assert_string_equal(hex, small_hex);
    assert_int_equal(size, SMALL);
    char *p = strdup(cc_source_path(src));
    char h2[65];
    sha256sum(p, h2);
    assert_string_equal(h2, small_hex);
    cc_source_close(src);
    assert_false(file_exists(p));
    assert_false(cc_cache_has(ctx, small_hex, 0));
    free(p);
    cudnnctl_ctx_free(ctx);
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
    struct stat st;
    int whole = 0;
    for (int i = 0; i < 1000 && !whole; i++) {
        whole = stat(part, &st) == 0 && (uint64_t)st.st_size == BIG;
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
        cmocka_unit_test(full_download_verifies_and_caches),
        cmocka_unit_test(flipped_byte_is_quarantined),
        cmocka_unit_test(cut_download_resumes_with_range),
        cmocka_unit_test(server_ignoring_range_still_resumes),
        cmocka_unit_test(oversized_part_is_discarded),
        cmocka_unit_test(server_errors_then_ok_are_retried),
        cmocka_unit_test(persistent_500_gives_up),
        cmocka_unit_test(reset_mid_body_is_resumed_in_the_same_run),
        cmocka_unit_test(not_found_is_http_status),
        cmocka_unit_test(wrong_content_length_stops_before_the_body),
        cmocka_unit_test(part_without_a_matching_record_starts_again),
        cmocka_unit_test(redirects_are_bounded),
        cmocka_unit_test(slow_drip_times_out),
        cmocka_unit_test(cache_hit_downloads_nothing_and_rehashes),
        cmocka_unit_test(tls_needs_a_trusted_certificate),
        cmocka_unit_test(proxy_from_environment_is_honoured),
        cmocka_unit_test(local_paths_file_urls_and_mirror_dirs),
        cmocka_unit_test(hash_required_unless_insecure),
        cmocka_unit_test(concurrent_download_of_one_blob_is_locked),
        cmocka_unit_test(close_during_a_slow_download_is_prompt),
        cmocka_unit_test(sys_call_faults_never_leave_a_bad_blob),
        cmocka_unit_test(a_stalled_consumer_does_not_stall_the_download),
        cmocka_unit_test(spilled_download_with_a_flipped_byte_is_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
