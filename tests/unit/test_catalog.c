/* test_catalog.c: the embedded catalog (complete, de-duplicated, newest first, fast), manifests
 * added from text, files and file:// URLs (later wins), find_file, filters and JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "catalog_model.h"
#include "embedded.h"
#include "hash.h"

#define MDIR CUDNNCTL_SOURCE_DIR "/data/manifests/cudnn"

static cudnnctl_ctx *ctx;
static cudnnctl_catalog *cat;

static int setup(void **state)
{
    (void)state;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK)
        return -1;
    return cudnnctl_catalog_load(ctx, &cat) == CUDNNCTL_E_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cudnnctl_catalog_free(cat);
    cudnnctl_ctx_free(ctx);
    return 0;
}

/* Distinct cudnn relative_paths over every data file, by plain text scanning (no cJSON). */
static size_t distinct_paths_in_files(void)
{
    cc_strv seen = {0};
    cc_pf_dir *d = cc_pf_opendir(MDIR);
    assert_non_null(d);
    const char *name;
    while ((name = cc_pf_readdir(d))) {
        if (!cc_str_ends(name, ".json"))
            continue;
        char *path = cc_asprintf("%s/%s", MDIR, name), *text = NULL;
        assert_int_equal(cc_sys_read_file(ctx, path, 1 << 24, &text, NULL), 0);
        for (const char *k = strstr(text, "\"relative_path\""); k;
             k = strstr(k + 1, "\"relative_path\"")) {
            const char *p = k + strlen("\"relative_path\"");
            while (*p == ' ' || *p == ':')
                p++;
            if (strncmp(p, "\"cudnn/", 7) != 0 && strncmp(p, "\"cudnn_jit/", 11) != 0)
                continue; /* cudnn_samples/ */
            const char *end = strchr(p + 1, '"');
            char *rp = cc_strndup(p + 1, (size_t)(end - p - 1));
            if (!cc_strv_contains(&seen, rp))
                cc_strv_push(&seen, rp);
            free(rp);
        }
        free(text);
        free(path);
    }
    cc_pf_closedir(d);
    size_t n = seen.n;
    cc_strv_free(&seen);
    return n;
}

static void embedded_is_complete_and_deduplicated(void **state)
{
    (void)state;
    size_t expect = distinct_paths_in_files();
    assert_int_equal(cudnnctl_catalog_count(cat), expect);
    assert_int_equal(expect, 349 + 80); /* the cudnn archives and the cudnn_jit ones */
    size_t jit = 0;
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        int is_jit = cc_str_starts(a->relative_path, "cudnn_jit/");
        assert_int_equal(a->flavor, is_jit ? CUDNNCTL_FLAVOR_JIT : CUDNNCTL_FLAVOR_FULL);
        jit += is_jit;
    }
    assert_int_equal(jit, 80);
    assert_int_equal(cudnnctl_catalog_manifest_count(cat), cc_embedded_manifest_count);
    /* no relative_path twice */
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++)
        for (size_t j = i + 1; j < cudnnctl_catalog_count(cat); j++)
            assert_string_not_equal(cudnnctl_catalog_get(cat, i)->relative_path,
                                    cudnnctl_catalog_get(cat, j)->relative_path);
    assert_null(cudnnctl_catalog_get(cat, cudnnctl_catalog_count(cat)));
}

static void embedded_bytes_are_the_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < cc_embedded_manifest_count; i++) {
        char *path = cc_asprintf("%s/%s", MDIR, cc_embedded_manifests[i].name), *text = NULL;
        size_t len = 0;
        assert_int_equal(cc_sys_read_file(ctx, path, 1 << 24, &text, &len), 0);
        assert_int_equal(len, cc_embedded_manifests[i].len);
        assert_memory_equal(text, cc_embedded_manifests[i].data, len);
        free(text);
        free(path);
    }
}

static void newest_first(void **state)
{
    (void)state;
    for (size_t i = 1; i < cudnnctl_catalog_count(cat); i++)
        assert_true(cc_version_cmp_str(cudnnctl_catalog_get(cat, i - 1)->cudnn_version,
                                       cudnnctl_catalog_get(cat, i)->cudnn_version) >= 0);
    assert_string_equal(cudnnctl_catalog_get(cat, 0)->cudnn_version, "9.27.0.42");
    assert_string_equal(cudnnctl_catalog_get(cat, cudnnctl_catalog_count(cat) - 1)->cudnn_version,
                        "8.5.0.96");
}

static void duplicates_keep_first_release_date(void **state)
{
    (void)state;
    /* listed in redistrib_8.9.7.29.json (2023-12-05) and redistrib_8.9.7.json (2024-03-15) */
    const cudnnctl_archive *a =
        cudnnctl_catalog_find_file(cat, "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz");
    assert_non_null(a);
    assert_string_equal(a->release_date, "2023-12-05");
    assert_string_equal(a->sha256,
                        "475333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd9c13efb6e21e3bb");
    assert_non_null(a->manifest_sha256);
    assert_true(cc_sha256_is_hex(a->manifest_sha256));
}

static void load_is_fast(void **state)
{
    (void)state;
    enum { RUNS = 20 };
    uint64_t t0 = cc_pf_now_ms();
    for (int i = 0; i < RUNS; i++) {
        cudnnctl_catalog *c = NULL;
        assert_int_equal(cudnnctl_catalog_load(ctx, &c), CUDNNCTL_E_OK);
        cudnnctl_catalog_free(c);
    }
    double ms = (double)(cc_pf_now_ms() - t0) / RUNS;
    print_message("catalog load (%zu manifests, %zu archives): %.2f ms per load\n",
                  cc_embedded_manifest_count, cudnnctl_catalog_count(cat), ms);
    assert_true(ms < 50.0); /* a few ms normally; generous for a loaded shared machine */
}

static void find_file_by_name(void **state)
{
    (void)state;
    static const struct {
        const char *query;
        const char *sha;
    } t[] = {
        {"cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz",
         "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01"},
        {"/home/me/Downloads/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz",
         "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01"},
        {"C:\\Users\\me\\cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip",
         "1fe473fc57095ac23ff39b2709edd5f8c3dec8376e6a6f3b812cf4617a29060d"},
        {"cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar", NULL},
        {"nothing.zip", NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_find_file(cat, t[i].query);
        if (!t[i].sha)
            assert_null(a);
        else {
            assert_non_null(a);
            assert_string_equal(a->sha256, t[i].sha);
        }
    }
}

#define EXTRA                                                                                      \
    "{\"release_date\":\"2030-01-01\",\"cudnn\":{\"version\":\"9.99.0.1\",\"linux-x86_64\":{"      \
    "\"cuda13\":{\"relative_path\":\"cudnn/linux-x86_64/"                                          \
    "cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz\",\"sha256\":\""                            \
    "1111111111111111111111111111111111111111111111111111111111111111\",\"size\":\"42\"},"         \
    "\"cuda12\":{\"relative_path\":\"cudnn/linux-x86_64/"                                          \
    "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz\",\"sha256\":\""                           \
    "2222222222222222222222222222222222222222222222222222222222222222\",\"size\":\"43\"}}}}"

static void added_manifest_wins(void **state)
{
    (void)state;
    cudnnctl_catalog *c = NULL;
    assert_int_equal(cudnnctl_catalog_load(ctx, &c), CUDNNCTL_E_OK);
    size_t before = cudnnctl_catalog_count(c);
    /* the second entry is deliberately inconsistent (key cuda12, file _cuda13): rejected whole */
    assert_int_equal(cudnnctl_catalog_add_json(ctx, c, EXTRA, strlen(EXTRA), "extra.json"),
                     CUDNNCTL_E_MANIFEST);
    assert_int_equal(cudnnctl_catalog_count(c), before);
    char *fixed = cc_strdup(EXTRA);
    char *k = strstr(fixed, "\"cuda12\"");
    memcpy(k, "\"cuda13\"", 8); /* duplicate key cuda13: cJSON keeps both members */
    assert_int_equal(cudnnctl_catalog_add_json(ctx, c, fixed, strlen(fixed), "extra.json"),
                     CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_catalog_count(c), before + 1);
    assert_int_equal(cudnnctl_catalog_manifest_count(c), cc_embedded_manifest_count + 1);
    const cudnnctl_archive *n = cudnnctl_catalog_get(c, 0); /* newest first */
    assert_string_equal(n->cudnn_version, "9.99.0.1");
    assert_int_equal(n->size, 42);
    assert_string_equal(n->manifest, "extra.json");
    const cudnnctl_archive *o =
        cudnnctl_catalog_find_file(c, "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    assert_string_equal(o->sha256,
                        "2222222222222222222222222222222222222222222222222222222222222222");
    assert_string_equal(o->manifest, "extra.json");
    /* the manifest's own SHA-256 is recorded */
    char hex[65];
    cc_sha256 *h = cc_sha256_new();
    cc_sha256_update(h, fixed, strlen(fixed));
    cc_sha256_final_hex(h, hex);
    cc_sha256_free(h);
    assert_string_equal(n->manifest_sha256, hex);
    free(fixed);
    cudnnctl_catalog_free(c);
}

static void add_from_file_and_url(void **state)
{
    (void)state;
    char *cwd = cc_pf_realpath(".");
    char *tmpl = cc_asprintf("%s/cc-catalog-%llu", cwd, (unsigned long long)cc_pf_now_ms());
    free(cwd);
    assert_int_equal(cc_sys_mkdir_p(ctx, tmpl, 0755), 0);
    char *f = cc_asprintf("%s/redistrib_9.13.0.json", tmpl);
    char *src = cc_asprintf("%s/redistrib_9.13.0.json", MDIR), *text = NULL;
    size_t len = 0;
    assert_int_equal(cc_sys_read_file(ctx, src, 1 << 24, &text, &len), 0);
    assert_int_equal(cc_sys_write_file_atomic(ctx, f, text, len, 0644), 0);
    cudnnctl_catalog *c = cc_catalog_new();
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, f), CUDNNCTL_E_OK);
    size_t n = cudnnctl_catalog_count(c);
    assert_int_equal(n, 8 + 4); /* cudnn: 4 platforms x 2 CUDA majors; cudnn_jit: 2 x 2 */
    assert_string_equal(cudnnctl_catalog_get(c, 0)->manifest, f);
    char *url = cc_asprintf("file://%s%s", f[0] == '/' ? "" : "/", f);
    for (char *q = url; *q; q++)
        if (*q == '\\')
            *q = '/';
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, url), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_catalog_count(c), n); /* same paths: replaced, not added */
    assert_string_equal(cudnnctl_catalog_get(c, 0)->manifest, url);
    /* errors */
    char *missing = cc_asprintf("%s/nope.json", tmpl);
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, missing), CUDNNCTL_E_NOT_FOUND);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "nope.json"));
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, "file://relative.json"),
                     CUDNNCTL_E_USAGE);
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, "ftp://host/x.json"), CUDNNCTL_E_USAGE);
    /* nothing listens on the discard port: not OK whatever the network layer is */
    assert_int_not_equal(cudnnctl_catalog_add_manifest(ctx, c, "http://127.0.0.1:9/x.json"),
                         CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_catalog_count(c), n);
    /* under --root an absolute manifest path is read inside the root */
    assert_int_equal(cudnnctl_set_root(ctx, tmpl), CUDNNCTL_E_OK);
    cudnnctl_catalog *r = cc_catalog_new();
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, r, "/redistrib_9.13.0.json"),
                     CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_catalog_count(r), 8 + 4);
    assert_int_equal(cudnnctl_set_root(ctx, NULL), CUDNNCTL_E_OK);
    cudnnctl_catalog_free(r);
    cc_sys_rm_rf(ctx, tmpl);
    free(tmpl);
    free(missing);
    free(url);
    free(text);
    free(src);
    free(f);
    cudnnctl_catalog_free(c);
}

/* Fail every sys_ops call of adding a manifest file in turn: each run fails cleanly (an error,
 * the catalog unchanged) or succeeds; never a crash or a half-added manifest. */
static void add_manifest_under_faults(void **state)
{
    (void)state;
    char *f = cc_asprintf("%s/redistrib_9.27.0.json", MDIR);
    cudnnctl_catalog *c = cc_catalog_new();
    cudnnctl_set_fault_injection(ctx, 0);
    assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, f), CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(ctx);
    size_t n = cudnnctl_catalog_count(c);
    assert_true(calls >= 3); /* open, read..., close */
    cudnnctl_catalog_free(c);
    int failed = 0;
    for (unsigned long k = 1; k <= calls + 1; k++) {
        c = cc_catalog_new();
        cudnnctl_set_fault_injection(ctx, k);
        cudnnctl_err e = cudnnctl_catalog_add_manifest(ctx, c, f);
        cudnnctl_set_fault_injection(ctx, 0);
        if (e == CUDNNCTL_E_OK) {
            assert_int_equal(cudnnctl_catalog_count(c), n);
        } else {
            failed++;
            assert_int_equal(cudnnctl_catalog_count(c), 0);
            assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "redistrib_9.27.0.json"));
        }
        cudnnctl_catalog_free(c);
    }
    assert_true(failed > 0);
    free(f);
}

static void filters(void **state)
{
    (void)state;
    static const struct {
        const char *cudnn, *cuda, *platform;
        size_t n;          /* expected count, computed from the manifests by hand */
        const char *first; /* first relative_path's file name */
    } t[] = {
        {NULL, NULL, "windows-arm64", 2, "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip"},
        {NULL, "13.0", "windows-arm64", 1, "cudnn-windows-arm64-9.27.0.42_cuda13-archive.zip"},
        {NULL, "13.4", "windows-arm64", 2, "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip"},
        {NULL, "13", "windows-arm64", 2, NULL},
        {"9.13", "13", "linux-x86_64", 2, "cudnn-linux-x86_64-9.13.1.26_cuda13-archive.tar.xz"},
        {"9.13.0.50", NULL, "linux-x86_64", 2,
         "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz"},
        {"9.11", NULL, "linux-x86_64", 2, "cudnn-linux-x86_64-9.11.1.4_cuda12-archive.tar.xz"},
        {NULL, "10", "all", 6, NULL},
        {"7", NULL, NULL, 0, NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cudnnctl_catalog_filter f = {t[i].cudnn, t[i].cuda, t[i].platform, NULL};
        const cudnnctl_archive **v = NULL;
        size_t n = 0;
        assert_int_equal(cudnnctl_catalog_query(ctx, cat, &f, &v, &n), CUDNNCTL_E_OK);
        if (n != t[i].n)
            fail_msg("filter %zu: %zu entries, expected %zu", i, n, t[i].n);
        if (t[i].first)
            assert_string_equal(cc_path_base(v[0]->relative_path), t[i].first);
        free(v);
    }
    cudnnctl_catalog_filter bad = {"nine", NULL, NULL, NULL};
    const cudnnctl_archive **v = NULL;
    size_t n = 0;
    assert_int_equal(cudnnctl_catalog_query(ctx, cat, &bad, &v, &n), CUDNNCTL_E_BAD_VERSION);
    cudnnctl_catalog_filter bad2 = {NULL, "cuda13", NULL, NULL};
    assert_int_equal(cudnnctl_catalog_query(ctx, cat, &bad2, &v, &n), CUDNNCTL_E_BAD_VERSION);
}

static void json_round_trip(void **state)
{
    (void)state;
    cudnnctl_catalog_filter f = {"9.13.0", "13", "linux-x86_64", NULL};
    char *json = NULL;
    assert_int_equal(cudnnctl_catalog_json(ctx, cat, &f, &json), CUDNNCTL_E_OK);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    assert_true(cJSON_IsArray(root));
    assert_int_equal(cJSON_GetArraySize(root), 1);
    cJSON *e = cJSON_GetArrayItem(root, 0);
    assert_string_equal(cJSON_GetObjectItem(e, "cudnn_version")->valuestring, "9.13.0.50");
    assert_string_equal(cJSON_GetObjectItem(e, "platform")->valuestring, "linux-x86_64");
    assert_string_equal(cJSON_GetObjectItem(e, "cuda_variant")->valuestring, "13");
    assert_string_equal(cJSON_GetObjectItem(e, "sha256")->valuestring,
                        "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01");
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(e, "size")));
    assert_true(cJSON_GetObjectItem(e, "size")->valuedouble == 641302680.0);
    assert_string_equal(cJSON_GetObjectItem(e, "release_date")->valuestring, "2025-09-04");
    assert_string_equal(cJSON_GetObjectItem(e, "relative_path")->valuestring,
                        "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    cJSON_Delete(root);
    cudnnctl_free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(embedded_is_complete_and_deduplicated),
        cmocka_unit_test(embedded_bytes_are_the_files),
        cmocka_unit_test(newest_first),
        cmocka_unit_test(duplicates_keep_first_release_date),
        cmocka_unit_test(load_is_fast),
        cmocka_unit_test(find_file_by_name),
        cmocka_unit_test(added_manifest_wins),
        cmocka_unit_test(add_from_file_and_url),
        cmocka_unit_test(add_manifest_under_faults),
        cmocka_unit_test(filters),
        cmocka_unit_test(json_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
