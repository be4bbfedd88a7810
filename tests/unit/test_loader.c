/* test_loader.c: the ld.so.cache reader on hand-built caches (new format, old + new, old only;
 * the exact flags glibc accepts; every offset and count checked against the size, so a cache cut
 * anywhere or with offsets outside it is refused, never read past), and $ORIGIN / ${ORIGIN} /
 * $LIB / $PLATFORM expansion. The real loader checks the rest (tests/integration). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "consumer_int.h"
#include "pf_fixture.h"

typedef struct {
    unsigned char b[4096];
    size_t len;
} blob;

static void put32(blob *x, size_t at, uint32_t v) { memcpy(x->b + at, &v, 4); }
static void put64(blob *x, size_t at, uint64_t v) { memcpy(x->b + at, &v, 8); }

/* A new-format cache at offset base of x with these (key, value, flags, hwcap) entries. */
static size_t new_cache(blob *x, size_t base, const char *const *kv, const int32_t *flags,
                        const uint64_t *hwcap, uint32_t n)
{
    memcpy(x->b + base, "glibc-ld.so.cache1.1", 20);
    put32(x, base + 20, n);
    size_t strings = 48 + (size_t)n * 24, at = strings;
    for (uint32_t i = 0; i < n; i++) {
        size_t e = base + 48 + (size_t)i * 24;
        put32(x, e, (uint32_t)flags[i]);
        put32(x, e + 4, (uint32_t)at);
        strcpy((char *)x->b + base + at, kv[2 * i]);
        at += strlen(kv[2 * i]) + 1;
        put32(x, e + 8, (uint32_t)at);
        strcpy((char *)x->b + base + at, kv[2 * i + 1]);
        at += strlen(kv[2 * i + 1]) + 1;
        put64(x, e + 16, hwcap[i]);
    }
    put32(x, base + 24, (uint32_t)(at - strings));
    return base + at;
}

static int parse(const blob *x, size_t len, cc_ldcache *c)
{
    char *d = malloc(len ? len : 1);
    memcpy(d, x->b, len);
    return cc_ldcache_parse(d, len, c);
}

static const char *const KV[] = {"libcudnn.so.9", "/opt/hw/libcudnn.so.9",
                                 "libcudnn.so.9", "/lib32/libcudnn.so.9",
                                 "libcudnn.so.9", "/opt/a/lib/libcudnn.so.9",
                                 "libcudnn.so.9", "/opt/b/lib/libcudnn.so.9"};
static const int32_t FL[] = {0x0303, 0x0003, 0x0303, 0x0303};
static const uint64_t HW[] = {1ull << 62, 0, 0, 0};

static void new_format(void **state)
{
    (void)state;
    blob x = {{0}, 0};
    x.len = new_cache(&x, 0, KV, FL, HW, 4);
    cc_ldcache c;
    assert_int_equal(parse(&x, x.len, &c), 0);
    assert_int_equal(c.format, 2);
    assert_int_equal((int)c.n, 4);
    int other = 0;
    const cc_ldc_entry *e = cc_ldcache_lookup(&c, "libcudnn.so.9", 0x0303, &other);
    assert_non_null(e); /* the hwcaps entry and the 32-bit one are passed over; a before b */
    assert_string_equal(e->value, "/opt/a/lib/libcudnn.so.9");
    assert_int_equal(other, 2);
    e = cc_ldcache_lookup(&c, "libcudnn.so.9", 0x0003, NULL);
    assert_non_null(e);
    assert_string_equal(e->value, "/lib32/libcudnn.so.9");
    assert_null(cc_ldcache_lookup(&c, "libcudnn.so.8", 0x0303, NULL));
    assert_int_equal(cc_ldcache_flags_for(CC_ELF_EM_X86_64, 1), 0x0303);
    assert_int_equal(cc_ldcache_flags_for(CC_ELF_EM_AARCH64, 1), 0x0a03);
    cc_ldcache_free(&c);
}

static void cut_anywhere(void **state)
{
    (void)state;
    blob x = {{0}, 0};
    x.len = new_cache(&x, 0, KV, FL, HW, 4);
    for (size_t n = 0; n < x.len; n++) {
        cc_ldcache c;
        int rc = parse(&x, n, &c);
        /* the last value string cut short: its terminator is gone, so refused */
        assert_int_equal(rc, -1);
    }
    /* a string offset past the end */
    blob y = x;
    put32(&y, 48 + 4, 100000);
    cc_ldcache c;
    assert_int_equal(parse(&y, y.len, &c), -1);
    /* a count larger than the entries that fit */
    y = x;
    put32(&y, 20, 0x7fffffff);
    assert_int_equal(parse(&y, y.len, &c), -1);
}

static void old_formats(void **state)
{
    (void)state;
    /* "compat": an old table, then (aligned to 8, right after the old entries, as ldconfig
     * writes it) a new one; ld.so uses the new one */
    blob x = {{0}, 0};
    memcpy(x.b, "ld.so-1.7.0", 11);
    put32(&x, 12, 2);
    size_t strings = 16 + 2 * 12; /* old-format offsets count from the end of its entries */
    blob y = x;
    x.len = new_cache(&x, (strings + 7) & ~(size_t)7, KV, FL, HW, 4);
    cc_ldcache c;
    assert_int_equal(parse(&x, x.len, &c), 0);
    assert_int_equal(c.format, 2);
    assert_string_equal(cc_ldcache_lookup(&c, "libcudnn.so.9", 0x0303, NULL)->value,
                        "/opt/a/lib/libcudnn.so.9");
    cc_ldcache_free(&c);
    /* "old": the old table alone, strings after its entries */
    memcpy(y.b + strings, "libcudnn.so.9\0/old/libcudnn.so.9", 33);
    put32(&y, 16, 0x0303);
    put32(&y, 20, 0);
    put32(&y, 24, 14);
    put32(&y, 28, 0x0303);
    put32(&y, 32, 0);
    put32(&y, 36, 14);
    /* the old table alone: offsets from its string table */
    assert_int_equal(parse(&y, strings + 33, &c), 0);
    assert_int_equal(c.format, 1);
    assert_string_equal(cc_ldcache_lookup(&c, "libcudnn.so.9", 0x0303, NULL)->value,
                        "/old/libcudnn.so.9");
    cc_ldcache_free(&c);
    assert_int_equal(parse(&y, strings + 20, &c), -1); /* cut inside a string */
    assert_int_equal(parse(&y, 8, &c), -1);
}

static void expand(void **state)
{
    (void)state;
    cc_ldmodel m;
    memset(&m, 0, sizeof(m));
    m.lib = (char *)"lib/x86_64-linux-gnu";
    m.platform = "x86_64";
    char *s = cc_ldm_expand(&m, "$ORIGIN/../lib:${ORIGIN}/x/$LIB/$PLATFORM", "/app/bin");
    assert_string_equal(s, "/app/bin/../lib:/app/bin/x/lib/x86_64-linux-gnu/x86_64");
    free(s);
    s = cc_ldm_expand(&m, "$ORIGINAL/x", "/o"); /* not the token: kept as it is */
    assert_string_equal(s, "$ORIGINAL/x");
    free(s);
    assert_null(cc_ldm_expand(&m, "$ORIGIN/lib", NULL)); /* no origin: glibc drops the dir */
}

static void touch(const char *root, const char *rel)
{
    pff_write(root, rel + 1, ""); /* rel starts with '/' */
}

static void windows_order(void **state)
{
    (void)state;
    char *root = pff_tmpdir("windll");
    touch(root, "/cudnn/bin/cudnn64_9.dll");
    touch(root, "/other/bin/cudnn64_9.dll");
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_set_root(ctx, root), CUDNNCTL_E_OK);
    const char *user[] = {"/cudnn/bin"};
    cudnnctl_dll_env env = {"/app", "/site/torch/lib", "/Windows/System32", "/Windows", "/cwd",
                            "/other/bin;/cudnn/bin", NULL, 0, 0};
    cudnnctl_load_result *r = NULL;
    /* the standard order: PATH, first entry first */
    assert_int_equal(cudnnctl_dll_resolve(ctx, &env, "cudnn64_9.dll", &r), CUDNNCTL_E_OK);
    assert_string_equal(r->rule, "path");
    assert_string_equal(r->dir, "/other/bin");
    cudnnctl_load_result_free(r);
    /* Python's extension-module mode: PATH is not searched ... */
    env.default_dirs = 1;
    assert_int_equal(cudnnctl_dll_resolve(ctx, &env, "cudnn64_9.dll", &r), CUDNNCTL_E_OK);
    assert_string_equal(r->rule, "not_found");
    cudnnctl_load_result_free(r);
    /* ... an os.add_dll_directory dir is */
    env.user_dirs = user;
    env.n_user_dirs = 1;
    assert_int_equal(cudnnctl_dll_resolve(ctx, &env, "CUDNN64_9.DLL", &r), CUDNNCTL_E_OK);
    assert_string_equal(r->rule, "add_dll_directory");
    cudnnctl_load_result_free(r);
    /* the application dir comes first in both orders */
    touch(root, "/app/cudnn64_9.dll");
    assert_int_equal(cudnnctl_dll_resolve(ctx, &env, "cudnn64_9.dll", &r), CUDNNCTL_E_OK);
    assert_string_equal(r->rule, "app_dir");
    cudnnctl_load_result_free(r);
    cudnnctl_ctx_free(ctx);
    pff_rm_rf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_format),
        cmocka_unit_test(cut_anywhere),
        cmocka_unit_test(old_formats),
        cmocka_unit_test(expand),
        cmocka_unit_test(windows_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
