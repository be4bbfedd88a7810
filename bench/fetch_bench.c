/* fetch_bench.c: drives cc_source and cc_sha256 for bench/fetch.py — one download (or local
 * read) through the real pipeline with its bytes discarded, or one file hashed through EVP.
 *   fetch_bench fetch URL SHA256 SIZE CACHE_DIR [CONSUME_RATE]
 *   fetch_bench hash FILE
 * CONSUME_RATE (bytes/s): the reader takes the bytes no faster than that, as a decoder of that
 * speed would (sleeping, so a busy machine does not change it): the time over SIZE/RATE is then
 * what the download made the decoder wait (bench/ranges_bench.sh's schedule, measured alone).
 * Prints one JSON line: {"bytes":..,"seconds":..,"sha256":".."}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "internal.h"
#include "source.h"

static int fail(cudnnctl_ctx *ctx, const char *what)
{
    const cudnnctl_error_info *e = cudnnctl_last_error(ctx);
    fprintf(stderr, "fetch_bench: %s: %s: %s\n", what, cudnnctl_err_name(e->code),
            e->detail ? e->detail : "");
    return 1;
}

int main(int argc, char **argv)
{
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK)
        return 1;
    char hex[65] = {0};
    uint64_t size = 0;
    uint64_t t0 = cc_pf_now_ms();
    double paced = 0; /* the paced reader's own end (s), 0 when not paced */
    if ((argc == 6 || argc == 7) && strcmp(argv[1], "fetch") == 0) {
        double rate = argc == 7 ? strtod(argv[6], NULL) : 0;
        if (cudnnctl_set_cache_dir(ctx, argv[5]) != CUDNNCTL_E_OK)
            return fail(ctx, "cache dir");
        cc_source_opts o;
        memset(&o, 0, sizeof(o));
        o.url = argv[2];
        o.expected_sha256 = argv[3];
        o.expected_size = strtoull(argv[4], NULL, 10);
        o.use_cache = 1;
        cc_source *src = NULL;
        if (cc_source_open(ctx, &o, &src) != CUDNNCTL_E_OK)
            return fail(ctx, "open");
        static unsigned char buf[256 * 1024];
        long long n;
        /* paced: a chunk is consumed from when it was there (the read waited for it: its
         * arrival; else the previous chunk's end) for n/rate. The reader's own clock, `done`,
         * does not count the sleeps' overshoot, so a busy machine does not change the result */
        double done = (double)t0;
        uint64_t got = 0;
        for (;;) {
            double before = (double)cc_pf_now_ms();
            if ((n = cc_source_read(src, buf, sizeof(buf))) <= 0)
                break;
            got += (uint64_t)n;
            if (rate <= 0)
                continue;
            double now = (double)cc_pf_now_ms();
            double start = now - before > 1.0 && now > done ? now : done;
            if (start > done + 20 && getenv("FETCH_BENCH_WAITS"))
                fprintf(stderr, "waited %.0f ms at %.2f s, byte %llu\n", start - done,
                        (start - (double)t0) / 1000.0, (unsigned long long)got);
            done = start + (double)n * 1000.0 / rate;
            if (done > now + 1)
                cc_pf_sleep_ms((unsigned)(done - now));
        }
        paced = rate > 0 ? (done - (double)t0) / 1000.0 : 0;
        if (n < 0 || cc_source_finish(src, hex, &size) != CUDNNCTL_E_OK)
            return fail(ctx, "read");
        cc_source_close(src);
    } else if (argc == 3 && strcmp(argv[1], "hash") == 0) {
        if (cc_sha256_file(ctx, argv[2], hex, &size) != 0)
            return fail(ctx, "hash");
    } else {
        fprintf(stderr,
                "usage: fetch_bench fetch URL SHA256 SIZE CACHE_DIR [CONSUME_RATE] | hash FILE\n");
        return 2;
    }
    double s = (double)(cc_pf_now_ms() - t0) / 1000.0;
    printf("{\"bytes\":%llu,\"seconds\":%.3f,\"paced_seconds\":%.3f,\"sha256\":\"%s\"}\n",
           (unsigned long long)size, s, paced, hex);
    cudnnctl_ctx_free(ctx);
    return 0;
}
