/* test_core_prims.c: the shared primitives every stage uses instead of its own copy: the ASCII
 * case-insensitive compares (cc_str_ieq / istarts / iends / ieqn / lower), the one growth helper
 * (cc_grow, cc_strs_push, cc_buf, cc_strv) and the one process id (cc_pf_getpid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grow.h"
#include "platform.h"
#include "str.h"

static void case_insensitive_table(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int eq, starts, ends;
    } t[] = {
        {"cudnn64_9.dll", "CUDNN64_9.DLL", 1, 1, 1},
        {"cudnn64_9.DLL", ".dll", 0, 0, 1},
        {"cudnn64_9.Dll", ".dll", 0, 0, 1},
        {"Location: http://x", "location:", 0, 1, 0},
        {"ABCDEF0123", "abcdef0123", 1, 1, 1},
        {"abc", "abcd", 0, 0, 0},
        {"abcd", "abc", 0, 1, 0},
        {"", "", 1, 1, 1},
        {"x", "", 0, 1, 1},
        {"\xc3\x84", "\xc3\xa4", 0, 0, 0}, /* ASCII only: no locale folding of UTF-8 bytes */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        assert_int_equal(cc_str_ieq(t[i].a, t[i].b), t[i].eq);
        assert_int_equal(cc_str_istarts(t[i].a, t[i].b), t[i].starts);
        assert_int_equal(cc_str_iends(t[i].a, t[i].b), t[i].ends);
    }
    assert_int_equal(cc_str_ieq(NULL, "a"), 0);
    assert_int_equal(cc_str_iends("a", NULL), 0);
    /* ieqn: a counted prefix, a need not be terminated past n; both ending early is equal */
    const char hdr[] = {'H', 'T', 'T', 'P', '/', '1'};
    assert_true(cc_str_ieqn(hdr, "http/", 5));
    assert_false(cc_str_ieqn(hdr, "https", 5));
    assert_true(cc_str_ieqn("ab", "AB", 10));
    assert_false(cc_str_ieqn("ab", "ABC", 10));
    char *l = cc_str_lower("SHA256:ABCdef");
    assert_string_equal(l, "sha256:abcdef");
    free(l);
    assert_null(cc_str_lower(NULL));
}

static void grow_exact_and_doubling(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(cc_grow(&v, NULL, n + 1, sizeof(*v)), 0);
        v[n++] = i;
    }
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);
    free(v);

    long long *w = NULL;
    size_t cap = 0;
    assert_int_equal(cc_grow(&w, &cap, 1, sizeof(*w)), 0);
    assert_int_equal(cap, 8);
    long long *before = w;
    assert_int_equal(cc_grow(&w, &cap, 8, sizeof(*w)), 0); /* fits: nothing moves */
    assert_ptr_equal(w, before);
    assert_int_equal(cc_grow(&w, &cap, 9, sizeof(*w)), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(cc_grow(&w, &cap, 100, sizeof(*w)), 0);
    assert_int_equal(cap, 128);
    /* overflow: refused, array and capacity untouched */
    before = w;
    assert_int_equal(cc_grow(&w, &cap, SIZE_MAX / 4, sizeof(*w)), -1);
    assert_ptr_equal(w, before);
    assert_int_equal(cap, 128);
    assert_int_equal(cc_grow(&w, NULL, SIZE_MAX / 2, sizeof(*w)), -1);
    assert_ptr_equal(w, before);
    free(w);
}

static void strs_push_buf_strv(void **state)
{
    (void)state;
    char **v = NULL;
    size_t n = 0;
    for (int i = 0; i < 50; i++)
        assert_int_equal(cc_strs_push(&v, &n, cc_asprintf("s%d", i)), 0);
    assert_int_equal(n, 50);
    assert_string_equal(v[49], "s49");
    assert_null(v[50]); /* kept NULL-terminated */
    assert_int_equal(cc_strs_push(&v, &n, NULL), -1);
    assert_int_equal(n, 50);
    cc_strs_free(v, n);

    cc_buf b = {0};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(cc_buf_printf(&b, "%d,", i % 10), 0);
    assert_int_equal(b.len, 2000);
    assert_int_equal(b.data[b.len], '\0');
    assert_memory_equal(b.data + 1990, "5,6,7,8,9,", 10);
    cc_buf_free(&b);

    cc_strv sv = {0};
    for (int i = 0; i < 20; i++)
        assert_int_equal(cc_strv_push(&sv, "x"), 0);
    assert_int_equal(sv.n, 20);
    assert_null(sv.v[20]);
    cc_strv_free(&sv);
}

static void one_pid(void **state)
{
    (void)state;
    assert_true(cc_pf_getpid() > 0);
    assert_int_equal(cc_pf_pid_alive(cc_pf_getpid()), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(case_insensitive_table),
        cmocka_unit_test(grow_exact_and_doubling),
        cmocka_unit_test(strs_push_buf_strv),
        cmocka_unit_test(one_pid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
