/* extract_fixture.h: what the extraction tests share: a temporary root, the archives of every
 * NVIDIA era and the hostile ones (generated once per run by tests/fixtures/make_archive.py, or
 * taken from CUDNNCTL_TEST_FIXTURES=DIR, made with `hostile DIR/hostile --outside DIR/outside`:
 * the cross build's CTest fixture, as wine has no python3), tree helpers, and extract_via (from a path or through a
 * file-backed reader, with or without the writer thread). Tests only. */
#ifndef EXTRACT_FIXTURE_H
#define EXTRACT_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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
#include "pf_fixture.h"

static char *g_root; /* temporary root of this run */
static char *g_fx;   /* fixtures: eras/ and hostile/ */
static int g_content; /* cc_content_mode every extraction here uses */
static int g_fx_ours;
static int g_links;   /* POSIX symlinks can be made here (pff_posix_symlinks) */

/* ---- helpers ------------------------------------------------------------------------------ */
/* The mode this platform's stat shows for a file named @p name given POSIX mode @p want: @p want
 * on Linux (checked); Windows keeps no permission bits and synthesizes them from the name and the
 * read-only attribute, so there the staged file must show what a file of that name chmod'ed to
 * @p want shows. */
static inline uint32_t shown_mode(const char *name, uint32_t want)
{
    char *dir = cc_path_join(g_root, "mode-probe");
    char *p = cc_path_join(dir, cc_path_base(name));
    cc_pf_mkdir(dir, 0755);
    cc_pf_fd fd = cc_pf_open(p, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd != -1);
    cc_pf_close(fd);
    assert_int_equal(cc_pf_chmod(p, want), 0);
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_stat(p, &st), 0);
    cc_pf_chmod(p, 0644);
    cc_pf_unlink(p);
    cc_pf_rmdir(dir);
    free(p);
    free(dir);
    if (strcmp(cc_pf_os(), "linux") == 0)
        assert_int_equal(st.mode, want);
    return st.mode;
}

/* 1 when an expectation (<archive>.expect.json) lists a symlink entry. */
static inline int expects_links(cJSON *exp)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(exp, "entries"))
    {
        cJSON *t = cJSON_GetObjectItem(e, "type");
        if (t && cJSON_IsString(t) && strcmp(t->valuestring, "link") == 0)
            return 1;
    }
    return 0;
}

static inline char *slurp(const char *path)
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

static inline cJSON *load_json(const char *path)
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

static inline void rm_rf(const char *path)
{
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_sys_rm_rf(ctx, path);
    cudnnctl_ctx_free(ctx);
}

static inline char *mkdir_fresh(const char *a, const char *b)
{
    char *p = cc_path_join(a, b);
    rm_rf(p);
    assert_int_equal(cc_pf_mkdir(p, 0755), 0);
    return p;
}

static inline int dir_is_empty(const char *path)
{
    cc_pf_dir *d = cc_pf_opendir(path);
    if (!d)
        return 0;
    const char *n = cc_pf_readdir(d);
    cc_pf_closedir(d);
    return n == NULL;
}

/* Names in a directory, sorted, joined with ','. */
static inline char *listing(const char *path)
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

static inline void write_file(const char *path, const char *data)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(cc_pf_write(fd, data, strlen(data)), (long long)strlen(data));
    cc_pf_close(fd);
}

static inline int exists_in(const char *dir, const char *name)
{
    char *p = cc_path_join(dir, name);
    cc_pf_stat_t s;
    cc_pf_lstat(p, &s);
    free(p);
    return s.exists;
}

static inline int group_setup(void **state)
{
    (void)state;
    int win = strcmp(cc_pf_os(), "windows") == 0;
    const char *tmp = cc_pf_getenv(win ? "TEMP" : "TMPDIR");
    /* the pid too: test_extract and test_extract_contract share this fixture, and ctest -j
     * starts them in the same millisecond at times (one then removed the other's root) */
    const char *base = tmp && *tmp ? tmp : win ? "." : "/tmp";
    g_root = cc_asprintf("%s/cc-test-extract-%lu-%ld", base, (unsigned long)cc_pf_now_ms(),
                         cc_pf_getpid());
    rm_rf(g_root);
    if (cc_pf_mkdir(g_root, 0755) != 0)
        return -1;
    g_links = pff_posix_symlinks(g_root);
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

static inline int group_teardown(void **state)
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

static inline long long read_file(void *user, void *buf, size_t len)
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

static inline cudnnctl_err extract_via(cudnnctl_ctx *ctx, int via, const char *archive,
                                       const char *name, const char *staging, cc_staging *st)
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
static inline void walk(const char *root, const char *rel, cJSON *exp, size_t *seen_entries)
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
                if (st.mode != shown_mode(r, want))
                    fail_msg("%s has mode %04o, want %04o (shown as %04o here)", r, st.mode,
                             want, shown_mode(r, want));
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

static inline const char *layout_key(cc_layout l)
{
    static const char *const k[] = {"UNKNOWN",    "TAR_9X",     "TGZ_LEGACY", "ZIP_BIN",
                                    "ZIP_LIBX64", "ZIP_BINX64", "ZIP_LEGACY"};
    return (unsigned)l < 7 ? k[l] : "?";
}

static inline void check_staging(const char *staging, const cc_staging *st, cJSON *exp)
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

#endif
