/* test_extract.c: real archives of every NVIDIA era (built at test time by
 * tests/fixtures/make_archive.py from the machine's cuDNN 9.19 files and ELF doubles) extracted
 * into temporary staging dirs — the exact tree (files, modes, link targets, SHA-256 of the bytes)
 * and the staging records are compared with the generator's expectation; every hostile archive
 * must fail with the right code, name the entry, leave the staging dir empty and write nothing
 * beside it. The contract around staging (empty dir, errors, progress, faults):
 * test_extract_contract.c. CUDNNCTL_TEST_FIXTURES=DIR uses archives generated beforehand. */
#include "extract_fixture.h"

/* The eras whose tree has symlinks (every Linux tar: libcudnn.so -> .so.9 -> .so.9.19.0) when
 * @p links, else the others (the Windows zips). Each group must exist. */
static void run_eras(int via, int links)
{
    char *eras_dir = cc_path_join(g_fx, "eras");
    char *idx = cc_path_join(eras_dir, "eras.json");
    cJSON *list = load_json(idx);
    assert_true(cJSON_GetArraySize(list) >= 8);
    cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, list)
    {
        const char *name = it->valuestring;
        char *archive = cc_path_join(eras_dir, name);
        char *expf = cc_asprintf("%s.expect.json", archive);
        cJSON *exp = load_json(expf);
        if (expects_links(exp) != links) {
            cJSON_Delete(exp);
            free(archive);
            free(expf);
            continue;
        }
        char *sname = cc_asprintf("staging-%d-%d", via, n++);
        char *staging = mkdir_fresh(g_root, sname);
        cudnnctl_ctx *ctx = NULL;
        assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
        cc_staging st;
        cudnnctl_err rc = extract_via(ctx, via, archive, name, staging, &st);
        int is_zip = cc_str_ends(name, ".zip");
        if (is_zip && (via == VIA_STREAM || via == VIA_STREAM_INLINE)) {
            /* a zip is only extracted from its file (central directory) */
            assert_int_equal(rc, CUDNNCTL_E_UNSUPPORTED);
            assert_true(dir_is_empty(staging));
        } else {
            if (rc != CUDNNCTL_E_OK)
                fail_msg("%s: %s: %s", name, cudnnctl_err_name(rc),
                         cudnnctl_last_error(ctx)->detail);
            check_staging(staging, &st, exp);
            cc_staging_free(&st);
        }
        cudnnctl_ctx_free(ctx);
        rm_rf(staging);
        cJSON_Delete(exp);
        free(sname);
        free(staging);
        free(archive);
        free(expf);
    }
    assert_true(n > 0);
    cJSON_Delete(list);
    free(idx);
    free(eras_dir);
}

/* The eras with symlinks need them on disk: skipped (reported so) where POSIX symlinks cannot be
 * made, as under wine, whose CreateSymbolicLinkW creates nothing. */
static void run_linked_eras(int via)
{
    if (!g_links)
        skip();
    run_eras(via, 1);
}

static void eras_from_file(void **state)
{
    (void)state;
    run_eras(VIA_FILE, 0);
}

static void linked_eras_from_file(void **state)
{
    (void)state;
    run_linked_eras(VIA_FILE);
}

static void eras_from_file_inline(void **state)
{
    (void)state;
    run_eras(VIA_FILE_INLINE, 0);
}

static void linked_eras_from_file_inline(void **state)
{
    (void)state;
    run_linked_eras(VIA_FILE_INLINE);
}

static void eras_from_stream(void **state)
{
    (void)state;
    run_eras(VIA_STREAM, 0);
}

static void linked_eras_from_stream(void **state)
{
    (void)state;
    run_linked_eras(VIA_STREAM);
}

static void eras_from_stream_inline(void **state)
{
    (void)state;
    run_eras(VIA_STREAM_INLINE, 0);
}

static void linked_eras_from_stream_inline(void **state)
{
    (void)state;
    run_linked_eras(VIA_STREAM_INLINE);
}

/* ---- hostile archives ---------------------------------------------------------------------- */
static void run_hostile_case(cJSON *c, int via)
{
    const char *cs = cJSON_GetObjectItem(c, "case")->valuestring;
    const char *archive = cJSON_GetObjectItem(c, "archive")->valuestring;
    const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
    const char *want = cJSON_GetObjectItem(c, "expect")->valuestring;
    const char *needle = cJSON_GetObjectItem(c, "needle")->valuestring;
    int is_zip = cc_str_ends(name, ".zip");
    if (is_zip && via != VIA_FILE)
        return;
    /* box/{staging, sentinel/keep}: a hostile entry that escaped would land in box/ or above */
    char *bname = cc_asprintf("box-%s-%d", cs, via);
    char *box = mkdir_fresh(g_root, bname);
    char *staging = mkdir_fresh(box, "staging");
    char *sentinel = mkdir_fresh(box, "sentinel");
    char *keep = cc_path_join(sentinel, "keep");
    write_file(keep, "sentinel\n");
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cc_staging st;
    cudnnctl_err rc = extract_via(ctx, via, archive, name, staging, &st);
    const char *got = cudnnctl_err_name(rc);
    const char *detail = cudnnctl_last_error(ctx)->detail;
    if (strcmp(got, want) != 0)
        fail_msg("hostile case %s (via %d): got %s (%s), want %s", cs, via, got,
                 detail ? detail : "", want);
    if (rc != CUDNNCTL_E_OK) {
        if (!detail || !strstr(detail, needle))
            fail_msg("hostile case %s: detail '%s' does not name '%s'", cs, detail, needle);
        assert_int_equal(cudnnctl_err_exit_code(rc), 4);
        /* nothing left in staging, nothing beside it */
        if (!dir_is_empty(staging))
            fail_msg("hostile case %s: staging not emptied: %s", cs, listing(staging));
    } else {
        /* setuid / setgid / sticky: staged without the bits */
        static const char *const f[] = {"lib/suid", "lib/sgid", "lib/sticky"};
        for (size_t i = 0; i < 3; i++) {
            char *p = cc_path_join(staging, f[i]);
            cc_pf_stat_t s;
            assert_int_equal(cc_pf_lstat(p, &s), 0);
            assert_true(s.exists && s.is_reg);
            assert_int_equal(s.mode, shown_mode(f[i], 0755));
            const cc_staged_file *r = cc_staging_find(&st, f[i]);
            assert_non_null(r);
            assert_int_equal(r->mode, 0755);
            free(p);
        }
        cc_staging_free(&st);
    }
    char *l = listing(box);
    assert_string_equal(l, "sentinel,staging");
    free(l);
    l = listing(sentinel);
    assert_string_equal(l, "keep");
    free(l);
    char *data = slurp(keep);
    assert_string_equal(data, "sentinel\n");
    free(data);
    /* where the hostile names point: box/.., the test root, the "outside" dir */
    static const char *const escaped[] = {"x", "x.dll", "abs-x", "outside", "etc"};
    for (size_t i = 0; i < sizeof(escaped) / sizeof(escaped[0]); i++)
        if (exists_in(g_root, escaped[i]))
            fail_msg("hostile case %s wrote %s/%s", cs, g_root, escaped[i]);
    if (exists_in(g_fx, "outside")) /* the --outside dir of fixtures made beforehand */
        fail_msg("hostile case %s wrote %s/outside", cs, g_fx);
    cudnnctl_ctx_free(ctx);
    rm_rf(box);
    free(keep);
    free(sentinel);
    free(staging);
    free(box);
    free(bname);
}

static void run_hostile(int via)
{
    g_content = CC_CONTENT_ANY; /* whatever a failed test before left */
    char *idx = cc_path_join(g_fx, "hostile/hostile.json");
    cJSON *list = load_json(idx);
    assert_true(cJSON_GetArraySize(list) >= 30);
    cJSON *c;
    cJSON_ArrayForEach(c, list) run_hostile_case(c, via);
    cJSON_Delete(list);
    free(idx);
}

static void hostile_from_file(void **state)
{
    (void)state;
    run_hostile(VIA_FILE);
}

static void hostile_from_stream(void **state)
{
    (void)state;
    run_hostile(VIA_STREAM);
}

static void hostile_from_stream_inline(void **state)
{
    (void)state;
    run_hostile(VIA_STREAM_INLINE);
}

/* Every era's real layout (Linux tar and tgz, the Windows zips) passes the CUDA-tree content
 * policy unchanged: the allowlist holds all of NVIDIA's files (content_policy.c). */
static void eras_into_a_cuda_tree(void **state)
{
    (void)state;
    g_content = CC_CONTENT_CUDA_TREE;
    run_eras(VIA_FILE, 0);
    run_eras(VIA_STREAM, 0);
    g_content = CC_CONTENT_ANY;
}

static void linked_eras_into_a_cuda_tree(void **state)
{
    (void)state;
    g_content = CC_CONTENT_CUDA_TREE;
    run_linked_eras(VIA_FILE);
    run_linked_eras(VIA_STREAM);
    g_content = CC_CONTENT_ANY;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eras_from_file),
        cmocka_unit_test(linked_eras_from_file),
        cmocka_unit_test(eras_from_file_inline),
        cmocka_unit_test(linked_eras_from_file_inline),
        cmocka_unit_test(eras_from_stream),
        cmocka_unit_test(linked_eras_from_stream),
        cmocka_unit_test(eras_from_stream_inline),
        cmocka_unit_test(linked_eras_from_stream_inline),
        cmocka_unit_test(eras_into_a_cuda_tree),
        cmocka_unit_test(linked_eras_into_a_cuda_tree),
        cmocka_unit_test(hostile_from_file),
        cmocka_unit_test(hostile_from_stream),
        cmocka_unit_test(hostile_from_stream_inline),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
