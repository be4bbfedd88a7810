/* test_validate.c: the pure parts of validation: version encodings, file-name versions, the
 * loaded-from rule, fp16, header parsing, CPU references, target search, the child's environment
 * and how the parent reads a child's report (crash, hang, vendor text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libnames.h"
#include "pf_fixture.h"
#include "validate_int.h"

static void test_decode_versions(void **state)
{
    (void)state;
    static const struct {
        long raw;
        int M, m, p;
    } t[] = {{91900, 9, 19, 0}, {91400, 9, 14, 0}, {90100, 9, 1, 0}, {8907, 8, 9, 7},
             {8600, 8, 6, 0},   {7605, 7, 6, 5},   {100203, 10, 2, 3}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int M, m, p;
        cc_val_decode_cudnn_version(t[i].raw, &M, &m, &p);
        assert_int_equal(M, t[i].M);
        assert_int_equal(m, t[i].m);
        assert_int_equal(p, t[i].p);
    }
}

static void test_file_version(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n, v[3];
    } t[] = {{"/x/libcudnn_ops.so.9.19.0", 3, {9, 19, 0}},
             {"libcudnn.so.9", 1, {9, 0, 0}},
             {"libcudnn.so.9.19", 2, {9, 19, 0}},
             {"libcudnn.so", 0, {0, 0, 0}},
             {"/a.so.1/libcudnn_cnn_infer.so.8.9.7", 3, {8, 9, 7}},
             {"libcudnn_adv.so.9.1.0", 3, {9, 1, 0}}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int v[3] = {0, 0, 0};
        assert_int_equal(cc_val_file_version(t[i].name, v), t[i].n);
        for (int k = 0; k < t[i].n; k++)
            assert_int_equal(v[k], t[i].v[k]);
    }
}

static void test_judge_module(void **state)
{
    (void)state;
    static const struct {
        const char *mapped, *real, *dir_real, *target_real;
        const char *expect; /* NULL = passes, else a substring of the reason */
    } t[] = {
        {"/p/lib/libcudnn_ops.so.9", "/p/lib/libcudnn_ops.so.9.19.0", "/p/lib", "/p/lib", NULL},
        {"/p/current/lib/libcudnn.so.9", "/p/cudnn-9.19.0/lib/libcudnn.so.9.19.0",
         "/p/cudnn-9.19.0/lib", "/p/cudnn-9.19.0/lib", NULL},
        /* a symlink in the target dir to a same-version file elsewhere is the target's file */
        {"/p/lib/libcudnn_adv.so.9", "/usr/local/cuda/lib/libcudnn_adv.so.9", "/p/lib", "/p/lib",
         NULL},
        {"/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9",
         "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0", "/usr/lib/x86_64-linux-gnu",
         "/p/lib", "not from the validated dir"},
        {"/p/lib/libcudnn_ops.so.9", "/p/lib/libcudnn_ops.so.9.1.0", "/p/lib", "/p/lib",
         "carries version 9.1.0"},
        {"/p/lib/libcudnn_ops.so.8", "/p/lib/libcudnn_ops.so.8", "/p/lib", "/p/lib",
         "carries version 8"},
        {"/p/lib/libcudnn_ops.so.9.19", "/p/lib/libcudnn_ops.so.9.19", "/p/lib", "/p/lib", NULL},
        {"/p/lib/libcudnn_ops.so.9.18", "/p/lib/libcudnn_ops.so.9.18", "/p/lib", "/p/lib",
         "carries version 9.18"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *why = cc_val_judge_module(t[i].mapped, t[i].real, t[i].dir_real, t[i].target_real,
                                        9, 19, 0);
        if (!t[i].expect) {
            if (why)
                fail_msg("case %zu: unexpected failure: %s", i, why);
        } else {
            assert_non_null(why);
            if (!strstr(why, t[i].expect))
                fail_msg("case %zu: '%s' lacks '%s'", i, why, t[i].expect);
            assert_non_null(strstr(why, cc_path_base(t[i].mapped)));
        }
        free(why);
    }
}

static void test_fp16(void **state)
{
    (void)state;
    static const struct {
        float f;
        uint16_t h;
    } t[] = {{1.0f, 0x3c00}, {-2.0f, 0xc000}, {0.5f, 0x3800}, {65504.0f, 0x7bff},
             {0.0f, 0x0000}, {-0.125f, 0xb000}, {5.9604645e-8f, 0x0001}, /* 2^-24 */
             {2049.0f, 0x6800}, /* tie → even (2048) */ {2051.0f, 0x6802}, /* tie → even (2052) */
             {1e-9f, 0x0000}, {1e6f, 0x7c00}, {0.1f, 0x2e66}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (cc_val_f2h(t[i].f) != t[i].h)
            fail_msg("f2h(%g) = %#x, want %#x", (double)t[i].f, cc_val_f2h(t[i].f), t[i].h);
    }
    /* every test value k/8 survives the round trip exactly */
    for (int k = -8; k <= 8; k++) {
        float f = (float)k / 8.0f;
        assert_true(cc_val_h2f(cc_val_f2h(f)) == f);
    }
    assert_true(cc_val_h2f(0x0001) == 5.9604645e-8f);
    assert_true(cc_val_h2f(0x7bff) == 65504.0f);
    assert_true(cc_val_h2f(0x0200) == 3.0517578e-5f); /* subnormal */
}

static void test_header_version(void **state)
{
    (void)state;
    char *v = cc_val_header_version("/* x */\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n"
                                    "#define CUDNN_PATCHLEVEL 0\n#define CUDNN_VERSION (x)\n");
    assert_non_null(v);
    assert_string_equal(v, "9.19.0");
    free(v);
    v = cc_val_header_version("#  define   CUDNN_MAJOR\t8\n#define CUDNN_MINOR 9\n"
                              "#define CUDNN_PATCHLEVEL 7\n#define CUDNN_MAJOR_X 1\n");
    assert_non_null(v);
    assert_string_equal(v, "8.9.7");
    free(v);
    assert_null(cc_val_header_version("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n"));
    /* the real header of this machine, when it has one */
    FILE *f = fopen("/usr/local/cuda-13.0/include/cudnn_version.h", "r");
    if (f) {
        char buf[8192];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        v = cc_val_header_version(buf);
        assert_non_null(v);
        assert_string_equal(v, "9.19.0");
        free(v);
    }
}

static void test_references(void **state)
{
    (void)state;
    /* 1x1x3x3 input 1..9, 1x1x2x2 weights {1,0,0,-1}, pad 0 stride 1: y = x[i][j] - x[i+1][j+1] */
    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 0, 0, -1};
    double y[4];
    cc_val_ref_conv(x, w, y, 1, 1, 3, 3, 1, 2, 2, 0, 1, 2, 2);
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == -4.0);
    /* pad 1, stride 2: corners see only the centre tap's neighbours */
    double yp[4];
    cc_val_ref_conv(x, w, yp, 1, 1, 3, 3, 1, 2, 2, 1, 2, 2, 2);
    assert_true(yp[0] == -1.0); /* w[3] * x[0][0] */
    assert_true(yp[3] == -4.0); /* x[1][1] - x[2][2] */
    assert_true(yp[1] == -3.0); /* row -1 is padding: w[3] * x[0][2] */
    double r[9];
    const float xr[3] = {-1.0f, 0.0f, 2.5f};
    cc_val_ref_relu(xr, r, 3);
    assert_true(r[0] == 0 && r[1] == 0 && r[2] == 2.5);
    const float xp[16] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, 0, 9, 0, 0};
    double mp[4];
    cc_val_ref_maxpool(xp, mp, 1, 1, 4, 4, 2, 2, 2);
    assert_true(mp[0] == 6 && mp[1] == 8 && mp[2] == 9 && mp[3] == 0);
    /* compare: tolerance is relative to 1 + |ref|; NaN fails */
    const double ref[3] = {0, 100, -3};
    float got[3] = {0.00005f, 100.009f, -3};
    double m;
    assert_true(cc_val_compare(got, ref, 3, 1e-4, &m));
    assert_true(m > 0.008 && m < 0.0095);
    got[1] = 100.02f;
    assert_false(cc_val_compare(got, ref, 3, 1e-4, &m));
    got[1] = 0.0f / 0.0f;
    assert_false(cc_val_compare(got, ref, 3, 1e-2, &m));
    /* the data are multiples of 1/8 in [-1, 1] and not all equal */
    float d[64];
    cc_val_fill(d, 64, 3);
    int distinct = 0;
    for (int i = 0; i < 64; i++) {
        assert_true(d[i] >= -1.0f && d[i] <= 1.0f);
        assert_true(d[i] * 8.0f == (float)(int)(d[i] * 8.0f));
        if (d[i] != d[0])
            distinct = 1;
    }
    assert_true(distinct);
}

static char *tmpdir; /* made by setup, removed by teardown */

/* The library file names of this OS (libnames.h): the same cases with Linux or Windows names. */
enum { CUDNN8, CUDNN9, CUDNN9_OTHER, CUDNN_OPS9, CUDART11, CUDART12, CUDNN_GRAPH9 };
static const char *const linux_names[] = {"libcudnn.so.8",     "libcudnn.so.9",
                                          "libcudnn.so.9.19.0", "libcudnn_ops.so.9",
                                          "libcudart.so.11.0", "libcudart.so.12",
                                          "libcudnn_graph.so.9"};
/* CUDNN9_OTHER: not the plain cudnn64_9.dll (an import library), so never picked */
static const char *const windows_names[] = {"cudnn64_8.dll",    "cudnn64_9.dll",
                                            "cudnn64_9.lib",    "cudnn_ops64_9.dll",
                                            "cudart64_110.dll", "cudart64_12.dll",
                                            "cudnn_graph64_9.dll"};

static const char *nm(int which)
{
    return (cc_ln_windows() ? windows_names : linux_names)[which];
}

static void touch(const char *dir, const char *name)
{
    char *p = pff_join(dir, name);
    cc_pf_fd fd = cc_pf_open(p, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_close(fd), 0);
    free(p);
}

static int setup(void **state)
{
    (void)state;
    tmpdir = pff_tmpdir("test-validate");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pff_rm_rf(tmpdir);
    cc_pf_stat_t st;
    int gone = cc_pf_lstat(tmpdir, &st) == 0 && !st.exists;
    free(tmpdir);
    return gone ? 0 : -1;
}

static void test_find_soname(void **state)
{
    (void)state;
    for (int i = CUDNN8; i <= CUDART12; i++)
        touch(tmpdir, nm(i));
    char *name = NULL;
    assert_int_equal(cc_val_find_soname(tmpdir, "libcudnn", -1, &name), 9);
    assert_string_equal(name, nm(CUDNN9));
    free(name);
    assert_int_equal(cc_val_find_soname(tmpdir, "libcudnn", 8, NULL), 8);
    assert_int_equal(cc_val_find_soname(tmpdir, "libcudnn", 7, NULL), -1);
    assert_int_equal(cc_val_find_soname(tmpdir, "libcudart", 11, &name), 11);
    assert_string_equal(name, nm(CUDART11));
    free(name);
    assert_int_equal(cc_val_find_soname(tmpdir, "libcudart", -1, NULL), 12);
    assert_int_equal(cc_val_find_soname("/nonexistent/dir", "libcudnn", -1, NULL), -1);
}

static void test_resolve_prefix(void **state)
{
    (void)state;
    /* a prefix install: P/cudnn-9.19.0-cuda13/lib + P/current -> it (a POSIX symlink: Windows
     * prefixes use a junction and bin\, which test_winpolicy and tests/windows cover) */
    if (!pff_posix_symlinks(tmpdir))
        skip(); /* reported as skipped where POSIX symlinks cannot be made */
    char *p = pff_join(tmpdir, "prefix");
    char lib[256], cur[256], inc[256];
    snprintf(lib, sizeof(lib), "%s/cudnn-9.19.0-cuda13/lib", p);
    snprintf(inc, sizeof(inc), "%s/cudnn-9.19.0-cuda13/include", p);
    snprintf(cur, sizeof(cur), "%s/current", p);
    pff_mkdir_p(lib);
    pff_write(inc, "cudnn_version.h",
              "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
    assert_int_equal(cc_pf_symlink("cudnn-9.19.0-cuda13", cur), 0);
    touch(lib, "libcudnn.so.9");
    touch(tmpdir, "libcudart.so.12");
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cudnnctl_validate_opts o;
    memset(&o, 0, sizeof(o));
    o.target = p;
    o.cuda_home = tmpdir; /* holds libcudart.so.12 */
    cc_val_target t;
    assert_int_equal(cc_val_resolve_target(ctx, &o, &t), CUDNNCTL_E_OK);
    char want[512];
    snprintf(want, sizeof(want), "%s/current/lib", p);
    assert_string_equal(t.lib_dir, want);
    assert_int_equal(t.major, 9);
    assert_non_null(t.header_version);
    assert_string_equal(t.header_version, "9.19.0");
    assert_int_equal((int)t.toolkit_dirs.n, 1);
    assert_string_equal(t.toolkit_dirs.v[0], tmpdir);
    cc_val_target_free(&t);
    cudnnctl_ctx_free(ctx);
    free(p);
}

static void test_resolve_target(void **state)
{
    (void)state;
    /* a lib dir with its header beside it, in this OS's names (Windows: cudnn64_9.dll) */
    char *d = pff_join(tmpdir, "cudnn-dir");
    char *lib = pff_join(d, "lib");
    char *inc = pff_join(d, "include");
    pff_mkdir_p(lib);
    pff_mkdir_p(inc);
    touch(lib, nm(CUDNN9));
    touch(tmpdir, nm(CUDART12));
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cudnnctl_validate_opts o;
    memset(&o, 0, sizeof(o));
    o.cuda_home = tmpdir;
    cc_val_target t;
    /* the file itself */
    char *file = pff_join(lib, nm(CUDNN9));
    o.target = file;
    assert_int_equal(cc_val_resolve_target(ctx, &o, &t), CUDNNCTL_E_OK);
    assert_string_equal(t.lib_dir, lib);
    assert_int_equal(t.major, 9);
    assert_int_equal((int)t.toolkit_dirs.n, 1);
    assert_string_equal(t.toolkit_dirs.v[0], tmpdir);
    cc_val_target_free(&t);
    /* the dir that holds it */
    o.target = lib;
    assert_int_equal(cc_val_resolve_target(ctx, &o, &t), CUDNNCTL_E_OK);
    assert_string_equal(t.lib_dir, lib);
    cc_val_target_free(&t);
    /* nothing there: the message names what to give */
    o.target = inc;
    assert_int_equal(cc_val_resolve_target(ctx, &o, &t), CUDNNCTL_E_NOT_FOUND);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "libcudnn.so.9"));
    /* a --cuda-home without libcudart is refused at once */
    o.target = lib;
    o.cuda_home = inc;
    assert_int_equal(cc_val_resolve_target(ctx, &o, &t), CUDNNCTL_E_NOT_FOUND);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--cuda-home"));
    cudnnctl_ctx_free(ctx);
    free(file);
    free(d);
    free(lib);
    free(inc);
}

static void test_child_env(void **state)
{
    (void)state;
    char *withdnn = pff_join(tmpdir, "cudnnbin");
    pff_mkdir_p(withdnn);
    touch(withdnn, nm(CUDNN_GRAPH9));
    /* PATH in this OS's form; the dir holding cuDNN is dropped, the others kept in order */
    char sep = cc_pf_path_list_sep();
    const char *a = sep == ';' ? "C:\\Windows\\system32" : "/usr/bin";
    const char *b = sep == ';' ? "C:\\Windows" : "/bin";
    char path[512], want_path[512];
    snprintf(path, sizeof(path), "%s%c%s%c%s", a, sep, withdnn, sep, b);
    snprintf(want_path, sizeof(want_path), "PATH=%s%c%s", a, sep, b);
    assert_int_equal(cc_pf_setenv("PATH", path), 0);
    assert_int_equal(cc_pf_setenv("LD_LIBRARY_PATH", withdnn), 0);
    assert_int_equal(cc_pf_setenv("LD_PRELOAD", "/x.so"), 0);
    assert_int_equal(cc_pf_setenv("CUDA_VISIBLE_DEVICES", "1"), 0);
    assert_int_equal(cc_pf_setenv("CUDNN_LOGLEVEL_DBG", "2"), 0);
    cc_strv env = {0};
    assert_int_equal(cc_val_child_env(&env), 0);
    cc_pf_setenv("LD_PRELOAD", NULL);
    cc_pf_setenv("LD_LIBRARY_PATH", NULL);
    int saw_path = 0, saw_cvd = 0, saw_log = 0;
    for (size_t i = 0; i < env.n; i++) {
        assert_false(cc_str_starts(env.v[i], "LD_LIBRARY_PATH="));
        assert_false(cc_str_starts(env.v[i], "LD_PRELOAD="));
        if (cc_str_starts(env.v[i], "PATH=")) {
            saw_path = 1;
            assert_string_equal(env.v[i], want_path);
        }
        saw_cvd |= strcmp(env.v[i], "CUDA_VISIBLE_DEVICES=1") == 0;
        saw_log |= strcmp(env.v[i], "CUDNN_LOGLEVEL_DBG=2") == 0;
    }
    assert_true(saw_path && saw_cvd && saw_log);
    assert_null(env.v[env.n]);
    cc_strv_free(&env);
    free(withdnn);
}

static cudnnctl_validate_result *parse(const char *stream, int status)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cudnnctl_validate_result *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    assert_int_equal(cc_val_parse_report(ctx, stream, strlen(stream), status, 3000, r),
                     CUDNNCTL_E_OK);
    cudnnctl_ctx_free(ctx);
    return r;
}

static const cudnnctl_validate_check *find_check(const cudnnctl_validate_result *r,
                                                 const char *name)
{
    for (size_t i = 0; i < r->n_checks; i++)
        if (strcmp(r->checks[i].name, name) == 0)
            return &r->checks[i];
    return NULL;
}

#define M CC_VAL_MARK

static void test_report_ok_and_no_gpu(void **state)
{
    (void)state;
    const char *ok = M "{\"facts\":{\"cudnn_version\":\"9.19.0\",\"cudnn_version_raw\":91900}}\n"
                     M "{\"step\":\"cudnnGetVersion\"}\n"
                     "E! CuDNN (v91900) some vendor log line\n"
                     M "{\"check\":{\"name\":\"conv_fp32_a\",\"ok\":true,\"skipped\":false,"
                     "\"seconds\":0.01,\"max_abs_err\":0,\"tolerance\":0.0001}}\n"
                     M "{\"loaded\":[{\"path\":\"/p/lib/libcudnn.so.9\",\"realpath\":\"/r/x\"}],"
                     "\"vendor\":[{\"path\":\"/t/libcudart.so.13\",\"realpath\":\"/t/libcudart.so.13\"}]}\n"
                     M "{\"facts\":{\"no_gpu\":0}}\n" M "{\"done\":true}\n";
    cudnnctl_validate_result *r = parse(ok, 0);
    assert_int_equal(r->status, CUDNNCTL_VALIDATE_OK);
    assert_string_equal(r->cudnn_version, "9.19.0");
    assert_int_equal(r->cudnn_version_raw, 91900);
    assert_int_equal((int)r->n_loaded, 1);
    assert_string_equal(r->loaded[0].path, "/p/lib/libcudnn.so.9");
    assert_string_equal(r->loaded[0].realpath, "/r/x");
    assert_int_equal((int)r->n_vendor_libs, 1);
    const cudnnctl_validate_check *k = find_check(r, "conv_fp32_a");
    assert_non_null(k);
    assert_true(k->ok && k->max_abs_err == 0 && k->tolerance == 1e-4);
    assert_non_null(r->vendor_output);
    assert_non_null(strstr(r->vendor_output, "vendor log line"));
    char *json = NULL;
    assert_int_equal(cudnnctl_validate_result_json(r, &json), CUDNNCTL_E_OK);
    assert_non_null(strstr(json, "\"status\":\"ok\""));
    assert_non_null(strstr(json, "\"loaded_from\":[\"/p/lib/libcudnn.so.9\"]"));
    cudnnctl_free(json);
    cudnnctl_validate_result_free(r);

    const char *nogpu = M "{\"check\":{\"name\":\"driver\",\"ok\":false,\"skipped\":true,"
                        "\"seconds\":0,\"error\":\"no driver\"}}\n"
                        M "{\"check\":{\"name\":\"sublib_ops\",\"ok\":true,\"skipped\":false,"
                        "\"seconds\":0}}\n" M "{\"facts\":{\"no_gpu\":1}}\n" M "{\"done\":true}\n";
    r = parse(nogpu, 0);
    assert_int_equal(r->status, CUDNNCTL_VALIDATE_NO_GPU);
    cudnnctl_validate_result_free(r);

    /* a failed check wins over no-gpu */
    const char *bad = M "{\"check\":{\"name\":\"sublib_ops\",\"ok\":false,\"skipped\":false,"
                      "\"seconds\":0,\"error\":\"mismatch\"}}\n" M "{\"facts\":{\"no_gpu\":1}}\n"
                      M "{\"done\":true}\n";
    r = parse(bad, 0);
    assert_int_equal(r->status, CUDNNCTL_VALIDATE_FAILED);
    cudnnctl_validate_result_free(r);
}

static void test_report_crash_and_hang(void **state)
{
    (void)state;
    /* vendor text without a newline, then the crash note on the same line */
    const char *crash = M "{\"check\":{\"name\":\"load_cudnn\",\"ok\":true,\"skipped\":false,"
                        "\"seconds\":0}}\n" M "{\"step\":\"cudnnCreate (libcudnn_graph)\"}\n"
                        "Invalid handle. Cannot load symbol\n"
                        "partial vendor text" M "{\"crash\":\"SIGSEGV\"}\n";
    cudnnctl_validate_result *r = parse(crash, -2);
    assert_int_equal(r->status, CUDNNCTL_VALIDATE_FAILED);
    const cudnnctl_validate_check *k = find_check(r, "child");
    assert_non_null(k);
    assert_false(k->ok);
    assert_non_null(strstr(k->error, "SIGSEGV"));
    assert_non_null(strstr(k->error, "cudnnCreate (libcudnn_graph)"));
    assert_non_null(strstr(k->error, "inside the vendor library"));
    assert_non_null(strstr(r->vendor_output, "Invalid handle"));
    assert_non_null(strstr(r->vendor_output, "partial vendor text"));
    cudnnctl_validate_result_free(r);

    const char *hang = M "{\"step\":\"cudnnConvolutionForward\"}\n";
    r = parse(hang, -1);
    k = find_check(r, "child");
    assert_non_null(k);
    assert_non_null(strstr(k->error, "hung for 3 s"));
    assert_non_null(strstr(k->error, "cudnnConvolutionForward"));
    assert_int_equal(r->status, CUDNNCTL_VALIDATE_FAILED);
    cudnnctl_validate_result_free(r);

    /* the child ended early without a signal */
    r = parse("", 1);
    k = find_check(r, "child");
    assert_non_null(k);
    assert_non_null(strstr(k->error, "exit 1"));
    cudnnctl_validate_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_versions),
        cmocka_unit_test(test_file_version),
        cmocka_unit_test(test_judge_module),
        cmocka_unit_test(test_fp16),
        cmocka_unit_test(test_header_version),
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_find_soname),
        cmocka_unit_test(test_resolve_prefix),
        cmocka_unit_test(test_resolve_target),
        cmocka_unit_test(test_child_env),
        cmocka_unit_test(test_report_ok_and_no_gpu),
        cmocka_unit_test(test_report_crash_and_hang),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
