/* test_detect_paths.c: symlink chains resolved inside --root (absolute targets re-rooted,
 * relative ones, dangling links, loops), link chains for display, env paths, and the ELF
 * reader on real shared objects (libc, cmocka, and the CUDA tree's libcudnn when present) and
 * on files that are not ELF or are cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "detect_int.h"
#include "elf_info.h"
#include "pf_fixture.h"

static char *root;
static int have_links; /* POSIX symlinks here (pff_posix_symlinks): the chain cases need them */

static void mk(const char *rel)
{
    char *p = pff_join(root, rel + 1); /* rel starts with '/' */
    pff_mkdir_p(p);
    free(p);
}

static void ln(const char *target, const char *rel)
{
    char *p = pff_join(root, rel + 1);
    assert_int_equal(cc_pf_symlink(target, p), 0);
    free(p);
}

static void put(const char *rel, const char *text) { pff_write(root, rel + 1, text); }

static int setup(void **state)
{
    root = pff_tmpdir("detect-paths");
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || cudnnctl_set_root(ctx, root) != CUDNNCTL_E_OK)
        return -1;
    *state = ctx;
    /* the H200 image: /usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0,
     * lib64 -> targets/x86_64-linux/lib */
    mk("/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    mk("/etc/alternatives");
    put("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", "x");
    have_links = pff_posix_symlinks(root);
    if (!have_links)
        return 0;
    ln("/etc/alternatives/cuda", "/usr/local/cuda");
    ln("/usr/local/cuda-13.0", "/etc/alternatives/cuda");
    ln("targets/x86_64-linux/lib", "/usr/local/cuda-13.0/lib64");
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
    pff_rm_rf(root);
    cc_pf_stat_t st;
    int gone = cc_pf_lstat(root, &st) == 0 && !st.exists;
    free(root);
    return gone ? 0 : -1;
}

/* The first ELF shared object mapped into this test whose name starts with prefix (malloc'd
 * list, as cc_pf_loaded_modules), or skip() where the test is no ELF program (a Windows .exe):
 * Linux must have it. */
static char **elf_mapped(const char *prefix)
{
    char **mods = cc_pf_loaded_modules(prefix);
    assert_non_null(mods);
    if (!mods[0] && strcmp(cc_pf_os(), "linux") != 0) {
        free(mods);
        skip(); /* no ELF object in a PE process: reported as skipped */
        return NULL;
    }
    assert_non_null(mods[0]);
    return mods;
}

static void free_list(char **l)
{
    for (size_t k = 0; l[k]; k++)
        free(l[k]);
    free(l);
}

static void resolve_in_root(void **state)
{
    cudnnctl_ctx *ctx = *state;
    if (!have_links)
        skip(); /* symlink chains: reported as skipped where POSIX symlinks cannot be made */
    int missing = -1;
    char *r = cc_detect_resolve(ctx, "/usr/local/cuda/lib64/libcudart.so.13", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 0);
    assert_string_equal(r, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96");
    free(r);

    r = cc_detect_resolve(ctx, "/etc/alternatives/cuda-13/lib64", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 0);
    assert_string_equal(r, "/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    free(r);

    r = cc_detect_resolve(ctx, "/usr/local/cuda-12/version.json", &missing);
    assert_non_null(r);
    assert_int_equal(missing, 1);
    assert_string_equal(r, "/usr/local/cuda-12.4/version.json");
    free(r);

    assert_null(cc_detect_resolve(ctx, "/usr/local/loop-a/x", &missing));
    assert_null(cc_detect_resolve(ctx, "relative/path", &missing));

    /* the host path lies under the root */
    char *h = cc_detect_host(ctx, "/usr/local/cuda/lib64");
    assert_non_null(h);
    assert_true(strncmp(h, root, strlen(root)) == 0);
    assert_string_equal(h + strlen(root), "/usr/local/cuda-13.0/targets/x86_64-linux/lib");
    free(h);
    assert_null(cc_detect_host(ctx, "/usr/local/cuda-12"));
}

static void link_chains(void **state)
{
    cudnnctl_ctx *ctx = *state;
    if (!have_links)
        skip();
    int dangling = -1;
    char *c = cc_detect_link_chain(ctx, "/usr/local/cuda", &dangling);
    assert_non_null(c);
    assert_int_equal(dangling, 0);
    assert_string_equal(c, "/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0");
    free(c);
    c = cc_detect_link_chain(ctx, "/usr/local/cuda-12", &dangling);
    assert_non_null(c);
    assert_int_equal(dangling, 1);
    assert_string_equal(c, "/usr/local/cuda-12 -> /usr/local/cuda-12.4");
    free(c);
    assert_null(cc_detect_link_chain(ctx, "/usr/local/cuda-13.0", &dangling));
}

static void env_paths(void **state)
{
    cudnnctl_ctx *ctx = *state;
    /* CUDA_HOME=/opt/cuda-12.4 under --root R means R/opt/cuda-12.4; R/opt/... is unrooted */
    char *p = cc_detect_env_path(ctx, "/opt/cuda-12.4/");
    assert_non_null(p);
    assert_string_equal(p, "/opt/cuda-12.4");
    free(p);
    assert_null(cc_detect_env_path(ctx, "relative"));
    assert_null(cc_detect_env_path(ctx, ""));
    assert_null(cc_detect_env_path(ctx, NULL));
}

static void env_path_under_root(void **state)
{
    cudnnctl_ctx *ctx = *state;
    /* a value naming the root itself: only where the root is a POSIX path (a Windows root,
     * C:/..., is no such value: detect_windows.c reads those, test_winpolicy) */
    if (root[0] != '/')
        skip();
    char host[512];
    snprintf(host, sizeof(host), "%s/opt//cuda-12.4", root);
    char *p = cc_detect_env_path(ctx, host);
    assert_non_null(p);
    assert_string_equal(p, "/opt/cuda-12.4");
    free(p);
}

static void read_procfs_style(void **state)
{
    cudnnctl_ctx *ctx = *state;
    char *text = NULL;
    mk("/proc/driver/nvidia");
    put("/proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 2025\n");
    assert_int_equal(cc_detect_read(ctx, "/proc/driver/nvidia/version", 64, &text), 0);
    assert_int_equal(strlen(text), 64); /* capped at max */
    free(text);
    /* the real procfs reports size 0: the reader must still get the text */
    cc_pf_stat_t st;
    if (cc_pf_stat("/proc/self/status", &st) == 0 && st.exists) {
        cudnnctl_ctx *host = NULL;
        assert_int_equal(cudnnctl_ctx_new(&host), CUDNNCTL_E_OK);
        assert_int_equal(cc_detect_read(host, "/proc/self/status", 1 << 16, &text), 0);
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
        char **mods = elf_mapped(objs[i].prefix);
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
        free_list(mods);
    }
}

static void elf_cuda_tree(void **state)
{
    (void)state;
    /* the cuDNN shim of this image's CUDA tree: read without loading it */
    const char *cudnn = "/usr/local/cuda-13.0/lib/libcudnn.so.9";
    cc_pf_stat_t st;
    if (cc_pf_stat(cudnn, &st) == 0 && st.exists) {
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
        skip();
    }
}

static void elf_not_elf(void **state)
{
    (void)state;
    put("/not-elf.so", "this is a text file pretending to be a library\n");
    char *p = pff_join(root, "not-elf.so");
    cc_elf_info info;
    assert_int_equal(cc_elf_read(p, &info), -1);
    assert_null(info.soname);
    assert_int_equal(cc_elf_read("/nonexistent/libx.so", &info), -1);
    free(p);
}

static void elf_cut_short(void **state)
{
    (void)state;
    /* a real ELF header cut short after 100 bytes: malformed, never a crash */
    char **mods = elf_mapped("libc.so");
    cc_pf_fd in = cc_pf_open(mods[0], CC_PF_O_RDONLY, 0);
    assert_true(in != -1);
    unsigned char buf[100];
    assert_int_equal(cc_pf_read(in, buf, sizeof(buf)), (long long)sizeof(buf));
    cc_pf_close(in);
    char *p = pff_join(root, "cut.so");
    cc_pf_fd out = cc_pf_open(p, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(out != -1);
    assert_int_equal(cc_pf_write(out, buf, sizeof(buf)), (long long)sizeof(buf));
    assert_int_equal(cc_pf_close(out), 0);
    cc_elf_info info;
    assert_int_equal(cc_elf_read(p, &info), -1);
    free(p);
    free_list(mods);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolve_in_root),   cmocka_unit_test(link_chains),
        cmocka_unit_test(env_paths),         cmocka_unit_test(env_path_under_root),
        cmocka_unit_test(read_procfs_style),
        cmocka_unit_test(elf_real_objects),  cmocka_unit_test(elf_cuda_tree),
        cmocka_unit_test(elf_not_elf),       cmocka_unit_test(elf_cut_short),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
