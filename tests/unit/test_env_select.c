/* test_env_select.c: resolving env targets (version, toolkit dir, prefix, install dir, follow
 * mode) against a fake root with toolkits 11.8 / 12.4 / 13.0 and a cudnnctl prefix; root-aware
 * link resolution. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "envwire_fixture.h"
#include "envwire_int.h"

static cudnnctl_env_selection *sel_for(fx_t *f, const char *target, unsigned flags,
                                       cudnnctl_err want)
{
    const char *prefixes[] = {"/opt/cudnn"};
    cudnnctl_env_inputs in = {&f->det, prefixes, 1};
    cudnnctl_env_selection *s = NULL;
    cudnnctl_err e = cudnnctl_env_select(f->ctx, &in, target, flags, &s);
    if (e != want)
        fail_msg("select(%s): got %s (%s), want %s", target ? target : "(null)",
                 cudnnctl_err_name(e), cudnnctl_last_error(f->ctx)->detail,
                 cudnnctl_err_name(want));
    return s;
}

static void version_target(void **state)
{
    fx_t *f = *state;
    cudnnctl_env_selection *s = sel_for(f, "12.4", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-12.4");
    assert_int_equal(s->toolkit_major, 12);
    assert_int_equal(s->n_bin_dirs, 1);
    assert_string_equal(s->bin_dirs[0], "/usr/local/cuda-12.4/bin");
    assert_int_equal(s->n_lib_dirs, 1);
    assert_string_equal(s->lib_dirs[0], "/usr/local/cuda-12.4/lib64");
    assert_null(s->cudnn_path);
    assert_int_equal(s->windows, 0);
    /* every detected toolkit is managed; /usr/local/cuda itself is the user's */
    assert_true(fx_has(s->managed, s->n_managed, "/usr/local/cuda-11.8"));
    assert_true(fx_has(s->managed, s->n_managed, "/usr/local/cuda-12.4"));
    assert_true(fx_has(s->managed, s->n_managed, "/usr/local/cuda-13.0"));
    assert_false(fx_has(s->managed, s->n_managed, "/usr/local/cuda"));
    assert_int_equal(s->n_roots, 1);
    assert_string_equal(s->roots[0], "/usr/local/cuda-12.4");
    cudnnctl_env_selection_free(s);
}

static void unknown_version_lists_what_exists(void **state)
{
    fx_t *f = *state;
    sel_for(f, "12.9", 0, CUDNNCTL_E_NO_TOOLKIT);
    const char *d = cudnnctl_last_error(f->ctx)->detail;
    assert_non_null(strstr(d, "11.8 (/usr/local/cuda-11.8)"));
    assert_non_null(strstr(d, "12.4 (/usr/local/cuda-12.4)"));
    assert_non_null(strstr(d, "13.0 (/usr/local/cuda-13.0)"));
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_NO_TOOLKIT), 5);
    sel_for(f, "/nonexistent", 0, CUDNNCTL_E_NOT_FOUND);
}

static void major_only_and_patch(void **state)
{
    fx_t *f = *state;
    cudnnctl_env_selection *s = sel_for(f, "11", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-11.8");
    cudnnctl_env_selection_free(s);
    s = sel_for(f, "13.0.1", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-13.0");
    cudnnctl_env_selection_free(s);
    sel_for(f, "13.0.7", 0, CUDNNCTL_E_NO_TOOLKIT);
    /* two 12.x: "12" alone is ambiguous (exit 2) */
    fx_toolkit(f, 3, 12, 6);
    f->det.n_toolkits = 4;
    sel_for(f, "12", 0, CUDNNCTL_E_USAGE);
    assert_non_null(strstr(cudnnctl_last_error(f->ctx)->detail, "ambiguous"));
    s = sel_for(f, "12.6", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-12.6");
    cudnnctl_env_selection_free(s);
    f->det.n_toolkits = 3;
    free(f->tk[3].path);
    free(f->tk[3].version);
    free(f->tk[3].lib_dir);
    free(f->tk[3].origin);
}

static void dir_target_through_link(void **state)
{
    fx_t *f = *state;
    FX_NEED_LINKS(f);
    /* the link names the real dir; an undetected toolkit reads its own version.json */
    cudnnctl_env_selection *s = sel_for(f, "/usr/local/cuda", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-13.0");
    cudnnctl_env_selection_free(s);
    fx_toolkit(f, 3, 12, 6);
    fx_mkdir(f, "/opt/elsewhere");
    fx_link(f, "/opt/elsewhere/cuda", "/usr/local/cuda-12.6"); /* absolute: inside the root */
    s = sel_for(f, "/opt/elsewhere/cuda", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-12.6");
    assert_string_equal(s->toolkit_version, "12.6.1");
    assert_int_equal(s->toolkit_major, 12);
    assert_string_equal(s->bin_dirs[0], "/usr/local/cuda-12.6/bin");
    cudnnctl_env_selection_free(s);
    free(f->tk[3].path);
    free(f->tk[3].version);
    free(f->tk[3].lib_dir);
    free(f->tk[3].origin);
}

static void cudnn_follows_toolkit_major(void **state)
{
    fx_t *f = *state;
    fx_install(f, "9.1.0.70", 12);
    fx_install(f, "9.19.0.56", 12);
    fx_install(f, "9.19.0.56", 13);
    fx_install(f, "8.9.7.29", 11);
    cudnnctl_env_selection *s = sel_for(f, "12.4", 0, CUDNNCTL_E_OK);
    /* newest for CUDA 12, the cuDNN lib first, then the toolkit's */
    assert_string_equal(s->cudnn_path, "/opt/cudnn/cudnn-9.19.0.56-cuda12");
    assert_string_equal(s->cudnn_version, "9.19.0.56");
    assert_int_equal(s->n_lib_dirs, 2);
    assert_string_equal(s->lib_dirs[0], "/opt/cudnn/cudnn-9.19.0.56-cuda12/lib");
    assert_string_equal(s->lib_dirs[1], "/usr/local/cuda-12.4/lib64");
    assert_true(fx_has(s->managed, s->n_managed, "/opt/cudnn"));
    assert_true(fx_has(s->roots, s->n_roots, "/opt/cudnn/cudnn-9.19.0.56-cuda12"));
    cudnnctl_env_selection_free(s);
    /* `current` wins when it matches the major (the rest needs that link) */
    FX_NEED_LINKS(f);
    fx_link(f, "/opt/cudnn/current", "cudnn-9.1.0.70-cuda12");
    s = sel_for(f, "12.4", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->cudnn_path, "/opt/cudnn/cudnn-9.1.0.70-cuda12");
    cudnnctl_env_selection_free(s);
    s = sel_for(f, "11.8", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->cudnn_path, "/opt/cudnn/cudnn-8.9.7.29-cuda11");
    cudnnctl_env_selection_free(s);
    /* a prefix as target: its current install, and the toolkit of that major */
    s = sel_for(f, "/opt/cudnn", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->cudnn_path, "/opt/cudnn/cudnn-9.1.0.70-cuda12");
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-12.4");
    cudnnctl_env_selection_free(s);
    /* one install dir as target */
    s = sel_for(f, "/opt/cudnn/cudnn-9.19.0.56-cuda13", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->cudnn_path, "/opt/cudnn/cudnn-9.19.0.56-cuda13");
    assert_string_equal(s->toolkit_path, "/usr/local/cuda-13.0");
    assert_int_equal(s->cudnn_cuda_major, 13);
    cudnnctl_env_selection_free(s);
}

static void follow_mode_names_the_links(void **state)
{
    fx_t *f = *state;
    FX_NEED_LINKS(f);
    fx_install(f, "9.19.0.56", 13);
    fx_link(f, "/opt/cudnn/current", "cudnn-9.19.0.56-cuda13");
    cudnnctl_env_selection *s = sel_for(f, NULL, CUDNNCTL_SELECT_FOLLOW, CUDNNCTL_E_OK);
    assert_int_equal(s->follow, 1);
    assert_string_equal(s->toolkit_path, "/usr/local/cuda");
    assert_string_equal(s->cudnn_path, "/opt/cudnn/current");
    assert_string_equal(s->bin_dirs[0], "/usr/local/cuda/bin");
    assert_string_equal(s->lib_dirs[0], "/opt/cudnn/current/lib");
    assert_true(fx_has(s->roots, s->n_roots, "/usr/local/cuda"));
    cudnnctl_env_selection_free(s);
}

static void shared_and_foreign_roots(void **state)
{
    fx_t *f = *state;
    /* a distribution toolkit at /usr and a conda one: never managed, /usr never on PATH */
    char *saved_origin = f->tk[0].origin;
    f->tk[3] = f->tk[0];
    f->tk[3].lib_dir = NULL;
    f->tk[3].path = "/usr";
    f->tk[3].version = "12.0";
    f->tk[3].major = 12;
    f->tk[3].minor = 0;
    f->tk[3].origin = "system";
    f->tk[0].origin = "conda";
    f->det.n_toolkits = 4;
    cudnnctl_env_selection *s = sel_for(f, "12.0", 0, CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_path, "/usr");
    assert_int_equal(s->n_bin_dirs, 0);
    assert_int_equal(s->n_lib_dirs, 0);
    assert_int_equal(s->n_roots, 0);
    assert_false(fx_has(s->managed, s->n_managed, "/usr"));
    assert_false(fx_has(s->managed, s->n_managed, "/usr/local/cuda-11.8"));
    assert_true(s->n_notes >= 1);
    cudnnctl_env_selection_free(s);
    f->det.n_toolkits = 3;
    f->tk[0].origin = saved_origin;
    memset(&f->tk[3], 0, sizeof(f->tk[3]));
}

static void windows_layout(void **state)
{
    fx_t *f = *state;
    cudnnctl_toolkit w[2];
    memset(w, 0, sizeof(w));
    w[0].path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
    w[0].version = "12.4";
    w[0].major = 12;
    w[0].minor = 4;
    w[1].path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0";
    w[1].version = "13.0";
    w[1].major = 13;
    w[1].active = 1;
    cudnnctl_detect_result det = {0};
    det.toolkits = w;
    det.n_toolkits = 2;
    cudnnctl_env_inputs in = {&det, NULL, 0};
    cudnnctl_env_selection *s = NULL;
    assert_int_equal(cudnnctl_env_select(f->ctx, &in, "13.0", 0, &s), CUDNNCTL_E_OK);
    assert_int_equal(s->windows, 1);
    assert_int_equal(s->n_bin_dirs, 2);
    assert_string_equal(s->bin_dirs[1],
                        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin\\x64");
    assert_int_equal(s->n_lib_dirs, 0);
    cudnnctl_env_selection_free(s);
    /* CUDA 12 on Windows: no bin\x64 */
    assert_int_equal(cudnnctl_env_select(f->ctx, &in, "12.4", 0, &s), CUDNNCTL_E_OK);
    assert_int_equal(s->n_bin_dirs, 1);
    cudnnctl_env_selection_free(s);
}

static void realpath_stays_in_root(void **state)
{
    fx_t *f = *state;
    FX_NEED_LINKS(f);
    fx_mkdir(f, "/a/b");
    fx_link(f, "/a/abs", "/usr/local/cuda");   /* absolute -> root's /usr/local/cuda */
    fx_link(f, "/a/b/rel", "../../usr/local"); /* relative */
    fx_link(f, "/a/loop1", "loop2");
    fx_link(f, "/a/loop2", "loop1");
    char *r = cc_env_realpath(f->ctx, "/a/abs/bin");
    assert_string_equal(r, "/usr/local/cuda-13.0/bin");
    free(r);
    r = cc_env_realpath(f->ctx, "/a/b/rel/cuda-12.4/./lib64/../bin");
    assert_string_equal(r, "/usr/local/cuda-12.4/bin");
    free(r);
    r = cc_env_realpath(f->ctx, "/usr/local/missing/x");
    assert_string_equal(r, "/usr/local/missing/x");
    free(r);
    assert_null(cc_env_realpath(f->ctx, "/a/loop1"));
}

static void install_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int ok;
        const char *ver;
        int major;
    } cases[] = {
        {"cudnn-9.19.0.56-cuda13", 1, "9.19.0.56", 13},
        {"cudnn-8.9.7-cuda11", 1, "8.9.7", 11},
        {"cudnn-9.1-cuda", 0, NULL, 0},
        {"cudnn--cuda12", 0, NULL, 0},
        {"cudnn-9.x-cuda12", 0, NULL, 0},
        {"current", 0, NULL, 0},
        {"cudnn-9.1.0-cuda12a", 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *v = NULL;
        int m = -1;
        assert_int_equal(cc_env_parse_install_name(cases[i].name, &v, &m), cases[i].ok);
        if (cases[i].ok) {
            assert_string_equal(v, cases[i].ver);
            assert_int_equal(m, cases[i].major);
        }
        free(v);
    }
}

static void selection_json(void **state)
{
    fx_t *f = *state;
    cudnnctl_env_selection *s = sel_for(f, "12.4", 0, CUDNNCTL_E_OK);
    char *j = NULL;
    assert_int_equal(cudnnctl_env_selection_json(s, &j), CUDNNCTL_E_OK);
    assert_non_null(strstr(j, "\"path_prepend\":[\"/usr/local/cuda-12.4/bin\"]"));
    assert_non_null(strstr(j, "\"cudnn\":null"));
    cudnnctl_free(j);
    cudnnctl_env_selection_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(version_target, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(unknown_version_lists_what_exists, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(major_only_and_patch, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(dir_target_through_link, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(cudnn_follows_toolkit_major, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(follow_mode_names_the_links, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(shared_and_foreign_roots, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(windows_layout, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(realpath_stays_in_root, fx_setup, fx_teardown),
        cmocka_unit_test(install_names),
        cmocka_unit_test_setup_teardown(selection_json, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
