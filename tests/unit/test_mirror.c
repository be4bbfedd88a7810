/* test_mirror.c: mirror from a local upstream dir (no network): the selection, the manifest and
 * archives byte for byte, "present" on a second run, a corrupted upstream refused with nothing
 * left behind, and a torture loop failing every sys_ops call in turn: after each, the mirror
 * holds either nothing or complete, correct files, and never a temporary file. Trees through the
 * platform layer (pf_fixture.h): runs in the cross build under wine too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cudnnctl/cudnnctl.h"
#include "cudnnctl/cudnnctl_test.h"
#include "hash.h"
#include "pf_fixture.h"

static char top[256], up[300], mdir[300], manifest[320], cache[300];
static const char *rel_x13 = "cudnn/linux-x86_64/cudnn-linux-x86_64-9.98.0.7_cuda13-archive.tar.xz";
static const char *rel_x12 = "cudnn/linux-x86_64/cudnn-linux-x86_64-9.98.0.7_cuda12-archive.tar.xz";
static const char *rel_sbsa = "cudnn/linux-sbsa/cudnn-linux-sbsa-9.98.0.7_cuda13-archive.tar.xz";

static void mkdirs(const char *path) { pff_mkdir_p(path); }

static int exists(const char *path)
{
    cc_pf_stat_t st;
    return cc_pf_lstat(path, &st) == 0 && st.exists;
}

/* The whole file (malloc'd, *len bytes), or NULL when it cannot be read. */
static unsigned char *slurp(const char *path, size_t *len)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (fd == -1)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    long long got;
    while (b && (got = cc_pf_read(fd, b + n, cap - n)) > 0) {
        n += (size_t)got;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    cc_pf_close(fd);
    *len = n;
    return b;
}

static void copy_tree(const char *from, const char *to)
{
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_lstat(from, &st), 0);
    if (st.is_dir) {
        assert_int_equal(cc_pf_mkdir(to, 0755), 0);
        cc_pf_dir *d = cc_pf_opendir(from);
        assert_non_null(d);
        const char *n;
        while ((n = cc_pf_readdir(d)) != NULL) {
            char *a = pff_join(from, n), *b = pff_join(to, n);
            copy_tree(a, b);
            free(a);
            free(b);
        }
        cc_pf_closedir(d);
        return;
    }
    size_t len = 0;
    unsigned char *data = slurp(from, &len);
    assert_non_null(data);
    cc_pf_fd fd = cc_pf_open(to, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, 0644);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_write(fd, data, len), (long long)len);
    assert_int_equal(cc_pf_close(fd), 0);
    free(data);
}

static void write_blob(const char *rel, size_t n, unsigned seed, char hex[65])
{
    char p[1024], d[1024];
    snprintf(p, sizeof(p), "%s/%s", up, rel);
    snprintf(d, sizeof(d), "%s", p);
    *strrchr(d, '/') = '\0';
    mkdirs(d);
    unsigned char *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 131u + seed * 7u) ^ (i >> 7));
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    cc_sha256 *h = cc_sha256_new();
    cc_sha256_update(h, b, n);
    cc_sha256_final_hex(h, hex);
    cc_sha256_free(h);
    free(b);
}

/* the same bytes (read here, not by the mirror code) */
static int same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* temporary files anywhere under dir */
static int temps_under(const char *dir)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    const char *n;
    while (!found && (n = cc_pf_readdir(d)) != NULL) {
        if (strncmp(n, ".cudnnctl-mirror-", 17) == 0) {
            found = 1;
            break;
        }
        char *p = pff_join(dir, n);
        cc_pf_stat_t st;
        if (cc_pf_lstat(p, &st) == 0 && st.is_dir && !st.is_link)
            found = temps_under(p);
        free(p);
    }
    cc_pf_closedir(d);
    return found;
}

static int setup_group(void **state)
{
    (void)state;
    char *t = pff_tmpdir("mirror-unit");
    snprintf(top, sizeof(top), "%s", t);
    free(t);
    snprintf(up, sizeof(up), "%s/up", top);
    snprintf(cache, sizeof(cache), "%s/cache", top);
    snprintf(manifest, sizeof(manifest), "%s/redistrib_9.98.0.json", top);
    char h13[65], h12[65], hs[65];
    write_blob(rel_x13, 300000, 1, h13);
    write_blob(rel_x12, 200000, 2, h12);
    write_blob(rel_sbsa, 100000, 3, hs);
    FILE *f = fopen(manifest, "w");
    fprintf(f,
            "{\"release_label\": \"9.98.0\", \"release_product\": \"cudnn\", \"cudnn\": {"
            "\"name\": \"NVIDIA CUDA Deep Neural Network library\", \"license\": \"cudnn\", "
            "\"version\": \"9.98.0.7\", \"cuda_variant\": [\"12\", \"13\"],\n"
            "\"linux-x86_64\": {\"cuda12\": {\"relative_path\": \"%s\", \"sha256\": \"%s\", "
            "\"size\": \"200000\"}, \"cuda13\": {\"relative_path\": \"%s\", \"sha256\": \"%s\", "
            "\"size\": \"300000\"}},\n"
            "\"linux-sbsa\": {\"cuda13\": {\"relative_path\": \"%s\", \"sha256\": \"%s\", "
            "\"size\": \"100000\"}}}}\n",
            rel_x12, h12, rel_x13, h13, rel_sbsa, hs);
    fclose(f);
    return 0;
}

static int teardown_group(void **state)
{
    (void)state;
    pff_rm_rf(top);
    return exists(top) ? -1 : 0;
}

typedef struct {
    cudnnctl_ctx *ctx;
    cudnnctl_catalog *cat;
} fx;

static int setup(void **state)
{
    static int n;
    fx *f = calloc(1, sizeof(*f));
    snprintf(mdir, sizeof(mdir), "%s/mirror%d", top, ++n);
    if (cudnnctl_ctx_new(&f->ctx) != CUDNNCTL_E_OK ||
        cudnnctl_set_cache_dir(f->ctx, cache) != CUDNNCTL_E_OK ||
        cudnnctl_catalog_load(f->ctx, &f->cat) != CUDNNCTL_E_OK ||
        cudnnctl_catalog_add_manifest(f->ctx, f->cat, manifest) != CUDNNCTL_E_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    cudnnctl_catalog_free(f->cat);
    cudnnctl_ctx_free(f->ctx);
    free(f);
    return 0;
}

static cudnnctl_mirror_opts opts(const char *cuda, const char *platform, int all_platforms)
{
    cudnnctl_mirror_opts o;
    memset(&o, 0, sizeof(o));
    o.to = mdir;
    o.cudnn = "9.98";
    o.cuda = cuda;
    o.platform = platform;
    o.all_platforms = all_platforms;
    o.source = up;
    return o;
}

static void in_mirror(const char *rel, int want)
{
    char a[1024], b[1024];
    snprintf(a, sizeof(a), "%s/%s", up, rel);
    snprintf(b, sizeof(b), "%s/%s", mdir, rel);
    if (want)
        assert_true(same_file(a, b));
    else
        assert_false(exists(b));
}

static void t_select_and_copy(void **state)
{
    fx *f = *state;
    cudnnctl_mirror_opts o = opts("13", "linux-x86_64", 0);
    cudnnctl_mirror_result *r = NULL;
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_OK);
    assert_int_equal(r->n_items, 1);
    assert_string_equal(r->items[0].relative_path, rel_x13);
    assert_string_equal(r->items[0].result, "downloaded");
    assert_int_equal(r->bytes_downloaded, 300000);
    assert_int_equal(r->n_manifests, 1);
    char m[400];
    snprintf(m, sizeof(m), "%s/redistrib_9.98.0.json", mdir);
    assert_string_equal(r->manifests[0], m);
    assert_true(same_file(manifest, m));
    in_mirror(rel_x13, 1);
    in_mirror(rel_x12, 0);
    in_mirror(rel_sbsa, 0);
    cudnnctl_mirror_result_free(r);
    /* again: nothing to fetch */
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_OK);
    assert_string_equal(r->items[0].result, "present");
    assert_int_equal(r->bytes_downloaded, 0);
    cudnnctl_mirror_result_free(r);
    /* every platform and variant */
    o = opts(NULL, NULL, 1);
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_OK);
    assert_int_equal(r->n_items, 3);
    in_mirror(rel_x12, 1);
    in_mirror(rel_sbsa, 1);
    assert_false(temps_under(mdir));
    char *json = NULL;
    assert_int_equal(cudnnctl_mirror_result_json(r, &json), CUDNNCTL_E_OK);
    assert_non_null(strstr(json, "\"present\""));
    cudnnctl_free(json);
    cudnnctl_mirror_result_free(r);
}

static void t_refusals(void **state)
{
    fx *f = *state;
    cudnnctl_mirror_result *r = NULL;
    cudnnctl_mirror_opts o = opts("11", "linux-x86_64", 0);
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_NO_MATCH);
    cudnnctl_mirror_result_free(r);
    o = opts(NULL, "linux-x86_64", 0);
    o.cudnn = NULL;
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_USAGE);
    assert_null(r);
    o = opts("13", "linux-x86_64", 0);
    o.to = NULL;
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_USAGE);
}

static void t_corrupt_upstream(void **state)
{
    fx *f = *state;
    /* a copy of the upstream with one byte of the sbsa archive flipped */
    char bad[400], p[1200];
    snprintf(bad, sizeof(bad), "%s/bad", top);
    pff_rm_rf(bad);
    copy_tree(up, bad);
    snprintf(p, sizeof(p), "%s/%s", bad, rel_sbsa);
    FILE *fp = fopen(p, "r+b");
    fseek(fp, 5000, SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, 5000, SEEK_SET);
    fputc(c ^ 0xff, fp);
    fclose(fp);
    cudnnctl_mirror_opts o = opts("13", "linux-sbsa", 0);
    o.source = bad;
    cudnnctl_mirror_result *r = NULL;
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_HASH_MISMATCH);
    assert_non_null(r);
    assert_string_equal(r->items[0].result, "failed");
    in_mirror(rel_sbsa, 0);
    assert_false(temps_under(mdir));
    cudnnctl_mirror_result_free(r);
}

static void t_torture(void **state)
{
    fx *f = *state;
    cudnnctl_mirror_opts o = opts(NULL, "linux-x86_64", 0);
    cudnnctl_mirror_result *r = NULL;
    /* how many calls a clean run makes */
    cudnnctl_set_fault_injection(f->ctx, 0);
    assert_int_equal(cudnnctl_mirror(f->ctx, f->cat, &o, &r), CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(f->ctx);
    cudnnctl_mirror_result_free(r);
    assert_true(calls > 10);
    unsigned long failed = 0;
    for (unsigned long n = 1; n <= calls + 2; n++) {
        pff_rm_rf(mdir);
        assert_false(exists(mdir));
        r = NULL;
        cudnnctl_set_fault_injection(f->ctx, n);
        cudnnctl_err e = cudnnctl_mirror(f->ctx, f->cat, &o, &r);
        cudnnctl_set_fault_injection(f->ctx, 0);
        failed += e != CUDNNCTL_E_OK;
        /* whatever failed: no temporary file; what is there is complete */
        if (temps_under(mdir)) {
            print_message("fault at call %lu left a temporary file\n", n);
            fail();
        }
        const char *rels[] = {rel_x13, rel_x12};
        for (size_t k = 0; k < 2; k++) {
            char a[1024], b[1024];
            snprintf(a, sizeof(a), "%s/%s", up, rels[k]);
            snprintf(b, sizeof(b), "%s/%s", mdir, rels[k]);
            if (exists(b) && !same_file(a, b)) {
                print_message("fault at call %lu left a wrong %s\n", n, rels[k]);
                fail();
            }
            if (e == CUDNNCTL_E_OK)
                assert_true(exists(b));
        }
        char m[400];
        snprintf(m, sizeof(m), "%s/redistrib_9.98.0.json", mdir);
        if (exists(m))
            assert_true(same_file(manifest, m));
        cudnnctl_mirror_result_free(r);
    }
    print_message("torture: %lu sys calls, %lu runs failed\n", calls, failed);
    assert_true(failed >= calls / 2); /* the faults really hit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_select_and_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(t_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(t_corrupt_upstream, setup, teardown),
        cmocka_unit_test_setup_teardown(t_torture, setup, teardown),
    };
    return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
