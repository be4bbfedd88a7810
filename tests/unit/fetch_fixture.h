/* fetch_fixture.h: what the cc_source tests share: two payloads written into a web root, the
 * local HTTP(S) servers (tests/tools/httpd.py, one plain and one TLS with a certificate made now),
 * their request log, a context with a cache of its own and an event/progress recorder, and
 * run_source (open, read all while checking the bytes, finish). Through the platform layer only:
 * the servers are started by sh through cc_pf_run (httpd.py --watch: it ends with the test), or,
 * where there is no python3 (the cross build under wine), by tests/tools/with_httpd.sh on the
 * Linux side, which names its directory (web root, log, port files, certificate) in
 * CUDNNCTL_TEST_HTTPD_DIR. */
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

#include "internal.h"
#include "pf_fixture.h"
#include "source.h"

#define BIG (3u * 1024u * 1024u + 12345u)
#define SMALL (200u * 1024u)

static char tmp[256], www[300], logpath[300], cert[300];
static char big_path[320], small_path[320];
static char big_hex[65], small_hex[65];
static unsigned char *big_data, *small_data;
static long srv_pid = -1, tls_pid = -1;
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

/* ---- the independent oracle: SHA-256 (FIPS 180-4) written here, not the library's, and checked
 * against coreutils sha256sum wherever that runs (Linux) */
static inline uint32_t ff_ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static inline void ff_sha256_block(uint32_t h[8], const unsigned char *p)
{
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++)
        w[i] = w[i - 16] + (ff_ror(w[i - 15], 7) ^ ff_ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
               w[i - 7] + (ff_ror(w[i - 2], 17) ^ ff_ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
    memcpy(v, h, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = v[7] + (ff_ror(v[4], 6) ^ ff_ror(v[4], 11) ^ ff_ror(v[4], 25)) +
                      ((v[4] & v[5]) ^ (~v[4] & v[6])) + k[i] + w[i];
        uint32_t t2 = (ff_ror(v[0], 2) ^ ff_ror(v[0], 13) ^ ff_ror(v[0], 22)) +
                      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof(uint32_t));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

static inline void ff_sha256_hex(const unsigned char *d, size_t n, char hex[65])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        ff_sha256_block(h, d + i);
    unsigned char last[128] = {0};
    size_t r = n - i, tail = r < 56 ? 64 : 128;
    memcpy(last, d + i, r);
    last[r] = 0x80;
    uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++)
        last[tail - 1 - k] = (unsigned char)(bits >> (8 * k));
    ff_sha256_block(h, last);
    if (tail == 128)
        ff_sha256_block(h, last + 64);
    for (int k = 0; k < 8; k++)
        snprintf(hex + 8 * k, 9, "%08x", (unsigned)h[k]);
}

static inline void sha256sum(const char *path, char hex[65])
{
    size_t n = 0;
    unsigned char *d = read_whole(path, &n);
    assert_non_null(d);
    ff_sha256_hex(d, n, hex);
    free(d);
    const char *argv[] = {"sha256sum", path, NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -1;
    if (cc_pf_run(argv, NULL, NULL, 60000, 0, &out, &len, &status) == 0 && status == 0) {
        assert_true(len >= 64);
        assert_memory_equal(out, hex, 64); /* the two oracles agree */
    } else {
        assert_string_not_equal(cc_pf_os(), "linux"); /* coreutils is there on Linux */
    }
    free(out);
}

static inline int file_exists(const char *path)
{
    cc_pf_stat_t st;
    return cc_pf_stat(path, &st) == 0 && st.exists;
}

static inline long long file_size(const char *path)
{
    cc_pf_stat_t st;
    return cc_pf_stat(path, &st) == 0 && st.exists ? (long long)st.size : -1;
}

/* The directory of tests/tools/with_httpd.sh when it started the servers, else NULL. */
static inline const char *httpd_dir(void)
{
    const char *d = cc_pf_getenv("CUDNNCTL_TEST_HTTPD_DIR");
    return d && *d ? d : NULL;
}

/* Start httpd.py on port_file (where with_httpd.sh started it already: wait for its port) and
 * return its pid (-1 when with_httpd.sh owns it). */
static inline long start_server(const char *port_file, const char *extra1, const char *extra2,
                                const char *extra3, const char *extra4, int *port_out)
{
    long pid = -1;
    if (!httpd_dir()) {
        cc_pf_unlink(port_file);
        char script[512], cmd[3000];
        snprintf(script, sizeof(script), "%s/tests/tools/httpd.py", CUDNNCTL_SOURCE_DIR);
        snprintf(cmd, sizeof(cmd),
                 "python3 '%s' --root '%s' --port-file '%s' --log '%s' --max-lifetime 300 "
                 "--watch %ld %s %s %s %s </dev/null >/dev/null 2>&1 & echo $!",
                 script, www, port_file, logpath, cc_pf_getpid(), extra1 ? extra1 : "",
                 extra2 ? extra2 : "", extra3 ? extra3 : "", extra4 ? extra4 : "");
        const char *argv[] = {"sh", "-c", cmd, NULL};
        char *out = NULL;
        size_t len = 0;
        int status = -1;
        assert_int_equal(cc_pf_run(argv, NULL, NULL, 10000, 1, &out, &len, &status), 0);
        assert_int_equal(status, 0);
        pid = out ? atol(out) : 0;
        free(out);
        assert_true(pid > 0);
    }
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", port_out) == 1;
            fclose(f);
            if (ok)
                return pid;
        }
        if (pid > 0 && !cc_pf_pid_alive(pid))
            fail_msg("tests/tools/httpd.py exited at start (is python3 installed?)");
        cc_pf_sleep_ms(50);
    }
    fail_msg("tests/tools/httpd.py did not write its port to %s within 10 s", port_file);
    return -1;
}

static inline void stop_server(long pid)
{
    if (pid <= 0)
        return;
    char p[32];
    snprintf(p, sizeof(p), "%ld", pid);
    const char *argv[] = {"kill", p, NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -1;
    cc_pf_run(argv, NULL, NULL, 5000, 1, &out, &len, &status);
    free(out);
    for (int i = 0; i < 100 && cc_pf_pid_alive(pid); i++)
        cc_pf_sleep_ms(50);
}

/* A local port nobody listens on (a proxy that refuses). */
static inline int dead_port(void)
{
    char *out = NULL;
    size_t len = 0;
    int status = -1;
    if (httpd_dir()) { /* with_httpd.sh wrote it */
        char p[400];
        snprintf(p, sizeof(p), "%s/dead-port", tmp);
        unsigned char *d = read_whole(p, &len);
        assert_non_null(d);
        d[len] = 0;
        int n = atoi((char *)d);
        free(d);
        return n;
    }
    const char *argv[] = {"python3", "-c",
                          "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); "
                          "print(s.getsockname()[1]); s.close()",
                          NULL};
    assert_int_equal(cc_pf_run(argv, NULL, NULL, 10000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 0);
    int n = atoi(out);
    free(out);
    assert_true(n > 0);
    return n;
}

/* The test's temporary dir: with_httpd.sh's, or a new one. Proxies of the machine dropped. */
static inline void fetch_tmp(const char *tag)
{
    /* a proxy inherited from the machine would take our loopback traffic elsewhere */
    const char *proxies[] = {"http_proxy", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY",
                             "all_proxy",  "ALL_PROXY",   "no_proxy",    "NO_PROXY"};
    for (size_t i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
        cc_pf_setenv(proxies[i], NULL);
    if (httpd_dir()) {
        snprintf(tmp, sizeof(tmp), "%s", httpd_dir());
    } else {
        char *t = pff_tmpdir(tag);
        snprintf(tmp, sizeof(tmp), "%s", t);
        free(t);
    }
    snprintf(www, sizeof(www), "%s/www", tmp);
    if (!file_exists(www))
        assert_int_equal(cc_pf_mkdir(www, 0755), 0);
    snprintf(logpath, sizeof(logpath), "%s/requests.log", tmp);
}

static inline void fetch_tmp_remove(void)
{
    if (!httpd_dir()) /* with_httpd.sh removes its own */
        pff_rm_rf(tmp);
}

/* 1 under wine (HKCU\Software\Wine): its Schannel does not verify certificates. */
static inline int under_wine(void)
{
    char **k = cc_pf_reg_subkeys("HKCU\\Software\\Wine");
    int wine = k && k[0];
    for (size_t i = 0; k && k[i]; i++)
        free(k[i]);
    free(k);
    return wine;
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
    assert_int_equal(cc_pf_mkdir(dir, 0755), 0);
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
    fetch_tmp("fetch");

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

    /* a self-signed certificate for 127.0.0.1, made now with the openssl CLI (by with_httpd.sh
     * where it started the servers) */
    char key[300];
    snprintf(cert, sizeof(cert), "%s/cert.pem", tmp);
    snprintf(key, sizeof(key), "%s/key.pem", tmp);
    if (!httpd_dir()) {
        const char *argv[] = {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                              "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out",
                              cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                              "subjectAltName=IP:127.0.0.1", NULL};
        char *out = NULL;
        size_t len = 0;
        int status = -1;
        if (cc_pf_run(argv, NULL, NULL, 60000, 1, &out, &len, &status) != 0 || status != 0)
            fail_msg("openssl CLI failed to make a test certificate (scripts/bootstrap installs "
                     "it): %s", out ? out : "");
        free(out);
    }
    snprintf(pf, sizeof(pf), "%s/tls-port", tmp);
    tls_pid = start_server(pf, "--tls-cert", cert, "--tls-key", key, &tls_port);
    return 0;
}

static inline int group_teardown(void **state)
{
    (void)state;
    stop_server(srv_pid);
    stop_server(tls_pid);
    fetch_tmp_remove();
    free(big_data);
    free(small_data);
    return 0;
}

#endif
