/* test_compare.c: compare's matrix on hand-written reports: drift per item, order-insensitive
 * sets, absent values, cuDNN origins as items, doctor's findings, unique host names, refusal of
 * foreign documents, the JSON shape. No files: portable (runs in the Windows cross build too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cudnnctl/cudnnctl.h"

static int setup(void **state)
{
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    cudnnctl_ctx_free(*state);
    return 0;
}

static char *doc(const char *host, const char *driver, const char *cudnn_json, const char *extra)
{
    size_t cap = 4096;
    char *s = malloc(cap);
    assert_non_null(s);
    int n = snprintf(s, cap,
                     "{\"format\": \"cudnnctl-report\", \"format_version\": 1, "
                     "\"cudnnctl_version\": \"0.1.0\", \"platform\": \"linux-x86_64\", "
                     "\"host\": {\"hostname\": %s%s%s, \"os\": {\"pretty_name\": \"Debian 12\"}}, "
                     "\"driver\": %s%s%s, "
                     "\"detect\": {\"toolkits\": [{\"version\": \"13.0\", \"version_full\": "
                     "\"13.0.88\", \"active\": true}, {\"version\": \"12.8\", \"active\": false}], "
                     "\"cudnn\": %s}%s}",
                     host ? "\"" : "", host ? host : "null", host ? "\"" : "",
                     driver ? "{\"version\": \"" : "", driver ? driver : "null",
                     driver ? "\", \"cuda_version\": 13000}" : "", cudnn_json, extra ? extra : "");
    assert_true(n > 0 && (size_t)n < cap);
    return s;
}

static const cudnnctl_compare_item *item(const cudnnctl_compare_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_items; i++)
        if (strcmp(r->items[i].item, name) == 0)
            return &r->items[i];
    return NULL;
}

static void t_compare_drift(void **state)
{
    cudnnctl_ctx *ctx = *state;
    char *a = doc("a", "580.95.05",
                  "[{\"origin\": \"cuda-tree\", \"version\": \"9.19.0\"}, {\"origin\": \"wheel\", "
                  "\"version\": \"9.14.0\"}, {\"origin\": \"wheel\", \"version\": \"9.1.0\"}]",
                  ", \"doctor\": {\"findings\": [{\"code\": \"NO_DRIVER\", \"severity\": "
                  "\"warning\"}, {\"code\": \"NO_CUDNN\", \"severity\": \"info\"}]}");
    char *b = doc("b", "580.95.05",
                  "[{\"origin\": \"cuda-tree\", \"version\": \"9.19.0\"}, {\"origin\": \"wheel\", "
                  "\"version\": \"9.1.0\"}, {\"origin\": \"wheel\", \"version\": \"9.14.0\"}]",
                  ", \"doctor\": {\"findings\": []}");
    char *c = doc("c", NULL, "[{\"origin\": \"conda\", \"version\": \"8.9.7\"}]", NULL);
    const char *docs[] = {a, b, c};
    cudnnctl_compare_result *r = NULL;
    assert_int_equal(cudnnctl_compare(ctx, docs, NULL, 3, &r), CUDNNCTL_E_OK);
    assert_int_equal(r->n_hosts, 3);
    assert_string_equal(r->hosts[2], "c");
    /* order-insensitive sets: a and b agree on the wheels */
    const cudnnctl_compare_item *w = item(r, "cudnn.wheel");
    assert_non_null(w);
    assert_string_equal(w->values[0], "9.1.0, 9.14.0");
    assert_string_equal(w->values[1], "9.1.0, 9.14.0");
    assert_string_equal(w->values[2], "-");
    assert_true(w->drift);
    assert_string_equal(item(r, "cudnn.conda")->values[0], "-");
    assert_string_equal(item(r, "driver")->values[2], "-");
    assert_string_equal(item(r, "driver.cuda")->values[0], "13.0");
    assert_string_equal(item(r, "cuda.active")->values[1], "13.0.88");
    assert_string_equal(item(r, "cuda.toolkits")->values[0], "12.8, 13.0.88");
    assert_false(item(r, "platform")->drift);
    assert_false(item(r, "cuda.toolkits")->drift);
    /* doctor: warnings and errors, not info; "ok" when none; "-" without a doctor section */
    assert_string_equal(item(r, "doctor")->values[0], "NO_DRIVER");
    assert_string_equal(item(r, "doctor")->values[1], "ok");
    assert_string_equal(item(r, "doctor")->values[2], "-");
    /* origins sorted after the toolkit items, fixed tail */
    assert_string_equal(r->items[7].item, "cudnn.conda");
    assert_string_equal(r->items[r->n_items - 1].item, "validate");
    size_t n = 0;
    for (size_t i = 0; i < r->n_items; i++)
        n += r->items[i].drift;
    assert_int_equal(n, r->n_drift);
    char *json = NULL;
    assert_int_equal(cudnnctl_compare_result_json(r, &json), CUDNNCTL_E_OK);
    cJSON *j = cJSON_Parse(json);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "identical")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "drift")), (int)r->n_drift);
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "drift"), 0);
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "values"), "c"));
    cJSON_Delete(j);
    cudnnctl_free(json);
    cudnnctl_compare_result_free(r);
    free(a);
    free(b);
    free(c);
}

static void t_compare_identical_and_names(void **state)
{
    cudnnctl_ctx *ctx = *state;
    char *a = doc("gpu", "580.95.05", "[]", NULL);
    char *b = doc(NULL, "580.95.05", "[]", NULL);
    const char *docs[] = {a, a, b};
    const char *names[] = {"x/one.json", "x/two.json", "x/three.json"};
    cudnnctl_compare_result *r = NULL;
    assert_int_equal(cudnnctl_compare(ctx, docs, names, 3, &r), CUDNNCTL_E_OK);
    assert_string_equal(r->hosts[0], "gpu");
    assert_string_equal(r->hosts[1], "gpu#2");
    assert_string_equal(r->hosts[2], "three.json"); /* no host name: the file's */
    cudnnctl_compare_result_free(r);
    const char *same[] = {a, a};
    assert_int_equal(cudnnctl_compare(ctx, same, NULL, 2, &r), CUDNNCTL_E_OK);
    assert_int_equal(r->n_drift, 0);
    cudnnctl_compare_result_free(r);
    free(a);
    free(b);
}

static void t_compare_refuses(void **state)
{
    cudnnctl_ctx *ctx = *state;
    char *a = doc("a", NULL, "[]", NULL);
    cudnnctl_compare_result *r = NULL;
    const char *one[] = {a};
    assert_int_equal(cudnnctl_compare(ctx, one, NULL, 1, &r), CUDNNCTL_E_USAGE);
    const char *bad[] = {a, "{\"findings\": []}"};
    const char *names[] = {"a.json", "doctor.json"};
    assert_int_equal(cudnnctl_compare(ctx, bad, names, 2, &r), CUDNNCTL_E_PARSE);
    assert_null(r);
    assert_non_null(
        strstr(cudnnctl_last_error(ctx)->detail, "doctor.json is not a cudnnctl report"));
    const char *junk[] = {a, "not json"};
    assert_int_equal(cudnnctl_compare(ctx, junk, NULL, 2, &r), CUDNNCTL_E_PARSE);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "#2"));
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_compare_drift, setup, teardown),
        cmocka_unit_test_setup_teardown(t_compare_identical_and_names, setup, teardown),
        cmocka_unit_test_setup_teardown(t_compare_refuses, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
