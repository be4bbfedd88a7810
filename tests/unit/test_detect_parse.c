/* test_detect_parse.c: the pure parsers and tables of detect: version.json (with a date patch),
 * version.txt, nvcc output, header macros (CUDA, cuDNN 8.x and 9.x encodings), SONAMEs, the
 * /proc driver line, nvidia-smi output, the driver -> CUDA floor, library and dist-info names,
 * platform keys and the glob of ld.so.conf includes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "detect_int.h"

static void version_json(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc, major, minor, patch, date;
    } cases[] = {
        {"{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"11.5.2\"},"
         "\"cuda_cudart\":{\"name\":\"CUDA Runtime (cudart)\",\"version\":\"11.5.117\"}}",
         0, 11, 5, 2, 0},
        {"{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.1.20230222\"}}", 0, 12, 1, -1, 1},
        {"{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"11.8.20220929\"}}", 0, 11, 8, -1, 1},
        {"{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.2.140\"}}", 0, 12, 2, 140, 0},
        {"{\"cuda\":{\"version\":\"13.3\"}}", 0, 13, 3, -1, 0},
        {"{\"cuda_cudart\":{\"version\":\"12.4.127\"}}", -1, -1, -1, -1, 0},
        {"{\"cuda\":{\"version\":12.4}}", -1, -1, -1, -1, 0},
        {"{\"cuda\":{\"version\":\"garbage\"}}", -1, -1, -1, -1, 0},
        {"{ this is not json", -2, -1, -1, -1, 0},
        {"", -2, -1, -1, -1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cc_detect_ver v;
        int date = -1;
        assert_int_equal(cc_detect_parse_version_json(cases[i].text, &v, &date), cases[i].rc);
        assert_int_equal(v.major, cases[i].major);
        assert_int_equal(v.minor, cases[i].minor);
        assert_int_equal(v.patch, cases[i].patch);
        assert_int_equal(date, cases[i].date);
    }
}

static void version_txt_and_nvcc(void **state)
{
    (void)state;
    cc_detect_ver v;
    assert_int_equal(cc_detect_parse_version_txt("CUDA Version 10.2.89\n", &v), 0);
    assert_int_equal(v.major, 10);
    assert_int_equal(v.minor, 2);
    assert_int_equal(v.patch, 89);
    assert_int_equal(cc_detect_parse_version_txt("CUDA Version 9.0.176", &v), 0);
    assert_int_equal(v.major, 9);
    assert_int_equal(v.patch, 176);
    assert_int_equal(cc_detect_parse_version_txt("cuda 10.2", &v), -1);
    assert_int_equal(cc_detect_parse_version_txt("CUDA Version x.y", &v), -1);

    const char *nvcc13 = "nvcc: NVIDIA (R) Cuda compiler driver\n"
                         "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                         "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                         "Cuda compilation tools, release 13.0, V13.0.88\n"
                         "Build cuda_13.0.r13.0/compiler.36424714_0\n";
    assert_int_equal(cc_detect_parse_nvcc(nvcc13, &v), 0);
    assert_int_equal(v.major, 13);
    assert_int_equal(v.minor, 0);
    assert_int_equal(v.patch, 88);
    assert_int_equal(cc_detect_parse_nvcc("Cuda compilation tools, release 11.8, V11.8.89", &v), 0);
    assert_int_equal(v.major, 11);
    assert_int_equal(v.minor, 8);
    assert_int_equal(v.patch, 89);
    /* no V part: patch unknown */
    assert_int_equal(cc_detect_parse_nvcc("Cuda compilation tools, release 10.2", &v), 0);
    assert_int_equal(v.patch, -1);
    assert_int_equal(cc_detect_parse_nvcc("bash: nvcc: command not found", &v), -1);
}

static void header_macros(void **state)
{
    (void)state;
    long x = 0;
    assert_int_equal(
        cc_detect_parse_define("/* c */\n#define CUDA_VERSION 13000\n", "CUDA_VERSION", &x), 0);
    assert_int_equal(x, 13000);
    assert_int_equal(
        cc_detect_parse_define("#  define CUDART_VERSION  12040 /* x */\n", "CUDART_VERSION", &x),
        0);
    assert_int_equal(x, 12040);
    /* a longer macro name with the same prefix is not the macro */
    assert_int_equal(cc_detect_parse_define("#define CUDA_VERSION_MAJOR 13\n", "CUDA_VERSION", &x),
                     -1);
    /* an expression is not a value */
    assert_int_equal(cc_detect_parse_define("#define CUDNN_VERSION (CUDNN_MAJOR * 10000)\n",
                                            "CUDNN_VERSION", &x),
                     -1);

    cc_detect_ver v;
    static const struct {
        long enc;
        int major, minor;
    } enc[] = {{13000, 13, 0}, {12040, 12, 4}, {11080, 11, 8}, {10020, 10, 2}, {9000, 9, 0}};
    for (size_t i = 0; i < sizeof(enc) / sizeof(enc[0]); i++) {
        assert_int_equal(cc_detect_cuda_encoded(enc[i].enc, &v), 0);
        assert_int_equal(v.major, enc[i].major);
        assert_int_equal(v.minor, enc[i].minor);
    }
    assert_int_equal(cc_detect_cuda_encoded(12, &v), -1);
}

static void cudnn_headers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc, major, minor, patch;
    } cases[] = {
        /* 9.x cudnn_version.h (as in 9.19.0) */
        {"#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n#define CUDNN_MAJOR 9\n"
         "#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n\n#define CUDNN_VERSION "
         "(CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n",
         0, 9, 19, 0},
        /* 8.x cudnn_version.h */
        {"#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n"
         "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n",
         0, 8, 9, 7},
        /* only the encoded number: 8.x and 9.x encodings */
        {"#define CUDNN_VERSION 8907\n", 0, 8, 9, 7},
        {"#define CUDNN_VERSION 91900\n", 0, 9, 19, 0},
        {"#define CUDNN_VERSION 91402\n", 0, 9, 14, 2},
        {"#define CUDNN_VERSION 7605\n", 0, 7, 6, 5},
        /* garbage */
        {"\x7f"
         "ELF\x02\x01 binary junk",
         -1, -1, -1, -1},
        {"#define CUDNN_MAJOR nine\n", -1, -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cc_detect_ver v;
        assert_int_equal(cc_detect_parse_cudnn_header(cases[i].text, &v), cases[i].rc);
        assert_int_equal(v.major, cases[i].major);
        assert_int_equal(v.minor, cases[i].minor);
        assert_int_equal(v.patch, cases[i].patch);
    }
}

static void cudart_sonames(void **state)
{
    (void)state;
    static const struct {
        const char *soname;
        int rc, major, minor;
    } cases[] = {
        {"libcudart.so.13", 0, 13, -1},   {"libcudart.so.12", 0, 12, -1},
        {"libcudart.so.11.0", 0, 11, -1}, /* every 11.x */
        {"libcudart.so.10.2", 0, 10, 2},  {"libcudart.so.9.0", 0, 9, 0},
        {"libcublas.so.13", -1, -1, -1},  {"libcudart.so", -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cc_detect_ver v;
        assert_int_equal(cc_detect_parse_cudart_soname(cases[i].soname, &v), cases[i].rc);
        assert_int_equal(v.major, cases[i].major);
        assert_int_equal(v.minor, cases[i].minor);
    }
}

static void driver_text(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *version;
    } cases[] = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 2025\n"
         "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
         "580.159.04"},
        {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
         "(nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n",
         "580.159.04"},
        {"NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:13:15 UTC "
         "2023\n",
         "535.104.05"},
        {"NVRM version: garbage\n", NULL},
        {"nothing here", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *v = NULL;
        int rc = cc_detect_parse_proc_driver(cases[i].text, &v);
        if (cases[i].version) {
            assert_int_equal(rc, 0);
            assert_string_equal(v, cases[i].version);
        } else {
            assert_int_equal(rc, -1);
            assert_null(v);
        }
        free(v);
    }
    char *v = NULL;
    assert_int_equal(cc_detect_parse_smi("580.159.04\n580.159.04\n", &v), 0);
    assert_string_equal(v, "580.159.04");
    free(v);
    assert_int_equal(
        cc_detect_parse_smi("NVIDIA-SMI has failed because it couldn't communicate with "
                            "the NVIDIA driver.\n",
                            &v),
        -1);
}

static void driver_floor(void **state)
{
    (void)state;
    static const struct {
        const char *driver;
        int cuda;
    } cases[] = {
        {"580.159.04", 13000}, /* observed on the device: cuDriverGetVersion = 13000 */
        {"580.65.06", 13000},  {"580.65.05", 12090}, {"590.44.01", 13010}, {"595.45.04", 13020},
        {"570.124.06", 12080}, {"550.54.14", 12040}, {"525.60.13", 12000}, {"525.60.12", 11080},
        {"520.61.05", 11080},  {"450.80.02", 11000}, {"440.33.01", 10020}, {"410.48", 10000},
        {"390.12", 0},         {"garbage", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(cc_detect_driver_cuda_floor(cases[i].driver), cases[i].cuda);
}

static void library_and_dist_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rc;
        const char *stem;
        int n, p0, p1, p2;
    } libs[] = {
        {"libcudnn_ops.so.9.14.0", 0, "libcudnn_ops", 3, 9, 14, 0},
        {"libcudnn.so.9", 0, "libcudnn", 1, 9, -1, -1},
        {"libcudnn.so", 0, "libcudnn", 0, -1, -1, -1},
        {"libcudnn_ops_infer.so.8.9.7", 0, "libcudnn_ops_infer", 3, 8, 9, 7},
        {"libcudnn_static.a", -1, NULL, 0, -1, -1, -1},
        {"libcudnn.so.9.bak", -1, NULL, 0, -1, -1, -1},
        {"libcudnn.sox", -1, NULL, 0, -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
        char *stem = NULL;
        cc_version v;
        assert_int_equal(cc_detect_parse_libname(libs[i].name, &stem, &v), libs[i].rc);
        if (libs[i].rc == 0) {
            assert_string_equal(stem, libs[i].stem);
            assert_int_equal(v.n, libs[i].n);
            assert_int_equal(v.part[0], libs[i].p0);
            assert_int_equal(v.part[1], libs[i].p1);
            assert_int_equal(v.part[2], libs[i].p2);
        }
        free(stem);
    }
    static const struct {
        const char *name, *pkg;
        int rc, n, p0, p1, p2, p3;
    } dist[] = {
        {"nvidia_cudnn_cu13-9.19.0.56.dist-info", "nvidia_cudnn", 0, 4, 9, 19, 0, 56},
        {"nvidia_cudnn_cu12-9.1.0.70.dist-info", "nvidia_cudnn", 0, 4, 9, 1, 0, 70},
        {"nvidia_cudnn_cu11-8.9.6.50.dist-info", "nvidia_cudnn", 0, 4, 8, 9, 6, 50},
        {"nvidia_cudnn_frontend-1.5.0.dist-info", "nvidia_cudnn", -1, 0, 0, 0, 0, 0},
        {"nvidia_cudnn_cu13-9.19.0.56.egg-info", "nvidia_cudnn", -1, 0, 0, 0, 0, 0},
        {"nvidia_cuda_runtime-13.0.96.dist-info", "nvidia_cuda_runtime", 0, 3, 13, 0, 96, -1},
        {"nvidia_cuda_runtime_cu12-12.4.127.dist-info", "nvidia_cuda_runtime", 0, 3, 12, 4, 127,
         -1},
        {"nvidia_cuda_runtime_cu12-12.4.127.dist-info", "nvidia_cudnn", -1, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof(dist) / sizeof(dist[0]); i++) {
        cc_version v;
        assert_int_equal(cc_detect_parse_dist_info(dist[i].name, dist[i].pkg, &v), dist[i].rc);
        if (dist[i].rc == 0) {
            assert_int_equal(v.n, dist[i].n);
            assert_int_equal(v.part[0], dist[i].p0);
            assert_int_equal(v.part[1], dist[i].p1);
            assert_int_equal(v.part[2], dist[i].p2);
            assert_int_equal(v.part[3], dist[i].p3);
        }
    }
}

static void platform_keys(void **state)
{
    (void)state;
    static const struct {
        const char *os, *machine;
        int tegra;
        const char *key;
    } cases[] = {
        {"linux", "x86_64", 0, "linux-x86_64"},     {"linux", "aarch64", 0, "linux-sbsa"},
        {"linux", "aarch64", 1, "linux-aarch64"},   {"windows", "AMD64", 0, "windows-x86_64"},
        {"windows", "x86_64", 0, "windows-x86_64"}, {"windows", "ARM64", 0, "windows-arm64"},
        {"linux", "ppc64le", 0, "linux-ppc64le"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *k = cc_detect_platform_key(cases[i].os, cases[i].machine, cases[i].tegra);
        assert_non_null(k);
        assert_string_equal(k, cases[i].key);
        free(k);
    }
}

static void globs(void **state)
{
    (void)state;
    assert_true(cc_detect_glob("*.conf", "zz-cuda-13-0.conf"));
    assert_false(cc_detect_glob("*.conf", "cuda.conf.dpkg-old"));
    assert_true(cc_detect_glob("python3*", "python3"));
    assert_true(cc_detect_glob("python3*", "python3.12"));
    assert_false(cc_detect_glob("python3*", "python2.7"));
    assert_true(cc_detect_glob("lib?.so", "liba.so"));
    assert_true(cc_detect_glob("*", ""));
}

/* Build a glibc ld.so cache: optional old "ld.so-1.7.0" table first, then the new one. */
static size_t make_cache(unsigned char *buf, int with_old, const char *const *names,
                         const char *const *paths, size_t n)
{
    size_t off = 0;
    memset(buf, 0, 4096);
    if (with_old) {
        memcpy(buf, "ld.so-1.7.0", 11);
        off = 16 + 12 * n; /* old entries, not read */
        off = (off + 7) & ~(size_t)7;
    }
    unsigned char *h = buf + off;
    memcpy(h, "glibc-ld.so.cache1.1", 20);
    uint32_t nl = (uint32_t)n;
    memcpy(h + 20, &nl, 4);
    size_t str = 48 + 24 * n;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)str, v;
        memcpy(h + str, names[i], strlen(names[i]) + 1);
        str += strlen(names[i]) + 1;
        v = (uint32_t)str;
        memcpy(h + str, paths[i], strlen(paths[i]) + 1);
        str += strlen(paths[i]) + 1;
        int32_t flags = 0x0303;
        memcpy(h + 48 + 24 * i, &flags, 4);
        memcpy(h + 48 + 24 * i + 4, &k, 4);
        memcpy(h + 48 + 24 * i + 8, &v, 4);
    }
    return off + str;
}

static void ld_cache(void **state)
{
    (void)state;
    static const char *const names[] = {"libz.so.1", "libcudnn.so.9", "libcudnn_ops.so.9",
                                        "libcudnn.so.8"};
    static const char *const paths[] = {
        "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
        "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "/opt/old/lib/libcudnn.so.8"};
    unsigned char buf[4096];
    for (int old = 0; old < 2; old++) {
        size_t len = make_cache(buf, old, names, paths, 4);
        cc_strv sv = {0};
        assert_int_equal(cc_detect_parse_ld_cache((const char *)buf, len, "libcudnn", &sv), 0);
        assert_int_equal(sv.n, 3);
        assert_string_equal(sv.v[0], paths[1]);
        assert_string_equal(sv.v[2], paths[3]);
        cc_strv_free(&sv);
        assert_int_equal(cc_detect_parse_ld_cache((const char *)buf, len, NULL, &sv), 0);
        assert_int_equal(sv.n, 4);
        cc_strv_free(&sv);
        /* cut short: offsets point past the end */
        assert_int_equal(cc_detect_parse_ld_cache(
                             (const char *)buf, 48 + 24 * 4 + (old ? 64 : 0) + 5, "libcudnn", &sv),
                         -1);
        cc_strv_free(&sv);
    }
    cc_strv sv = {0};
    assert_int_equal(cc_detect_parse_ld_cache("not a cache at all, just text", 29, NULL, &sv), -1);
    assert_int_equal(sv.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_json),   cmocka_unit_test(version_txt_and_nvcc),
        cmocka_unit_test(header_macros),  cmocka_unit_test(cudnn_headers),
        cmocka_unit_test(cudart_sonames), cmocka_unit_test(driver_text),
        cmocka_unit_test(driver_floor),   cmocka_unit_test(library_and_dist_names),
        cmocka_unit_test(platform_keys),  cmocka_unit_test(globs),
        cmocka_unit_test(ld_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
