/* fetch_fixture.h: what the cc_source tests share: two payloads written into a web root, the
 * local HTTP(S) servers (tests/tools/httpd.py, one plain and one TLS with a certificate made now),
 * their request log, a context with a cache of its own and an event/progress recorder, and
 * run_source (open, read all while checking the bytes, finish). Tests only: POSIX calls are fine
 * here (fork/exec of the server). */
#ifndef FETCH_FIXTURE_H
#define FETCH_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

static inline void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static inline unsigned char *read_whole(const char *path, size_t *len)
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
static inline void sha256sum(const char *path, char hex[65])
{
    char cmd[512];
    assert_true(snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path) < (int)sizeof(cmd));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%64s", hex), 1);
    assert_int_equal(pclose(p), 0);
}

static inline int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static inline pid_t start_server(const char *port_file, const char *extra1, const char *extra2,
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

static inline void stop_server(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
}

/* Count log lines for exactly this request path (and, if given, with this Range header). */
static inline int log_count(const char *path, const char *range)
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

static inline void on_event(void *user, const cudnnctl_event *ev)
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

static inline void on_progress(void *user, const cudnnctl_progress *p)
{
    seen *s = user;
    s->last_done = p->done;
    s->last_total = p->total;
    s->progress_calls++;
}

/* A context with a cache dir of its own. */
static inline cudnnctl_ctx *new_ctx(seen *s, char *cache_out)
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

static inline cc_source_opts opts_for(const char *url, const char *hex, uint64_t size)
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
static inline cudnnctl_err run_source(cudnnctl_ctx *ctx, const cc_source_opts *o,
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

static inline void url_of(char *out, size_t n, const char *path)
{
    snprintf(out, n, "http://127.0.0.1:%d%s", port, path);
}

/* ---- setup ---------------------------------------------------------------------------------- */

static inline int group_setup(void **state)
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

static inline int group_teardown(void **state)
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

#endif
