/* test_install_verified.c: issue 18 item 5 — what is installed is what was verified. A zip is
 * hashed, then unpacked (its central directory is at the end); the test hook between the two
 * (cudnnctl_set_archive_hook) renames another zip over the archive's path, as an attacker who can
 * write that directory would. The install must still put the verified bytes in place and its
 * receipt must name their SHA-256 (with --sha256, and with --insecure-skip-verify, where the
 * receipt's digest is whatever was hashed). An archive in a directory others can write (or a
 * file they could write) is read through a private copy in the cache, removed afterwards: there
 * the hook even rewrites the file in place, which an open descriptor alone would not survive.
 * Linux only (a Windows zip into a prefix, no validation, no environment). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "commit_fixture.h"

#define TOP "cudnn-windows-x86_64-9.99.0.1_cuda13-archive"
#define ZIP_NAME TOP ".zip"

typedef struct {
    char *dir;  /* the test's temp dir */
    char *good; /* the genuine zip (a copy kept outside the archive dir) */
    char *evil; /* the attacker's zip */
    char good_hex[65];
    char *swap_src; /* what the hook renames over the path (a copy of evil) */
    int hook_calls;
    char *hook_path;
    int in_place; /* the hook rewrites the file's bytes (its owner could) instead of renaming */
} world;

/* A Windows cuDNN 9 zip (NVIDIA's 9.18+ layout) whose DLL carries `tag`. */
static void make_zip(const char *out, const char *tag)
{
    assert_int_equal(
        fx_sh("python3 -c 'import sys, zipfile\n"
              "z = zipfile.ZipFile(sys.argv[1], \"w\")\n"
              "t = \"" TOP "\"\n"
              "z.writestr(t + \"/bin/x64/cudnn64_9.dll\", b\"MZ\" + sys.argv[2].encode() * 200)\n"
              "z.writestr(t + \"/include/cudnn_version.h\", b\"#define CUDNN_MAJOR 9\\n\")\n"
              "z.writestr(t + \"/lib/x64/cudnn.lib\", b\"import library\")\n"
              "z.writestr(t + \"/LICENSE\", b\"licence\")\n"
              "z.close()' '%s' '%s'",
              out, tag),
        0);
}

static void world_make(world *w)
{
    memset(w, 0, sizeof(*w));
    w->dir = fx_tmpdir();
    w->good = cc_path_join(w->dir, "good.zip");
    w->evil = cc_path_join(w->dir, "evil.zip");
    make_zip(w->good, "GENUINE ");
    make_zip(w->evil, "ATTACKER");
    assert_int_equal(cc_sha256_file(fx_ctx(), w->good, w->good_hex, NULL), 0);
}

static void world_free(world *w)
{
    fx_sh("rm -rf '%s'", w->dir);
    free(w->dir);
    free(w->good);
    free(w->evil);
    free(w->swap_src);
    free(w->hook_path);
}

/* The attacker: another zip renamed over the archive's path, after it was verified. */
static void swap_hook(void *user, const char *path)
{
    world *w = user;
    w->hook_calls++;
    free(w->hook_path);
    w->hook_path = cc_strdup(path);
    if (w->in_place)
        assert_int_equal(fx_sh("cat '%s' > '%s'", w->evil, path), 0);
    else
        assert_int_equal(
            fx_sh("cp '%s' '%s.swap' && mv -f '%s.swap' '%s'", w->evil, path, path, path), 0);
}

/* Install <archive dir>/<ZIP_NAME> into <dir>/prefix; returns the result (caller frees). */
static cudnnctl_install_result *install(world *w, const char *archive_dir, int with_sha,
                                        cudnnctl_err want)
{
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    char *cache = cc_path_join(w->dir, "cache"), *state = cc_path_join(w->dir, "state");
    char *prefix = cc_path_join(w->dir, "prefix"), *archive = cc_path_join(archive_dir, ZIP_NAME);
    assert_int_equal(cudnnctl_set_cache_dir(ctx, cache), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_set_state_dir(ctx, state), CUDNNCTL_E_OK);
    cudnnctl_set_archive_hook(ctx, swap_hook, w);
    cudnnctl_catalog *cat = NULL;
    assert_int_equal(cudnnctl_catalog_load(ctx, &cat), CUDNNCTL_E_OK);
    cudnnctl_install_opts o;
    memset(&o, 0, sizeof(o));
    o.selection.prefix = prefix;
    o.selection.platform = "windows-x86_64";
    o.selection.cuda = "13";
    o.archive = archive;
    o.sha256 = with_sha ? w->good_hex : NULL;
    o.insecure_skip_verify = !with_sha;
    o.no_env = 1;
    o.no_ldconfig = 1;
    cudnnctl_install_result *r = NULL;
    cudnnctl_err e = cudnnctl_install(ctx, cat, NULL, &o, &r);
    if (e != want)
        fail_msg("install: %s (%s)", cudnnctl_err_name(e), cudnnctl_last_error(ctx)->detail);
    cudnnctl_catalog_free(cat);
    cudnnctl_ctx_free(ctx);
    free(cache);
    free(state);
    free(prefix);
    free(archive);
    return r;
}

/* The installed DLL is the genuine one, byte for byte; the result and the receipt name the
 * genuine SHA-256. */
static void assert_genuine(const world *w, const cudnnctl_install_result *r)
{
    char *dll = cc_path_join(r->install_dir, "bin/cudnn64_9.dll");
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(cc_sys_read_file(fx_ctx(), dll, 1u << 20, &data, &len), 0);
    assert_int_equal(len, 2 + 8 * 200);
    assert_memory_equal(data, "MZGENUINE ", 10);
    assert_null(strstr(data, "ATTACKER"));
    free(data);
    free(dll);
    assert_string_equal(r->archive.sha256, w->good_hex);
    char *text = NULL;
    assert_int_equal(cc_sys_read_file(fx_ctx(), r->receipt_path, 1u << 20, &text, &len), 0);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    const cJSON *sha = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "archive"), "sha256");
    assert_true(cJSON_IsString(sha));
    assert_string_equal(sha->valuestring, w->good_hex);
    cJSON_Delete(j);
    free(text);
}

/* The hook ran on the archive's own path, and the swap really happened there. */
static void assert_swapped(const world *w, const char *archive_dir)
{
    char *archive = cc_path_join(archive_dir, ZIP_NAME);
    char hex[65];
    assert_int_equal(w->hook_calls, 1);
    assert_string_equal(w->hook_path, archive);
    assert_int_equal(cc_sha256_file(fx_ctx(), archive, hex, NULL), 0);
    assert_string_not_equal(hex, w->good_hex);
    free(archive);
}

static char *archive_dir(world *w, const char *name, uint32_t mode)
{
    char *d = cc_path_join(w->dir, name);
    assert_int_equal(cc_pf_mkdir(d, 0755), 0);
    assert_int_equal(cc_pf_chmod(d, mode), 0);
    char *a = cc_path_join(d, ZIP_NAME);
    assert_int_equal(fx_sh("cp '%s' '%s'", w->good, a), 0);
    free(a);
    return d;
}

static void zip_swapped_after_verification_installs_the_verified_bytes(void **state)
{
    (void)state;
    for (int with_sha = 1; with_sha >= 0; with_sha--) {
        world w;
        world_make(&w);
        char *d = archive_dir(&w, "archives", 0755); /* a directory only we can write */
        cudnnctl_install_result *r = install(&w, d, with_sha, CUDNNCTL_E_OK);
        assert_int_equal(r->result, CUDNNCTL_INSTALL_INSTALLED);
        assert_genuine(&w, r);
        assert_swapped(&w, d);
        cudnnctl_install_result_free(r);
        free(d);
        world_free(&w);
    }
}

static void archive_in_a_directory_others_write_is_copied_first(void **state)
{
    (void)state;
    world w;
    world_make(&w);
    char *d = archive_dir(&w, "shared", 0777); /* anyone may rename files in it */
    w.in_place = 1;
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_trust_check(d, CC_PF_TRUST_OBJECT), -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_UNTRUSTED);
    cudnnctl_install_result *r = install(&w, d, 1, CUDNNCTL_E_OK);
    assert_genuine(&w, r);
    assert_swapped(&w, d);
    cudnnctl_install_result_free(r);
    /* the private copy is gone again; nothing but what was there is left in the cache */
    char *blobs = cc_path_join(w.dir, "cache/blobs/sha256");
    assert_int_equal(cc_pf_stat(blobs, &st), 0);
    cc_pf_dir *dir = cc_pf_opendir(blobs);
    assert_non_null(dir);
    const char *n;
    while ((n = cc_pf_readdir(dir)) != NULL)
        fail_msg("left in the cache: %s", n);
    cc_pf_closedir(dir);
    free(blobs);
    free(d);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zip_swapped_after_verification_installs_the_verified_bytes),
        cmocka_unit_test(archive_in_a_directory_others_write_is_copied_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
