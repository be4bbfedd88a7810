/* pf_fixture.h: temporary trees for unit tests through the platform layer only (no POSIX calls),
 * so the same test runs on Linux and, cross-built, under wine: a temp dir, mkdir -p, small files,
 * rm -rf. Include after <cmocka.h>. */
#ifndef PF_FIXTURE_H
#define PF_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static inline char *pff_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = malloc(n);
    assert_non_null(r);
    snprintf(r, n, "%s/%s", a, b);
    return r;
}

static inline void pff_rm_rf(const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists)
        return;
    if (st.is_dir && !st.is_link) {
        cc_pf_dir *d = cc_pf_opendir(path);
        const char *n;
        while (d && (n = cc_pf_readdir(d)) != NULL) {
            char *p = pff_join(path, n);
            pff_rm_rf(p);
            free(p);
        }
        cc_pf_closedir(d);
        cc_pf_rmdir(path);
    } else {
        cc_pf_unlink(path);
    }
}

/* A new empty dir under TMPDIR / TEMP (malloc'd, absolute). */
static inline char *pff_tmpdir(const char *tag)
{
    int win = strcmp(cc_pf_os(), "windows") == 0;
    const char *t = cc_pf_getenv(win ? "TEMP" : "TMPDIR");
    if (!t || !*t)
        t = win ? "." : "/tmp";
    static unsigned seq;
    char name[96];
    snprintf(name, sizeof(name), "cudnnctl-%s-%ld-%llu-%u", tag, cc_pf_getpid(),
             (unsigned long long)cc_pf_now_ms(), seq++);
    char *dir = pff_join(t, name);
    assert_int_equal(cc_pf_mkdir(dir, 0700), 0);
    char *real = cc_pf_realpath(dir);
    assert_non_null(real);
    free(dir);
    return real;
}

static inline void pff_mkdir_p(const char *path)
{
    size_t len = strlen(path);
    char *p = malloc(len + 1);
    assert_non_null(p);
    memcpy(p, path, len + 1);
    for (char *c = p + 1; *c; c++) {
        if (*c != '/' && *c != '\\')
            continue;
        char keep = *c;
        *c = '\0';
        cc_pf_stat_t st;
        if (cc_pf_stat(p, &st) != 0 || !st.exists)
            cc_pf_mkdir(p, 0755);
        *c = keep;
    }
    cc_pf_stat_t st;
    if (cc_pf_stat(p, &st) != 0 || !st.exists)
        assert_int_equal(cc_pf_mkdir(p, 0755), 0);
    free(p);
}

/* Write @p text to root/rel, creating the dirs on the way. */
static inline void pff_write(const char *root, const char *rel, const char *text)
{
    char *path = pff_join(root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    pff_mkdir_p(path);
    *slash = '/';
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_write(fd, text, strlen(text)), (long long)strlen(text));
    assert_int_equal(cc_pf_close(fd), 0);
    free(path);
}

static inline int pff_exists(const char *root, const char *rel)
{
    char *path = pff_join(root, rel);
    cc_pf_stat_t st;
    int ok = cc_pf_lstat(path, &st) == 0 && st.exists;
    free(path);
    return ok;
}

/* Whether POSIX symlinks can be made here: a link whose absolute, dangling target is kept as
 * written and read back (readlink). Linux must have them (a failure there fails the test); wine's
 * CreateSymbolicLinkW is a stub and Windows rewrites the target, so a case built on symlink
 * chains calls this and skip()s where it answers 0, reported as skipped, never as passed. */
static inline int pff_posix_symlinks(const char *dir)
{
    char *link = pff_join(dir, "pff-symlink-probe");
    const char *target = "/pff/dangling/target";
    int ok = cc_pf_symlink(target, link) == 0;
    char *back = ok ? cc_pf_readlink(link) : NULL;
    ok = back && strcmp(back, target) == 0;
    free(back);
    pff_rm_rf(link);
    free(link);
    if (strcmp(cc_pf_os(), "linux") == 0)
        assert_true(ok);
    return ok;
}

#endif
