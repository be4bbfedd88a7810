/* test_extract_zip.c: the parallel unzip (extract_zip.c). Zips are written here with libarchive's
 * zip writer (deflate): a Windows-style archive and a wheel-style one. Extracted on 1 thread and
 * on 4, the staged trees and records are identical (paths, sizes, SHA-256, the bytes); a wheel maps
 * into the archive layout; a damaged entry (its deflate data changed) fails the whole extraction
 * and leaves the staging dir empty, whichever thread meets it; a wheel pinned by the wheel catalog
 * (wheel_record) takes its files' SHA-256 from its RECORD where a line lists the file plainly with
 * its size, and hashes the others from staging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <signal.h>
#include <sys/resource.h>
#endif

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "extract.h"
#include "hash.h"
#include "internal.h"
#include "pf_fixture.h"

static char *g_root;

typedef struct {
    const char *name;
    size_t size;
    unsigned seed;    /* 0: text-like (compresses), else pseudo-random bytes */
    const char *text; /* non-NULL: the entry's bytes (size and seed unused) */
} zent;

static unsigned char *payload(size_t n, unsigned seed)
{
    unsigned char *b = malloc(n ? n : 1);
    assert_non_null(b);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = seed ? (unsigned char)(x >> 16) : (unsigned char)("cudnn header text\n"[i % 18]);
    }
    return b;
}

static char *write_zip(const char *file, const zent *e, size_t n)
{
    char *path = pff_join(g_root, file);
    struct archive *a = archive_write_new();
    assert_int_equal(archive_write_set_format_zip(a), ARCHIVE_OK);
    assert_int_equal(archive_write_set_options(a, "zip:compression=deflate"), ARCHIVE_OK);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *ae = archive_entry_new();
        archive_entry_set_pathname(ae, e[i].name);
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, 0644);
        size_t size = e[i].text ? strlen(e[i].text) : e[i].size;
        archive_entry_set_size(ae, (la_int64_t)size);
        archive_entry_set_mtime(ae, 1700000000, 0);
        assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
        unsigned char *b =
            e[i].text ? (unsigned char *)cc_strdup(e[i].text) : payload(size, e[i].seed);
        assert_int_equal(archive_write_data(a, b, size), (la_ssize_t)size);
        free(b);
        archive_entry_free(ae);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    return path;
}

static char *new_staging(const char *tag)
{
    char *d = pff_join(g_root, tag);
    pff_rm_rf(d);
    assert_int_equal(cc_pf_mkdir(d, 0755), 0);
    return d;
}

/* threads: as cc_extract_opts; a negative count -N is N threads with every entry written by a
 * writer thread of its own (writer_thread_from = 1: the path the big entries take) */
static cudnnctl_err unzip_ex(const char *zip, const char *name, const char *staging, int threads,
                             int wheel_record, cc_staging *st)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cc_extract_opts o = {.path = zip,
                         .name_hint = name,
                         .threads = (unsigned)(threads < 0 ? -threads : threads),
                         .writer_thread_from = threads < 0 ? 1 : 0,
                         .wheel_record = wheel_record};
    cudnnctl_err rc = cc_extract_ex(ctx, &o, staging, st);
    if (rc)
        print_message("extract: %s\n", cudnnctl_last_error(ctx)->detail);
    cudnnctl_ctx_free(ctx);
    return rc;
}

static cudnnctl_err unzip(const char *zip, const char *name, const char *staging, int threads,
                          cc_staging *st)
{
    return unzip_ex(zip, name, staging, threads, 0, st);
}

static int dir_empty(const char *dir)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    assert_non_null(d);
    int empty = cc_pf_readdir(d) == NULL;
    cc_pf_closedir(d);
    return empty;
}

static int read_all(const char *path, char **data, size_t *len)
{
    cc_pf_stat_t st;
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (fd < 0 || cc_pf_fstat(fd, &st) != 0)
        return -1;
    *data = malloc(st.size ? st.size : 1);
    *len = 0;
    long long n;
    while (*data && (n = cc_pf_read(fd, *data + *len, st.size - *len)) > 0)
        *len += (size_t)n;
    cc_pf_close(fd);
    return *data && *len == st.size ? 0 : -1;
}

static void same_bytes(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    assert_int_equal(read_all(a, &x, &nx), 0);
    assert_int_equal(read_all(b, &y, &ny), 0);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    free(x);
    free(y);
}

/* the same records and bytes whatever the thread count */
static void check_same(const cc_staging *s1, const char *d1, const cc_staging *s4, const char *d4)
{
    assert_int_equal(s1->n_files, s4->n_files);
    assert_true(s1->bytes == s4->bytes);
    for (size_t i = 0; i < s1->n_files; i++) {
        const cc_staged_file *f = &s1->files[i];
        const cc_staged_file *g = cc_staging_find(s4, f->path);
        assert_non_null(g);
        assert_string_equal(f->sha256, g->sha256);
        assert_true(f->size == g->size);
        assert_int_equal(f->mode, g->mode);
        char *p1 = pff_join(d1, f->path), *p4 = pff_join(d4, f->path);
        same_bytes(p1, p4);
        free(p1);
        free(p4);
    }
}

#define TOP "cudnn-windows-x86_64-9.19.0.56_cuda13-archive/"
static const zent WIN[] = {
    {TOP "LICENSE", 3000, 0, NULL},
    {TOP "include/cudnn.h", 20000, 0, NULL},
    {TOP "include/cudnn_version.h", 3000, 0, NULL},
    {TOP "bin/x64/cudnn64_9.dll", 3u << 20, 7, NULL},
    {TOP "bin/x64/cudnn_ops64_9.dll", 1u << 20, 8, NULL},
    {TOP "bin/x64/cudnn_adv64_9.dll", 2u << 20, 9, NULL},
    {TOP "bin/x64/cudnn_graph64_9.dll", 700000, 10, NULL},
    {TOP "lib/x64/cudnn.lib", 90000, 11, NULL},
    {TOP "lib/x64/cudnn64_9.lib", 0, 0, NULL},
};

static void windows_zip_parallel_equals_serial(void **state)
{
    (void)state;
    const char *name = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip";
    char *zip = write_zip(name, WIN, sizeof(WIN) / sizeof(WIN[0]));
    char *d1 = new_staging("s1"), *d4 = new_staging("s4");
    cc_staging s1, s4;
    assert_int_equal(unzip(zip, name, d1, 1, &s1), CUDNNCTL_E_OK);
    assert_int_equal(unzip(zip, name, d4, 4, &s4), CUDNNCTL_E_OK);
    assert_int_equal(s1.n_files, sizeof(WIN) / sizeof(WIN[0]));
    /* every entry through a writer thread of its own: the same files, bytes and records */
    for (int t = -2; t >= -4; t -= 2) {
        char *dw = new_staging("sw");
        cc_staging sw;
        assert_int_equal(unzip(zip, name, dw, t, &sw), CUDNNCTL_E_OK);
        check_same(&s1, d1, &sw, dw);
        cc_staging_free(&sw);
        pff_rm_rf(dw);
        free(dw);
    }
    assert_int_equal(s1.layout, CC_LAYOUT_ZIP_BINX64);
    assert_non_null(cc_staging_find(&s4, "bin/cudnn64_9.dll"));
    assert_non_null(cc_staging_find(&s4, "lib/cudnn.lib"));
    assert_non_null(cc_staging_find(&s4, "LICENSE"));
    check_same(&s1, d1, &s4, d4);
    /* and the bytes are the archive's own */
    unsigned char *want = payload(3u << 20, 7);
    char *got = NULL, *p = pff_join(d4, "bin/cudnn64_9.dll");
    size_t n = 0;
    assert_int_equal(read_all(p, &got, &n), 0);
    assert_int_equal(n, 3u << 20);
    assert_memory_equal(got, want, n);
    free(got);
    free(want);
    free(p);
    cc_staging_free(&s1);
    cc_staging_free(&s4);
    free(zip);
    free(d1);
    free(d4);
}

static const zent WHEEL[] = {
    {"nvidia/__init__.py", 0, 0, NULL},
    {"nvidia/cudnn/__init__.py", 0, 0, NULL},
    {"nvidia/cudnn/include/cudnn.h", 20000, 0, NULL},
    {"nvidia/cudnn/include/cudnn_version.h", 3000, 0, NULL},
    {"nvidia/cudnn/lib/libcudnn.so.9", 500000, 3, NULL},
    {"nvidia/cudnn/lib/libcudnn_ops.so.9", 2u << 20, 4, NULL},
    {"nvidia/cudnn/lib/libcudnn_graph.so.9", 1u << 20, 5, NULL},
    {"nvidia_cudnn_cu13-9.19.0.56.dist-info/licenses/License.txt", 4000, 0, NULL},
    {"nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", 500, 0, NULL},
    {"nvidia_cudnn_cu13-9.19.0.56.dist-info/WHEEL", 100, 0, NULL},
    {"nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", 900, 0, NULL},
};

static void wheel_maps_into_the_archive_layout(void **state)
{
    (void)state;
    const char *name = "nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl";
    char *zip = write_zip(name, WHEEL, sizeof(WHEEL) / sizeof(WHEEL[0]));
    char *d1 = new_staging("w1"), *d4 = new_staging("w4");
    cc_staging s1, s4;
    assert_int_equal(unzip(zip, name, d1, 1, &s1), CUDNNCTL_E_OK);
    assert_int_equal(unzip(zip, name, d4, 4, &s4), CUDNNCTL_E_OK);
    assert_int_equal(s4.layout, CC_LAYOUT_WHEEL);
    assert_int_equal(s4.n_files, 6); /* 2 headers, 3 libraries, the licence */
    assert_non_null(cc_staging_find(&s4, "lib/libcudnn.so.9.19.0"));
    assert_non_null(cc_staging_find(&s4, "lib/libcudnn_ops.so.9.19.0"));
    assert_non_null(cc_staging_find(&s4, "include/cudnn_version.h"));
    assert_non_null(cc_staging_find(&s4, "LICENSE"));
    assert_null(cc_staging_find(&s4, "lib/libcudnn.so.9"));
    assert_false(pff_exists(d4, "nvidia"));
    assert_false(pff_exists(d4, "METADATA"));
    assert_false(pff_exists(d4, "__init__.py"));
    check_same(&s1, d1, &s4, d4);
    cc_staging_free(&s1);
    cc_staging_free(&s4);
    free(zip);
    free(d1);
    free(d4);
}

/* Change bytes in the middle of the file: inside the biggest entry's deflate data. */
static void damage(const char *zip, uint64_t at)
{
    cc_pf_fd fd = cc_pf_open(zip, CC_PF_O_RDWR, 0);
    assert_true(fd >= 0);
    unsigned char b[64];
    assert_int_equal(cc_pf_seek(fd, at), 0);
    assert_int_equal(cc_pf_read(fd, b, sizeof(b)), (long long)sizeof(b));
    for (size_t i = 0; i < sizeof(b); i++)
        b[i] ^= 0x5a;
    assert_int_equal(cc_pf_seek(fd, at), 0);
    assert_int_equal(cc_pf_write(fd, b, sizeof(b)), (long long)sizeof(b));
    cc_pf_close(fd);
}

static void damaged_entry_fails_everything(void **state)
{
    (void)state;
    const char *name = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip";
    int threads[] = {1, 2, 4, -2, -4}; /* -N: N threads, each entry by a writer thread */
    for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
        char *zip = write_zip(name, WIN, sizeof(WIN) / sizeof(WIN[0]));
        cc_pf_stat_t st;
        assert_int_equal(cc_pf_stat(zip, &st), 0);
        damage(zip, 100000 + (1u << 20)); /* in the 3 MiB dll, the first big entry */
        char *d = new_staging("bad");
        cc_staging s;
        cudnnctl_err rc = unzip(zip, name, d, threads[t], &s);
        assert_true(rc == CUDNNCTL_E_BAD_ARCHIVE);
        assert_true(dir_empty(d));
        assert_int_equal(s.n_files, 0);
        free(zip);
        free(d);
    }
}

/* A file that cannot be written whole (the file size limit, RLIMIT_FSIZE, is under the 3 MiB
 * dll: its write fails with EFBIG, even as root): the write fails in a writer thread, after its
 * worker has moved on; the run still fails with the writer's reason, and nothing is recorded. */
static void write_failure_in_a_writer_thread(void **state)
{
    (void)state;
#ifdef _WIN32
    skip();
#else
    const char *name = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip";
    char *zip = write_zip(name, WIN, sizeof(WIN) / sizeof(WIN[0]));
    int threads[] = {1, 2, -2, -4};
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 2u << 20;
    signal(SIGXFSZ, SIG_IGN);
    for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
        char *d = new_staging("wfail");
        cc_staging s;
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        cudnnctl_err rc = unzip(zip, name, d, threads[t], &s);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        assert_true(rc == CUDNNCTL_E_IO);
        assert_int_equal(s.n_files, 0);
        assert_true(dir_empty(d));
        free(d);
    }
    signal(SIGXFSZ, SIG_DFL);
    free(zip);
#endif
}

/* RECORD's form of a digest: urlsafe base64 of the 32 bytes, no padding (43 chars) */
static void b64url(const char *hex, char out[44])
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char d[33] = {0};
    for (size_t i = 0; i < 32; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        d[i] = (unsigned char)v;
    }
    size_t o = 0;
    for (size_t i = 0; i < 33; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        for (int k = 3; k >= 0 && o < 43; k--)
            out[o++] = abc[(v >> (6 * k)) & 63];
    }
    out[43] = '\0';
}

static void digest_of(const zent *e, char hex[65])
{
    cc_sha256 *h = cc_sha256_new();
    unsigned char *b = payload(e->size, e->seed);
    assert_int_equal(cc_sha256_update(h, b, e->size), 0);
    assert_int_equal(cc_sha256_final_hex(h, hex), 0);
    cc_sha256_free(h);
    free(b);
}

static void pinned_wheel_digests_from_its_record(void **state)
{
    (void)state;
    const char *name = "nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl";
    char real[4][65], fake[65], b[4][44], bfake[44];
    for (int i = 0; i < 4; i++) { /* cudnn.h, cudnn_version.h, libcudnn.so.9, libcudnn_ops.so.9 */
        digest_of(&WHEEL[2 + i], real[i]);
        b64url(real[i], b[i]);
    }
    cc_sha256 *h = cc_sha256_new();
    assert_int_equal(cc_sha256_update(h, "not these bytes", 15), 0);
    assert_int_equal(cc_sha256_final_hex(h, fake), 0);
    cc_sha256_free(h);
    b64url(fake, bfake);
    /* libcudnn.so.9: another valid digest (believed: the RECORD is the pinned wheel's word); the
     * same digest for libcudnn_ops.so.9 with another size and for cudnn_version.h on a quoted
     * path (not believed); libcudnn_graph.so.9 and the licence not listed: those four hashed */
    char *record = cc_asprintf("nvidia/cudnn/include/cudnn.h,sha256=%s,20000\r\n"
                               "\"nvidia/cudnn/include/cudnn_version.h\",sha256=%s,3000\n"
                               "nvidia/cudnn/lib/libcudnn.so.9,sha256=%s,500000\n"
                               "nvidia/cudnn/lib/libcudnn_ops.so.9,sha256=%s,12\n"
                               "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD,,\n",
                               b[0], bfake, bfake, bfake);
    zent w[sizeof(WHEEL) / sizeof(WHEEL[0])];
    memcpy(w, WHEEL, sizeof(w));
    w[sizeof(w) / sizeof(w[0]) - 1].text = record;
    char *zip = write_zip(name, w, sizeof(w) / sizeof(w[0]));
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    for (int pinned = 0; pinned <= 1; pinned++)
        for (int threads = 1; threads <= 2; threads++) {
            char *d = new_staging("wr");
            cc_staging s;
            assert_int_equal(unzip_ex(zip, name, d, threads, pinned, &s), CUDNNCTL_E_OK);
            assert_int_equal(s.n_files, 6);
            for (size_t i = 0; i < s.n_files; i++) {
                const cc_staged_file *f = &s.files[i];
                char *p = pff_join(d, f->path), on_disk[65];
                uint64_t size = 0;
                assert_int_equal(cc_sha256_file(ctx, p, on_disk, &size), 0);
                assert_true(size == f->size);
                if (pinned && strcmp(f->path, "lib/libcudnn.so.9.19.0") == 0)
                    assert_string_equal(f->sha256, fake);
                else
                    assert_string_equal(f->sha256, on_disk);
                free(p);
            }
            assert_string_equal(cc_staging_find(&s, "include/cudnn.h")->sha256, real[0]);
            assert_string_equal(cc_staging_find(&s, "lib/libcudnn_ops.so.9.19.0")->sha256, real[3]);
            cc_staging_free(&s);
            pff_rm_rf(d);
            free(d);
        }
    cudnnctl_ctx_free(ctx);
    free(record);
    free(zip);
}

int main(void)
{
    g_root = pff_tmpdir("extract-zip");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_zip_parallel_equals_serial),
        cmocka_unit_test(wheel_maps_into_the_archive_layout),
        cmocka_unit_test(damaged_entry_fails_everything),
        cmocka_unit_test(write_failure_in_a_writer_thread),
        cmocka_unit_test(pinned_wheel_digests_from_its_record),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    pff_rm_rf(g_root);
    free(g_root);
    return r;
}
