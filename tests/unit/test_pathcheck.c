/* test_pathcheck.c: the entry-name, link-target and layout rules, table-driven — hostile names
 * from Linux and Windows attacks, NVIDIA's real names of every era, and the stateful per-archive
 * checks (top dir, duplicates, writes through links, hard links, types, modes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "extract_check.h"
#include "layout.h"
#include "pathcheck.h"

/* ---- entry names ------------------------------------------------------------------------- */
typedef struct {
    const char *name;
    const char *norm; /* NULL: must be refused */
    const char *why;  /* substring of the reason when refused */
} name_case;

static const name_case names[] = {
    /* NVIDIA's own names */
    {"cudnn-linux-x86_64-9.19.0.56_cuda13-archive/", "cudnn-linux-x86_64-9.19.0.56_cuda13-archive",
     0},
    {"cudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so.9.19.0",
     "cudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so.9.19.0", 0},
    {"cuda/lib64/libcudnn_static.a", "cuda/lib64/libcudnn_static.a", 0},
    {"cuda/targets/ppc64le-linux/lib/libcudnn.so.8", "cuda/targets/ppc64le-linux/lib/libcudnn.so.8",
     0},
    {"cudnn-windows-x86_64-9.19.0.56_cuda13-archive/bin/x64/cudnn64_9.dll",
     "cudnn-windows-x86_64-9.19.0.56_cuda13-archive/bin/x64/cudnn64_9.dll", 0},
    {"./top/include/cudnn.h", "top/include/cudnn.h", 0},
    {"top//include/./cudnn.h", "top/include/cudnn.h", 0},
    {"./", "", 0},
    {"top/.hidden", "top/.hidden", 0},
    {"top/console.h", "top/console.h", 0}, /* only exact device stems are reserved */
    {"top/COM10", "top/COM10", 0},
    {"top/lpt", "top/lpt", 0},
    {"top/nul_x.h", "top/nul_x.h", 0},
    {"top/caf\xc3\xa9.h", "top/caf\xc3\xa9.h", 0},
    /* climbing out */
    {"../x", NULL, ".."},
    {"../../x", NULL, ".."},
    {"top/../../x", NULL, ".."},
    {"top/lib/../../../etc/passwd", NULL, ".."},
    {"..", NULL, ".."},
    {"top/..", NULL, ".."},
    /* absolute, drive letters, UNC, backslashes */
    {"/etc/passwd", NULL, "absolute"},
    {"/", NULL, "absolute"},
    {"//server/share/x", NULL, "UNC"},
    {"\\\\server\\x", NULL, "UNC"},
    {"\\\\?\\C:\\x", NULL, "UNC"},
    {"\\x", NULL, "absolute"},
    {"C:\\x", NULL, "drive letter"},
    {"C:/x", NULL, "drive letter"},
    {"c:x", NULL, "drive letter"},
    {"z:", NULL, "drive letter"},
    {"..\\..\\x.dll", NULL, "backslash"},
    {"top\\..\\..\\x", NULL, "backslash"},
    {"top/lib\\x.dll", NULL, "backslash"},
    /* Windows reserved device names, any case, any extension */
    {"top/CON", NULL, "reserved"},
    {"top/bin/CON.dll", NULL, "reserved"},
    {"top/con.txt", NULL, "reserved"},
    {"top/Prn.h", NULL, "reserved"},
    {"top/AUX", NULL, "reserved"},
    {"top/nul.tar.gz", NULL, "reserved"},
    {"top/NUL .txt", NULL, "reserved"},
    {"top/COM1", NULL, "reserved"},
    {"top/com9.dll", NULL, "reserved"},
    {"top/COM0", NULL, "reserved"},
    {"top/LPT1", NULL, "reserved"},
    {"top/lpt9.lib", NULL, "reserved"},
    {"top/COM\xc2\xb9", NULL, "reserved"},
    {"top/LPT\xc2\xb3.x", NULL, "reserved"},
    {"top/CONIN$", NULL, "reserved"},
    {"top/conout$.log", NULL, "reserved"},
    {"CON/x", NULL, "reserved"},
    /* characters and shapes Windows refuses or rewrites */
    {"top/x.dll:evil", NULL, "colon"},
    {"top/a*b", NULL, "Windows"},
    {"top/a?b", NULL, "Windows"},
    {"top/a<b", NULL, "Windows"},
    {"top/a|b", NULL, "Windows"},
    {"top/a\"b", NULL, "Windows"},
    {"top/trailing.", NULL, "dot or space"},
    {"top/trailing ", NULL, "dot or space"},
    {"top/...", NULL, "dot or space"},
    /* control characters */
    {"top/a\x01"
     "b",
     NULL, "control"},
    {"top/a\nb", NULL, "control"},
    {"top/a\x7f", NULL, "control"},
    /* empties and bounds */
    {"", NULL, "empty"},
};

static void entry_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *norm = NULL;
        const char *why = NULL;
        int rc = cc_pathcheck_name(names[i].name, &norm, &why);
        if (names[i].norm) {
            if (rc != 0)
                fail_msg("'%s' refused (%s), expected accepted", names[i].name, why);
            assert_string_equal(norm, names[i].norm);
        } else {
            if (rc != CC_PATHCHECK_UNSAFE)
                fail_msg("'%s' accepted as '%s', expected refused", names[i].name, norm);
            assert_null(norm);
            if (!strstr(why, names[i].why))
                fail_msg("'%s': reason '%s' lacks '%s'", names[i].name, why, names[i].why);
        }
        free(norm);
    }
}

static void name_bounds(void **state)
{
    (void)state;
    char comp[300], path[1100];
    char *norm = NULL;
    const char *why = NULL;
    memset(comp, 'a', 255);
    comp[255] = '\0';
    snprintf(path, sizeof(path), "top/%s", comp);
    assert_int_equal(cc_pathcheck_name(path, &norm, &why), 0);
    free(norm);
    memset(comp, 'a', 256);
    comp[256] = '\0';
    snprintf(path, sizeof(path), "top/%s", comp);
    assert_int_equal(cc_pathcheck_name(path, &norm, &why), CC_PATHCHECK_UNSAFE);
    assert_non_null(strstr(why, "255"));
    /* whole name over 1024 bytes */
    memset(path, 0, sizeof(path));
    for (size_t i = 0; i < 1030; i += 2)
        memcpy(path + i, "a/", 2);
    path[1030] = 'b';
    assert_int_equal(cc_pathcheck_name(path, &norm, &why), CC_PATHCHECK_UNSAFE);
    assert_non_null(strstr(why, "1024"));
    /* nested deeper than 32 */
    cc_buf b = {0};
    for (int i = 0; i < 33; i++)
        cc_buf_puts(&b, "d/");
    cc_buf_puts(&b, "f");
    assert_int_equal(cc_pathcheck_name(b.data, &norm, &why), CC_PATHCHECK_UNSAFE);
    assert_non_null(strstr(why, "32"));
    cc_buf_free(&b);
}

/* ---- link targets ---------------------------------------------------------------------------- */
typedef struct {
    const char *link;
    const char *target;
    const char *resolved; /* NULL: refused */
    const char *why;
} link_case;

static const link_case links[] = {
    {"top/lib/libcudnn.so.9", "libcudnn.so.9.19.0", "top/lib/libcudnn.so.9.19.0", 0},
    {"top/lib/libcudnn.so", "./libcudnn.so.9", "top/lib/libcudnn.so.9", 0},
    {"top/lib/x", "../include/cudnn.h", "top/include/cudnn.h", 0},
    {"top/lib/x64/a.lib", "../../include", "top/include", 0},
    {"top/lib/x", "sub/../y", "top/lib/y", 0},
    {"top/lib/evil", "../../../etc", NULL, "climbs"},
    {"top/lib/evil", "../../etc", NULL, "climbs"},
    {"top/lib/evil", "..", NULL, "top directory itself"},
    {"top/lib/evil", "../../top/lib/x", NULL, "climbs"}, /* out and back in: refused */
    {"top/lib/evil", ".", "top/lib", 0},
    {"top/lib/evil", "../..", NULL, "climbs"},
    {"top/evil", "..", NULL, "climbs"},
    {"top/lib/evil", "/etc/passwd", NULL, "absolute"},
    {"top/lib/evil", "/", NULL, "absolute"},
    {"top/lib/evil", "\\\\server\\share", NULL, "UNC"},
    {"top/lib/evil", "//server/share", NULL, "UNC"},
    {"top/lib/evil", "C:\\Windows", NULL, "drive letter"},
    {"top/lib/evil", "c:/x", NULL, "drive letter"},
    {"top/lib/evil", "..\\..\\x", NULL, "backslash"},
    {"top/lib/evil", "", NULL, "empty"},
    {"top/lib/evil", "CON", NULL, "reserved"},
    {"top/lib/evil", "a\nb", NULL, "control"},
    {"top", "x", NULL, "outside"},
};

static void link_targets(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        char *res = NULL;
        const char *why = NULL;
        int rc = cc_pathcheck_link_target(links[i].link, links[i].target, &res, &why);
        if (links[i].resolved) {
            if (rc != 0)
                fail_msg("%s -> %s refused (%s)", links[i].link, links[i].target, why);
            assert_string_equal(res, links[i].resolved);
        } else {
            if (rc != CC_PATHCHECK_UNSAFE)
                fail_msg("%s -> %s accepted as %s", links[i].link, links[i].target, res);
            if (!strstr(why, links[i].why))
                fail_msg("%s -> %s: reason '%s' lacks '%s'", links[i].link, links[i].target, why,
                         links[i].why);
        }
        free(res);
    }
}

static void relative_paths(void **state)
{
    (void)state;
    static const char *const t[][3] = {
        {"lib", "lib/libcudnn.so.9", "libcudnn.so.9"},
        {"lib", "include/cudnn.h", "../include/cudnn.h"},
        {"", "lib/x", "lib/x"},
        {"lib/a/b", "lib/c", "../../c"},
        {"lib", "lib", "."},
        {"lib", "libx/y", "../libx/y"},
        {"bin", "lib", "../lib"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *r = cc_path_relative(t[i][0], t[i][1]);
        if (strcmp(r, t[i][2]) != 0)
            fail_msg("relative(%s, %s) = %s, expected %s", t[i][0], t[i][1], r, t[i][2]);
        free(r);
    }
}

/* ---- layouts ------------------------------------------------------------------------------ */
static void expected_tops(void **state)
{
    (void)state;
    static const char *const t[][2] = {
        {"cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz",
         "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"},
        {"/cache/dl/cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz",
         "cudnn-linux-sbsa-8.9.7.29_cuda12-archive"},
        {"cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz",
         "cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive"},
        {"cudnn-windows-x86_64-9.5.0.50_cuda12-archive.zip",
         "cudnn-windows-x86_64-9.5.0.50_cuda12-archive"},
        {"C:\\dl\\cudnn-windows-x86_64-9.5.0.50_cuda12-archive.zip",
         "cudnn-windows-x86_64-9.5.0.50_cuda12-archive"},
        {"cudnn-11.3-linux-x64-v8.2.0.53.tgz", "cuda"},
        {"cudnn-10.2-windows10-x64-v8.2.1.32.zip", "cuda"},
        {"cudnn-11.3-linux-ppc64le-v8.2.0.53.tgz", "cuda"},
        {"cudnn.tar.xz", NULL},
        {"0123abcd", NULL},
        {NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *top = cc_layout_expected_top(t[i][0]);
        if (t[i][1])
            assert_string_equal(top, t[i][1]);
        else
            assert_null(top);
        free(top);
    }
    assert_true(cc_layout_top_plausible("cuda"));
    assert_true(cc_layout_top_plausible("cudnn-linux-x86_64-9.19.0.56_cuda13-archive"));
    assert_false(cc_layout_top_plausible("etc"));
    assert_false(cc_layout_top_plausible("cudnn-archive"));
}

static void layout_maps(void **state)
{
    (void)state;
    static const struct {
        int legacy;
        const char *rel;
        int is_dir;
        const char *mapped; /* NULL: no place */
    } t[] = {
        {0, "", 1, NULL},
        {0, "LICENSE", 0, "LICENSE"},
        {0, "include/cudnn.h", 0, "include/cudnn.h"},
        {0, "lib/libcudnn.so.9", 0, "lib/libcudnn.so.9"},
        {0, "lib/x64/cudnn.lib", 0, "lib/cudnn.lib"},
        {0, "lib/x64", 1, "lib"},
        {0, "bin/cudnn64_9.dll", 0, "bin/cudnn64_9.dll"},
        {0, "bin/x64/cudnn64_9.dll", 0, "bin/cudnn64_9.dll"},
        {0, "share/doc/x", 0, "share/doc/x"},
        {0, "library/x", 0, "library/x"},
        {1, "NVIDIA_SLA_cuDNN_Support.txt", 0, "LICENSE"},
        {1, "include/cudnn.h", 0, "include/cudnn.h"},
        {1, "lib64/libcudnn.so.8", 0, "lib/libcudnn.so.8"},
        {1, "lib64", 1, "lib"},
        {1, "lib/x64/cudnn.lib", 0, "lib/cudnn.lib"},
        {1, "bin/cudnn64_8.dll", 0, "bin/cudnn64_8.dll"},
        {1, "targets", 1, NULL},
        {1, "targets/ppc64le-linux", 1, NULL},
        {1, "targets/ppc64le-linux/lib", 1, "lib"},
        {1, "targets/ppc64le-linux/lib/libcudnn.so.8", 0, "lib/libcudnn.so.8"},
        {1, "targets/ppc64le-linux/include/cudnn.h", 0, "include/cudnn.h"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_layout_seen seen = {.legacy = t[i].legacy};
        char *out = NULL;
        assert_int_equal(cc_layout_map(t[i].rel, t[i].is_dir, &seen, &out), 0);
        if (t[i].mapped) {
            if (!out || strcmp(out, t[i].mapped) != 0)
                fail_msg("map(%s) = %s, expected %s", t[i].rel, out ? out : "(none)", t[i].mapped);
        } else if (out) {
            fail_msg("map(%s) = %s, expected no place", t[i].rel, out);
        }
        free(out);
    }
}

static void layout_detection(void **state)
{
    (void)state;
    cc_layout_seen s = {0};
    assert_int_equal(cc_layout_detect(&s, 0), CC_LAYOUT_UNKNOWN);
    s.files_placed = 3;
    assert_int_equal(cc_layout_detect(&s, 0), CC_LAYOUT_TAR_9X);
    assert_int_equal(cc_layout_detect(&s, 1), CC_LAYOUT_ZIP_BIN);
    s.seen_lib_x64 = 1;
    assert_int_equal(cc_layout_detect(&s, 1), CC_LAYOUT_ZIP_LIBX64);
    s.seen_bin_x64 = 1;
    assert_int_equal(cc_layout_detect(&s, 1), CC_LAYOUT_ZIP_BINX64);
    s.legacy = 1;
    assert_int_equal(cc_layout_detect(&s, 1), CC_LAYOUT_ZIP_LEGACY);
    assert_int_equal(cc_layout_detect(&s, 0), CC_LAYOUT_TGZ_LEGACY);
}

/* ---- the stateful checks: sequences of entries ---------------------------------------------- */
typedef struct {
    const char *name;
    cc_xentry_type type;
    const char *link;
    uint32_t mode;
    cudnnctl_err want;
    const char *mapped; /* or the substring of the error detail */
    const char *link_text;
} seq_step;

#define T "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
#define W "cudnn-windows-x86_64-9.5.0.50_cuda12-archive"

static void run_seq(const char *expected_top, const seq_step *s, size_t n, cc_layout want_layout,
                    int is_zip)
{
    cc_xcheck *x = cc_xcheck_new(expected_top);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++) {
        cc_xentry e = {.name = s[i].name,
                       .type = s[i].type,
                       .link = s[i].link,
                       .mode = s[i].mode,
                       .rec_index = (long)i};
        char *detail = NULL;
        cudnnctl_err rc = cc_xcheck_entry(x, &e, &detail);
        if (rc != s[i].want)
            fail_msg("step %zu '%s': got %s (%s), want %s", i, s[i].name, cudnnctl_err_name(rc),
                     detail ? detail : "", cudnnctl_err_name(s[i].want));
        if (rc == CUDNNCTL_E_OK && s[i].mapped) {
            if (!e.mapped || strcmp(e.mapped, s[i].mapped) != 0)
                fail_msg("step %zu '%s' mapped to %s, want %s", i, s[i].name,
                         e.mapped ? e.mapped : "(none)", s[i].mapped);
        }
        if (rc == CUDNNCTL_E_OK && s[i].link_text)
            assert_string_equal(e.link_text, s[i].link_text);
        if (rc != CUDNNCTL_E_OK) {
            assert_non_null(detail);
            if (!strstr(detail, s[i].mapped))
                fail_msg("step %zu: detail '%s' lacks '%s'", i, detail, s[i].mapped);
            /* every refusal names the entry */
            if (s[i].name && !strstr(detail, s[i].name) && rc != CUDNNCTL_E_BAD_LAYOUT)
                fail_msg("step %zu: detail '%s' does not name the entry", i, detail);
        }
        free(detail);
        cc_xentry_clear(&e);
        if (rc != CUDNNCTL_E_OK)
            break;
    }
    if (want_layout != (cc_layout)-1) {
        cc_layout l;
        char *detail = NULL;
        cudnnctl_err rc = cc_xcheck_finish(x, is_zip, &l, &detail);
        assert_int_equal(l, want_layout);
        assert_int_equal(rc, l == CC_LAYOUT_UNKNOWN ? CUDNNCTL_E_BAD_LAYOUT : CUDNNCTL_E_OK);
        free(detail);
    }
    cc_xcheck_free(x);
}

#define RUN(top, steps, layout, zip)                                                               \
    run_seq(top, steps, sizeof(steps) / sizeof(steps[0]), layout, zip)
#define OK_ CUDNNCTL_E_OK
#define UNSAFE CUDNNCTL_E_UNSAFE_ARCHIVE

static void seq_nvidia_9x(void **state)
{
    (void)state;
    static const seq_step s[] = {
        {T "/", CC_XE_DIR, 0, 0755, OK_, NULL, 0},
        {T "/LICENSE", CC_XE_FILE, 0, 0644, OK_, "LICENSE", 0},
        {T "/include/cudnn.h", CC_XE_FILE, 0, 0644, OK_, "include/cudnn.h", 0},
        {T "/lib/libcudnn.so.9.19.0", CC_XE_FILE, 0, 0755, OK_, "lib/libcudnn.so.9.19.0", 0},
        {T "/lib/libcudnn.so.9", CC_XE_SYMLINK, "libcudnn.so.9.19.0", 0777, OK_,
         "lib/libcudnn.so.9", "libcudnn.so.9.19.0"},
        {T "/lib/libcudnn.so", CC_XE_SYMLINK, "./libcudnn.so.9", 0777, OK_, "lib/libcudnn.so",
         "libcudnn.so.9"},
        {T "/lib/libcudnn_static.a", CC_XE_FILE, 0, 0644, OK_, "lib/libcudnn_static.a", 0},
        {T "/lib/hl", CC_XE_HARDLINK, T "/lib/libcudnn_static.a", 0644, OK_, "lib/hl",
         "lib/libcudnn_static.a"},
        {T "/lib/inc", CC_XE_SYMLINK, "../include", 0777, OK_, "lib/inc", "../include"},
    };
    RUN(T, s, CC_LAYOUT_TAR_9X, 0);
    RUN(NULL, s, CC_LAYOUT_TAR_9X, 0); /* name unknown: a plausible top is accepted */
}

static void seq_windows_links_rewritten(void **state)
{
    (void)state;
    /* lib/x64 collapses onto lib: a link's text is rewritten to keep pointing at the same file */
    static const seq_step s[] = {
        {W "/bin/cudnn64_9.dll", CC_XE_FILE, 0, 0644, OK_, "bin/cudnn64_9.dll", 0},
        {W "/lib/x64/cudnn.lib", CC_XE_FILE, 0, 0644, OK_, "lib/cudnn.lib", 0},
        {W "/lib/x64/alias.lib", CC_XE_SYMLINK, "cudnn.lib", 0777, OK_, "lib/alias.lib",
         "cudnn.lib"},
        {W "/lib/x64/dll", CC_XE_SYMLINK, "../../bin/cudnn64_9.dll", 0777, OK_, "lib/dll",
         "../bin/cudnn64_9.dll"},
        {W "/lib/x64", CC_XE_DIR, 0, 0755, OK_, "lib", 0},
        {W "/lib", CC_XE_DIR, 0, 0755, OK_, "lib", 0},
    };
    RUN(W, s, CC_LAYOUT_ZIP_LIBX64, 1);
}

static void seq_legacy(void **state)
{
    (void)state;
    static const seq_step s[] = {
        {"cuda/", CC_XE_DIR, 0, 0755, OK_, NULL, 0},
        {"cuda/NVIDIA_SLA_cuDNN_Support.txt", CC_XE_FILE, 0, 0644, OK_, "LICENSE", 0},
        {"cuda/lib64/libcudnn.so.8.2.0", CC_XE_FILE, 0, 0755, OK_, "lib/libcudnn.so.8.2.0", 0},
        {"cuda/lib64/libcudnn.so.8", CC_XE_SYMLINK, "libcudnn.so.8.2.0", 0777, OK_,
         "lib/libcudnn.so.8", "libcudnn.so.8.2.0"},
    };
    RUN("cuda", s, CC_LAYOUT_TGZ_LEGACY, 0);
    RUN("cuda", s, CC_LAYOUT_ZIP_LEGACY, 1);
}

static void seq_refusals(void **state)
{
    (void)state;
    /* each row: a valid start, then one refused entry */
    static const seq_step start = {T "/include/cudnn.h", CC_XE_FILE, 0, 0644, OK_,
                                   "include/cudnn.h",    0};
    static const seq_step bad[] = {
        {"other/x", CC_XE_FILE, 0, 0644, UNSAFE, "second top-level", 0},
        {T, CC_XE_FILE, 0, 0644, UNSAFE, "non-directory", 0},
        {T "/include/cudnn.h", CC_XE_FILE, 0, 0644, UNSAFE, "twice", 0},
        {T "/include/CUDNN.H", CC_XE_FILE, 0, 0644, UNSAFE, "case-insensitive", 0},
        {T "/include/cudnn.h/x", CC_XE_FILE, 0, 0644, UNSAFE, "not a directory", 0},
        {T "/include", CC_XE_SYMLINK, "lib", 0777, UNSAFE, "replaces a directory", 0},
        {T "/include2", CC_XE_SYMLINK, "../lib", 0777, UNSAFE, "climbs out", 0},
        {T "/lib/dev", CC_XE_CHARDEV, 0, 0644, UNSAFE, "character device", 0},
        {T "/lib/dev", CC_XE_BLOCKDEV, 0, 0644, UNSAFE, "block device", 0},
        {T "/lib/p", CC_XE_FIFO, 0, 0644, UNSAFE, "fifo", 0},
        {T "/lib/s", CC_XE_SOCKET, 0, 0644, UNSAFE, "socket", 0},
        {T "/lib/h", CC_XE_HARDLINK, "/etc/passwd", 0644, UNSAFE, "absolute", 0},
        {T "/lib/h", CC_XE_HARDLINK, "../etc/passwd", 0644, UNSAFE, "..", 0},
        {T "/lib/h", CC_XE_HARDLINK, "elsewhere/x", 0644, UNSAFE, "outside", 0},
        {T "/lib/h", CC_XE_HARDLINK, T "/lib/missing", 0644, UNSAFE, "not an earlier", 0},
        {T "/lib/h", CC_XE_HARDLINK, T "/include", 0644, UNSAFE, "not an earlier", 0},
        {T "/lib/evil", CC_XE_SYMLINK, "../../../etc", 0777, UNSAFE, "climbs", 0},
        {T "/lib/evil", CC_XE_SYMLINK, "/etc", 0777, UNSAFE, "absolute", 0},
        {NULL, CC_XE_FILE, 0, 0644, UNSAFE, "UTF-8", 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        seq_step s[2] = {start, bad[i]};
        run_seq(T, s, 2, (cc_layout)-1, 0);
    }
    /* a link, then an entry below it: written through the link */
    static const seq_step through[] = {
        {T "/lib/sub", CC_XE_SYMLINK, "../include", 0777, OK_, "lib/sub", "../include"},
        {T "/lib/sub/x.h", CC_XE_FILE, 0, 0644, UNSAFE, "through the symbolic link", 0},
    };
    RUN(T, through, (cc_layout)-1, 0);
    /* an entry, then a link over its parent directory */
    static const seq_step over[] = {
        {T "/lib/sub/x.h", CC_XE_FILE, 0, 0644, OK_, "lib/sub/x.h", 0},
        {T "/lib/sub", CC_XE_SYMLINK, "../include", 0777, UNSAFE, "replaces a directory", 0},
    };
    RUN(T, over, (cc_layout)-1, 0);
    /* the top does not match the name */
    static const seq_step mismatch[] = {
        {"cudnn-linux-x86_64-9.18.0.0_cuda12-archive/x", CC_XE_FILE, 0, 0644, UNSAFE,
         "does not match", 0},
    };
    RUN(T, mismatch, (cc_layout)-1, 0);
    static const seq_step implausible[] = {
        {"etc/passwd", CC_XE_FILE, 0, 0644, UNSAFE, "neither", 0},
    };
    RUN(NULL, implausible, (cc_layout)-1, 0);
}

static void seq_case_and_parents(void **state)
{
    (void)state;
    static const seq_step files[] = {
        {T "/Lib/a", CC_XE_FILE, 0, 0644, OK_, "Lib/a", 0},
        {T "/lib/b", CC_XE_FILE, 0, 0644, UNSAFE, "case-insensitive", 0},
    };
    RUN(T, files, (cc_layout)-1, 0);
    static const seq_step dirs_[] = {
        {T "/Lib", CC_XE_DIR, 0, 0755, OK_, "Lib", 0},
        {T "/lib", CC_XE_DIR, 0, 0755, UNSAFE, "case-insensitive", 0},
    };
    RUN(T, dirs_, (cc_layout)-1, 0);
    static const seq_step implicit[] = {
        {T "/lib/x/a", CC_XE_FILE, 0, 0644, OK_, "lib/x/a", 0},
        {T "/LIB", CC_XE_DIR, 0, 0755, UNSAFE, "case-insensitive", 0},
    };
    RUN(T, implicit, (cc_layout)-1, 0);
    /* parents nothing created yet are reported once, outermost first */
    cc_xcheck *x = cc_xcheck_new(T);
    cc_xentry e = {.name = T "/lib/x/y/f", .type = CC_XE_FILE, .mode = 0644};
    char *detail = NULL;
    assert_int_equal(cc_xcheck_entry(x, &e, &detail), CUDNNCTL_E_OK);
    assert_int_equal(e.new_dirs.n, 3);
    assert_string_equal(e.new_dirs.v[0], "lib");
    assert_string_equal(e.new_dirs.v[1], "lib/x");
    assert_string_equal(e.new_dirs.v[2], "lib/x/y");
    cc_xentry_clear(&e);
    cc_xentry e2 = {.name = T "/lib/x/g", .type = CC_XE_FILE, .mode = 0644};
    assert_int_equal(cc_xcheck_entry(x, &e2, &detail), CUDNNCTL_E_OK);
    assert_int_equal(e2.new_dirs.n, 0);
    cc_xentry_clear(&e2);
    cc_xentry e3 = {.name = T "/lib/x", .type = CC_XE_DIR, .mode = 0700};
    assert_int_equal(cc_xcheck_entry(x, &e3, &detail), CUDNNCTL_E_OK);
    assert_int_equal(e3.new_dirs.n, 0);
    assert_string_equal(e3.mapped, "lib/x");
    cc_xentry_clear(&e3);
    cc_xcheck_free(x);
}

static void seq_layout_collision(void **state)
{
    (void)state;
    static const seq_step s[] = {
        {W "/lib/cudnn.lib", CC_XE_FILE, 0, 0644, OK_, "lib/cudnn.lib", 0},
        {W "/lib/x64/cudnn.lib", CC_XE_FILE, 0, 0644, CUDNNCTL_E_BAD_LAYOUT, "both map to", 0},
    };
    RUN(W, s, (cc_layout)-1, 1);
    static const seq_step none[] = {
        {T "/README", CC_XE_FILE, 0, 0644, OK_, "README", 0},
    };
    RUN(T, none, CC_LAYOUT_UNKNOWN, 0);
}

static void modes_sanitised(void **state)
{
    (void)state;
    static const struct {
        cc_xentry_type type;
        uint32_t in, out, dropped;
    } t[] = {
        {CC_XE_FILE, 0644, 0644, 0},      {CC_XE_FILE, 0755, 0755, 0},
        {CC_XE_FILE, 04755, 0755, 04000}, {CC_XE_FILE, 02775, 0755, 02020},
        {CC_XE_FILE, 01777, 0755, 01022}, {CC_XE_FILE, 0444, 0644, 0},
        {CC_XE_FILE, 0000, 0600, 0},      {CC_XE_FILE, 0666, 0644, 0022},
        {CC_XE_DIR, 0777, 0755, 0022},    {CC_XE_DIR, 0700, 0755, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_xcheck *x = cc_xcheck_new(T);
        cc_xentry e = {.name = T "/lib/f", .type = t[i].type, .mode = t[i].in};
        char *detail = NULL;
        assert_int_equal(cc_xcheck_entry(x, &e, &detail), CUDNNCTL_E_OK);
        if (e.out_mode != t[i].out || e.dropped != t[i].dropped)
            fail_msg("mode %04o -> %04o (dropped %04o), want %04o (dropped %04o)", t[i].in,
                     e.out_mode, e.dropped, t[i].out, t[i].dropped);
        cc_xentry_clear(&e);
        cc_xcheck_free(x);
    }
}

static void entry_count_bounded(void **state)
{
    (void)state;
    cc_xcheck *x = cc_xcheck_new(T);
    char name[128];
    cudnnctl_err rc = CUDNNCTL_E_OK;
    unsigned long i;
    for (i = 0; i <= CC_EXTRACT_MAX_ENTRIES && rc == CUDNNCTL_E_OK; i++) {
        snprintf(name, sizeof(name), T "/include/f%lu.h", i);
        cc_xentry e = {.name = name, .type = CC_XE_FILE, .mode = 0644};
        char *detail = NULL;
        rc = cc_xcheck_entry(x, &e, &detail);
        free(detail);
        cc_xentry_clear(&e);
    }
    assert_int_equal(rc, CUDNNCTL_E_UNSAFE_ARCHIVE);
    assert_int_equal(i, CC_EXTRACT_MAX_ENTRIES + 1);
    cc_xcheck_free(x);
}

static void hostile_names_printed_safely(void **state)
{
    (void)state;
    /* an escape sequence in a name must not reach the user's terminal raw */
    cc_xcheck *x = cc_xcheck_new(T);
    cc_xentry e = {.name = T "/lib/a\x1b[2Jb", .type = CC_XE_FILE, .mode = 0644};
    char *detail = NULL;
    assert_int_equal(cc_xcheck_entry(x, &e, &detail), CUDNNCTL_E_UNSAFE_ARCHIVE);
    assert_non_null(strstr(detail, "lib/a\\x1b[2Jb"));
    assert_null(strchr(detail, 0x1b));
    free(detail);
    cc_xentry_clear(&e);
    /* and a huge name is cut */
    char *big = malloc(100000);
    memset(big, 'a', 99999);
    big[99999] = '\0';
    memcpy(big, T "/", strlen(T) + 1);
    cc_xentry e2 = {.name = big, .type = CC_XE_FILE, .mode = 0644};
    assert_int_equal(cc_xcheck_entry(x, &e2, &detail), CUDNNCTL_E_UNSAFE_ARCHIVE);
    assert_true(strlen(detail) < 1000);
    free(detail);
    cc_xentry_clear(&e2);
    free(big);
    cc_xcheck_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entry_names),
        cmocka_unit_test(name_bounds),
        cmocka_unit_test(link_targets),
        cmocka_unit_test(relative_paths),
        cmocka_unit_test(expected_tops),
        cmocka_unit_test(layout_maps),
        cmocka_unit_test(layout_detection),
        cmocka_unit_test(seq_nvidia_9x),
        cmocka_unit_test(seq_windows_links_rewritten),
        cmocka_unit_test(seq_legacy),
        cmocka_unit_test(seq_refusals),
        cmocka_unit_test(seq_case_and_parents),
        cmocka_unit_test(seq_layout_collision),
        cmocka_unit_test(modes_sanitised),
        cmocka_unit_test(entry_count_bounded),
        cmocka_unit_test(hostile_names_printed_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
