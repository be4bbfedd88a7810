/* test_extract.c: real archives of every NVIDIA era (built at test time by
 * tests/fixtures/make_archive.py from the machine's cuDNN 9.19 files and ELF doubles) extracted
 * into temporary staging dirs — the exact tree (files, modes, link targets, SHA-256 of the bytes)
 * and the staging records are compared with the generator's expectation; every hostile archive
 * must fail with the right code, name the entry, leave the staging dir empty and write nothing
 * beside it. CUDNNCTL_TEST_FIXTURES=DIR uses archives generated beforehand (cross builds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "content_policy.h"
#include "extract.h"
#include "extract_write.h"
#include "hash.h"
#include "internal.h"

static char *g_root; /* temporary root of this run */
static char *g_fx;   /* fixtures: eras/ and hostile/ */
static int g_fx_ours;

/* ---- helpers ------------------------------------------------------------------------------ */
static char *slurp(const char *path)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (fd < 0)
        return NULL;
    cc_buf b = {0};
    char tmp[65536];
    long long n;
    while ((n = cc_pf_read(fd, tmp, sizeof(tmp))) > 0)
        cc_buf_append(&b, tmp, (size_t)n);
    cc_pf_close(fd);
    return b.data;
}

static cJSON *load_json(const char *path)
{
    char *s = slurp(path);
    if (!s)
        fail_msg("cannot read %s", path);
    cJSON *j = cJSON_Parse(s);
    free(s);
    if (!j)
        fail_msg("cannot parse %s", path);
    return j;
}

static void rm_rf(const char *path)
{
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_sys_rm_rf(ctx, path);
    cudnnctl_ctx_free(ctx);
}

static char *mkdir_fresh(const char *a, const char *b)
{
    char *p = cc_path_join(a, b);
    rm_rf(p);
    assert_int_equal(cc_pf_mkdir(p, 0755), 0);
    return p;
}

static int dir_is_empty(const char *path)
{
    cc_pf_dir *d = cc_pf_opendir(path);
    if (!d)
        return 0;
    const char *n = cc_pf_readdir(d);
    cc_pf_closedir(d);
    return n == NULL;
}

/* Names in a directory, sorted, joined with ','. */
static char *listing(const char *path)
{
    cc_strv v = {0};
    cc_pf_dir *d = cc_pf_opendir(path);
    if (d) {
        const char *n;
        while ((n = cc_pf_readdir(d)) != NULL)
            cc_strv_push(&v, n);
        cc_pf_closedir(d);
    }
    cc_strv_sort(&v);
    cc_buf b = {0};
    cc_buf_puts(&b, "");
    for (size_t i = 0; i < v.n; i++) {
        if (i)
            cc_buf_puts(&b, ",");
        cc_buf_puts(&b, v.v[i]);
    }
    cc_strv_free(&v);
    return b.data;
}

static void write_file(const char *path, const char *data)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(cc_pf_write(fd, data, strlen(data)), (long long)strlen(data));
    cc_pf_close(fd);
}

static int exists_in(const char *dir, const char *name)
{
    char *p = cc_path_join(dir, name);
    cc_pf_stat_t s;
    cc_pf_lstat(p, &s);
    free(p);
    return s.exists;
}

static int group_setup(void **state)
{
    (void)state;
    const char *tmp = cc_pf_getenv("TMPDIR");
    g_root = cc_asprintf("%s/cc-test-extract-%lu", tmp && *tmp ? tmp : "/tmp",
                         (unsigned long)cc_pf_now_ms());
    rm_rf(g_root);
    if (cc_pf_mkdir(g_root, 0755) != 0)
        return -1;
    const char *pre = cc_pf_getenv("CUDNNCTL_TEST_FIXTURES");
    if (pre && *pre) {
        g_fx = cc_strdup(pre);
        return 0;
    }
    g_fx = cc_path_join(g_root, "fx");
    g_fx_ours = 1;
    char *script = cc_path_join(CUDNNCTL_SOURCE_DIR, "tests/fixtures/make_archive.py");
    char *eras = cc_path_join(g_fx, "eras"), *hostile = cc_path_join(g_fx, "hostile");
    char *outside = cc_path_join(g_root, "outside");
    const char *a1[] = {"python3", script, "eras", eras, NULL};
    const char *a2[] = {"python3", script, "hostile", hostile, "--outside", outside, NULL};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        char *out = NULL;
        size_t len = 0;
        int status = -1;
        if (cc_pf_run(k ? a2 : a1, NULL, NULL, 120000, 1, &out, &len, &status) != 0 ||
            status != 0) {
            fprintf(stderr, "make_archive.py failed (status %d): %s\n", status, out ? out : "");
            rc = -1;
        } else if (out && len) {
            fprintf(stderr, "%s", out); /* e.g. the note that ELF doubles stand in */
        }
        free(out);
    }
    free(script);
    free(eras);
    free(hostile);
    free(outside);
    return rc;
}

static int group_teardown(void **state)
{
    (void)state;
    rm_rf(g_root);
    free(g_root);
    free(g_fx);
    return 0;
}

/* A file-backed reader: the bytes of a cc_source without the fetch code. */
typedef struct {
    cc_pf_fd fd;
    cudnnctl_ctx *ctx;
    long long fail_after; /* >= 0: fail once this many bytes were delivered */
    long long done;
    size_t max_chunk;
} file_reader;

static long long read_file(void *user, void *buf, size_t len)
{
    file_reader *r = user;
    if (r->max_chunk && len > r->max_chunk)
        len = r->max_chunk;
    if (r->fail_after >= 0 && r->done >= r->fail_after) {
        CC_ERR(r->ctx, CUDNNCTL_E_NETWORK, "connection reset by peer (test)");
        return -1;
    }
    long long n = cc_pf_read(r->fd, buf, len);
    if (n > 0)
        r->done += n;
    return n;
}

enum { VIA_FILE, VIA_STREAM, VIA_STREAM_INLINE, VIA_FILE_INLINE };
static int g_content; /* cc_content_mode every extraction here uses */

static cudnnctl_err extract_via(cudnnctl_ctx *ctx, int via, const char *archive, const char *name,
                                const char *staging, cc_staging *st)
{
    cc_extract_opts o = {.name_hint = name, .content = g_content};
    file_reader r = {.fd = -1, .ctx = ctx, .fail_after = -1, .max_chunk = 7777};
    o.no_writer_thread = via == VIA_STREAM_INLINE || via == VIA_FILE_INLINE;
    if (via == VIA_FILE || via == VIA_FILE_INLINE) {
        o.path = archive;
    } else {
        r.fd = cc_pf_open(archive, CC_PF_O_RDONLY, 0);
        assert_true(r.fd >= 0);
        o.read_fn = read_file;
        o.user = &r;
    }
    cudnnctl_err rc = cc_extract_ex(ctx, &o, staging, st);
    if (r.fd >= 0)
        cc_pf_close(r.fd);
    return rc;
}

/* ---- the exact tree ------------------------------------------------------------------------ */
static void walk(const char *root, const char *rel, cJSON *exp, size_t *seen_entries)
{
    char *dir = *rel ? cc_path_join(root, rel) : cc_strdup(root);
    cc_pf_dir *d = cc_pf_opendir(dir);
    assert_non_null(d);
    const char *n;
    cJSON *entries = cJSON_GetObjectItem(exp, "entries");
    cJSON *dirs = cJSON_GetObjectItem(exp, "dirs");
    while ((n = cc_pf_readdir(d)) != NULL) {
        char *r = *rel ? cc_path_join(rel, n) : cc_strdup(n);
        char *full = cc_path_join(root, r);
        cc_pf_stat_t st;
        assert_int_equal(cc_pf_lstat(full, &st), 0);
        if (st.is_dir && !st.is_link) {
            int listed = 0;
            cJSON *it;
            cJSON_ArrayForEach(it, dirs) listed |= strcmp(it->valuestring, r) == 0;
            if (!listed)
                fail_msg("unexpected directory %s in staging", r);
            if (st.mode != 0755)
                fail_msg("directory %s has mode %04o, want 0755", r, st.mode);
            walk(root, r, exp, seen_entries);
        } else {
            cJSON *e = cJSON_GetObjectItem(entries, r);
            if (!e)
                fail_msg("unexpected %s in staging", r);
            const char *type = cJSON_GetObjectItem(e, "type")->valuestring;
            if (st.is_link) {
                if (strcmp(type, "link") != 0)
                    fail_msg("%s is a link, want a %s", r, type);
                char *t = cc_pf_readlink(full);
                assert_string_equal(t, cJSON_GetObjectItem(e, "target")->valuestring);
                free(t);
            } else {
                if (strcmp(type, "file") != 0 || !st.is_reg)
                    fail_msg("%s is not a regular file", r);
                uint32_t want = (uint32_t)cJSON_GetObjectItem(e, "mode")->valueint;
                if (st.mode != want)
                    fail_msg("%s has mode %04o, want %04o", r, st.mode, want);
                char hex[65];
                uint64_t size = 0;
                cudnnctl_ctx *ctx = NULL;
                cudnnctl_ctx_new(&ctx);
                assert_int_equal(cc_sha256_file(ctx, full, hex, &size), 0);
                cudnnctl_ctx_free(ctx);
                assert_string_equal(hex, cJSON_GetObjectItem(e, "sha256")->valuestring);
                assert_int_equal(size, (uint64_t)cJSON_GetObjectItem(e, "size")->valuedouble);
            }
            (*seen_entries)++;
        }
        free(r);
        free(full);
    }
    cc_pf_closedir(d);
    free(dir);
}

static const char *layout_key(cc_layout l)
{
    static const char *const k[] = {"UNKNOWN",    "TAR_9X",     "TGZ_LEGACY", "ZIP_BIN",
                                    "ZIP_LIBX64", "ZIP_BINX64", "ZIP_LEGACY"};
    return (unsigned)l < 7 ? k[l] : "?";
}

static void check_staging(const char *staging, const cc_staging *st, cJSON *exp)
{
    cJSON *entries = cJSON_GetObjectItem(exp, "entries");
    size_t seen = 0;
    walk(staging, "", exp, &seen);
    assert_int_equal(seen, (size_t)cJSON_GetArraySize(entries));
    /* the records: one per staged file or link, same facts as the disk */
    assert_int_equal(st->n_files, (size_t)cJSON_GetArraySize(entries));
    assert_string_equal(layout_key(st->layout), cJSON_GetObjectItem(exp, "layout")->valuestring);
    assert_string_equal(st->top_dir, cJSON_GetObjectItem(exp, "top")->valuestring);
    uint64_t bytes = 0;
    for (size_t i = 0; i < st->n_files; i++) {
        const cc_staged_file *f = &st->files[i];
        cJSON *e = cJSON_GetObjectItem(entries, f->path);
        if (!e)
            fail_msg("record for %s, which is not expected", f->path);
        assert_ptr_equal(cc_staging_find(st, f->path), f);
        if (f->is_link) {
            assert_string_equal(cJSON_GetObjectItem(e, "type")->valuestring, "link");
            assert_string_equal(f->link_target, cJSON_GetObjectItem(e, "target")->valuestring);
        } else {
            assert_string_equal(cJSON_GetObjectItem(e, "type")->valuestring, "file");
            assert_string_equal(f->sha256, cJSON_GetObjectItem(e, "sha256")->valuestring);
            assert_int_equal(f->size, (uint64_t)cJSON_GetObjectItem(e, "size")->valuedouble);
            assert_int_equal(f->mode, (uint32_t)cJSON_GetObjectItem(e, "mode")->valueint);
            bytes += f->size;
        }
    }
    assert_int_equal(st->bytes, bytes);
}

static void run_eras(int via)
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
    cJSON_Delete(list);
    free(idx);
    free(eras_dir);
}

static void eras_from_file(void **state)
{
    (void)state;
    run_eras(VIA_FILE);
}

/* Every era's real layout (Linux tar and tgz, the Windows zips) passes the CUDA-tree content
 * policy unchanged: the allowlist holds all of NVIDIA's files (content_policy.c). */
static void eras_into_a_cuda_tree(void **state)
{
    (void)state;
    g_content = CC_CONTENT_CUDA_TREE;
    run_eras(VIA_FILE);
    run_eras(VIA_STREAM);
    g_content = CC_CONTENT_ANY;
}

static void eras_from_file_inline(void **state)
{
    (void)state;
    run_eras(VIA_FILE_INLINE);
}

static void eras_from_stream(void **state)
{
    (void)state;
    run_eras(VIA_STREAM);
}

static void eras_from_stream_inline(void **state)
{
    (void)state;
    run_eras(VIA_STREAM_INLINE);
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
            assert_int_equal(s.mode, 0755);
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
    /* every 8 MiB staged, then a final report with the total */
    assert_int_equal(ps.calls, 1 + (int)(st.bytes / (8u << 20)));
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
    /* a truncated file through the source: malformed, staging emptied */
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
    cJSON_Delete(exp);
    free(expf);
    cudnnctl_ctx_free(ctx);
    free(archive);
}

/* Were our own checks bypassed, libarchive's SECURE_* flags still refuse: writing through a
 * link already on disk, and a ".." path. Exercised on the writer directly, both modes. */
static void second_line_of_defence(void **state)
{
    (void)state;
    for (int threaded = 0; threaded < 2; threaded++) {
        char *box = mkdir_fresh(g_root, threaded ? "second-t" : "second-i");
        char *staging = mkdir_fresh(box, "staging");
        char *outside = mkdir_fresh(box, "outside");
        char *lib = mkdir_fresh(staging, "lib");
        char *link = cc_path_join(lib, "sub");
        assert_int_equal(cc_pf_symlink("../../outside", link), 0);
        char *real = cc_pf_realpath(staging);
        static const char *const evil[] = {"lib/sub/x", "../outside/y"};
        for (size_t i = 0; i < 2; i++) {
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eras_from_file),
        cmocka_unit_test(eras_from_file_inline),
        cmocka_unit_test(eras_into_a_cuda_tree),
        cmocka_unit_test(eras_from_stream),
        cmocka_unit_test(eras_from_stream_inline),
        cmocka_unit_test(hostile_from_file),
        cmocka_unit_test(hostile_from_stream),
        cmocka_unit_test(hostile_from_stream_inline),
        cmocka_unit_test(staging_must_be_empty),
        cmocka_unit_test(source_error_is_kept),
        cmocka_unit_test(renamed_archive_and_forced_top),
        cmocka_unit_test(second_line_of_defence),
        cmocka_unit_test(progress_and_missing_archive),
        cmocka_unit_test(fault_loop),
        cmocka_unit_test(through_cc_source),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
