/* test_zip_inflate.c: the ISA-L inflater of zip_inflate.c, as the streamed unzip drives it: a raw
 * deflate stream read in small pieces comes out byte for byte (the pieces as large as its output
 * buffer allows, the end reported once); a stream cut before its last block, a reserved block
 * type and a reader that fails are errors, each said the way the caller reports it. The deflate
 * data is made by ISA-L's own compressor at two levels (its stateless one-shot API), and one
 * stored (uncompressed) block by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <isa-l/igzip_lib.h>

#include "zip_int.h"

typedef struct {
    const unsigned char *data;
    size_t len, at, piece;
    int fail_at_end; /* the reader fails instead of saying "no more" */
} feed;

static long long feed_read(void *user, const unsigned char **buf)
{
    feed *f = user;
    if (f->at >= f->len)
        return f->fail_at_end ? -1 : 0;
    size_t n = f->len - f->at < f->piece ? f->len - f->at : f->piece;
    *buf = f->data + f->at;
    f->at += n;
    return (long long)n;
}

/* 3 MiB that compress like code: repeats with a counter in them */
static unsigned char *sample(size_t n)
{
    unsigned char *p = malloc(n);
    assert_non_null(p);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (i % 4096 < 3000) ? (unsigned char)("cudnn_engine_"[i % 13] + (i / 8192) % 3)
                                 : (unsigned char)(x >> 24);
    }
    return p;
}

static unsigned char *deflate_raw(const unsigned char *in, size_t n, int level, size_t *out_len)
{
    struct isal_zstream z;
    isal_deflate_stateless_init(&z);
    size_t cap = n + n / 2 + 1024;
    unsigned char *out = malloc(cap);
    unsigned char *lvl = level ? malloc(ISAL_DEF_LVL1_DEFAULT) : NULL;
    assert_non_null(out);
    z.level = (uint32_t)level;
    if (level) {
        assert_non_null(lvl);
        z.level_buf = lvl;
        z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    }
    z.gzip_flag = IGZIP_DEFLATE;
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uint32_t)n;
    z.next_out = out;
    z.avail_out = (uint32_t)cap;
    assert_int_equal(isal_deflate_stateless(&z), COMP_OK);
    *out_len = z.total_out;
    free(lvl);
    return out;
}

/* Everything the inflater gives for the stream of f: 1 when it ended cleanly (all of it in *got),
 * else 0 with *why set as cc_zinflate_next said it. */
static int drain(feed *f, unsigned char **got, size_t *got_len, const char **why)
{
    cc_zinflate *z = cc_zinflate_new();
    assert_non_null(z);
    cc_zinflate_begin(z, feed_read, f);
    size_t cap = 1 << 20, n = 0;
    unsigned char *all = malloc(cap);
    assert_non_null(all);
    int r;
    const void *buf;
    size_t len;
    while ((r = cc_zinflate_next(z, &buf, &len, why)) == 1) {
        assert_true(len > 0);
        if (n + len > cap) {
            cap = (n + len) * 2;
            all = realloc(all, cap);
            assert_non_null(all);
        }
        memcpy(all + n, buf, len);
        n += len;
    }
    cc_zinflate_free(z);
    *got = all;
    *got_len = n;
    return r == 0;
}

static void round_trip_in_small_pieces(void **state)
{
    (void)state;
    size_t n = 3u << 20, dl = 0, got_len = 0;
    unsigned char *src = sample(n);
    for (int level = 0; level <= 1; level++) {
        unsigned char *d = deflate_raw(src, n, level, &dl);
        assert_true(dl < n);
        size_t pieces[] = {1, 999, 65536, dl};
        for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
            feed f = {.data = d, .len = dl, .piece = pieces[k]};
            unsigned char *got = NULL;
            const char *why = "unset";
            assert_true(drain(&f, &got, &got_len, &why));
            assert_null(why);
            assert_int_equal(got_len, n);
            assert_memory_equal(got, src, n);
            free(got);
        }
        free(d);
    }
    free(src);
}

static void a_stored_block(void **state)
{
    (void)state;
    /* BFINAL=1, BTYPE=00, then LEN=5, NLEN=~5, the bytes */
    static const unsigned char d[] = {0x01, 0x05, 0x00, 0xfa, 0xff, 'h', 'e', 'l', 'l', 'o'};
    feed f = {.data = d, .len = sizeof(d), .piece = 3};
    unsigned char *got = NULL;
    size_t got_len = 0;
    const char *why = "unset";
    assert_true(drain(&f, &got, &got_len, &why));
    assert_int_equal(got_len, 5);
    assert_memory_equal(got, "hello", 5);
    free(got);
}

static void cut_reserved_and_failing_reader(void **state)
{
    (void)state;
    size_t n = 1u << 20, dl = 0, got_len = 0;
    unsigned char *src = sample(n);
    unsigned char *d = deflate_raw(src, n, 1, &dl);
    unsigned char *got = NULL;
    const char *why = NULL;

    feed cut = {.data = d, .len = dl / 2, .piece = 4096};
    assert_false(drain(&cut, &got, &got_len, &why));
    assert_string_equal(why, "the deflate data ends before its last block");
    assert_true(got_len < n);
    free(got);

    static const unsigned char reserved[] = {0x07, 0x00, 0x00, 0x00};
    feed bad = {.data = reserved, .len = sizeof(reserved), .piece = 4};
    assert_false(drain(&bad, &got, &got_len, &why));
    assert_string_equal(why, "an invalid deflate block");
    free(got);

    feed failing = {.data = d, .len = dl / 2, .piece = 4096, .fail_at_end = 1};
    assert_false(drain(&failing, &got, &got_len, &why));
    assert_null(why); /* the reader's own error is the one reported */
    free(got);
    free(d);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_in_small_pieces),
        cmocka_unit_test(a_stored_block),
        cmocka_unit_test(cut_reserved_and_failing_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
