/* fetch_bench.c: drives cc_source and cc_sha256 for bench/fetch.py — one download (or local
 * read) through the real pipeline with its bytes discarded, or one file hashed through EVP.
 *   fetch_bench fetch URL SHA256 SIZE CACHE_DIR
 *   fetch_bench hash FILE
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
    if (argc == 6 && strcmp(argv[1], "fetch") == 0) {
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
        while ((n = cc_source_read(src, buf, sizeof(buf))) > 0) {
        }
        if (n < 0 || cc_source_finish(src, hex, &size) != CUDNNCTL_E_OK)
            return fail(ctx, "read");
        cc_source_close(src);
    } else if (argc == 3 && strcmp(argv[1], "hash") == 0) {
        if (cc_sha256_file(ctx, argv[2], hex, &size) != 0)
            return fail(ctx, "hash");
    } else {
        fprintf(stderr, "usage: fetch_bench fetch URL SHA256 SIZE CACHE_DIR | hash FILE\n");
        return 2;
    }
    double s = (double)(cc_pf_now_ms() - t0) / 1000.0;
    printf("{\"bytes\":%llu,\"seconds\":%.3f,\"sha256\":\"%s\"}\n", (unsigned long long)size, s,
           hex);
    cudnnctl_ctx_free(ctx);
    return 0;
}
