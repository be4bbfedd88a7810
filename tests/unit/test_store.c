/* test_store.c: the unpacked store (store.h) — its key; a fill (one file handed over as the
 * extractor would, the rest found by the commit) that a lookup then believes, with every record
 * right; staging filled from it by copy (bytes, modes and mtimes as staged) and by hard link (the
 * store's inode); a store file changed in place is caught (bad), counted by verify, and the
 * quarantined entry is no longer found; an aborted fill and a damaged manifest are never
 * believed. Runs in a dir of its own under the build dir (portable: wine too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform.h"
#include "store.h"
#include "sys.h"

#define SHA "1111111111111111111111111111111111111111111111111111111111111111"

static char base[256];

static void put(const char *path, const char *text, uint32_t mode)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(cc_pf_chmod(path, mode), 0);
}

static char *slurp(cudnnctl_ctx *ctx, const char *path)
{
    char *d = NULL;
    size_t n = 0;
    if (cc_sys_read_file(ctx, path, 1 << 20, &d, &n) != 0)
        return NULL;
    return d;
}

static char *at(const char *a, const char *b)
{
    return cc_path_join(a, b);
}

static cudnnctl_ctx *new_ctx(void)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    char *cache = at(base, "cache");
    assert_int_equal(cudnnctl_set_cache_dir(ctx, cache), CUDNNCTL_E_OK);
    free(cache);
    return ctx;
}

/* staging with lib/libx.so.9 (0755), include/x.h (0644) and LICENSE */
static char *make_staging(const char *name)
{
    char *s = at(base, name);
    char *lib = at(s, "lib"), *inc = at(s, "include");
    assert_int_equal(cc_pf_mkdir(s, 0755), 0);
    assert_int_equal(cc_pf_mkdir(lib, 0755), 0);
    assert_int_equal(cc_pf_mkdir(inc, 0755), 0);
    char *f1 = at(lib, "libx.so.9"), *f2 = at(inc, "x.h"), *f3 = at(s, "LICENSE");
    put(f1, "ELF bytes of libx", 0755);
    put(f2, "#define X 1\n", 0644);
    put(f3, "licence text\n", 0644);
    free(f1);
    free(f2);
    free(f3);
    free(lib);
    free(inc);
    return s;
}

static void fill(cudnnctl_ctx *ctx, const char *key, const char *staging)
{
    cc_store_fill *f = cc_store_fill_begin(ctx, key, staging);
    assert_non_null(f);
    char *real = cc_pf_realpath(staging);
    char *one = at(real, "lib/libx.so.9"); /* as the extractor hands it over */
    cc_store_fill_file(f, one);
    free(one);
    free(real);
    assert_int_equal(cc_store_fill_commit(ctx, f, NULL, 0, SHA, 1234), CUDNNCTL_E_OK);
}

static void the_key_names_archive_components_and_content(void **state)
{
    (void)state;
    char *k = cc_store_key(SHA, CUDNNCTL_COMPONENT_RUNTIME | CUDNNCTL_COMPONENT_DEV, 0);
    assert_string_equal(k, SHA "-runtime+dev-any");
    free(k);
    k = cc_store_key(SHA, CUDNNCTL_COMPONENTS_ALL, 1);
    assert_string_equal(k, SHA "-runtime+dev+static-cuda-tree");
    free(k);
}

static void a_fill_is_found_and_copied_back_exactly(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = new_ctx();
    char *key = cc_store_key(SHA, CUDNNCTL_COMPONENTS_ALL, 0);
    char *st = make_staging("stage-a");
    fill(ctx, key, st);
    cc_store_entry e;
    int found = 0;
    assert_int_equal(cc_store_lookup(ctx, key, &e, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 1);
    assert_string_equal(e.archive_sha256, SHA);
    assert_int_equal(e.archive_size, 1234);
    assert_int_equal(e.n, 5); /* include, include/x.h, lib, lib/libx.so.9, LICENSE */
    int saw = 0;
    for (size_t i = 0; i < e.n; i++)
        if (strcmp(e.files[i].rel, "lib/libx.so.9") == 0) {
            assert_int_equal(e.files[i].type, CC_ST_FILE);
            assert_int_equal(e.files[i].size, strlen("ELF bytes of libx"));
            saw = 1;
        }
    assert_true(saw);
    assert_int_equal(cc_store_verify(ctx, &e), 0);
    char *dst = at(base, "stage-a2");
    assert_int_equal(cc_pf_mkdir(dst, 0755), 0);
    cc_store_placed pl;
    int bad = 0;
    assert_int_equal(cc_store_place(ctx, &e, dst, CC_STORE_COPY, &pl, &bad), CUDNNCTL_E_OK);
    assert_int_equal(bad, 0);
    assert_int_equal(pl.n_files, 3);
    assert_string_equal(pl.how, "copy");
    char *a = at(st, "lib/libx.so.9"), *b = at(dst, "lib/libx.so.9");
    char *da = slurp(ctx, a), *db = slurp(ctx, b);
    assert_non_null(db);
    assert_string_equal(da, db);
    cc_pf_stat_t sa, sb;
    assert_int_equal(cc_pf_stat(a, &sa), 0);
    assert_int_equal(cc_pf_stat(b, &sb), 0);
    assert_int_equal(sa.mtime, sb.mtime);
    if (strcmp(cc_pf_os(), "linux") == 0)
        assert_int_equal(sb.mode, 0755);
    /* a hard link shares the store's inode */
    char *dh = at(base, "stage-a3");
    assert_int_equal(cc_pf_mkdir(dh, 0755), 0);
    assert_int_equal(cc_store_place(ctx, &e, dh, CC_STORE_HARDLINK, &pl, &bad), CUDNNCTL_E_OK);
    assert_int_equal(bad, 0);
    char *h = at(dh, "include/x.h"), *s = at(e.tree, "include/x.h");
    cc_pf_stat_t sh, ss;
    assert_int_equal(cc_pf_stat(h, &sh), 0);
    assert_int_equal(cc_pf_stat(s, &ss), 0);
    assert_true(sh.ino == ss.ino && sh.dev == ss.dev);
    free(da);
    free(db);
    free(a);
    free(b);
    free(h);
    free(s);
    free(dh);
    free(dst);
    cc_store_entry_free(&e);
    free(st);
    free(key);
    cudnnctl_ctx_free(ctx);
}

static void a_changed_store_file_is_bad_and_quarantined(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = new_ctx();
    char *key = cc_store_key(SHA, CUDNNCTL_COMPONENT_RUNTIME, 0);
    char *st = make_staging("stage-b");
    fill(ctx, key, st);
    cc_store_entry e;
    int found = 0;
    assert_int_equal(cc_store_lookup(ctx, key, &e, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 1);
    char *f = at(e.tree, "include/x.h");
    assert_int_equal(cc_pf_chmod(f, 0644), 0);
    put(f, "#define X 2\n", 0444); /* same size, other bytes, a new mtime */
    assert_int_equal(cc_store_verify(ctx, &e), 1);
    char *dst = at(base, "stage-b2");
    assert_int_equal(cc_pf_mkdir(dst, 0755), 0);
    cc_store_placed pl;
    int bad = 0;
    assert_int_equal(cc_store_place(ctx, &e, dst, CC_STORE_COPY, &pl, &bad), CUDNNCTL_E_OK);
    assert_int_equal(bad, 1);
    char *q = NULL;
    assert_int_equal(cc_store_quarantine(ctx, &e, &q), CUDNNCTL_E_OK);
    assert_non_null(q);
    cc_store_entry e2;
    assert_int_equal(cc_store_lookup(ctx, key, &e2, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 0);
    cc_store_entry_free(&e2);
    free(q);
    free(f);
    free(dst);
    cc_store_entry_free(&e);
    free(st);
    free(key);
    cudnnctl_ctx_free(ctx);
}

static void an_aborted_fill_or_a_damaged_manifest_is_not_believed(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = new_ctx();
    char *key = cc_store_key(SHA, CUDNNCTL_COMPONENT_DEV, 0);
    char *st = make_staging("stage-c");
    cc_store_fill *f = cc_store_fill_begin(ctx, key, st);
    assert_non_null(f);
    cc_store_fill_abort(ctx, f);
    cc_store_entry e;
    int found = 1;
    assert_int_equal(cc_store_lookup(ctx, key, &e, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 0);
    cc_store_entry_free(&e);
    fill(ctx, key, st);
    assert_int_equal(cc_store_lookup(ctx, key, &e, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 1);
    char *man = at(e.dir, "manifest.json");
    assert_int_equal(cc_pf_chmod(man, 0644), 0);
    put(man, "{\"format\": \"cudnnctl-store/1\", \"files\": [", 0444);
    cc_store_entry_free(&e);
    assert_int_equal(cc_store_lookup(ctx, key, &e, &found), CUDNNCTL_E_OK);
    assert_int_equal(found, 0); /* and moved to the quarantine */
    cc_pf_stat_t s;
    assert_int_equal(cc_pf_lstat(e.dir, &s), 0);
    assert_false(s.exists);
    cc_store_entry_free(&e);
    free(man);
    free(st);
    free(key);
    cudnnctl_ctx_free(ctx);
}

int main(void)
{
    snprintf(base, sizeof(base), "store-test-%llu-%ld", (unsigned long long)cc_pf_now_ms(),
             (long)cc_pf_getpid());
    if (cc_pf_mkdir(base, 0755) != 0)
        return 1;
    char *abs = cc_pf_realpath(base);
    snprintf(base, sizeof(base), "%s", abs);
    free(abs);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_key_names_archive_components_and_content),
        cmocka_unit_test(a_fill_is_found_and_copied_back_exactly),
        cmocka_unit_test(a_changed_store_file_is_bad_and_quarantined),
        cmocka_unit_test(an_aborted_fill_or_a_damaged_manifest_is_not_believed),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cudnnctl_ctx *ctx = NULL;
    if (rc == 0 && cudnnctl_ctx_new(&ctx) == CUDNNCTL_E_OK) {
        cc_sys_rm_rf(ctx, base);
        cudnnctl_ctx_free(ctx);
    }
    return rc;
}
