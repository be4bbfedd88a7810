/* test_alternatives.c: update-alternatives state files parsed and written back byte for byte
 * (the samples are what dpkg's update-alternatives 1.21 wrote), malformed ones rejected. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "envwire_fixture.h"
#include "envwire_int.h"

static const char with_slave[] = "auto\n/usr/local/cuda\ncudax\n/usr/local/cuda-x\n\n"
                                 "/usr/local/cuda-12.4\n124\n/usr/local/cuda-12.4/bin\n"
                                 "/usr/local/cuda-13.0\n130\n\n\n";
static const char plain[] = "manual\n/usr/bin/cc\n\n/usr/bin/clang\n10\n/usr/bin/gcc\n20\n\n";

static void roundtrip(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    const char *samples[] = {with_slave, plain};
    for (int i = 0; i < 2; i++) {
        cc_alt a;
        assert_int_equal(cc_alt_parse(ctx, "x", samples[i], &a), CUDNNCTL_E_OK);
        char *back = cc_alt_format(&a);
        assert_string_equal(back, samples[i]);
        free(back);
        cc_alt_free(&a);
    }
    cc_alt a;
    assert_int_equal(cc_alt_parse(ctx, "cuda", with_slave, &a), CUDNNCTL_E_OK);
    assert_string_equal(a.mode, "auto");
    assert_string_equal(a.link, "/usr/local/cuda");
    assert_int_equal(a.n_slaves, 1);
    assert_string_equal(a.slave_names[0], "cudax");
    assert_int_equal(a.n_choices, 2);
    assert_string_equal(a.choices[0].slave_paths[0], "/usr/local/cuda-12.4/bin");
    assert_string_equal(a.choices[1].slave_paths[0], "");
    assert_string_equal(a.choices[1].priority, "130");
    cc_alt_free(&a);
    cudnnctl_ctx_free(ctx);
}

static void malformed(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    const char *bad[] = {
        "",                                           /* empty */
        "sometimes\n/usr/local/cuda\n\n\n",           /* bad mode */
        "auto\n/usr/local/cuda\n",                    /* no slave terminator */
        "auto\n/usr/local/cuda\n\n/usr/local/x\n",    /* choice without priority */
        "auto\n/usr/local/cuda\ns\n/l\n\n/p\n1\n",    /* choice without its slave line */
        "auto\n/usr/local/cuda\n\n/usr/local/x\n5\n", /* no final empty line */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cc_alt a;
        assert_int_equal(cc_alt_parse(ctx, "cuda", bad[i], &a), CUDNNCTL_E_PARSE);
        assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "update-alternatives"));
    }
    cudnnctl_ctx_free(ctx);
}

static void manages_and_find(void **state)
{
    fx_t *f = *state;
    FX_NEED_LINKS(f);
    fx_mkdir(f, "/etc/alternatives");
    fx_write(f, "/var/lib/dpkg/alternatives/cuda", with_slave);
    fx_link(f, "/etc/alternatives/cuda", "/usr/local/cuda-13.0");
    fx_link(f, "/usr/local/cuda", "/etc/alternatives/cuda");
    char *name = NULL;
    assert_int_equal(cc_alt_manages(f->ctx, "/usr/local/cuda", &name), 1);
    assert_string_equal(name, "cuda");
    free(name);
    /* relative form, as some tools write it */
    fx_link(f, "/usr/local/cuda", "../../etc/alternatives/cuda");
    assert_int_equal(cc_alt_manages(f->ctx, "/usr/local/cuda", &name), 1);
    free(name);
    /* a link into /etc/alternatives without a state file is a plain link */
    fx_link(f, "/usr/local/cuda", "/etc/alternatives/nostate");
    assert_int_equal(cc_alt_manages(f->ctx, "/usr/local/cuda", &name), 0);
    assert_null(name);
    cc_alt a;
    assert_int_equal(cc_alt_load(f->ctx, "cuda", &a), CUDNNCTL_E_OK);
    assert_int_equal(cc_alt_find(f->ctx, &a, "/usr/local/cuda-12.4"), 0);
    fx_link(f, "/opt/cuda12", "/usr/local/cuda-12.4");
    fx_mkdir(f, "/opt");
    assert_int_equal(cc_alt_find(f->ctx, &a, "/opt/cuda12"), 0); /* same dir by another name */
    assert_int_equal(cc_alt_find(f->ctx, &a, "/usr/local/cuda-11.8"), -1);
    cc_alt_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip),
        cmocka_unit_test(malformed),
        cmocka_unit_test_setup_teardown(manages_and_find, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
