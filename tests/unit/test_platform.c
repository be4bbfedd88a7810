/* test_platform.c: the platform layer on the OS it was built for (Linux natively, Windows under
 * wine): non-ASCII paths, replace-renames, lock contention, child processes (quoting, stdin,
 * stderr, exit codes, timeouts), dynamic loading and loaded modules, environment, registry.
 * The binary doubles as the child process: "test_platform child <mode> ..." (see child_main). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform.h"

static int is_win(void)
{
    return strcmp(cc_pf_os(), "windows") == 0;
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = malloc(n);
    assert_non_null(r);
    snprintf(r, n, "%s/%s", a, b);
    return r;
}

static void rm_rf(const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists)
        return;
    if (st.is_dir) {
        cc_pf_dir *d = cc_pf_opendir(path);
        const char *n;
        while (d && (n = cc_pf_readdir(d)) != NULL) {
            char *p = join(path, n);
            rm_rf(p);
            free(p);
        }
        cc_pf_closedir(d);
        cc_pf_rmdir(path);
    } else {
        cc_pf_unlink(path);
    }
}

/* strip '\r' (Windows text-mode output) */
static void no_cr(char *s)
{
    char *w = s;
    for (; *s; s++)
        if (*s != '\r')
            *w++ = *s;
    *w = '\0';
}

static int setup_tmp(void **state)
{
    const char *t = cc_pf_getenv(is_win() ? "TEMP" : "TMPDIR");
    if (!t || !*t)
        t = is_win() ? "." : "/tmp";
    char name[64];
    snprintf(name, sizeof(name), "cudnnctl-pf-%llu", (unsigned long long)cc_pf_now_ms());
    char *dir = join(t, name);
    assert_int_equal(cc_pf_mkdir(dir, 0700), 0);
    *state = dir;
    return 0;
}

static int teardown_tmp(void **state)
{
    rm_rf(*state);
    free(*state);
    return 0;
}

static void write_file(const char *path, const char *text)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_write(fd, text, strlen(text)), (long long)strlen(text));
    assert_int_equal(cc_pf_fsync(fd), 0);
    assert_int_equal(cc_pf_close(fd), 0);
}

static char *read_file(const char *path)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    assert_true(fd != -1);
    char *buf = calloc(1, 4096);
    assert_non_null(buf);
    long long n = cc_pf_read(fd, buf, 4095);
    assert_true(n >= 0);
    cc_pf_close(fd);
    return buf;
}

/* ---- files ----------------------------------------------------------------------------------- */
static void non_ascii_paths_round_trip(void **state)
{
    const char *tmp = *state;
    char *d1 = join(tmp, "M\xc3\xbcller");              /* Müller */
    char *d2 = join(d1, "\xe6\x97\xa5\xe6\x9c\xac");     /* 日本 */
    char *f = join(d2, "\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf.txt"); /* データ.txt */
    assert_int_equal(cc_pf_mkdir(d1, 0755), 0);
    assert_int_equal(cc_pf_mkdir(d2, 0755), 0);
    write_file(f, "bytes \xc3\xa9\n");
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_stat(f, &st), 0);
    assert_true(st.exists && st.is_reg && !st.is_dir);
    assert_int_equal(st.size, 9);
    char *got = read_file(f);
    assert_string_equal(got, "bytes \xc3\xa9\n");
    free(got);
    /* the listing gives back the same UTF-8 bytes */
    cc_pf_dir *d = cc_pf_opendir(d1);
    assert_non_null(d);
    const char *n = cc_pf_readdir(d);
    assert_non_null(n);
    assert_string_equal(n, "\xe6\x97\xa5\xe6\x9c\xac");
    assert_null(cc_pf_readdir(d));
    cc_pf_closedir(d);
    assert_int_equal(cc_pf_stat(d2, &st), 0);
    assert_true(st.exists && st.is_dir);
    /* realpath through a ".." detour names the same file */
    char *detour = join(d2, "../\xe6\x97\xa5\xe6\x9c\xac/\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf.txt");
    char *r1 = cc_pf_realpath(f), *r2 = cc_pf_realpath(detour);
    assert_non_null(r1);
    assert_non_null(r2);
    assert_string_equal(r1, r2);
    assert_true(cc_pf_is_abs(r1));
    assert_non_null(strstr(r1, "\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf.txt"));
    free(r1);
    free(r2);
    free(detour);
    free(f);
    free(d2);
    free(d1);
}

/* Paths past Windows' MAX_PATH (260): the \\?\ prefix makes them work there; POSIX never minded. */
static void long_paths(void **state)
{
    const char *tmp = *state;
    char *dir = cc_pf_realpath(tmp);
    assert_non_null(dir);
    const char *seg = "a-directory-name-of-fifty-characters-0123456789abc";
    for (int i = 0; i < 7; i++) {
        char *next = join(dir, seg);
        free(dir);
        dir = next;
        assert_int_equal(cc_pf_mkdir(dir, 0755), 0);
    }
    assert_true(strlen(dir) > 360);
    char *f = join(dir, "cudnn64_9.dll"), *g = join(dir, "renamed.dll");
    write_file(f, "long");
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_stat(f, &st), 0);
    assert_true(st.exists && st.is_reg);
    assert_int_equal(st.size, 4);
    assert_int_equal(cc_pf_rename(f, g), 0);
    char *got = read_file(g);
    assert_string_equal(got, "long");
    free(got);
    cc_pf_dir *d = cc_pf_opendir(dir);
    assert_non_null(d);
    assert_string_equal(cc_pf_readdir(d), "renamed.dll");
    cc_pf_closedir(d);
    char *r = cc_pf_realpath(g);
    assert_non_null(r);
    assert_non_null(strstr(r, "renamed.dll"));
    assert_null(strstr(r, "\\\\?\\")); /* shown without the \\?\ prefix */
    free(r);
    uint64_t space = 0;
    assert_int_equal(cc_pf_free_space(dir, &space), 0);
    assert_int_equal(cc_pf_unlink(g), 0);
    free(f);
    free(g);
    free(dir);
}

static void missing_and_existing_errors(void **state)
{
    const char *tmp = *state;
    char *m = join(tmp, "missing/deeper");
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_stat(m, &st), 0);
    assert_false(st.exists);
    assert_int_equal(cc_pf_lstat(m, &st), 0);
    assert_false(st.exists);
    assert_int_equal(cc_pf_unlink(m), -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_NOT_FOUND);
    assert_true(cc_pf_open(m, CC_PF_O_RDONLY, 0) == -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_NOT_FOUND);
    assert_true(strlen(cc_pf_last_error_text()) > 0);
    assert_int_equal(cc_pf_mkdir(tmp, 0755), -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_EXISTS);
    char *d = join(tmp, "full"), *f = join(tmp, "full/x");
    assert_int_equal(cc_pf_mkdir(d, 0755), 0);
    write_file(f, "x");
    assert_int_equal(cc_pf_rmdir(d), -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_EXISTS);
    /* O_EXCL refuses an existing file */
    assert_true(cc_pf_open(f, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, 0644) == -1);
    assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_EXISTS);
    free(f);
    free(d);
    free(m);
}

static void rename_replaces(void **state)
{
    const char *tmp = *state;
    char *a = join(tmp, "a.dll"), *b = join(tmp, "b.dll");
    write_file(a, "new contents");
    write_file(b, "old");
    /* the target is open for reading by someone (a scanner, a running program's loader): POSIX
     * replaces it; Windows (MoveFileExW) refuses while the handle stays open, after a bounded retry
     * that outlasts brief holders, with a permission error and both files untouched */
    cc_pf_fd held = cc_pf_open(b, CC_PF_O_RDONLY, 0);
    assert_true(held != -1);
    uint64_t t0 = cc_pf_now_ms();
    int rc = cc_pf_rename(a, b);
    uint64_t took = cc_pf_now_ms() - t0;
    cc_pf_close(held);
    cc_pf_stat_t st;
    if (is_win()) {
        assert_int_equal(rc, -1);
        assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_PERMISSION);
        assert_true(took >= 1000); /* it retried */
        assert_true(took < 5000);  /* ... for a bounded time */
        char *old = read_file(b);
        assert_string_equal(old, "old");
        free(old);
        assert_int_equal(cc_pf_rename(a, b), 0); /* released: now it works */
    } else {
        assert_int_equal(rc, 0);
    }
    assert_int_equal(cc_pf_stat(a, &st), 0);
    assert_false(st.exists);
    char *got = read_file(b);
    assert_string_equal(got, "new contents");
    free(got);
    /* a read-only target is replaced too, like rename(2) */
    write_file(a, "third");
    assert_int_equal(cc_pf_chmod(b, 0444), 0);
    assert_int_equal(cc_pf_stat(b, &st), 0);
    assert_int_equal(st.mode & 0222, 0);
    assert_int_equal(cc_pf_rename(a, b), 0);
    got = read_file(b);
    assert_string_equal(got, "third");
    free(got);
    /* a directory replaces an empty directory */
    char *d1 = join(tmp, "d1"), *d2 = join(tmp, "d2"), *d1f = join(tmp, "d1/f"), *d2f = join(tmp, "d2/f");
    assert_int_equal(cc_pf_mkdir(d1, 0755), 0);
    assert_int_equal(cc_pf_mkdir(d2, 0755), 0);
    write_file(d1f, "in d1");
    assert_int_equal(cc_pf_rename(d1, d2), 0);
    got = read_file(d2f);
    assert_string_equal(got, "in d1");
    free(got);
    free(d1);
    free(d2);
    free(d1f);
    free(d2f);
    free(a);
    free(b);
}

static void seek_truncate_append(void **state)
{
    char *f = join(*state, "t.bin");
    write_file(f, "0123456789");
    cc_pf_fd fd = cc_pf_open(f, CC_PF_O_RDWR, 0);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_seek(fd, 4), 0);
    assert_int_equal(cc_pf_truncate(fd, 6), 0);
    char buf[16] = {0};
    assert_int_equal(cc_pf_read(fd, buf, sizeof(buf)), 2); /* the position stayed at 4 */
    assert_memory_equal(buf, "45", 2);
    cc_pf_close(fd);
    fd = cc_pf_open(f, CC_PF_O_WRONLY | CC_PF_O_APPEND, 0);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_write(fd, "AB", 2), 2);
    cc_pf_close(fd);
    char *got = read_file(f);
    assert_string_equal(got, "012345AB");
    free(got);
    uint64_t space = 0;
    assert_int_equal(cc_pf_free_space(f, &space), 0);
    assert_true(space > 0);
    assert_int_equal(cc_pf_free_space(*state, &space), 0);
    assert_true(space > 0);
    free(f);
}

static void lock_reports_busy(void **state)
{
    char *l = join(*state, "lock");
    cc_pf_fd a = -1, b = -1;
    int busy = -1;
    assert_int_equal(cc_pf_lock(l, &a, &busy), 0);
    assert_int_equal(busy, 0);
    /* a second open file description conflicts, in this process as in another */
    assert_int_equal(cc_pf_lock(l, &b, &busy), -1);
    assert_int_equal(busy, 1);
    cc_pf_unlock(a);
    assert_int_equal(cc_pf_lock(l, &b, &busy), 0);
    assert_int_equal(busy, 0);
    cc_pf_unlock(b);
    free(l);
}

static void symlink_or_unsupported(void **state)
{
    const char *tmp = *state;
    char *target = join(tmp, "real.txt"), *link = join(tmp, "link.txt");
    write_file(target, "via link");
    int rc = cc_pf_symlink("real.txt", link);
    if (!is_win())
        assert_int_equal(rc, 0);
    if (rc != 0) { /* Windows without Developer Mode: callers get UNSUPPORTED and copy instead */
        assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_UNSUPPORTED);
    } else {
        cc_pf_stat_t st;
        assert_int_equal(cc_pf_lstat(link, &st), 0);
        assert_true(st.exists && st.is_link);
        assert_int_equal(cc_pf_stat(link, &st), 0);
        assert_true(st.exists && st.is_reg && !st.is_link);
        char *t = cc_pf_readlink(link);
        assert_non_null(t);
        assert_string_equal(t, "real.txt");
        free(t);
        char *got = read_file(link);
        assert_string_equal(got, "via link");
        free(got);
        assert_int_equal(cc_pf_unlink(link), 0);
        assert_int_equal(cc_pf_stat(target, &st), 0);
        assert_true(st.exists);
    }
    free(target);
    free(link);
}

/* A link to a directory (a prefix's `current`): a symlink on Linux, a directory junction on
 * Windows (no privilege needed), read back as the bare name of its neighbour, replaced by another
 * link through cc_pf_rename (Linux: rename(2); Windows: the junction's reparse data rewritten in
 * place, so `current` never disappears). wine 8 has no FSCTL_SET_REPARSE_POINT: there the error
 * must be UNSUPPORTED and name the junction and the fix, and nothing may be left behind. */
static void dir_link_is_junction(void **state)
{
    const char *tmp = *state;
    char *a = join(tmp, "cudnn-a"), *b = join(tmp, "cudnn-b"), *cur = join(tmp, "current");
    char *nw = join(tmp, ".new-current"), *af = join(tmp, "cudnn-a/x.txt");
    char *bf = join(tmp, "cudnn-b/x.txt");
    char *via = join(tmp, "current/x.txt");
    assert_int_equal(cc_pf_mkdir(a, 0755), 0);
    assert_int_equal(cc_pf_mkdir(b, 0755), 0);
    write_file(af, "A");
    write_file(bf, "B");
    cc_pf_stat_t st;
    if (cc_pf_symlink("cudnn-a", cur) != 0) {
        assert_true(is_win());
        assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_UNSUPPORTED);
        assert_non_null(strstr(cc_pf_last_error_text(), "directory junction"));
        assert_non_null(strstr(cc_pf_last_error_text(), "NTFS"));
        assert_int_equal(cc_pf_lstat(cur, &st), 0);
        assert_false(st.exists); /* the empty dir made for the junction is gone again */
        print_message("no directory junctions here (wine 8: FSCTL_SET_REPARSE_POINT is "
                      "ERROR_NOT_SUPPORTED): only the error path is proven\n");
        goto out;
    }
    assert_int_equal(cc_pf_lstat(cur, &st), 0);
    assert_true(st.exists && st.is_link);
    assert_int_equal(cc_pf_stat(cur, &st), 0);
    assert_true(st.exists && st.is_dir);
    char *t = cc_pf_readlink(cur);
    assert_string_equal(t, "cudnn-a");
    free(t);
    char *got = read_file(via);
    assert_string_equal(got, "A");
    free(got);
    assert_int_equal(cc_pf_symlink("cudnn-b", nw), 0);
    assert_int_equal(cc_pf_rename(nw, cur), 0);
    assert_int_equal(cc_pf_lstat(nw, &st), 0);
    assert_false(st.exists);
    t = cc_pf_readlink(cur);
    assert_string_equal(t, "cudnn-b");
    free(t);
    got = read_file(via);
    assert_string_equal(got, "B");
    free(got);
    assert_int_equal(cc_pf_unlink(cur), 0); /* the link goes, its target stays */
    assert_int_equal(cc_pf_stat(bf, &st), 0);
    assert_true(st.exists);
out:
    free(a);
    free(b);
    free(cur);
    free(nw);
    free(af);
    free(bf);
    free(via);
}

static void absolute_paths(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        int lin, win;
    } t[] = {
        {"/usr/lib", 1, 1},        {"relative/x", 0, 0},       {"", 0, 0},
        {"C:\\Program Files", 0, 1}, {"c:/cuda", 0, 1},      {"C:rel", 0, 0},
        {"\\\\server\\share", 0, 1}, {"\\\\?\\C:\\long", 0, 1}, {"./x", 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        assert_int_equal(cc_pf_is_abs(t[i].path), is_win() ? t[i].win : t[i].lin);
    char *self = cc_pf_self_exe();
    assert_non_null(self);
    assert_true(cc_pf_is_abs(self));
    assert_non_null(strstr(self, "test_platform"));
    free(self);
    assert_int_equal(cc_pf_path_sep(), is_win() ? '\\' : '/');
    assert_string_equal(cc_pf_exe_suffix(), is_win() ? ".exe" : "");
    const char *m = cc_pf_machine();
    assert_true(strcmp(m, "x86_64") == 0 || strcmp(m, "aarch64") == 0 || strcmp(m, "arm64") == 0);
    char *c = cc_pf_default_cache_dir(), *s = cc_pf_default_state_dir();
    assert_non_null(c);
    assert_non_null(s);
    assert_non_null(strstr(c, "cudnnctl"));
    assert_non_null(strstr(s, "cudnnctl"));
    assert_true(cc_pf_is_abs(c));
    free(c);
    free(s);
    assert_true(cc_pf_time() > 1600000000);
}

/* ---- environment ------------------------------------------------------------------------------ */
static void env_round_trip(void **state)
{
    (void)state;
    const char *v = "C:\\M\xc3\xbcller\\\xe6\x97\xa5\xe6\x9c\xac;x"; /* non-ASCII value */
    assert_int_equal(cc_pf_setenv("CUDNNCTL_PF_TEST", v), 0);
    const char *g1 = cc_pf_getenv("CUDNNCTL_PF_TEST");
    assert_non_null(g1);
    assert_string_equal(g1, v);
    assert_int_equal(cc_pf_setenv("CUDNNCTL_PF_TEST", "second"), 0);
    const char *g2 = cc_pf_getenv("CUDNNCTL_PF_TEST");
    assert_string_equal(g2, "second");
    assert_string_equal(g1, v); /* an earlier result stays valid */
    assert_int_equal(cc_pf_setenv("CUDNNCTL_PF_TEST", NULL), 0);
    assert_null(cc_pf_getenv("CUDNNCTL_PF_TEST"));
    char *h = cc_pf_home_dir();
    assert_non_null(h);
    free(h);
}

static void registry_or_unsupported(void **state)
{
    (void)state;
#define TEST_KEY "HKCU\\Software\\cudnnctl-unit-test"
    const char *key = TEST_KEY;
    const char *val = "%USERPROFILE%\\M\xc3\xbcller\\bin;C:\\Tools";
    int rc = cc_pf_reg_set(key, "PathLike", val, CC_PF_REG_EXPAND_SZ);
    if (!is_win()) {
        assert_int_equal(rc, -1);
        assert_int_equal(cc_pf_last_error(), CUDNNCTL_E_UNSUPPORTED);
        assert_null(cc_pf_reg_subkeys(key));
        return;
    }
    assert_int_equal(rc, 0);
    char *got = NULL;
    int type = -1;
    assert_int_equal(cc_pf_reg_get(key, "PathLike", &got, &type), 0);
    assert_int_equal(type, CC_PF_REG_EXPAND_SZ); /* kept unexpanded, type preserved */
    assert_string_equal(got, val);
    free(got);
    char *exp = cc_pf_expand_env(val);
    assert_non_null(exp);
    assert_null(strstr(exp, "%USERPROFILE%"));
    free(exp);
    assert_int_equal(cc_pf_reg_set(TEST_KEY "\\v12.4", "InstallDir", "C:\\cuda", CC_PF_REG_SZ), 0);
    assert_int_equal(cc_pf_reg_set(TEST_KEY "\\v12.4", "64BitInstalled", "1", CC_PF_REG_DWORD), 0);
    assert_int_equal(cc_pf_reg_get(TEST_KEY "\\v12.4", "64BitInstalled", &got, &type), 0);
    assert_int_equal(type, CC_PF_REG_DWORD);
    assert_string_equal(got, "1");
    free(got);
    char **sub = cc_pf_reg_subkeys(key);
    assert_non_null(sub);
    assert_non_null(sub[0]);
    assert_string_equal(sub[0], "v12.4");
    assert_null(sub[1]);
    free(sub[0]);
    free(sub);
    assert_int_equal(cc_pf_reg_delete(key, "PathLike"), 0);
    assert_int_equal(cc_pf_reg_get(key, "PathLike", &got, &type), 0);
    assert_null(got);
    assert_int_equal(type, CC_PF_REG_NONE);
    assert_int_equal(cc_pf_reg_delete(key, "PathLike"), 0); /* absent is fine */
    sub = cc_pf_reg_subkeys("HKCU\\Software\\cudnnctl-no-such-key");
    assert_non_null(sub);
    assert_null(sub[0]);
    free(sub);
    assert_int_equal(cc_pf_env_broadcast(), 0);
}

/* ---- processes -------------------------------------------------------------------------------- */
static void run_shell_echo(void **state)
{
    (void)state;
    const char *lin[] = {"sh", "-c", "echo hi", NULL};
    const char *win[] = {"cmd", "/c", "echo", "hi", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    assert_int_equal(cc_pf_run(is_win() ? win : lin, NULL, NULL, 20000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 0);
    no_cr(out);
    assert_string_equal(out, "hi\n");
    free(out);
    const char *missing[] = {"cudnnctl-no-such-program-xyz", NULL};
    assert_int_equal(cc_pf_run(missing, NULL, NULL, 20000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 127);
    free(out);
}

static char *self_path(void)
{
    char *s = cc_pf_self_exe();
    assert_non_null(s);
    return s;
}

static void run_quotes_arguments(void **state)
{
    (void)state;
    char *self = self_path();
    const char *argv[] = {self, "child", "args", "a b", "\"q\"", "back\\", "tail\\\"x", "",
                          "M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac", "C:\\Program Files\\x\\", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    assert_int_equal(cc_pf_run(argv, NULL, NULL, 30000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 0);
    no_cr(out);
    assert_string_equal(out, "[a b]\n[\"q\"]\n[back\\]\n[tail\\\"x]\n[]\n"
                             "[M\xc3\xbcller \xe6\x97\xa5\xe6\x9c\xac]\n[C:\\Program Files\\x\\]\n");
    free(out);
    free(self);
}

static void run_stdin_stderr_exit_code(void **state)
{
    (void)state;
    char *self = self_path();
    const char *argv[] = {self, "child", "cat", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    /* stderr discarded */
    assert_int_equal(cc_pf_run(argv, NULL, "line one\nline two\n", 30000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 3);
    no_cr(out);
    assert_string_equal(out, "line one\nline two\n");
    free(out);
    /* stderr merged */
    assert_int_equal(cc_pf_run(argv, NULL, "x\n", 30000, 1, &out, &len, &status), 0);
    assert_int_equal(status, 3);
    no_cr(out);
    assert_non_null(strstr(out, "x\n"));
    assert_non_null(strstr(out, "to-stderr"));
    free(out);
    /* an explicit environment reaches the child */
    const char *envv[] = {"CUDNNCTL_PF_CHILD=from-parent", NULL, NULL};
    const char *sysroot = cc_pf_getenv("SystemRoot");
    char *sr = NULL;
    if (is_win() && sysroot) {
        sr = malloc(strlen(sysroot) + 12);
        assert_non_null(sr);
        snprintf(sr, strlen(sysroot) + 12, "SystemRoot=%s", sysroot);
        envv[1] = sr;
    }
    const char *argv2[] = {self, "child", "env", NULL};
    assert_int_equal(cc_pf_run(argv2, envv, NULL, 30000, 0, &out, &len, &status), 0);
    assert_int_equal(status, 0);
    no_cr(out);
    assert_string_equal(out, "from-parent\n");
    free(out);
    free(sr);
    free(self);
}

static void run_timeout_kills(void **state)
{
    (void)state;
    char *self = self_path();
    const char *argv[] = {self, "child", "sleep", "20000", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    uint64_t t0 = cc_pf_now_ms();
    /* 3 s: long enough for a loaded machine to start the child (wine: 0.1-1 s), far below 20 s */
    assert_int_equal(cc_pf_run(argv, NULL, NULL, 3000, 0, &out, &len, &status), 0);
    uint64_t took = cc_pf_now_ms() - t0;
    assert_int_equal(status, -1);
    assert_true(took >= 2900);
    assert_true(took < 15000);
    no_cr(out);
    assert_string_equal(out, "sleeping\n"); /* what it wrote before the kill was captured */
    free(out);
    free(self);
}

/* ---- dynamic loading -------------------------------------------------------------------------- */
static void loaded_modules_and_dlopen(void **state)
{
    (void)state;
    const char *prefix = is_win() ? "KERNEL32" : "libc.so";
    const char *sym = is_win() ? "GetTickCount64" : "strlen";
    char **mods = cc_pf_loaded_modules(prefix);
    assert_non_null(mods);
    assert_non_null(mods[0]); /* matched case-insensitively on Windows (kernel32.dll) */
    assert_true(cc_pf_is_abs(mods[0]));
    void *h = cc_pf_dlopen(mods[0]); /* by absolute path */
    assert_non_null(h);
    assert_non_null(cc_pf_dlsym(h, sym));
    assert_null(cc_pf_dlsym(h, "cudnnctl_no_such_symbol"));
    cc_pf_dlclose(h);
    for (size_t i = 0; mods[i]; i++)
        free(mods[i]);
    free(mods);
    char **none = cc_pf_loaded_modules("cudnnctl-no-such-module");
    assert_non_null(none);
    assert_null(none[0]);
    free(none);
    assert_null(cc_pf_dlopen(is_win() ? "C:\\no\\such\\cudnn64_9.dll" : "/no/such/libcudnn.so.9"));
    assert_true(strlen(cc_pf_dlerror()) > 0);
}

/* ---- the child side --------------------------------------------------------------------------- */
static int child_main(int argc, char **argv)
{
    const char *mode = argv[2];
    setvbuf(stdout, NULL, _IONBF, 0);
    if (strcmp(mode, "args") == 0) {
        for (int i = 3; i < argc; i++)
            printf("[%s]\n", argv[i]);
        return 0;
    }
    if (strcmp(mode, "cat") == 0) {
        int c;
        while ((c = getchar()) != EOF)
            putchar(c);
        fputs("to-stderr\n", stderr);
        return 3;
    }
    if (strcmp(mode, "env") == 0) {
        const char *v = cc_pf_getenv("CUDNNCTL_PF_CHILD");
        printf("%s\n", v ? v : "(unset)");
        return 0;
    }
    if (strcmp(mode, "sleep") == 0 && argc > 3) {
        printf("sleeping\n");
        cc_pf_sleep_ms((unsigned)atoi(argv[3]));
        return 0;
    }
    return 99;
}

int main(int argc, char **argv)
{
    argv = cc_pf_args_utf8(argc, argv);
    if (argc > 2 && strcmp(argv[1], "child") == 0)
        return child_main(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(non_ascii_paths_round_trip, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(long_paths, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(missing_and_existing_errors, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(rename_replaces, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(seek_truncate_append, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(lock_reports_busy, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(symlink_or_unsupported, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(dir_link_is_junction, setup_tmp, teardown_tmp),
        cmocka_unit_test(absolute_paths),
        cmocka_unit_test(env_round_trip),
        cmocka_unit_test(registry_or_unsupported),
        cmocka_unit_test(run_shell_echo),
        cmocka_unit_test(run_quotes_arguments),
        cmocka_unit_test(run_stdin_stderr_exit_code),
        cmocka_unit_test(run_timeout_kills),
        cmocka_unit_test(loaded_modules_and_dlopen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
