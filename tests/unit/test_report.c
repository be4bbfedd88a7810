/* test_report.c: the environment report's keys on a hand-built detect result under a temporary
 * root (host name and os-release from the root, driver at the top, detect embedded, doctor's
 * findings, validate null). The temporary tree through the platform layer (pf_fixture.h): runs in
 * the cross build under wine too. compare's tests are in test_compare.c. */
#define _GNU_SOURCE /* strdup */
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
#include "pf_fixture.h"

static char *root;

static void put(const char *rel, const char *text) { pff_write(root, rel + 1, text); }

static int setup(void **state)
{
    root = pff_tmpdir("report");
    char *etc = pff_join(root, "etc");
    pff_mkdir_p(etc);
    free(etc);
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || cudnnctl_set_root(ctx, root) != CUDNNCTL_E_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    cudnnctl_ctx_free(*state);
    pff_rm_rf(root);
    cc_pf_stat_t st;
    int gone = cc_pf_lstat(root, &st) == 0 && !st.exists;
    free(root);
    return gone ? 0 : -1;
}

static cudnnctl_detect_result *small_det(void)
{
    cudnnctl_detect_result *d = calloc(1, sizeof(*d));
    d->platform = strdup("linux-sbsa");
    d->toolkits = calloc(1, sizeof(*d->toolkits));
    d->n_toolkits = 1;
    d->toolkits[0].path = strdup("/usr/local/cuda-12.8");
    d->toolkits[0].version = strdup("12.8");
    d->toolkits[0].version_full = strdup("12.8.93");
    d->toolkits[0].major = 12;
    d->toolkits[0].minor = 8;
    d->toolkits[0].patch = 93;
    d->toolkits[0].origin = strdup("system");
    d->toolkits[0].active = 1;
    d->driver = calloc(1, sizeof(*d->driver));
    d->driver->version = strdup("570.172.08");
    d->driver->cuda_version = 12080;
    d->driver->source = strdup("/proc/driver/nvidia/version");
    return d;
}

static void t_report_keys(void **state)
{
    cudnnctl_ctx *ctx = *state;
    put("/etc/hostname", "node-17\n");
    put("/etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\n"
                           "PRETTY_NAME='Ubuntu 24.04.1 LTS'\n");
    cudnnctl_detect_result *d = small_det();
    cudnnctl_report_opts o;
    memset(&o, 0, sizeof(o));
    o.doctor = 1;
    char *json = NULL;
    assert_int_equal(cudnnctl_report(ctx, d, &o, &json), CUDNNCTL_E_OK);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "format")->valuestring, "cudnnctl-report");
    assert_int_equal(cJSON_GetObjectItem(j, "format_version")->valueint, 1);
    assert_string_equal(cJSON_GetObjectItem(j, "cudnnctl_version")->valuestring,
                        CUDNNCTL_VERSION_STRING);
    const char *t = cJSON_GetObjectItem(j, "created_at")->valuestring;
    assert_int_equal(strlen(t), 20); /* 2026-11-29T18:41:56Z */
    assert_true(t[4] == '-' && t[10] == 'T' && t[19] == 'Z');
    assert_string_equal(cJSON_GetObjectItem(j, "root")->valuestring, root);
    cJSON *host = cJSON_GetObjectItem(j, "host");
    assert_string_equal(cJSON_GetObjectItem(host, "hostname")->valuestring, "node-17");
    cJSON *os = cJSON_GetObjectItem(host, "os");
    assert_string_equal(cJSON_GetObjectItem(os, "id")->valuestring, "ubuntu");
    assert_string_equal(cJSON_GetObjectItem(os, "version_id")->valuestring, "24.04");
    assert_string_equal(cJSON_GetObjectItem(os, "pretty_name")->valuestring, "Ubuntu 24.04.1 LTS");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(os, "kernel")));
    assert_string_equal(cJSON_GetObjectItem(j, "platform")->valuestring, "linux-sbsa");
    cJSON *drv = cJSON_GetObjectItem(j, "driver");
    assert_string_equal(cJSON_GetObjectItem(drv, "version")->valuestring, "570.172.08");
    assert_int_equal(cJSON_GetObjectItem(drv, "cuda_version")->valueint, 12080);
    cJSON *det = cJSON_GetObjectItem(j, "detect");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(det, "toolkits"), 0), "path")
            ->valuestring,
        "/usr/local/cuda-12.8");
    cJSON *doc = cJSON_GetObjectItem(j, "doctor");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(doc, "findings")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "validate")));
    assert_non_null(cJSON_GetObjectItem(j, "installs"));
    cJSON_Delete(j);
    cudnnctl_free(json);
    cudnnctl_detect_result_free(d);
}

static void t_report_without_hostname(void **state)
{
    cudnnctl_ctx *ctx = *state;
    cudnnctl_detect_result *d = small_det();
    char *json = NULL;
    assert_int_equal(cudnnctl_report(ctx, d, NULL, &json), CUDNNCTL_E_OK);
    cJSON *j = cJSON_Parse(json);
    cJSON *host = cJSON_GetObjectItem(j, "host");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(host, "hostname")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(host, "os"), "id")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "doctor")));
    cJSON_Delete(j);
    cudnnctl_free(json);
    cudnnctl_detect_result_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_report_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(t_report_without_hostname, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
