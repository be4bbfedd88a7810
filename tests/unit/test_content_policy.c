/* test_content_policy.c: the CUDA-tree allowlist (content_policy.c) entry by entry, with the real
 * file names of NVIDIA's archives (shared/reference/cudnn-distribution.md §2) against toolkit
 * files; and the bomb limits (extract_limits.c): the cap derived from the archive, the caller's
 * cap, sparse entries, and the free space accounted entry by entry against what remains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "content_policy.h"
#include "extract_limits.h"

static int ok(const char *staged, cc_xentry_type t, const char *link, int zip)
{
    const char *why = NULL;
    int r = cc_content_allowed(staged, t, link, zip, &why);
    if (r != 0)
        assert_non_null(why);
    return r == 0;
}

static void nvidia_files_are_allowed(void **state)
{
    (void)state;
    /* Linux 9.x and 8.x tarballs (and <= 8.2 cuda/lib64 mapped onto lib) */
    static const char *linux_ok[] = {"LICENSE", "include/cudnn.h", "include/cudnn_v9.h",
                                     "include/cudnn_version.h", "include/cudnn_backend_v9.h",
                                     "include/cudnn_ops_infer_v8.h", "lib/libcudnn.so.9.19.0",
                                     "lib/libcudnn_graph.so.9.19.0",
                                     "lib/libcudnn_engines_precompiled.so.9.19.0",
                                     "lib/libcudnn_adv_static.a", "lib/libcudnn_adv_static_v9.a",
                                     "lib/libcudnn_cnn_infer.so.8.4.0", "lib/libcudnn.so"};
    for (size_t i = 0; i < sizeof(linux_ok) / sizeof(*linux_ok); i++)
        if (!ok(linux_ok[i], CC_XE_FILE, NULL, 0))
            fail_msg("Linux: %s refused", linux_ok[i]);
    assert_true(ok("lib/libcudnn.so.9", CC_XE_SYMLINK, "libcudnn.so.9.19.0", 0));
    assert_true(ok("lib/libcudnn.so", CC_XE_SYMLINK, "libcudnn.so.9", 0));
    assert_true(ok("lib/libcudnn_adv_static_v9.a", CC_XE_SYMLINK, "libcudnn_adv_static.a", 0));
    assert_true(ok("lib/libcudnn_ops.so.9", CC_XE_HARDLINK, NULL, 0));
    assert_true(ok("include", CC_XE_DIR, NULL, 0));
    assert_true(ok("lib", CC_XE_DIR, NULL, 0));
    /* Windows zips of every era (lib/x64 and bin/x64 were mapped onto lib and bin) */
    static const char *win_ok[] = {"LICENSE", "include/cudnn.h", "bin/cudnn64_9.dll",
                                   "bin/cudnn_engines_runtime_compiled64_9.dll",
                                   "bin/cudnn_ops_infer64_8.dll", "lib/cudnn.lib",
                                   "lib/cudnn64_9.lib", "lib/cudnn_adv_train.lib",
                                   "bin/CUDNN64_9.DLL"};
    for (size_t i = 0; i < sizeof(win_ok) / sizeof(*win_ok); i++)
        if (!ok(win_ok[i], CC_XE_FILE, NULL, 1))
            fail_msg("Windows: %s refused", win_ok[i]);
    assert_true(ok("bin", CC_XE_DIR, NULL, 1));
}

static void toolkit_and_other_files_are_refused(void **state)
{
    (void)state;
    static const char *bad[] = {"bin/nvcc", "include/cuda.h", "include/cudnn.h.orig/x",
                                "lib/libcudart.so.13", "lib64/libcudart.so.13", "lib/cudnn.so",
                                "lib/libcudnn.so.9.evil", "lib/libcudnn_x.so.9/inner",
                                "lib/sub/libcudnn.so.9", "share/doc/README", "LICENSE.txt",
                                "include/cudnn.hpp", "libcudnn.so.9", "nvvm/bin/cicc",
                                "lib/libcudnn.sox", "lib/"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        if (ok(bad[i], CC_XE_FILE, NULL, 0))
            fail_msg("Linux: %s allowed", bad[i]);
    }
    /* platform matters: no DLLs from a tar, no .so from a zip */
    assert_false(ok("bin/cudnn64_9.dll", CC_XE_FILE, NULL, 0));
    assert_false(ok("lib/libcudnn.so.9", CC_XE_FILE, NULL, 1));
    assert_false(ok("bin/nvcc.exe", CC_XE_FILE, NULL, 1));
    assert_false(ok("bin/cudart64_13.dll", CC_XE_FILE, NULL, 1));
    /* directories other than include, lib, bin */
    assert_false(ok("lib64", CC_XE_DIR, NULL, 0));
    assert_false(ok("share", CC_XE_DIR, NULL, 0));
    assert_false(ok("lib/x", CC_XE_DIR, NULL, 0));
    /* links: allowed names only when they point at allowed names */
    assert_false(ok("lib/libcudnn_evil.so", CC_XE_SYMLINK, "libcudart.so.13", 0));
    assert_false(ok("lib/libcudnn.so", CC_XE_SYMLINK, "../bin/nvcc", 0));
    assert_false(ok("lib/libcudnn.so", CC_XE_SYMLINK, "../../outside", 0));
    assert_false(ok("lib/libcudnn.so", CC_XE_SYMLINK, NULL, 0));
    assert_true(ok("lib/libcudnn.so", CC_XE_SYMLINK, "../lib/libcudnn.so.9", 0));
    /* never devices, fifos, ... */
    assert_false(ok("lib/libcudnn.so.9", CC_XE_CHARDEV, NULL, 0));
    assert_false(ok("lib/libcudnn.so.9", CC_XE_FIFO, NULL, 0));
    assert_non_null(strstr(cc_content_allowlist_text(0), "lib/libcudnn*"));
    assert_non_null(strstr(cc_content_allowlist_text(1), "bin/cudnn*.dll"));
}

static cudnnctl_ctx *quiet_ctx(void)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    return ctx;
}

static void caps_derived_from_the_archive(void **state)
{
    (void)state;
    cc_xlimits l;
    cc_xlimits_init(&l, 1u << 20, 0, NULL); /* 1 MiB archive: the 256 MiB floor */
    assert_int_equal(l.cap, CC_UNPACK_FLOOR);
    cc_xlimits_init(&l, 100u << 20, 0, NULL); /* 100 MiB: 10x */
    assert_int_equal(l.cap, 1000ull << 20);
    cc_xlimits_init(&l, 1924314965ull, 0, NULL); /* NVIDIA's largest zip: the absolute cap */
    assert_int_equal(l.cap, CC_UNPACK_ABS_CAP);
    cc_xlimits_init(&l, 0, 0, NULL); /* unknown size */
    assert_int_equal(l.cap, CC_UNPACK_ABS_CAP);
    cc_xlimits_init(&l, 1u << 20, 8ull << 30, NULL); /* --max-unpacked raises it */
    assert_int_equal(l.cap, 8ull << 30);
    assert_true(l.overridden);

    cudnnctl_ctx *ctx = quiet_ctx();
    cc_xlimits_init(&l, 1u << 20, 0, NULL);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "a", 200ll << 20, 0), CUDNNCTL_E_OK);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "d", 0, 0), CUDNNCTL_E_OK);
    /* the sum, not each entry, is held against the cap */
    assert_int_equal(cc_xlimits_entry(ctx, &l, "b", 100ll << 20, 0), CUDNNCTL_E_TOO_LARGE);
    const char *d = cudnnctl_last_error(ctx)->detail;
    assert_non_null(strstr(d, "'b'"));
    assert_non_null(strstr(d, "300.0 MiB"));
    assert_non_null(strstr(d, "cap of 256.0 MiB"));
    assert_non_null(strstr(d, "--max-unpacked"));
    /* sparse: refused whatever its size */
    cc_xlimits_init(&l, 1u << 20, 0, NULL);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "s", 10, 1), CUDNNCTL_E_UNSAFE_ARCHIVE);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "sparse"));
    /* a declared size near 2^63 cannot wrap the sum */
    cc_xlimits_init(&l, 0, 0, NULL);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "h", INT64_MAX, 0), CUDNNCTL_E_TOO_LARGE);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "h2", INT64_MAX, 0), CUDNNCTL_E_TOO_LARGE);
    /* bytes produced beyond the cap (entries of unknown size) */
    cc_xlimits_init(&l, 1u << 20, 0, NULL);
    assert_int_equal(cc_xlimits_produced(ctx, &l, "u", CC_UNPACK_FLOOR + 1), CUDNNCTL_E_TOO_LARGE);
    assert_int_equal(cudnnctl_err_exit_code(CUDNNCTL_E_TOO_LARGE), 4);
    cudnnctl_ctx_free(ctx);
}

/* The free space is read once and what the entries declare is taken from what remains. */
static void free_space_per_entry(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = quiet_ctx();
    cc_xlimits l;
    cc_xlimits_init(&l, 1u << 20, 0, NULL);
    l.have_avail = 1; /* the free-space override: a filesystem with 100 MiB + the margin free */
    l.avail = (100ull << 20) + CC_UNPACK_SPACE_MARGIN;
    assert_int_equal(cc_xlimits_entry(ctx, &l, "first", 60ll << 20, 0), CUDNNCTL_E_OK);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "second", 40ll << 20, 0), CUDNNCTL_E_OK);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "third", 1, 0), CUDNNCTL_E_TOO_LARGE);
    const char *d = cudnnctl_last_error(ctx)->detail;
    assert_non_null(strstr(d, "free space: entry 'third'"));
    assert_non_null(strstr(d, "--prefix"));
    /* the real filesystem: its free space is read (and a tiny archive stays under it) */
    cc_xlimits_init(&l, 1u << 20, 0, "/");
    assert_true(l.have_avail);
    assert_int_equal(cc_xlimits_entry(ctx, &l, "small", 4096, 0), CUDNNCTL_E_OK);
    cudnnctl_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvidia_files_are_allowed),
        cmocka_unit_test(toolkit_and_other_files_are_refused),
        cmocka_unit_test(caps_derived_from_the_archive),
        cmocka_unit_test(free_space_per_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
