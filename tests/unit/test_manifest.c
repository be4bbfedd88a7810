/* test_manifest.c: every real NVIDIA manifest in data/manifests/cudnn parses (entry counts checked
 * against an independent text scan), known facts of each shape hold, and malformed manifests are
 * rejected with errors that name the manifest and the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog_model.h"
#include "embedded.h"
#include "hash.h"

#define MDIR CUDNNCTL_SOURCE_DIR "/data/manifests/cudnn"

static cudnnctl_ctx *ctx;

static int setup(void **state)
{
    (void)state;
    return cudnnctl_ctx_new(&ctx) == CUDNNCTL_E_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cudnnctl_ctx_free(ctx);
    return 0;
}

static void slurp(const char *path, char **data, size_t *len)
{
    if (cc_sys_read_file(ctx, path, 1 << 24, data, len) != 0)
        fail_msg("cannot read %s", path);
}

/* Independent of cJSON: count "relative_path" values that start with "cudnn/" (the cudnn
 * component; samples and jit live under cudnn_samples/ and cudnn_jit/). */
static size_t count_cudnn_paths(const char *text)
{
    size_t n = 0;
    for (const char *p = strstr(text, "\"relative_path\""); p;
         p = strstr(p + 1, "\"relative_path\"")) {
        const char *q = p + strlen("\"relative_path\"");
        while (*q == ' ' || *q == ':' || *q == '\t')
            q++;
        if (strncmp(q, "\"cudnn/", 7) == 0 || strncmp(q, "\"cudnn_jit/", 11) == 0)
            n++;
    }
    return n;
}

static void parse_file(const char *name, cc_archive_vec *out)
{
    char *path = cc_asprintf("%s/%s", MDIR, name);
    size_t len = 0;
    char *data = NULL;
    slurp(path, &data, &len);
    cudnnctl_err e = cc_manifest_parse(ctx, data, len, name, NULL, out);
    if (e != CUDNNCTL_E_OK)
        fail_msg("%s: %s", name, cudnnctl_last_error(ctx)->detail);
    free(data);
    free(path);
}

static void every_real_manifest_parses(void **state)
{
    (void)state;
    cc_pf_dir *d = cc_pf_opendir(MDIR);
    assert_non_null(d);
    const char *name;
    size_t files = 0, total = 0;
    while ((name = cc_pf_readdir(d))) {
        if (!cc_str_ends(name, ".json"))
            continue;
        files++;
        char *path = cc_asprintf("%s/%s", MDIR, name);
        size_t len = 0;
        char *text = NULL;
        slurp(path, &text, &len);
        size_t expect = count_cudnn_paths(text);
        cc_archive_vec v = {0};
        cudnnctl_err e = cc_manifest_parse(ctx, text, len, name, "ab", &v);
        if (e != CUDNNCTL_E_OK)
            fail_msg("%s: %s", name, cudnnctl_last_error(ctx)->detail);
        if (v.n != expect)
            fail_msg("%s: %zu entries parsed, %zu cudnn relative_paths in the text", name, v.n,
                     expect);
        assert_true(v.n > 0);
        for (size_t i = 0; i < v.n; i++) {
            const cudnnctl_archive *a = &v.v[i];
            assert_true(cc_sha256_is_hex(a->sha256));
            assert_true(a->size > 1000000); /* every cudnn archive is well over a megabyte */
            int jit = a->flavor == CUDNNCTL_FLAVOR_JIT;
            assert_true(cc_str_starts(a->relative_path, jit ? "cudnn_jit/" : "cudnn/"));
            char *dir = cc_asprintf("%s/%s/", jit ? "cudnn_jit" : "cudnn", a->platform);
            assert_true(cc_str_starts(a->relative_path, dir));
            free(dir);
            assert_non_null(strstr(a->relative_path, a->cudnn_version));
            char *suffix = cc_asprintf("_cuda%s-archive", a->cuda_variant);
            assert_non_null(strstr(a->relative_path, suffix));
            free(suffix);
            assert_true(a->cuda_major >= 10 && a->cuda_major <= 13);
            assert_string_equal(a->manifest, name);
            assert_string_equal(a->manifest_sha256, "ab");
            assert_string_not_equal(a->platform, "source");
        }
        total += v.n;
        cc_archive_vec_free(&v);
        free(text);
        free(path);
    }
    cc_pf_closedir(d);
    assert_int_equal(files, 60);
    assert_int_equal(files, cc_embedded_manifest_count); /* every file is embedded */
    print_message("parsed %zu manifests, %zu cudnn archive entries (with 8.x duplicates)\n", files,
                  total);
}

static const cudnnctl_archive *find(const cc_archive_vec *v, const char *platform,
                                    const char *variant)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i].platform, platform) == 0 && strcmp(v->v[i].cuda_variant, variant) == 0)
            return &v->v[i];
    return NULL;
}

static size_t count_platform(const cc_archive_vec *v, const char *platform)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++)
        n += strcmp(v->v[i].platform, platform) == 0;
    return n;
}

/* Flat single-variant 8.x with missing keys (no release_label/product/license_path). */
static void shape_flat_missing_keys(void **state)
{
    (void)state;
    cc_archive_vec v = {0};
    parse_file("redistrib_8.5.0.96.json", &v);
    assert_int_equal(v.n, 4);
    const cudnnctl_archive *a = find(&v, "linux-x86_64", "11");
    assert_non_null(a);
    assert_string_equal(a->relative_path,
                        "cudnn/linux-x86_64/cudnn-linux-x86_64-8.5.0.96_cuda11-archive.tar.xz");
    assert_string_equal(a->sha256,
                        "5454a6fd94f008728caae9adad993c4e85ef36302e26bce43bea7d458a5e7b6d");
    assert_int_equal(a->size, 692647752);
    assert_string_equal(a->cudnn_version, "8.5.0.96");
    assert_string_equal(a->release_date, "2022-08-09");
    assert_int_equal(a->cuda_major, 11);
    assert_int_equal(a->cuda_minor, -1);
    assert_string_equal(a->md5, "2c7878f9c383117918695e7f98a9aa86");
    for (size_t i = 0; i < v.n; i++)
        assert_string_equal(v.v[i].cuda_variant, "11");
    cc_archive_vec_free(&v);

    parse_file("redistrib_8.9.7.29.json", &v); /* flat, release_product cudnn-v8-9-cuda-12 */
    assert_int_equal(v.n, 4);
    for (size_t i = 0; i < v.n; i++)
        assert_string_equal(v.v[i].cuda_variant, "12");
    cc_archive_vec_free(&v);
}

static void shape_multi_variant(void **state)
{
    (void)state;
    cc_archive_vec v = {0};
    parse_file("redistrib_8.9.7.json", &v);
    assert_non_null(find(&v, "linux-x86_64", "11"));
    assert_non_null(find(&v, "linux-x86_64", "12"));
    assert_non_null(find(&v, "windows-x86_64", "11"));
    assert_non_null(find(&v, "linux-ppc64le", "12"));
    assert_string_equal(find(&v, "linux-x86_64", "12")->cudnn_version, "8.9.7.29");
    cc_archive_vec_free(&v);

    parse_file("redistrib_9.13.0.json", &v); /* cudnn_samples skipped; cudnn_jit its flavour */
    const cudnnctl_archive *a = find(&v, "linux-x86_64", "13");
    assert_non_null(a);
    assert_string_equal(a->relative_path,
                        "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    assert_string_equal(a->sha256,
                        "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01");
    assert_int_equal(a->size, 641302680);
    assert_string_equal(a->release_date, "2025-09-04");
    size_t jit = 0;
    for (size_t i = 0; i < v.n; i++) {
        int is_jit = v.v[i].flavor == CUDNNCTL_FLAVOR_JIT;
        jit += is_jit;
        assert_true(cc_str_starts(v.v[i].relative_path, is_jit ? "cudnn_jit/" : "cudnn/"));
        if (is_jit) /* Linux only, the same version as the full build */
            assert_true(cc_str_starts(v.v[i].platform, "linux-"));
    }
    assert_int_equal(jit, 4);
    cc_archive_vec_free(&v);

    /* cuda_variant ["11","12"] is a union: linux-aarch64 has only the cuda12 build */
    parse_file("redistrib_9.8.0.json", &v);
    assert_int_equal(count_platform(&v, "linux-aarch64"), 1);
    assert_non_null(find(&v, "linux-aarch64", "12"));
    assert_null(find(&v, "linux-aarch64", "11"));
    assert_non_null(find(&v, "linux-x86_64", "11"));
    cc_archive_vec_free(&v);

    /* 9.15.0's component says 9.15.0.57, but its cuda13 archives are 9.15.0.58 */
    parse_file("redistrib_9.15.0.json", &v);
    assert_string_equal(find(&v, "linux-x86_64", "13")->cudnn_version, "9.15.0.58");
    assert_string_equal(find(&v, "linux-x86_64", "12")->cudnn_version, "9.15.0.57");
    cc_archive_vec_free(&v);

    /* 8.5.0.json also carries cuda10 builds */
    parse_file("redistrib_8.5.0.json", &v);
    assert_non_null(find(&v, "linux-x86_64", "10"));
    cc_archive_vec_free(&v);
}

/* 9.27's windows-arm64 holds a cuda13 child AND a bare _cuda13.4 archive. */
static void shape_mixed_platform(void **state)
{
    (void)state;
    cc_archive_vec v = {0};
    parse_file("redistrib_9.27.0.json", &v);
    assert_int_equal(count_platform(&v, "windows-arm64"), 2);
    const cudnnctl_archive *g = find(&v, "windows-arm64", "13");
    const cudnnctl_archive *m = find(&v, "windows-arm64", "13.4");
    assert_non_null(g);
    assert_non_null(m);
    assert_string_equal(g->sha256,
                        "c34d906b19df16d370d31b78b1ee480a07e6f827fdabfea63acb914528a9b85c");
    assert_int_equal(g->size, 468155439);
    assert_int_equal(g->cuda_minor, -1);
    assert_string_equal(m->relative_path,
                        "cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip");
    assert_string_equal(m->sha256,
                        "1fe473fc57095ac23ff39b2709edd5f8c3dec8376e6a6f3b812cf4617a29060d");
    assert_int_equal(m->size, 481633269);
    assert_int_equal(m->cuda_major, 13);
    assert_int_equal(m->cuda_minor, 4);
    cc_archive_vec_free(&v);
}

#define ARCH(path, sha, size)                                                                      \
    "{\"relative_path\":\"" path "\",\"sha256\":\"" sha "\",\"size\":" size "}"
#define GOODSHA "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01"
#define GOODPATH "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz"
#define WRAP(platform_body)                                                                        \
    "{\"release_date\":\"2030-01-01\",\"cudnn\":{\"name\":\"x\",\"version\":\"9.99.0.1\","         \
    "\"linux-x86_64\":" platform_body "}}"

static void synthetic_shapes(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        size_t n;
        const char *variant0;
        uint64_t size0;
    } t[] = {
        /* size as a JSON number, bare archive on the platform */
        {WRAP(ARCH(GOODPATH, GOODSHA, "123456")), 1, "13", 123456},
        /* variant child, upper-case hex is normalised */
        {WRAP("{\"cuda13\":" ARCH(
             GOODPATH, "02F47D9456773C80D97ED245EFD9EB22BB985DCFDB74559213536035291E7A01",
             "\"5\"") "}"),
         1, "13", 5},
        /* key order: cuda_variant between platforms; unknown scalar keys ignored */
        {"{\"cudnn\":{\"linux-x86_64\":{\"cuda13\":" ARCH(
             GOODPATH, GOODSHA,
             "\"7\"") "},"
                      "\"cuda_variant\":[\"13\"],\"future_key\":42,\"version\":\"9.99.0.1\","
                      "\"source\":" ARCH("cudnn_samples/source/x-archive.tar.xz", GOODSHA,
                                         "\"1\"") "},"
                                                  "\"cudnn_jit\":{\"nonsense\":true}}",
         1, "13", 7},
        /* a component without platforms gives no entries but is not an error */
        {"{\"cudnn\":{\"version\":\"9.99.0.1\"}}", 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_archive_vec v = {0};
        cudnnctl_err e =
            cc_manifest_parse(ctx, t[i].json, strlen(t[i].json), "synthetic", NULL, &v);
        if (e != CUDNNCTL_E_OK)
            fail_msg("case %zu: %s", i, cudnnctl_last_error(ctx)->detail);
        assert_int_equal(v.n, t[i].n);
        if (t[i].n) {
            assert_string_equal(v.v[0].cuda_variant, t[i].variant0);
            assert_int_equal(v.v[0].size, t[i].size0);
            assert_string_equal(v.v[0].sha256, GOODSHA);
            assert_null(v.v[0].md5);
        }
        cc_archive_vec_free(&v);
    }
}

static void malformed_rejected(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *want1, *want2; /* substrings the error must contain */
    } t[] = {
        {"not json at all", "not valid JSON", "bad.json"},
        {"[1,2,3]", "not a JSON object", "bad.json"},
        {"{\"cuda_cudart\":{\"version\":\"12.4.127\"}}", "no \"cudnn\" component", "bad.json"},
        {"{\"release_product\":\"cuda\",\"cuda_nvcc\":{}}", "release_product \"cuda\"", "cuDNN"},
        {"{\"cudnn\":{\"linux-x86_64\":{}}}", "cudnn.version", "bad.json"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, "02f47d94", "\"1\"") "}"),
         "cudnn.linux-x86_64.cuda13.sha256", "not 64 hex"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH,
                                  "zz47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01",
                                  "\"1\"") "}"),
         "cudnn.linux-x86_64.cuda13.sha256", "bad.json"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, GOODSHA, "\"12abc\"") "}"),
         "cudnn.linux-x86_64.cuda13.size", "\"12abc\""},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, GOODSHA, "\"-5\"") "}"),
         "cudnn.linux-x86_64.cuda13.size", "decimal"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, GOODSHA, "\"\"") "}"), "size", "bad.json"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, GOODSHA, "\"99999999999999999999999\"") "}"), "size",
         "bad.json"},
        {WRAP("{\"cuda13\":" ARCH(GOODPATH, GOODSHA, "1.5") "}"), "size", "bad.json"},
        {WRAP("{\"cuda13\":{\"relative_path\":\"" GOODPATH "\",\"sha256\":\"" GOODSHA "\"}}"),
         "cuda13.size", "missing"},
        {WRAP("{\"cuda13\":" ARCH("../cudnn-x_cuda13-archive.tar.xz", GOODSHA, "\"1\"") "}"),
         "cudnn.linux-x86_64.cuda13.relative_path", "'..'"},
        {WRAP("{\"cuda13\":" ARCH("cudnn/../../etc/x_cuda13-archive.tar.xz", GOODSHA, "\"1\"") "}"),
         "relative_path", "'..'"},
        {WRAP("{\"cuda13\":" ARCH("/etc/x_cuda13-archive.tar.xz", GOODSHA, "\"1\"") "}"),
         "relative_path", "absolute"},
        {WRAP("{\"cuda13\":{\"sha256\":\"" GOODSHA "\",\"size\":\"1\"}}"), "relative_path",
         "missing"},
        {WRAP("{\"cuda12\":" ARCH(GOODPATH, GOODSHA, "\"1\"") "}"), "keyed CUDA 12",
         "built for CUDA 13"},
        {WRAP(ARCH("cudnn/linux-x86_64/cudnn-nosuffix-archive.tar.xz", GOODSHA, "\"1\"")),
         "cannot tell which CUDA", "cudnn.linux-x86_64"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_archive_vec v = {0};
        /* a good entry first: a failure must not leave partial results behind */
        cudnnctl_archive keep = {0};
        keep.relative_path = cc_strdup("keep");
        assert_int_equal(cc_archive_vec_push_move(&v, &keep), 0);
        cudnnctl_err e = cc_manifest_parse(ctx, t[i].json, strlen(t[i].json), "bad.json", NULL, &v);
        const char *detail = cudnnctl_last_error(ctx)->detail;
        if (e != CUDNNCTL_E_MANIFEST)
            fail_msg("case %zu accepted (%d): %s", i, e, t[i].json);
        if (!strstr(detail, t[i].want1) || !strstr(detail, t[i].want2))
            fail_msg("case %zu: error '%s' lacks '%s' / '%s'", i, detail, t[i].want1, t[i].want2);
        assert_int_equal(v.n, 1);
        assert_string_equal(v.v[0].relative_path, "keep");
        cc_archive_vec_free(&v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_real_manifest_parses), cmocka_unit_test(shape_flat_missing_keys),
        cmocka_unit_test(shape_multi_variant),        cmocka_unit_test(shape_mixed_platform),
        cmocka_unit_test(synthetic_shapes),           cmocka_unit_test(malformed_rejected),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
