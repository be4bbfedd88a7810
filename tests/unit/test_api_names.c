/* test_api_names.c: the strings behind the public API's enums (what the JSON and the CLI print:
 * install outcome, /usr/local/cuda link kind, use mechanism) and cudnnctl_size_text, the one
 * formatter of byte counts that the CLI and the plan share. Portable (runs under wine too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudnnctl/cudnnctl.h"

static void outcome_names(void **state)
{
    (void)state;
    assert_string_equal(cudnnctl_install_outcome_name(CUDNNCTL_INSTALL_INSTALLED), "installed");
    assert_string_equal(cudnnctl_install_outcome_name(CUDNNCTL_INSTALL_UNCHANGED), "unchanged");
    assert_string_equal(cudnnctl_install_outcome_name(CUDNNCTL_INSTALL_FAILED), "failed");
    assert_string_equal(cudnnctl_install_outcome_name(CUDNNCTL_INSTALL_DRY_RUN), "dry-run");
    /* a zeroed result says failed until the install got somewhere */
    cudnnctl_install_result r = {0};
    assert_int_equal(r.result, CUDNNCTL_INSTALL_FAILED);
    assert_int_equal(r.postcheck, CUDNNCTL_POSTCHECK_NOT_RUN);
}

static void link_kind_and_mechanism_names(void **state)
{
    (void)state;
    assert_string_equal(cudnnctl_cuda_link_kind_name(CUDNNCTL_CUDA_LINK_MISSING), "missing");
    assert_string_equal(cudnnctl_cuda_link_kind_name(CUDNNCTL_CUDA_LINK_LINK), "link");
    assert_string_equal(cudnnctl_cuda_link_kind_name(CUDNNCTL_CUDA_LINK_ALTERNATIVES),
                        "alternatives");
    assert_string_equal(cudnnctl_cuda_link_kind_name(CUDNNCTL_CUDA_LINK_DIRECTORY), "directory");
    assert_string_equal(cudnnctl_cuda_link_kind_name(CUDNNCTL_CUDA_LINK_OTHER), "other");
    assert_string_equal(cudnnctl_cuda_link_kind_name((cudnnctl_cuda_link_kind)99), "other");
    assert_string_equal(cudnnctl_use_mechanism_name(CUDNNCTL_MECH_NONE), "");
    assert_string_equal(cudnnctl_use_mechanism_name(CUDNNCTL_MECH_LINK), "link");
    assert_string_equal(cudnnctl_use_mechanism_name(CUDNNCTL_MECH_ALTERNATIVES), "alternatives");
    assert_string_equal(cudnnctl_use_mechanism_name(CUDNNCTL_MECH_UPDATE_ALTERNATIVES),
                        "update-alternatives");
    assert_string_equal(cudnnctl_use_mechanism_name(CUDNNCTL_MECH_REGISTRY), "registry");
    assert_string_equal(cudnnctl_use_mechanism_name((cudnnctl_use_mechanism)99), "");
}

static void size_text(void **state)
{
    (void)state;
    static const struct {
        double bytes;
        const char *want;
    } t[] = {
        {0, "0 B"},
        {1023, "1023 B"},
        {1024, "1.0 KiB"},
        {1536, "1.5 KiB"},
        {3.0 * 1024 * 1024 + 300 * 1024, "3.3 MiB"},
        {885000000.0, "844.0 MiB"},
        {2.5 * 1024 * 1024 * 1024, "2.5 GiB"},
        {3000.0 * 1024 * 1024 * 1024, "3000.0 GiB"}, /* GiB is the largest unit */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char buf[32];
        cudnnctl_size_text(t[i].bytes, buf, sizeof(buf));
        assert_string_equal(buf, t[i].want);
    }
    char tiny[4];
    cudnnctl_size_text(1536, tiny, sizeof(tiny)); /* truncated, still terminated */
    assert_string_equal(tiny, "1.5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outcome_names),
        cmocka_unit_test(link_kind_and_mechanism_names),
        cmocka_unit_test(size_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
