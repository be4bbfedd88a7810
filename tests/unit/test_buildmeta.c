/* test_buildmeta.c: the build metadata an install stages (commit/buildmeta.c): a Linux prefix's
 * relocatable cudnn.pc / CUDNNConfig.cmake naming each library of the staged tree, a Windows
 * CUDA tree's absolute files with bin\ DLLs as IMPORTED_LOCATION and the .lib import libraries,
 * control characters refused; and the parsers of the build view's compiler output
 * (loader/build_probe.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "build_int.h"
#include "buildmeta.h"
#include "internal.h"
#include "sys.h"

static char *tmpdir(void)
{
    char t[] = "/tmp/cudnnctl-buildmeta-XXXXXX";
    char *d = mkdtemp(t);
    assert_non_null(d);
    return cc_strdup(d);
}

static cudnnctl_ctx *g_ctx;

static void touch(const char *root, const char *rel)
{
    char *p = cc_path_join(root, rel);
    char *d = cc_path_dir(p);
    assert_int_equal(cc_sys_mkdir_p(g_ctx, d, 0755), 0);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
    free(p);
    free(d);
}

static char *slurp(const char *root, const char *rel)
{
    char *p = cc_path_join(root, rel), *data = NULL;
    size_t len = 0;
    if (cc_sys_read_file(g_ctx, p, 1 << 20, &data, &len) != 0)
        fail_msg("%s was not written", rel);
    free(p);
    return data;
}

static void rm_rf(const char *d)
{
    char *cmd = cc_asprintf("rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static void linux_prefix(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    g_ctx = ctx;
    char *s = tmpdir();
    touch(s, "include/cudnn.h");
    touch(s, "lib/libcudnn.so.9.19.0");
    touch(s, "lib/libcudnn.so.9");
    touch(s, "lib/libcudnn_graph.so.9");
    touch(s, "lib/libcudnn_adv_static.a");
    cc_buildmeta_in in = {
        s, "9.19.0.56", "13", 0, 1, NULL, NULL, NULL, "/usr/local/cuda-13.0/include", "000007", NULL};
    size_t n = 0;
    assert_int_equal(cc_buildmeta_write(ctx, &in, &n), CUDNNCTL_E_OK);
    assert_int_equal(n, 4); /* cudnn.pc, cudnn_graph.pc, the config and its version file */
    char *pc = slurp(s, "lib/pkgconfig/cudnn.pc");
    assert_non_null(strstr(pc, "prefix=${pcfiledir}/../..\n"));
    assert_non_null(strstr(pc, "\nVersion: 9.19.0.56\n"));
    assert_non_null(strstr(pc, "cuda_includedir=/usr/local/cuda-13.0/include\n"));
    assert_non_null(strstr(pc, "Cflags: -I${includedir} -I${cuda_includedir}\n"));
    assert_non_null(strstr(pc, "Libs: -L${libdir} -lcudnn\n"));
    assert_non_null(strstr(pc, "(receipt 000007)"));
    char *sub = slurp(s, "lib/pkgconfig/cudnn_graph.pc");
    assert_non_null(strstr(sub, "Requires: cudnn = 9.19.0.56\nLibs: -L${libdir} -lcudnn_graph\n"));
    char *cm = slurp(s, "lib/cmake/CUDNN/CUDNNConfig.cmake");
    assert_non_null(strstr(cm, "\"${CMAKE_CURRENT_LIST_DIR}/../../..\""));
    assert_non_null(strstr(cm, "IMPORTED_LOCATION \"${CUDNN_LIBRARY_DIR}/libcudnn.so.9\""));
    assert_non_null(strstr(cm, "IMPORTED_SONAME \"libcudnn_graph.so.9\""));
    assert_non_null(strstr(cm, "\"CUDNN::cudnn;CUDNN::cudnn_graph\""));
    assert_null(strstr(cm, "static"));
    char *ver = slurp(s, "lib/cmake/CUDNN/CUDNNConfigVersion.cmake");
    assert_non_null(strstr(ver, "set(PACKAGE_VERSION \"9.19.0.56\")"));
    assert_non_null(strstr(ver, "PACKAGE_FIND_VERSION_MAJOR EQUAL 9 "));
    free(pc);
    free(sub);
    free(cm);
    free(ver);
    rm_rf(s);
    free(s);
    cudnnctl_ctx_free(ctx);
}

static void windows_tree(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    g_ctx = ctx;
    char *s = tmpdir();
    touch(s, "bin/cudnn64_9.dll");
    touch(s, "bin/cudnn_ops64_9.dll");
    touch(s, "lib/cudnn.lib");
    touch(s, "lib/cudnn_ops64_9.lib");
    const char *tk = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0";
    char *inc = cc_asprintf("%s\\include", tk), *lib = cc_asprintf("%s\\lib\\x64", tk),
         *bin = cc_asprintf("%s\\bin\\x64", tk);
    cc_buildmeta_in in = {s, "9.19.0.56", "13", 1, 0, inc, lib, bin, inc, "000001", NULL};
    size_t n = 0;
    assert_int_equal(cc_buildmeta_write(ctx, &in, &n), CUDNNCTL_E_OK);
    char *pc = slurp(s, "lib/pkgconfig/cudnn.pc");
    assert_non_null(strstr(pc, "includedir=C:/Program\\ Files/NVIDIA\\ GPU\\ Computing\\ "
                               "Toolkit/CUDA/v13.0/include\n"));
    assert_null(strstr(pc, "cuda_includedir")); /* the tree's include dir is the same */
    char *cm = slurp(s, "lib/cmake/CUDNN/CUDNNConfig.cmake");
    assert_non_null(strstr(cm, "set(_cudnn_bin_dir \"C:/Program Files/NVIDIA GPU Computing "
                               "Toolkit/CUDA/v13.0/bin/x64\")"));
    assert_non_null(strstr(cm, "IMPORTED_LOCATION \"${_cudnn_bin_dir}/cudnn64_9.dll\""));
    assert_non_null(strstr(cm, "IMPORTED_IMPLIB \"${CUDNN_LIBRARY_DIR}/cudnn.lib\""));
    assert_non_null(strstr(cm, "IMPORTED_IMPLIB \"${CUDNN_LIBRARY_DIR}/cudnn_ops64_9.lib\""));
    assert_null(strstr(cm, "IMPORTED_SONAME"));
    free(pc);
    free(cm);
    /* a control character in a target path: refused, nothing is named with it */
    char *bad = cc_asprintf("%s\\in\nclude", tk);
    cc_buildmeta_in b2 = {s, "9.19.0.56", "13", 1, 0, bad, lib, bin, NULL, "000002", NULL};
    assert_int_equal(cc_buildmeta_write(ctx, &b2, &n), CUDNNCTL_E_USAGE);
    free(bad);
    free(inc);
    free(lib);
    free(bin);
    rm_rf(s);
    free(s);
    cudnnctl_ctx_free(ctx);
}

static void probe_parsers(void **state)
{
    (void)state;
    const char *gcc = "ignoring nonexistent directory \"/x\"\n"
                      "#include \"...\" search starts here:\n"
                      "#include <...> search starts here:\n"
                      " /opt/p/include\n /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
                      " /usr/local/include\n /usr/include\nEnd of search list.\n";
    cc_strv v = {0};
    assert_int_equal(cc_bv_parse_includes(gcc, &v), 0);
    assert_int_equal(v.n, 4);
    assert_string_equal(v.v[0], "/opt/p/include");
    assert_string_equal(v.v[3], "/usr/include");
    cc_strv_free(&v);
    assert_int_equal(cc_bv_parse_includes("no list here\n", &v), -1);
    cc_strv_free(&v);
    assert_int_equal(cc_bv_parse_libraries("install: /usr/lib/gcc/\nprograms: =/a\n"
                                           "libraries: =/opt/p/lib/:/usr/lib/x86_64-linux-gnu/\n",
                                           &v),
                     0);
    assert_int_equal(v.n, 2);
    assert_string_equal(v.v[0], "/opt/p/lib/");
    cc_strv_free(&v);
    assert_int_equal(cc_bv_parse_ld_dirs("SEARCH_DIR(\"=/usr/local/lib/x86_64-linux-gnu\"); "
                                         "SEARCH_DIR(\"=/lib\");",
                                         &v),
                     0);
    assert_int_equal(v.n, 2);
    assert_string_equal(v.v[0], "/usr/local/lib/x86_64-linux-gnu");
    assert_string_equal(v.v[1], "/lib");
    cc_strv_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linux_prefix),
        cmocka_unit_test(windows_tree),
        cmocka_unit_test(probe_parsers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
