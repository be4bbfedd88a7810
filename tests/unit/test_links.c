/* test_links.c: library file names (cc_lib_parse, cc_lib_classify, cc_ln_major), the .so link
 * chain made in staging, SONAME checks (real ELF doubles built with cc, ready-made under wine:
 * elf_fixture.h; the machine's real libcudnn.so.9 when it has one). Fixtures through the
 * platform layer (pf_fixture.h); the cases that make symlinks skip() where none can be made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "elf_fixture.h"
#include "elf_info.h"
#include "links.h"
#include "pf_fixture.h"

#define REAL_CUDNN_DIR "/usr/local/cuda-13.0"

/* The symlinks of a .so chain cannot be made here (wine): clean up and report the case skipped. */
#define SKIP_WITHOUT_SYMLINKS(dir)                                                                 \
    do {                                                                                           \
        if (!pff_posix_symlinks(dir)) {                                                            \
            pff_rm_rf(dir);                                                                        \
            free(dir);                                                                             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static void classify_table(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int is;
        cc_lib_kind kind;
        const char *stem;
        int major;
    } t[] = {
        {"libcudnn.so", 1, CC_LIB_SO_DEV, "libcudnn", -1},
        {"libcudnn.so.9", 1, CC_LIB_SO_MAJOR, "libcudnn", 9},
        {"libcudnn.so.9.19.0", 1, CC_LIB_SO_FULL, "libcudnn", 9},
        {"libcudnn_engines_tensor_ir.so.9.21.1", 1, CC_LIB_SO_FULL, "libcudnn_engines_tensor_ir",
         9},
        {"libcudnn_ops_infer.so.8", 1, CC_LIB_SO_MAJOR, "libcudnn_ops_infer", 8},
        {"libcudnn_adv_static.a", 1, CC_LIB_STATIC, "libcudnn_adv", -1},
        {"libcudnn_adv_static_v9.a", 1, CC_LIB_STATIC_V, "libcudnn_adv", 9},
        {"cudnn64_9.dll", 1, CC_LIB_DLL, "cudnn", 9},
        {"cudnn_graph64_9.dll", 1, CC_LIB_DLL, "cudnn_graph", 9},
        {"cudnn_graph64_9.lib", 1, CC_LIB_IMPLIB_V, "cudnn_graph", 9},
        {"cudnn.lib", 1, CC_LIB_IMPLIB, "cudnn", -1},
        {"libcudart.so.13", 0, CC_LIB_NONE, "", -1},
        {"libcudnnctl.so.0", 0, CC_LIB_NONE, "", -1}, /* cudnnctl's own library, not cuDNN */
        {"libcudnnctl.so", 0, CC_LIB_NONE, "", -1},
        {"libcudnnctl.a", 0, CC_LIB_NONE, "", -1},
        {"libcudnn.so.9.x", 0, CC_LIB_NONE, "", -1},
        {"libcudnn.so.", 0, CC_LIB_NONE, "", -1},
        {"libcudnn.sox", 0, CC_LIB_NONE, "", -1},
        {"cudnn.h", 0, CC_LIB_NONE, "", -1},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_libname ln;
        int is = cc_lib_classify(t[i].name, &ln);
        if (is != t[i].is)
            fail_msg("%s: classified %d, want %d", t[i].name, is, t[i].is);
        if (!is)
            continue;
        assert_int_equal(ln.kind, t[i].kind);
        assert_string_equal(ln.stem, t[i].stem);
        assert_int_equal(ln.major, t[i].major);
    }
}

/* The one parser under cc_lib_classify and cc_ln_major: any library, either OS's names. */
static void parse_table(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        cc_lib_kind kind; /* CC_LIB_NONE: not a library name */
        const char *stem;
        int major, parts;
    } t[] = {
        {"libcudart.so.13", CC_LIB_SO_MAJOR, "libcudart", 13, 1},
        {"libcudart.so.11.0", CC_LIB_SO_FULL, "libcudart", 11, 2},
        {"libcublasLt.so.12.9.1.4", CC_LIB_SO_FULL, "libcublasLt", 12, 4},
        {"libcuda.so", CC_LIB_SO_DEV, "libcuda", -1, 0},
        {"cudart64_12.dll", CC_LIB_DLL, "cudart", 12, 0},
        {"cudart64_110.dll", CC_LIB_DLL, "cudart", 11, 0},
        {"nvrtc64_120_0.dll", CC_LIB_DLL, "nvrtc", 12, 0},
        {"CUDART64_12.DLL", CC_LIB_DLL, "CUDART", 12, 0},
        {"cublas64_12.lib", CC_LIB_IMPLIB_V, "cublas", 12, 0},
        {"nvcuda.dll", CC_LIB_NONE, "", -1, 0},
        {"cudart64_.dll", CC_LIB_NONE, "", -1, 0},
        {"cudart64_12x.dll", CC_LIB_NONE, "", -1, 0},
        {"libcudart.so.13.", CC_LIB_NONE, "", -1, 0},
        {"libcudart.a", CC_LIB_NONE, "", -1, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_libname ln;
        int is = cc_lib_parse(t[i].name, &ln);
        if (is != (t[i].kind != CC_LIB_NONE) || ln.kind != t[i].kind)
            fail_msg("%s: parsed %d (kind %d), want kind %d", t[i].name, is, ln.kind, t[i].kind);
        assert_string_equal(ln.stem, t[i].stem);
        assert_int_equal(ln.major, t[i].major);
        assert_int_equal(ln.parts, t[i].parts);
    }
    /* cc_ln_major: this OS's rules. Linux's: "<stem>.so.N[.n]" of that stem only */
    static const struct {
        const char *name, *stem;
        int linux_major, windows_major;
    } m[] = {
        {"libcudart.so.11.0", "libcudart", 11, -1}, {"libcudart.so.13", "libcudart", 13, -1},
        {"libcudart.so.13.0.88", "libcudart", -1, -1}, {"libcudart.so.13", "libcuda", -1, -1},
        {"cudart64_12.dll", "libcudart", -1, 12},
    };
    int win = strcmp(cc_pf_os(), "windows") == 0;
    assert_int_equal(cc_ln_windows(), win);
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        assert_int_equal(cc_ln_major_for(0, m[i].name, m[i].stem), m[i].linux_major);
        assert_int_equal(cc_ln_major_for(1, m[i].name, m[i].stem), m[i].windows_major);
        assert_int_equal(cc_ln_major(m[i].name, m[i].stem),
                         win ? m[i].windows_major : m[i].linux_major);
    }
}

static void soname_of_doubles_and_non_elf(void **state)
{
    (void)state;
    char *dir = pff_tmpdir("links");
    char *so = cc_path_join(dir, "libcudnn_ops.so.9.19.0");
    assert_int_equal(efx_elf(so, "libcudnn_ops.so.9", "9.19.0"), 0);
    char *soname = cc_elf_soname(so);
    assert_non_null(soname);
    assert_string_equal(soname, "libcudnn_ops.so.9");
    free(soname);
    char *txt = cc_path_join(dir, "notelf");
    pff_write(dir, "notelf", "#!/bin/sh\necho not an ELF file at all, long enough to be read\n");
    assert_null(cc_elf_soname(txt));
    /* a truncated ELF: header only */
    char *trunc = cc_path_join(dir, "trunc.so");
    assert_int_equal(efx_copy(so, trunc, 100), 0);
    cc_pf_stat_t tst;
    assert_int_equal(cc_pf_stat(trunc, &tst), 0);
    assert_int_equal(tst.size, 100);
    assert_null(cc_elf_soname(trunc));
    free(so);
    free(txt);
    free(trunc);
    pff_rm_rf(dir);
    free(dir);
}

static void soname_of_real_cudnn(void **state)
{
    (void)state;
    const char *real = REAL_CUDNN_DIR "/lib/libcudnn.so.9";
    cc_pf_stat_t st;
    if (cc_pf_stat(real, &st) != 0 || !st.exists)
        skip(); /* reported as skipped by cmocka, never as passed */
    char *soname = cc_elf_soname(real);
    assert_non_null(soname);
    assert_string_equal(soname, "libcudnn.so.9");
    free(soname);
}

static void chain_made_for_3part_files(void **state)
{
    (void)state;
    char *dir = pff_tmpdir("links");
    SKIP_WITHOUT_SYMLINKS(dir);
    cudnnctl_ctx *ctx;
    cudnnctl_ctx_new(&ctx);
    const char *subs[] = {"libcudnn", "libcudnn_graph", "libcudnn_ops", NULL};
    char *lib = cc_path_join(dir, "lib");
    pff_mkdir_p(lib);
    /* the staging's lib/ in NVIDIA's layout: one real ELF double libX.so.9.19.0 per library */
    for (int i = 0; subs[i]; i++) {
        char *full = cc_asprintf("%s/%s.so.9.19.0", lib, subs[i]);
        char *soname = cc_asprintf("%s.so.9", subs[i]);
        assert_int_equal(efx_elf(full, soname, "9.19.0"), 0);
        free(full);
        free(soname);
    }
    /* one stale/wrong link the archive might carry: it must be fixed */
    char *stale = cc_path_join(lib, "libcudnn_ops.so.9");
    assert_int_equal(cc_pf_symlink("libcudnn_ops.so.9.18.0", stale), 0);
    free(stale);
    cc_strv made = {0};
    assert_int_equal(cc_links_fix(ctx, lib, &made), CUDNNCTL_E_OK);
    assert_int_equal(made.n, 6);
    for (int i = 0; subs[i]; i++) {
        char *m = cc_asprintf("%s/%s.so.9", lib, subs[i]);
        char *d = cc_asprintf("%s/%s.so", lib, subs[i]);
        char *want = cc_asprintf("%s.so.9.19.0", subs[i]);
        char *want2 = cc_asprintf("%s.so.9", subs[i]);
        char *t1 = cc_pf_readlink(m), *t2 = cc_pf_readlink(d);
        assert_non_null(t1);
        assert_non_null(t2);
        assert_string_equal(t1, want);
        assert_string_equal(t2, want2);
        free(m), free(d), free(want), free(want2), free(t1), free(t2);
    }
    /* idempotent: a second pass changes nothing */
    cc_strv again = {0};
    assert_int_equal(cc_links_fix(ctx, lib, &again), CUDNNCTL_E_OK);
    assert_int_equal(again.n, 0);
    assert_int_equal(cc_links_major(lib, NULL), 9);
    cc_strv_free(&made);
    cc_strv_free(&again);
    free(lib);
    pff_rm_rf(dir);
    free(dir);
    cudnnctl_ctx_free(ctx);
}

static void wheel_style_kept(void **state)
{
    (void)state;
    char *dir = pff_tmpdir("links");
    SKIP_WITHOUT_SYMLINKS(dir);
    cudnnctl_ctx *ctx;
    cudnnctl_ctx_new(&ctx);
    char *so9 = cc_path_join(dir, "libcudnn.so.9");
    assert_int_equal(efx_elf(so9, "libcudnn.so.9", "wheel"), 0);
    cc_strv made = {0};
    assert_int_equal(cc_links_fix(ctx, dir, &made), CUDNNCTL_E_OK);
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_lstat(so9, &st), 0);
    assert_true(st.exists && st.is_reg && !st.is_link); /* kept as the regular file it is */
    char *dev = cc_path_join(dir, "libcudnn.so");
    char *t = cc_pf_readlink(dev);
    assert_non_null(t);
    assert_string_equal(t, "libcudnn.so.9");
    assert_int_equal(made.n, 1);
    free(t), free(dev), free(so9);
    cc_strv_free(&made);
    pff_rm_rf(dir);
    free(dir);
    cudnnctl_ctx_free(ctx);
}

static void soname_mismatch_refused(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx;
    cudnnctl_ctx_new(&ctx);
    char *dir = pff_tmpdir("links");
    char *so = cc_path_join(dir, "libcudnn_cnn.so.9.19.0");
    assert_int_equal(efx_elf(so, "libcudnn_cnn.so.8", "x"), 0);
    assert_int_equal(cc_links_fix(ctx, dir, NULL), CUDNNCTL_E_SONAME);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "libcudnn_cnn.so.8"));
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_SONAME), 1);
    free(so);
    pff_rm_rf(dir);
    free(dir);
    cudnnctl_ctx_free(ctx);
}

static void two_versions_refused(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx;
    cudnnctl_ctx_new(&ctx);
    char *dir = pff_tmpdir("links");
    char *a = cc_path_join(dir, "libcudnn_ops.so.9.19.0");
    char *b = cc_path_join(dir, "libcudnn_ops.so.9.18.0");
    assert_int_equal(efx_elf(a, "libcudnn_ops.so.9", "a"), 0);
    assert_int_equal(efx_elf(b, "libcudnn_ops.so.9", "b"), 0);
    assert_int_equal(cc_links_fix(ctx, dir, NULL), CUDNNCTL_E_BAD_LAYOUT);
    free(a), free(b);
    pff_rm_rf(dir);
    free(dir);
    cudnnctl_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classify_table),
        cmocka_unit_test(parse_table),
        cmocka_unit_test(soname_of_doubles_and_non_elf),
        cmocka_unit_test(soname_of_real_cudnn),
        cmocka_unit_test(chain_made_for_3part_files),
        cmocka_unit_test(wheel_style_kept),
        cmocka_unit_test(soname_mismatch_refused),
        cmocka_unit_test(two_versions_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
