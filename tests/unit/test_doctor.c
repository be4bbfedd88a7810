/* test_doctor.c: doctor's rules on hand-built detect results: each case plants one condition and
 * names the codes that must appear and those that must not (versions, driver floor, sub-libraries,
 * headers, detect's own problems); plus the code table (unique names, every code documented in
 * docs/doctor.md), ordering by severity and the JSON keys. The checks that read links and
 * listings under a temporary --root: test_doctor_links.c. */
#include "doctor_fixture.h"

/* ---- cases -------------------------------------------------------------------------------- */

static void t_empty_machine(void **state)
{
    fx *f = *state;
    RUN(det_new());
    expect(f->res, "NO_TOOLKIT NO_DRIVER NO_CUDNN", "DRIVER_TOO_OLD");
    assert_int_equal(f->res->n_errors, 0);
    assert_int_equal(find(f->res, "NO_CUDNN")->severity, CUDNNCTL_SEV_INFO);
}

static void t_healthy(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/usr/local/cuda-13.0/lib64", "9.19.0", "cuda-tree", set9("9.19.0"));
    c->in_loader_path = 1;
    RUN(d);
    assert_int_equal(f->res->n_findings, 0);
}

static void t_toolkit_disagree(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    cudnnctl_toolkit *t = add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    t->sources_disagree = 1;
    t->readings = calloc(2, sizeof(*t->readings));
    t->n_readings = 2;
    t->readings[0] = (cudnnctl_version_reading){CUDNNCTL_SRC_VERSION_JSON, sd("12.4.1"), 1};
    t->readings[1] = (cudnnctl_version_reading){CUDNNCTL_SRC_NVCC, sd("12.6.20"), 0};
    push(&t->problems, &t->n_problems, "version sources disagree: ...");
    push(&t->problems, &t->n_problems, "/usr/local/cuda-12.4/bin/nvcc is not executable: not run");
    RUN(d);
    expect(f->res, "TOOLKIT_VERSION_DISAGREE TOOLKIT_PROBLEM", "NO_TOOLKIT");
    const cudnnctl_finding *x = find(f->res, "TOOLKIT_VERSION_DISAGREE");
    assert_non_null(strstr(x->message, "nvcc says 12.6.20"));
    /* the disagreement is reported once, not again as a generic problem */
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "TOOLKIT_PROBLEM") == 0;
    assert_int_equal(n, 1);
}

static const struct {
    const char *driver;
    int cuda, estimated, tk_major;
    int too_old;
} driver_cases[] = {
    {"550.54.15", 12040, 0, 13, 1}, /* R550 under CUDA 13 (floor 580.65.06) */
    {"580.65.06", 13000, 0, 13, 0}, /* exactly the floor */
    {"580.159.04", 13000, 0, 13, 0}, {"525.60.13", 12000, 0, 12, 0}, /* CUDA 12 floor */
    {"470.82.01", 11040, 0, 12, 1},  {NULL, 12020, 0, 13, 1}, /* only cuDriverGetVersion known */
    {NULL, 12020, 1, 13, 0}, /* an estimate (lower bound) proves nothing */
    {NULL, 13000, 0, 13, 0},
};

static void t_driver_floor(void **state)
{
    fx *f = *state;
    for (size_t i = 0; i < sizeof(driver_cases) / sizeof(driver_cases[0]); i++) {
        cudnnctl_detect_result *d = det_new();
        add_tk(d, "/usr/local/cuda", driver_cases[i].tk_major, 0, 1);
        set_driver(d, driver_cases[i].driver, driver_cases[i].cuda, driver_cases[i].estimated);
        cudnnctl_doctor_result *r = run(f->ctx, d);
        if (driver_cases[i].too_old != (find(r, "DRIVER_TOO_OLD") != NULL)) {
            print_message("driver case %zu (%s)\n", i, driver_cases[i].driver);
            dump(r);
            fail();
        }
        if (driver_cases[i].too_old)
            assert_int_equal(find(r, "DRIVER_TOO_OLD")->severity, CUDNNCTL_SEV_ERROR);
        assert_null(find(r, "NO_DRIVER"));
        cudnnctl_doctor_result_free(r);
    }
}

static void t_driver_floor_of_cudnn_variant(void **state)
{
    /* toolkit 12 is fine with R550, but a cu13 wheel needs R580 */
    fx *f = *state;
    mk("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib");
    mk("/venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info");
    mk("/venv/lib/python3.11/site-packages/nvidia_cublas-13.1.0.3.dist-info");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    set_driver(d, "550.54.15", 12040, 0);
    add_cu(d, "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", "9.19.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, "DRIVER_TOO_OLD", "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(find(f->res, "DRIVER_TOO_OLD")->message, "CUDA 13"));
}

static void t_mixed_sublibs(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.8", 12, 8, 1);
    char libs[4096];
    snprintf(libs, sizeof(libs), "%s libcudnn_engines_tensor_ir.so.9.23.0", set9("9.20.0"));
    /* one sub-library from another release */
    char *p = strstr(libs, "libcudnn_ops.so.9.20.0");
    memcpy(p, "libcudnn_ops.so.9.14.0", 22);
    cudnnctl_cudnn_copy *c = add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.20.0", "system", libs);
    push(&c->problems, &c->n_problems,
         "sub-libraries in /usr/lib/x86_64-linux-gnu disagree in "
         "version (...)");
    RUN(d);
    expect(f->res, "CUDNN_MIXED_SUBLIBS", "CUDNN_PROBLEM CUDNN_INCOMPLETE");
    const cudnnctl_finding *x = find(f->res, "CUDNN_MIXED_SUBLIBS");
    assert_int_equal(x->severity, CUDNNCTL_SEV_ERROR);
    assert_non_null(strstr(x->message, "9.14.0: libcudnn_ops.so.9.14.0"));
    assert_non_null(strstr(x->message, "9.23.0: libcudnn_engines_tensor_ir.so.9.23.0"));
    assert_string_equal(x->path, "/usr/lib/x86_64-linux-gnu");
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "CUDNN_MIXED_SUBLIBS") == 0;
    assert_int_equal(n, 1);
}

static void t_incomplete_and_missing_sublibs(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    add_cu(d, "/opt/a/lib", "9.19.0", "prefix",
           "libcudnn.so.9.19.0 libcudnn_ops.so.9.19.0 libcudnn_cnn.so.9.19.0");
    add_cu(d, "/opt/b/lib", "8.9.7", "prefix",
           "libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7");
    RUN(d);
    expect(f->res, "CUDNN_INCOMPLETE CUDNN_SUBLIB_MISSING", NULL);
    int graph = 0, shim8 = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_INCOMPLETE") != 0)
            continue;
        graph |= strstr(x->message, "libcudnn_graph.so.9") != NULL;
        shim8 |= strstr(x->message, "libcudnn.so.8") != NULL;
    }
    assert_true(graph);
    assert_true(shim8);
}

static void t_headers(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/usr/local/cuda-13.0/lib64", "9.14.0", "cuda-tree", set9("9.14.0"));
    c->header_version = sd("9.19.0");
    c->include_dir = sd("/usr/local/cuda-13.0/include");
    push(&c->problems, &c->n_problems,
         "headers in /usr/local/cuda-13.0/include say cuDNN 9.19.0 "
         "but the libraries in /x are 9.14.0: ...");
    cudnnctl_cudnn_copy *h = add_cu(d, "/usr/include", "8.9.7", "system", NULL);
    h->include_dir = sd("/usr/include");
    h->header_version = sd("8.9.7");
    push(&h->problems, &h->n_problems,
         "cuDNN 8.9.7 headers in /usr/include have no libcudnn "
         "libraries beside them");
    RUN(d);
    expect(f->res, "CUDNN_HEADER_MISMATCH CUDNN_HEADERS_ONLY", "CUDNN_PROBLEM");
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "CUDNN_HEADER_MISMATCH") == 0;
    assert_int_equal(n, 1);
}

static void t_detect_problem_texts(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", set9("9.19.0"));
    push(&c->problems, &c->n_problems, "/x/lib/libcudnn_ops.so.9.19.0 has no SONAME");
    push(&c->problems, &c->n_problems, "dist-info in /s says cuDNN 9.19.0.56 but the copy is 9.1");
    push(&c->problems, &c->n_problems,
         "only the major version of /x/lib is known (no versioned file names, headers or "
         "dist-info)");
    push(&c->problems, &c->n_problems, "something detect learned later");
    RUN(d);
    expect(f->res, "CUDNN_BAD_LIBRARY CUDNN_DIST_INFO_MISMATCH CUDNN_VERSION_UNKNOWN CUDNN_PROBLEM",
           NULL);
    assert_non_null(strstr(find(f->res, "CUDNN_PROBLEM")->message, "learned later"));
}


static void t_order_and_json(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new(); /* info + warnings */
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", "libcudnn_ops.so.9.19.0");
    (void)c;
    RUN(d);
    for (size_t i = 1; i < f->res->n_findings; i++)
        assert_true(f->res->findings[i - 1].severity >= f->res->findings[i].severity);
    assert_true(f->res->n_errors >= 1); /* incomplete */
    char *json = NULL;
    assert_int_equal(cudnnctl_doctor_result_json(f->res, &json), CUDNNCTL_E_OK);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    cJSON *arr = cJSON_GetObjectItem(j, "findings");
    assert_int_equal(cJSON_GetArraySize(arr), (int)f->res->n_findings);
    cJSON *x = cJSON_GetArrayItem(arr, 0);
    const char *keys[] = {"code", "severity", "message", "fix"};
    for (size_t i = 0; i < 4; i++)
        assert_true(cJSON_IsString(cJSON_GetObjectItem(x, keys[i])));
    assert_string_equal(cJSON_GetObjectItem(x, "severity")->valuestring, "error");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    assert_int_equal((int)cJSON_GetObjectItem(j, "errors")->valuedouble, (int)f->res->n_errors);
    cJSON_Delete(j);
    cudnnctl_free(json);
}

static void t_malformed_input(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", set9("9.19.0"));
    free(c->version);
    c->version = NULL;
    cudnnctl_doctor_result *r = NULL;
    assert_int_equal(cudnnctl_doctor(f->ctx, d, NULL, &r), CUDNNCTL_E_USAGE);
    assert_null(r);
    cudnnctl_detect_result_free(d);
}

static void t_code_table_documented(void **state)
{
    (void)state;
    size_t n = 0;
    const cudnnctl_doctor_code *codes = cudnnctl_doctor_codes(&n);
    assert_true(n >= 30);
    char path[1024];
    snprintf(path, sizeof(path), "%s/docs/doctor.md", CUDNNCTL_SOURCE_DIR);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char doc[256 * 1024];
    size_t len = fread(doc, 1, sizeof(doc) - 1, fp);
    fclose(fp);
    doc[len] = '\0';
    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++)
            assert_string_not_equal(codes[i].code, codes[k].code);
        char heading[128];
        snprintf(heading, sizeof(heading), "### %s ", codes[i].code);
        if (!strstr(doc, heading)) {
            print_message("docs/doctor.md has no section \"%s(severity)\"\n", heading);
            fail();
        }
        /* the documented severity matches the table */
        char sev[160];
        snprintf(sev, sizeof(sev), "### %s (%s)", codes[i].code,
                 cudnnctl_severity_name(codes[i].severity));
        if (!strstr(doc, sev)) {
            print_message("docs/doctor.md: \"%s\" not found\n", sev);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_empty_machine, setup, teardown),
        cmocka_unit_test_setup_teardown(t_healthy, setup, teardown),
        cmocka_unit_test_setup_teardown(t_toolkit_disagree, setup, teardown),
        cmocka_unit_test_setup_teardown(t_driver_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(t_driver_floor_of_cudnn_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_mixed_sublibs, setup, teardown),
        cmocka_unit_test_setup_teardown(t_incomplete_and_missing_sublibs, setup, teardown),
        cmocka_unit_test_setup_teardown(t_headers, setup, teardown),
        cmocka_unit_test_setup_teardown(t_detect_problem_texts, setup, teardown),
        cmocka_unit_test_setup_teardown(t_order_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(t_malformed_input, setup, teardown),
        cmocka_unit_test(t_code_table_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
