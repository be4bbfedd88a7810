/* test_errors.c: every error code has a name, a message and a valid exit-code group; errors
 * recorded through CC_ERR carry their origin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void every_code_has_text(void **state)
{
    (void)state;
    for (int c = 0; c < CUDNNCTL_E__COUNT; c++) {
        const char *msg = cudnnctl_strerror((cudnnctl_err)c);
        const char *name = cudnnctl_err_name((cudnnctl_err)c);
        assert_non_null(msg);
        assert_true(strlen(msg) > 3);
        assert_non_null(name);
        assert_string_not_equal(name, "UNKNOWN");
        int g = cudnnctl_err_exit_code((cudnnctl_err)c);
        assert_true(g >= 0 && g <= 10);
        assert_true((c == CUDNNCTL_E_OK) == (g == 0));
    }
    assert_string_equal(cudnnctl_strerror((cudnnctl_err)9999), "unknown error");
}

static void exit_groups_follow_cli_md(void **state)
{
    (void)state;
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_USAGE), 2);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_HASH_MISMATCH), 3);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_SIZE_MISMATCH), 3);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_UNSAFE_ARCHIVE), 4);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_NO_MATCH), 5);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_DRIVER_TOO_OLD), 5);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_VALIDATE_FAILED), 6);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_NO_GPU), 7);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_LOCKED), 8);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_PERMISSION), 9);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_NETWORK), 10);
}

static cudnnctl_err fails_here(cudnnctl_ctx *ctx)
{
    CC_RET_ERR(ctx, CUDNNCTL_E_HASH_MISMATCH, "expected %s got %s", "aa", "bb");
}

static void errors_record_origin(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    assert_int_equal(fails_here(ctx), CUDNNCTL_E_HASH_MISMATCH);
    const cudnnctl_error_info *ei = cudnnctl_last_error(ctx);
    assert_int_equal(ei->code, CUDNNCTL_E_HASH_MISMATCH);
    assert_string_equal(ei->detail, "expected aa got bb");
    assert_string_equal(ei->func, "fails_here");
    assert_non_null(strstr(ei->file, "test_errors.c"));
    assert_true(ei->line > 0);
    cudnnctl_ctx_free(ctx);
}

static void fault_injection_fails_nth_call(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cudnnctl_set_fault_injection(ctx, 2);
    void *a = cc_sys_malloc(ctx, 16);
    void *b = cc_sys_malloc(ctx, 16);
    void *c = cc_sys_malloc(ctx, 16);
    assert_non_null(a);
    assert_null(b);
    assert_non_null(c);
    assert_int_equal(cudnnctl_sys_calls(ctx), 3);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_IO);
    free(a);
    free(c);
    cudnnctl_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_code_has_text),
        cmocka_unit_test(exit_groups_follow_cli_md),
        cmocka_unit_test(errors_record_origin),
        cmocka_unit_test(fault_injection_fails_nth_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
