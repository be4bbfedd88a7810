/* test_fit.c: the pieces the one model decides with (issue 20): requirement specs as pip reads
 * them (a fix never asks pip for what the installed wheel already satisfies), releases compared
 * by major.minor.patch, the first version token of a driver line (both kernel-module formats),
 * a cudnnctl prefix recognised from its lib dir, and the one activation command per scope. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "consumer_int.h"

static void specs(void **state)
{
    (void)state;
    assert_true(cc_consumer_spec_allows("==9.19.0.56", "9.19.0.56"));
    assert_false(cc_consumer_spec_allows("==9.19.0.56", "9.19.1.2"));
    assert_true(cc_consumer_spec_allows("<10.0,>=9.3.0.75", "9.27.0.42"));
    assert_false(cc_consumer_spec_allows("<10.0,>=9.3.0.75", "9.1.0.70"));
    assert_false(cc_consumer_spec_allows("<10.0,>=9.3.0.75", "10.0.0.1"));
    assert_true(cc_consumer_spec_allows("~=9.0", "9.19.0.56"));
    assert_false(cc_consumer_spec_allows("~=9.0", "10.1"));
    assert_true(cc_consumer_spec_allows("==9.19.*", "9.19.1.2"));
    assert_false(cc_consumer_spec_allows("==9.19.*", "9.190.1"));
    assert_true(cc_consumer_spec_allows(" (>=9.8)", "9.19.0.56"));
    assert_false(cc_consumer_spec_allows("!=9.19.0.56", "9.19.0.56"));
}

static void releases(void **state)
{
    (void)state;
    assert_int_equal(cc_ld_same_release("9.19.0.56", "9.19.0"), 1);
    assert_int_equal(cc_ld_same_release("9.19.0.56", "9.19.1.2"), 0);
    assert_int_equal(cc_ld_same_release("9.19.0", "9.1.0"), 0);
    assert_int_equal(cc_ld_same_release("9", "9.19.0"), -1);
    assert_int_equal(cc_ld_same_release(NULL, "9.19.0"), -1);
}

static void driver_lines(void **state)
{
    (void)state;
    char *a = cc_ld_first_version("  580.95.05  Release Build");
    char *b = cc_ld_first_version(" for x86_64  580.95.05  Release Build  (dvs-builder@U16)");
    char *c = cc_ld_first_version(" for x86_64\n580.95.05");
    assert_string_equal(a, "580.95.05");
    assert_string_equal(b, "580.95.05");
    assert_null(c); /* only the module's own line counts */
    free(a);
    free(b);
}

static char tmp[] = "/tmp/test_fit.XXXXXX";

static void prefix_and_fix(void **state)
{
    (void)state;
    char p[600], lib[700], cur[700], other[700];
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    snprintf(p, sizeof(p), "%s/p", tmp);
    snprintf(lib, sizeof(lib), "%s/cudnn-9.19.0.56-cuda13/lib", p);
    snprintf(cur, sizeof(cur), "%s/current/lib", p);
    char cmd[1600];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -s cudnn-9.19.0.56-cuda13 '%s/current'", lib, p);
    assert_int_equal(system(cmd), 0);
    char *pre = cudnnctl_prefix_of(ctx, lib), *pre2 = cudnnctl_prefix_of(ctx, cur);
    assert_string_equal(pre, p);
    assert_string_equal(pre2, p);
    char *now = cudnnctl_activation_fix(ctx, lib, "current", NULL);
    char *login = cudnnctl_activation_fix(ctx, cur, "login", NULL);
    char want[800];
    snprintf(want, sizeof(want), "eval \"$(cudnnctl env --prefix %s)\"", p);
    assert_string_equal(now, want); /* install's P/cudnn-V/lib and validate's P/current/lib: one fix */
    snprintf(want, sizeof(want), "%scudnnctl env --persist --system --prefix %s",
             getuid() == 0 ? "" : "sudo ", p);
    assert_string_equal(login, want);
    /* not a prefix: an LD_LIBRARY_PATH export of the dir */
    snprintf(other, sizeof(other), "%s/tree/lib64", tmp);
    assert_null(cudnnctl_prefix_of(ctx, other));
    char *exp = cudnnctl_activation_fix(ctx, other, "current", NULL);
    snprintf(want, sizeof(want), "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
             other);
    assert_string_equal(exp, want);
    /* env's own selection is kept as given */
    char *env = cudnnctl_activation_fix(ctx, lib, "current", " 13.0");
    assert_string_equal(env, "eval \"$(cudnnctl env 13.0)\"");
    cudnnctl_free(pre);
    cudnnctl_free(pre2);
    cudnnctl_free(now);
    cudnnctl_free(login);
    cudnnctl_free(exp);
    cudnnctl_free(env);
    cudnnctl_ctx_free(ctx);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(specs),
        cmocka_unit_test(releases),
        cmocka_unit_test(driver_lines),
        cmocka_unit_test(prefix_and_fix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
