/* zip_inflate.c: a deflated zip entry's raw data inflated by Intel's ISA-L (igzip's
 * isal_inflate), which does the work of zlib's inflate in ~0.78x its CPU here (the 245 MB
 * libcudnn_engines_precompiled of the 9.19 wheel: 0.25 s against 0.32 s, one core). libarchive
 * still reads every header and says where an entry's data starts and how it is compressed
 * (extract_zip_stream.c); only the inflating of a deflated entry of a pinned download comes here,
 * whose bytes the archive's SHA-256 covers before anything goes live (the entry's CRC-32 would
 * check the same bytes again: libarchive's ignorecrc32 for the same case). Built without ISA-L
 * (the Windows cross build) cc_zinflate_new says so and libarchive inflates as before. */
#include <stdlib.h>

#include "zip_int.h"

#ifdef CUDNNCTL_HAVE_ISAL
#include <isa-l/igzip_lib.h>

/* output per call: the writer's pieces stay the size libarchive's were */
#define ZIN_OUT (256u * 1024u)

struct cc_zinflate {
    struct inflate_state st;
    cc_zin_read rd;
    void *user;
    int done;
    unsigned char out[ZIN_OUT];
};

cc_zinflate *cc_zinflate_new(void)
{
    return malloc(sizeof(cc_zinflate));
}

void cc_zinflate_begin(cc_zinflate *f, cc_zin_read rd, void *user)
{
    isal_inflate_init(&f->st);
    f->st.crc_flag = ISAL_DEFLATE; /* raw deflate: no wrapper, no check (see above) */
    f->rd = rd;
    f->user = user;
    f->done = 0;
}

static const char *isal_error(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK:
        return "an invalid deflate block";
    case ISAL_INVALID_SYMBOL:
        return "an invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
        return "a deflate back-reference before the data's start";
    default:
        return "the deflate data does not decode";
    }
}

int cc_zinflate_next(cc_zinflate *f, const void **buf, size_t *len, const char **why)
{
    *why = NULL;
    *len = 0;
    while (!f->done) {
        if (f->st.avail_in == 0) {
            const unsigned char *in = NULL;
            long long n = f->rd(f->user, &in);
            if (n < 0)
                return -1; /* the reader recorded why */
            if (n == 0) {
                *why = "the deflate data ends before its last block";
                return -1;
            }
            f->st.next_in = (uint8_t *)in;
            f->st.avail_in = (uint32_t)n;
        }
        f->st.next_out = f->out;
        f->st.avail_out = ZIN_OUT;
        int r = isal_inflate(&f->st);
        if (r < 0) {
            *why = isal_error(r);
            return -1;
        }
        f->done = f->st.block_state == ISAL_BLOCK_FINISH;
        *len = ZIN_OUT - f->st.avail_out;
        if (*len) {
            *buf = f->out;
            return 1;
        }
    }
    return 0;
}

#else /* no ISA-L: libarchive inflates every entry */

cc_zinflate *cc_zinflate_new(void)
{
    return NULL;
}

void cc_zinflate_begin(cc_zinflate *f, cc_zin_read rd, void *user)
{
    (void)f;
    (void)rd;
    (void)user;
}

int cc_zinflate_next(cc_zinflate *f, const void **buf, size_t *len, const char **why)
{
    (void)f;
    (void)buf;
    *len = 0;
    *why = "built without ISA-L";
    return -1;
}
#endif

void cc_zinflate_free(cc_zinflate *f)
{
    free(f);
}
