/* test_extract_contract.c: the contract of cc_extract around its staging dir: it must be empty,
 * a source error is kept (not replaced by libarchive's), a renamed archive and a forced top dir,
 * progress and a missing archive, every sys call failed in turn (nothing left behind), the bytes
 * through a real cc_source, and the second line of defence against hostile entries. */
#include "extract_fixture.h"

/* ---- the contract around staging ------------------------------------------------------------ */
static char *era_archive(const char *name)
{
    char *p = cc_path_join(g_fx, "eras");
    char *a = cc_path_join(p, name);
    free(p);
    return a;
}

static void staging_must_be_empty(void **state)
{
    (void)state;
    char *staging = mkdir_fresh(g_root, "nonempty");
    char *mine = cc_path_join(staging, "users-file");
    write_file(mine, "x");
    char *archive = era_archive("cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz");
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_staging st;
    assert_int_equal(cc_extract_file(ctx, archive, NULL, staging, &st), CUDNNCTL_E_EXISTS);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "users-file"));
    char *l = listing(staging);
    assert_string_equal(l, "users-file");
    free(l);
    /* a missing staging dir is an error, not created behind the caller's back */
    char *missing = cc_path_join(g_root, "no-such-staging");
    assert_int_not_equal(cc_extract_file(ctx, archive, NULL, missing, &st), CUDNNCTL_E_OK);
    cc_pf_stat_t s;
    cc_pf_lstat(missing, &s);
    assert_false(s.exists);
    cudnnctl_ctx_free(ctx);
    rm_rf(staging);
    free(missing);
    free(archive);
    free(mine);
    free(staging);
}

static void source_error_is_kept(void **state)
{
    (void)state;
    /* the source fails mid-stream (network): its error comes back, not "malformed archive",
     * and what was already staged is removed */
    char *archive = era_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
    char *staging = mkdir_fresh(g_root, "srcfail");
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    file_reader r = {.ctx = ctx, .fail_after = 200000, .max_chunk = 65536};
    r.fd = cc_pf_open(archive, CC_PF_O_RDONLY, 0);
    cc_staging st;
    cudnnctl_err rc = cc_extract_reader(ctx, read_file, &r, cc_path_base(archive), staging, &st);
    cc_pf_close(r.fd);
    assert_int_equal(rc, CUDNNCTL_E_NETWORK);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "connection reset"));
    assert_true(dir_is_empty(staging));
    assert_null(st.files);
    cudnnctl_ctx_free(ctx);
    rm_rf(staging);
    free(staging);
    free(archive);
}

static void renamed_archive_and_forced_top(void **state)
{
    (void)state;
    /* a renamed file (cache blob): the top dir only has to look like NVIDIA's */
    char *archive = era_archive("cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz");
    char *staging = mkdir_fresh(g_root, "renamed");
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_staging st;
    assert_int_equal(cc_extract_file(ctx, archive, "0123456789abcdef", staging, &st),
                     CUDNNCTL_E_OK);
    assert_string_equal(st.top_dir, "cudnn-linux-x86_64-8.9.7.29_cuda12-archive");
    assert_int_equal(st.layout, CC_LAYOUT_TAR_9X);
    cc_staging_free(&st);
    rm_rf(staging);
    free(staging);
    /* a caller that knows better can insist on a top directory */
    staging = mkdir_fresh(g_root, "forced");
    cc_extract_opts o = {.path = archive,
                         .expected_top = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"};
    assert_int_equal(cc_extract_ex(ctx, &o, staging, &st), CUDNNCTL_E_UNSAFE_ARCHIVE);
    assert_true(dir_is_empty(staging));
    /* neither a reader nor a path, or both */
    cc_extract_opts bad = {0};
    assert_int_equal(cc_extract_ex(ctx, &bad, staging, &st), CUDNNCTL_E_USAGE);
    cudnnctl_ctx_free(ctx);
    rm_rf(staging);
    free(staging);
    free(archive);
}

typedef struct {
    int calls;
    uint64_t last_done, last_total;
} progress_seen;

static void on_progress(void *user, const cudnnctl_progress *pr)
{
    progress_seen *ps = user;
    if (strcmp(pr->stage, "extract") != 0)
        return;
    assert_true(pr->done >= ps->last_done); /* monotonic */
    ps->calls++;
    ps->last_done = pr->done;
    ps->last_total = pr->total;
}

static void progress_and_missing_archive(void **state)
{
    (void)state;
    char *archive = era_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
    char *staging = mkdir_fresh(g_root, "progress");
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    progress_seen ps = {0};
    cudnnctl_set_progress_cb(ctx, on_progress, &ps);
    cc_staging st;
    assert_int_equal(cc_extract_file(ctx, archive, NULL, staging, &st), CUDNNCTL_E_OK);
    /* every 1 MiB staged, then a final report with the total */
    assert_int_equal(ps.calls, 1 + (int)(st.bytes / (1u << 20)));
    assert_int_equal(ps.last_done, st.bytes);
    assert_int_equal(ps.last_total, st.bytes);
    cc_staging_free(&st);
    rm_rf(staging);
    free(staging);
    /* an archive that is not there: an error naming it, nothing staged */
    staging = mkdir_fresh(g_root, "missing");
    assert_int_not_equal(cc_extract_file(ctx, "/nonexistent/cudnn.tar.xz", NULL, staging, &st),
                         CUDNNCTL_E_OK);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "/nonexistent/cudnn.tar.xz"));
    assert_true(dir_is_empty(staging));
    cudnnctl_ctx_free(ctx);
    rm_rf(staging);
    free(staging);
    free(archive);
}

/* curl-style torture: fail the N-th sys_ops call of an extraction, for every N; each failure
 * must come back as an error and leave the staging dir empty. */
static void fault_loop(void **state)
{
    (void)state;
    char *archive = era_archive("cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz");
    char *staging = mkdir_fresh(g_root, "torture");
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_staging st;
    assert_int_equal(cc_extract_file(ctx, archive, NULL, staging, &st), CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(ctx);
    size_t files = st.n_files;
    cc_staging_free(&st);
    cudnnctl_ctx_free(ctx);
    assert_true(calls >= files); /* at least one injectable call per staged file */
    for (unsigned long n = 1; n <= calls + 1; n++) {
        rm_rf(staging);
        assert_int_equal(cc_pf_mkdir(staging, 0755), 0);
        cudnnctl_ctx_new(&ctx);
        cudnnctl_set_fault_injection(ctx, n);
        for (int via = 0; via < 2; via++) {
            if (via) {
                rm_rf(staging);
                assert_int_equal(cc_pf_mkdir(staging, 0755), 0);
                cudnnctl_ctx_free(ctx);
                cudnnctl_ctx_new(&ctx);
                cudnnctl_set_fault_injection(ctx, n);
            }
            cudnnctl_err rc =
                extract_via(ctx, via ? VIA_STREAM : VIA_FILE, archive,
                            "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", staging, &st);
            if (n <= calls) {
                if (rc == CUDNNCTL_E_OK)
                    fail_msg("fault at call %lu of %lu was not reported", n, calls);
                if (!dir_is_empty(staging))
                    fail_msg("fault at call %lu: staging left with %s", n, listing(staging));
                assert_null(st.files);
            } else {
                assert_int_equal(rc, CUDNNCTL_E_OK);
                assert_int_equal(st.n_files, files);
                cc_staging_free(&st);
            }
        }
        cudnnctl_ctx_free(ctx);
    }
    rm_rf(staging);
    free(staging);
    free(archive);
}

/* The real adapter: cc_extract over a cc_source (a local archive, hashed as libarchive pulls
 * it), then cc_source_finish checks the digest — the install's order. */
static void through_cc_source(void **state)
{
    (void)state;
    if (!g_links)
        skip(); /* a Linux tar: its symlinks need POSIX symlinks on disk (check_staging) */
    const char *name = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
    char *archive = era_archive(name);
    char want[65];
    uint64_t size = 0;
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    assert_int_equal(cc_sha256_file(ctx, archive, want, &size), 0);
    char *expf = cc_asprintf("%s.expect.json", archive);
    cJSON *exp = load_json(expf);
    for (int wrong = 0; wrong < 2; wrong++) {
        char *staging = mkdir_fresh(g_root, wrong ? "src-wrong" : "src-ok");
        char bad[65];
        memcpy(bad, want, sizeof(bad));
        bad[0] = bad[0] == '0' ? '1' : '0';
        cc_source_opts so = {
            .url = archive, .expected_sha256 = wrong ? bad : want, .expected_size = size};
        cc_source *src = NULL;
        assert_int_equal(cc_source_open(ctx, &so, &src), CUDNNCTL_E_OK);
        cc_staging st;
        cudnnctl_err rc = cc_extract(ctx, src, name, staging, &st);
        if (rc)
            fail_msg("cc_extract over cc_source: %s", cudnnctl_last_error(ctx)->detail);
        check_staging(staging, &st, exp);
        char got[65];
        uint64_t got_size = 0;
        rc = cc_source_finish(src, got, &got_size);
        /* the bytes are the same either way; only the verdict on them differs */
        if (wrong) {
            assert_int_equal(rc, CUDNNCTL_E_HASH_MISMATCH);
            assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, want));
        } else {
            assert_int_equal(rc, CUDNNCTL_E_OK);
            assert_string_equal(got, want);
            assert_int_equal(got_size, size);
        }
        cc_source_close(src);
        cc_staging_free(&st);
        rm_rf(staging);
        free(staging);
    }
    cJSON_Delete(exp);
    free(expf);
    cudnnctl_ctx_free(ctx);
    free(archive);
}

/* A truncated file through the source: malformed, staging emptied. */
static void truncated_through_cc_source(void **state)
{
    (void)state;
    const char *name = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    char *trunc = cc_path_join(g_fx, "hostile/truncated-xz");
    char *tarch = cc_path_join(trunc, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
    char *staging = mkdir_fresh(g_root, "src-trunc");
    cc_source_opts so = {.url = tarch, .insecure_skip_verify = 1};
    cc_source *src = NULL;
    assert_int_equal(cc_source_open(ctx, &so, &src), CUDNNCTL_E_OK);
    cc_staging st;
    assert_int_equal(cc_extract(ctx, src, name, staging, &st), CUDNNCTL_E_BAD_ARCHIVE);
    assert_true(dir_is_empty(staging));
    cc_source_close(src);
    rm_rf(staging);
    free(staging);
    free(tarch);
    free(trunc);
    cudnnctl_ctx_free(ctx);
}

/* Were our own checks bypassed, libarchive's SECURE_* flags still refuse: writing through a
 * link already on disk (@p first 0; where POSIX symlinks can be made), and a ".." path (@p first
 * 1). Exercised on the writer directly, both modes. */
static void second_line(int first)
{
    for (int threaded = 0; threaded < 2; threaded++) {
        char *box = mkdir_fresh(g_root, threaded ? "second-t" : "second-i");
        char *staging = mkdir_fresh(box, "staging");
        char *outside = mkdir_fresh(box, "outside");
        char *lib = mkdir_fresh(staging, "lib");
        char *link = cc_path_join(lib, "sub");
        if (first == 0)
            assert_int_equal(cc_pf_symlink("../../outside", link), 0);
        char *real = cc_pf_realpath(staging);
        static const char *const evil[] = {"lib/sub/x", "../outside/y"};
        for (size_t i = (size_t)first; i < 2; i++) {
            cc_xwriter *w = cc_xwriter_new(real, threaded);
            assert_non_null(w);
            cc_xentry e = {.type = CC_XE_FILE, .out_mode = 0644, .mapped = (char *)evil[i]};
            cc_staged_file rec = {0};
            if (cc_xwriter_begin(w, &e, 0, 4, &rec, NULL) == 0) {
                cc_xwriter_data(w, "evil", 4);
                cc_xwriter_end(w);
            }
            char *err = NULL, *warn = NULL;
            unsigned nw = 0;
            assert_int_equal(cc_xwriter_finish(w, &err, &nw, &warn), -1);
            assert_non_null(err);
            if (!strstr(err, i == 0 ? "symlink" : ".."))
                fail_msg("libarchive refused %s for another reason: %s", evil[i], err);
            free(err);
            free(warn);
            cc_xwriter_free(w);
            assert_true(dir_is_empty(outside));
        }
        free(real);
        free(link);
        free(lib);
        free(outside);
        free(staging);
        rm_rf(box);
        free(box);
    }
}

static void second_line_of_defence(void **state)
{
    (void)state;
    if (!g_links)
        skip(); /* reported as skipped where POSIX symlinks cannot be made (wine) */
    second_line(0);
}

static void second_line_dotdot(void **state)
{
    (void)state;
    second_line(1);
}

/* libarchive's archive_write_disk_new reads the umask by setting it to 0 and back. Writers made
 * in several threads at once (the zip's workers each make their own) could each read another's
 * 0, believe a 0644 file needs no chmod after its umasked open, and leave it 0600 (seen in
 * test_extract_tool under umask 077), or read another's 0 and restore that: the process's umask
 * then stays 0 for good, and every file made later (as root: the state dir's too) gets exactly
 * the mode it asks for, 0666 where it relies on the umask. Under umask 077, 2 threads write 300
 * files each, a writer of their own per file, while 2 more make and free writers as fast as
 * they can: the umask must still be 077 after, and every file 0644. */
#ifndef _WIN32
#include <sys/stat.h> /* umask */
#define UMASK_THREADS 2
#define UMASK_CHURN 2
#define UMASK_FILES 300
typedef struct {
    char *dir;
    int failed;
} umask_job;
static volatile int g_umask_done;

static void umask_churn(void *arg)
{
    (void)arg;
    while (!g_umask_done)
        cc_xwriter_free(cc_xwriter_new("/", 0));
}

static void umask_worker(void *arg)
{
    umask_job *j = arg;
    for (int k = 0; k < UMASK_FILES && !j->failed; k++) {
        char name[32];
        snprintf(name, sizeof(name), "f%d", k);
        cc_xwriter *w = cc_xwriter_new(j->dir, 0);
        cc_xentry e = {.type = CC_XE_FILE, .out_mode = 0644, .mapped = name};
        cc_staged_file rec = {0};
        char *err = NULL, *warn = NULL;
        unsigned nw = 0;
        int ok = w && cc_xwriter_begin(w, &e, 0, 1, &rec, NULL) == 0 &&
                 cc_xwriter_data(w, "x", 1) == 0 && cc_xwriter_end(w) == 0;
        if (w && cc_xwriter_finish(w, &err, &nw, &warn) != 0)
            ok = 0;
        free(err);
        free(warn);
        cc_xwriter_free(w);
        j->failed |= !ok;
    }
}
#endif

static void writers_made_in_threads_keep_modes(void **state)
{
    (void)state;
#ifdef _WIN32
    skip(); /* no umask, no POSIX modes */
#else
    char *box = mkdir_fresh(g_root, "umask-threads");
    umask_job jobs[UMASK_THREADS];
    cc_pf_thread *t[UMASK_THREADS], *churn[UMASK_CHURN];
    mode_t old = umask(077);
    g_umask_done = 0;
    for (int i = 0; i < UMASK_CHURN; i++)
        assert_int_equal(cc_pf_thread_start(&churn[i], umask_churn, NULL), 0);
    for (int i = 0; i < UMASK_THREADS; i++) {
        char sub[16];
        snprintf(sub, sizeof(sub), "t%d", i);
        char *d = mkdir_fresh(box, sub);
        jobs[i].dir = cc_pf_realpath(d);
        jobs[i].failed = 0;
        free(d);
        assert_int_equal(cc_pf_thread_start(&t[i], umask_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < UMASK_THREADS; i++)
        cc_pf_thread_join(t[i]);
    g_umask_done = 1;
    for (int i = 0; i < UMASK_CHURN; i++)
        cc_pf_thread_join(churn[i]);
    mode_t left = umask(old); /* every thread is done: no one else reads or sets it now */
    if (left != 077)
        fail_msg("the writers left the process umask %03o, not 077: one's umask(0) read "
                 "another's 0 and restored that (files made later get no umask at all)",
                 (unsigned)left);
    int wrong = 0;
    for (int i = 0; i < UMASK_THREADS; i++) {
        assert_false(jobs[i].failed);
        for (int k = 0; k < UMASK_FILES; k++) {
            char name[32];
            snprintf(name, sizeof(name), "f%d", k);
            char *p = cc_path_join(jobs[i].dir, name);
            cc_pf_stat_t st;
            assert_int_equal(cc_pf_stat(p, &st), 0);
            assert_true(st.exists);
            if (st.mode != 0644 && wrong++ == 0)
                print_message("%s: mode %o, want 644\n", p, (unsigned)st.mode);
            free(p);
        }
        free(jobs[i].dir);
    }
    assert_int_equal(wrong, 0);
    rm_rf(box);
    free(box);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(staging_must_be_empty),
        cmocka_unit_test(source_error_is_kept),
        cmocka_unit_test(renamed_archive_and_forced_top),
        cmocka_unit_test(second_line_of_defence),
        cmocka_unit_test(second_line_dotdot),
        cmocka_unit_test(progress_and_missing_archive),
        cmocka_unit_test(fault_loop),
        cmocka_unit_test(through_cc_source),
        cmocka_unit_test(truncated_through_cc_source),
        cmocka_unit_test(writers_made_in_threads_keep_modes),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
