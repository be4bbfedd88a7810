/* test_detect_paths.c: symlink chains resolved inside --root (absolute targets re-rooted,
 * relative ones, dangling links, loops), link chains for display, env paths, and the ELF
 * reader on real shared objects (libc, cmocka, and the CUDA tree's libcudnn when present) and
 * on files that are not ELF or are cut short. */
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

#include "detect_int.h"
#include "elf_info.h"

static char root[256];

static void mk(const char *rel)
{
    char p[512];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    char *s = p + strlen(root) + 1;
    while ((s = strchr(s, '/')) != NULL) {
        *s = '\0';
        mkdir(p, 0755);
        *s++ = '/';
    }
    mkdir(p, 0755);
}

static void ln(const char *target, const char *rel)
{
    char p[512];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    assert_int_equal(symlink(target, p), 0);
}

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    snprintf(root, sizeof(root), "/tmp/cc-detect-paths-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || cudnnctl_set_root(ctx, root) != CUDNNCTL_E_OK)
        return -1;
    *state = ctx;
    /* the H200 image: /usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0,
     * lib64 -> targets/x86_64-linux/lib */
    mk("/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    mk("/etc/alternatives");
    ln("/etc/alternatives/cuda", "/usr/local/cuda");
    ln("/usr/local/cuda-13.0", "/etc/alternatives/cuda");
    ln("targets/x86_64-linux/lib", "/usr/local/cuda-13.0/lib64");
    put("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", "x");
    ln("libcudart.so.13.0.96", "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13");
    ln("/usr/local/cuda-12.4", "/usr/local/cuda-12"); /* dangling */
    ln("loop-b", "/usr/local/loop-a");
    ln("loop-a", "/usr/local/loop-b");
    ln("../../usr/local/./cuda-13.0/", "/etc/alternatives/cuda-13"); /* relative with .. */
    return 0;
}

static int teardown(void **state)
{
    cudnnctl_ctx_free(*state);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void resolve_in_root(void **state)
{
    cudnnctl_ctx *ctx = *state;
    int missing = -1;
    char *r = cc_dt_resolve(ctx, "/usr/local/cuda/lib64/libcudart.so.13", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 0);
    assert_string_equal(r, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96");
    free(r);

    r = cc_dt_resolve(ctx, "/etc/alternatives/cuda-13/lib64", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 0);
    assert_string_equal(r, "/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    free(r);

    r = cc_dt_resolve(ctx, "/usr/local/cuda-12/version.json", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 1);
    assert_string_equal(r, "/usr/local/cuda-12.4/version.json");
    free(r);

    assert_null(cc_dt_resolve(ctx, "/usr/local/loop-a/x", &missing));
    assert_null(cc_dt_resolve(ctx, "relative/path", &missing));

    /* the host path lies under the root */
    char *h = cc_dt_host(ctx, "/usr/local/cuda/lib64");
    assert_non_null(h);
    assert_true(strncmp(h, root, strlen(root)) == 0);
    assert_string_equal(h + strlen(root), "/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    free(h);
    assert_null(cc_dt_host(ctx, "/usr/local/cuda-12"));
}

static void chains_and_env(void **state)
{
    cudnnctl_ctx *ctx = *state;
    int dangling = -1;
    char *c = cc_dt_link_chain(ctx, "/usr/local/cuda", &dangling);
    assert_non_null(c);
    assert_int_equal(dangling, 0);
    assert_string_equal(c, "/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0");
    free(c);
    c = cc_dt_link_chain(ctx, "/usr/local/cuda-12", &dangling);
    assert_non_null(c);
    assert_int_equal(dangling, 1);
    assert_string_equal(c, "/usr/local/cuda-12 -> /usr/local/cuda-12.4");
    free(c);
    assert_null(cc_dt_link_chain(ctx, "/usr/local/cuda-13.0", &dangling));

    /* CUDA_HOME=/opt/cuda-12.4 under --root R means R/opt/cuda-12.4; R/opt/... is unrooted */
    char *p = cc_dt_env_path(ctx, "/opt/cuda-12.4/");
    assert_string_equal(p, "/opt/cuda-12.4");
    free(p);
    char host[512];
    snprintf(host, sizeof(host), "%s/opt//cuda-12.4", root);
    p = cc_dt_env_path(ctx, host);
    assert_string_equal(p, "/opt/cuda-12.4");
    free(p);
    assert_null(cc_dt_env_path(ctx, "relative"));
    assert_null(cc_dt_env_path(ctx, ""));
    assert_null(cc_dt_env_path(ctx, NULL));
}

static void read_procfs_style(void **state)
{
    cudnnctl_ctx *ctx = *state;
    char *text = NULL;
    mk("/proc/driver/nvidia");
    put("/proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 2025\n");
    assert_int_equal(cc_dt_read(ctx, "/proc/driver/nvidia/version", 64, &text), 0);
    assert_int_equal(strlen(text), 64); /* capped at max */
    free(text);
    /* the real procfs reports size 0: the reader must still get the text */
    if (access("/proc/self/status", R_OK) == 0) {
        cudnnctl_ctx *host = NULL;
        assert_int_equal(cudnnctl_ctx_new(&host), CUDNNCTL_E_OK);
        assert_int_equal(cc_dt_read(host, "/proc/self/status", 1 << 16, &text), 0);
        assert_non_null(strstr(text, "Name:"));
        free(text);
        cudnnctl_ctx_free(host);
    }
}

static void elf_real_objects(void **state)
{
    (void)state;
    /* libc and cmocka are mapped into this test: real ELF shared objects with SONAMEs */
    static const struct {
        const char *prefix, *soname;
    } objs[] = {{"libc.so", "libc.so.6"}, {"libcmocka.so", "libcmocka.so.0"}};
    for (size_t i = 0; i < 2; i++) {
        char **mods = cc_pf_loaded_modules(objs[i].prefix);
        assert_non_null(mods);
        assert_non_null(mods[0]);
        cc_elf_info info;
        assert_int_equal(cc_elf_read_dyn(mods[0], &info), 0);
        assert_non_null(info.soname);
        assert_string_equal(info.soname, objs[i].soname);
        assert_int_equal(info.type, 3u); /* ET_DYN */
        assert_true(info.is_64 == (sizeof(void *) == 8));
        if (i == 1) { /* cmocka links libc: DT_NEEDED is read in order, as strings */
            int libc = 0;
            for (size_t k = 0; k < info.n_needed; k++)
                libc |= strcmp(info.needed[k], "libc.so.6") == 0;
            assert_true(libc);
        }
        cc_elf_info_free(&info);
        for (size_t k = 0; mods[k]; k++)
            free(mods[k]);
        free(mods);
    }
    /* the cuDNN shim of this image's CUDA tree: read without loading it */
    const char *cudnn = "/usr/local/cuda-13.0/lib/libcudnn.so.9";
    if (access(cudnn, R_OK) == 0) {
        char *so = cc_elf_soname(cudnn);
        assert_non_null(so);
        assert_string_equal(so, "libcudnn.so.9");
        free(so);
        /* a sub-library: DT_NEEDED libcudnn_graph.so.9, RUNPATH naming the CUDA 13 wheel dir */
        cc_elf_info info;
        assert_int_equal(cc_elf_read_dyn("/usr/local/cuda-13.0/lib/libcudnn_ops.so.9", &info), 0);
        assert_non_null(info.runpath);
        assert_non_null(strstr(info.runpath, "$ORIGIN/../../cu13/lib"));
        assert_null(info.rpath);
        assert_true(info.n_needed > 0);
        assert_string_equal(info.needed[0], "libcudnn_graph.so.9");
        cc_elf_info_free(&info);
    } else {
        print_message("note: %s absent; the integration tests read real cuDNN files\n", cudnn);
    }
}

static void elf_not_elf(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof(p), "%s/not-elf.so", root);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("this is a text file pretending to be a library\n", f);
    fclose(f);
    cc_elf_info info;
    assert_int_equal(cc_elf_read(p, &info), -1);
    assert_null(info.soname);
    assert_int_equal(cc_elf_read("/nonexistent/libx.so", &info), -1);

    /* a real ELF header cut short after 100 bytes: malformed, never a crash */
    char **mods = cc_pf_loaded_modules("libc.so");
    assert_non_null(mods[0]);
    FILE *in = fopen(mods[0], "rb");
    assert_non_null(in);
    unsigned char buf[100];
    assert_int_equal(fread(buf, 1, sizeof(buf), in), sizeof(buf));
    fclose(in);
    snprintf(p, sizeof(p), "%s/cut.so", root);
    f = fopen(p, "wb");
    fwrite(buf, 1, sizeof(buf), f);
    fclose(f);
    assert_int_equal(cc_elf_read(p, &info), -1);
    for (size_t k = 0; mods[k]; k++)
        free(mods[k]);
    free(mods);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolve_in_root),   cmocka_unit_test(chains_and_env),
        cmocka_unit_test(read_procfs_style), cmocka_unit_test(elf_real_objects),
        cmocka_unit_test(elf_not_elf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
