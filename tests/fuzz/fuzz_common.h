/* fuzz_common.h: what the libFuzzer harnesses share: one quiet context, NUL-terminated copies
 * of the input, splitting it into fields, and a hard check that aborts (libFuzzer then keeps
 * the input as a crash). */
#ifndef CC_FUZZ_COMMON_H
#define CC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnnctl/cudnnctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_quiet(void *user, cudnnctl_log_level lvl, const char *msg)
{
    (void)user;
    (void)lvl;
    (void)msg;
}

static cudnnctl_ctx *fz_ctx(void)
{
    static cudnnctl_ctx *ctx;
    if (!ctx) {
        if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK)
            abort();
        cudnnctl_set_log_cb(ctx, fz_quiet, NULL);
    }
    return ctx;
}

/* The input as a C string (embedded NULs end it early, as they would for a file read as text). */
static char *fz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Split s in place at every `sep`; up to max fields; returns the count. */
static size_t fz_split(char *s, char sep, char **out, size_t max)
{
    size_t n = 0;
    out[n++] = s;
    for (char *c = s; *c && n < max; c++)
        if (*c == sep) {
            *c = '\0';
            out[n++] = c + 1;
        }
    return n;
}

#define FZ_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
