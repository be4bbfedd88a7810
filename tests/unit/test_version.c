/* test_version.c: version parsing and comparison (cc_version_*, cc_version_cmp_str), CUDA
 * variants from keys and file names, and --cudnn pins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"

static void parse_table(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int ok, n, p0, p1, p2, p3;
    } t[] = {
        {"9", 1, 1, 9, -1, -1, -1},
        {"9.13", 1, 2, 9, 13, -1, -1},
        {"9.13.0", 1, 3, 9, 13, 0, -1},
        {"9.13.0.50", 1, 4, 9, 13, 0, 50},
        {"12.1.20230222", 1, 3, 12, 1, 20230222, -1},
        {"580.65.06", 1, 3, 580, 65, 6, -1},
        {"", 0, 0, 0, 0, 0, 0},
        {"v9", 0, 0, 0, 0, 0, 0},
        {"9.", 0, 0, 0, 0, 0, 0},
        {"9..1", 0, 0, 0, 0, 0, 0},
        {"9.1a", 0, 0, 0, 0, 0, 0},
        {"1.2.3.4.5", 0, 0, 0, 0, 0, 0},
        {"-1", 0, 0, 0, 0, 0, 0},
        {"999999999999", 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_version v;
        int rc = cc_version_parse(t[i].s, &v);
        if (!t[i].ok) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(v.n, t[i].n);
        assert_int_equal(v.part[0], t[i].p0);
        assert_int_equal(v.part[1], t[i].p1);
        assert_int_equal(v.part[2], t[i].p2);
        assert_int_equal(v.part[3], t[i].p3);
        char *back = cc_version_str(&v);
        cc_version w;
        assert_int_equal(cc_version_parse(back, &w), 0);
        assert_int_equal(cc_version_cmp(&v, &w), 0);
        free(back);
    }
}

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

static void compare_table(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int strict; /* cc_version_cmp: missing parts are -1 */
        int padded; /* cc_version_cmp_str: missing parts are 0 */
    } t[] = {
        {"9.13.0.50", "9.13.0.50", 0, 0},   {"9.13.1.26", "9.13.0.50", 1, 1},
        {"9.9.0.52", "9.10.0.56", -1, -1}, /* numeric, not lexical */
        {"9.27.0.42", "9.3.0.75", 1, 1},    {"8.9.7.29", "9.0.0.312", -1, -1},
        {"580", "580.0.0", -1, 0}, /* a driver "580" equals the floor "580" */
        {"525.60.13", "580.65.06", -1, -1}, {"580.65.06", "580.65.06", 0, 0},
        {"580.159.04", "580.65.06", 1, 1},  {"9.3", "9.3.0.75", -1, -1},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_version a, b;
        assert_int_equal(cc_version_parse(t[i].a, &a), 0);
        assert_int_equal(cc_version_parse(t[i].b, &b), 0);
        assert_int_equal(sign(cc_version_cmp(&a, &b)), t[i].strict);
        assert_int_equal(sign(cc_version_cmp(&b, &a)), -t[i].strict);
        assert_int_equal(sign(cc_version_cmp_str(t[i].a, t[i].b)), t[i].padded);
        assert_int_equal(sign(cc_version_cmp_str(t[i].b, t[i].a)), -t[i].padded);
    }
    /* unparseable sorts first */
    assert_true(cc_version_cmp_str("junk", "1") < 0);
}

static void prefix_table(void **state)
{
    (void)state;
    static const struct {
        const char *prefix, *full;
        int match;
    } t[] = {
        {"9", "9.13.0.50", 1},         {"9.13", "9.13.0.50", 1},   {"9.13", "9.13.1.26", 1},
        {"9.13.0.50", "9.13.0.50", 1}, {"9.1", "9.13.0.50", 0},    {"9.13.1", "9.13.0.50", 0},
        {"8", "9.13.0.50", 0},         {"9.13.0", "9.13.0.50", 1},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_version p, f;
        assert_int_equal(cc_version_parse(t[i].prefix, &p), 0);
        assert_int_equal(cc_version_parse(t[i].full, &f), 0);
        assert_int_equal(cc_version_prefix_match(&p, &f), t[i].match);
    }
}

static void cuda_variants(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int ok, major, minor;
    } t[] = {
        {"13", 1, 13, -1},   {"11.5", 1, 11, 5}, {"13.4", 1, 13, 4}, {"0", 0, 0, 0},
        {"cuda13", 0, 0, 0}, {"13.", 0, 0, 0},   {"13.x", 0, 0, 0},  {"", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int M = 0, m = 0;
        int rc = cc_cuda_variant_parse(t[i].s, &M, &m);
        assert_int_equal(rc == 0, t[i].ok);
        if (t[i].ok) {
            assert_int_equal(M, t[i].major);
            assert_int_equal(m, t[i].minor);
        }
    }
    static const struct {
        const char *name, *variant;
    } n[] = {
        {"cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", "13"},
        {"cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip", "13.4"},
        {"cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz", "11.5"},
        {"cudnn-linux-x86_64-8.5.0.96_cuda11-archive.tar.xz", "11"},
        {"cudnn-11.3-linux-x64-v8.2.0.53.tgz", NULL},
        {"cudnn_cudaX-archive.zip", NULL},
    };
    static const struct {
        const char *name, *version;
    } vn[] = {
        {"cudnn/linux-x86_64/cudnn-linux-x86_64-9.15.0.58_cuda13-archive.tar.xz", "9.15.0.58"},
        {"cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip", "9.27.0.42"},
        {"cudnn-11.3-linux-x64-v8.2.0.53.tgz", NULL},
        {"cudnn-linux-x86_64-junk_cuda13-archive.tar.xz", NULL},
    };
    for (size_t i = 0; i < sizeof(vn) / sizeof(vn[0]); i++) {
        char *v = cc_cudnn_version_from_name(vn[i].name);
        if (!vn[i].version)
            assert_null(v);
        else
            assert_string_equal(v, vn[i].version);
        free(v);
    }
    for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
        char *v = cc_cuda_variant_from_name(n[i].name);
        if (!n[i].variant)
            assert_null(v);
        else
            assert_string_equal(v, n[i].variant);
        free(v);
    }
}

static void cudnn_pins(void **state)
{
    (void)state;
    static const struct {
        const char *pin;
        int ok, series, release;
        const char *matches, *rejects;
    } t[] = {
        {"9", 1, 1, 0, "9.27.0.42", "8.9.7.29"},
        {"9.13", 1, 0, 1, "9.13.1.26", "9.1.0.70"},
        {"9.13.x", 1, 1, 0, "9.13.1.26", "9.14.0.64"},
        {"9.13.*", 1, 1, 0, "9.13.0.50", "9.12.0.46"},
        {"9.13.0.50", 1, 0, 0, "9.13.0.50", "9.13.1.26"},
        {"9.13.1", 1, 0, 0, "9.13.1.26", "9.13.0.50"},
        {"nine", 0, 0, 0, NULL, NULL},
        {"9.x.1", 0, 0, 0, NULL, NULL},
        {"", 0, 0, 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_cudnn_pin p;
        int rc = cc_cudnn_pin_parse(t[i].pin, &p);
        assert_int_equal(rc == 0, t[i].ok);
        if (!t[i].ok)
            continue;
        assert_int_equal(p.series, t[i].series);
        assert_int_equal(p.release, t[i].release);
        assert_true(cc_cudnn_pin_match(&p, t[i].matches));
        assert_false(cc_cudnn_pin_match(&p, t[i].rejects));
    }
}

static void relative_paths(void **state)
{
    (void)state;
    static const struct {
        const char *p;
        int ok;
    } t[] = {
        {"cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", 1},
        {"a.zip", 1},
        {"../x.tar.xz", 0},
        {"cudnn/../../etc/passwd", 0},
        {"cudnn/..", 0},
        {"/etc/passwd", 0},
        {"cudnn//x", 0},
        {"cudnn/./x", 0},
        {"cudnn\\x", 0},
        {"C:/x", 0},
        {"http://evil/x", 0},
        {"", 0},
        {"a\nb", 0},
        {"cudnn/..x/ok", 1}, /* a name that merely starts with dots is fine */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const char *why = NULL;
        int rc = cc_relative_path_check(t[i].p, &why);
        assert_int_equal(rc == 0, t[i].ok);
        if (!t[i].ok)
            assert_non_null(why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_table),  cmocka_unit_test(compare_table),
        cmocka_unit_test(prefix_table), cmocka_unit_test(cuda_variants),
        cmocka_unit_test(cudnn_pins),   cmocka_unit_test(relative_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
