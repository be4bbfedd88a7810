/* build_probe.c: ask this machine's compilers where they look: `cc -E -v -x c /dev/null` (and
 * nvcc with -Xcompiler -v) for the #include <...> list, `cc -print-search-dirs` and
 * `ld --verbose` for what -l searches. Parsing is separate from running so the parsers are
 * plain functions of the text (build_int.h). */
#include <stdlib.h>
#include <string.h>

#include "build_int.h"
#include "platform.h"

#define PROBE_TIMEOUT_MS 20000

/* Split "ccache gcc -m64" into words (no quoting: what $CC holds in practice). */
static int split_words(const char *s, cc_strv *out)
{
    while (s && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, " \t");
        if (n && cc_strv_push_own(out, cc_strndup(s, n)) != 0)
            return -1;
        s += n;
    }
    return 0;
}

char *cc_bv_which(const char *prog)
{
    if (!prog || !*prog)
        return NULL;
    cc_pf_stat_t st;
    if (strchr(prog, '/'))
        return cc_pf_stat(prog, &st) == 0 && st.exists && st.is_reg ? cc_strdup(prog) : NULL;
    const char *path = cc_pf_getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char *dir = n ? cc_strndup(p, n) : cc_strdup(".");
        char *f = dir ? cc_path_join(dir, prog) : NULL;
        free(dir);
        if (f && cc_pf_stat(f, &st) == 0 && st.exists && st.is_reg && (st.mode & 0111))
            return f;
        free(f);
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

/* Run the command words of @p cmd followed by @p args; its output (stdout + stderr). */
int cc_bv_run(const char *cmd, const char *const *args, char **out, int *status)
{
    cc_strv argv = {0};
    *out = NULL;
    if (split_words(cmd, &argv) != 0 || argv.n == 0) {
        cc_strv_free(&argv);
        return -1;
    }
    for (size_t i = 0; args[i]; i++)
        if (cc_strv_push(&argv, args[i]) != 0) {
            cc_strv_free(&argv);
            return -1;
        }
    size_t len = 0; /* the list is NULL-terminated (cc_strv) */
    int rc =
        cc_pf_run((const char *const *)argv.v, NULL, NULL, PROBE_TIMEOUT_MS, 1, out, &len, status);
    cc_strv_free(&argv);
    return rc;
}

/* " /usr/include" lines between gcc's two markers, trimmed. */
int cc_bv_parse_includes(const char *text, cc_strv *out)
{
    const char *p = text ? strstr(text, "#include <...> search starts here:") : NULL;
    if (!p)
        return -1;
    p = strchr(p, '\n');
    while (p && *++p) {
        size_t n = strcspn(p, "\n");
        if (n >= 18 && strncmp(p, "End of search list", 18) == 0)
            return 0;
        const char *s = p;
        while (s < p + n && (*s == ' ' || *s == '\t'))
            s++;
        size_t m = (size_t)(p + n - s);
        const char *fw = strstr(s, " (framework directory)");
        if (fw && fw < p + n)
            m = (size_t)(fw - s);
        if (m && cc_strv_push_own(out, cc_strndup(s, m)) != 0)
            return -1;
        p += n;
        if (!*p)
            break;
    }
    return -1; /* no end marker: not gcc's list */
}

/* "libraries: =/a/:/b/" of -print-search-dirs: the dirs, the leading '=' (sysroot) dropped. */
int cc_bv_parse_libraries(const char *text, cc_strv *out)
{
    const char *p = text ? strstr(text, "libraries: ") : NULL;
    if (!p)
        return -1;
    p += 11;
    if (*p == '=')
        p++;
    size_t end = strcspn(p, "\n");
    for (size_t i = 0; i < end;) {
        size_t n = strcspn(p + i, ":\n");
        if (n > end - i)
            n = end - i;
        if (n && cc_strv_push_own(out, cc_strndup(p + i, n)) != 0)
            return -1;
        i += n + 1;
    }
    return 0;
}

/* SEARCH_DIR("=/usr/local/lib/x86_64-linux-gnu"); ... of `ld --verbose`. */
int cc_bv_parse_ld_dirs(const char *text, cc_strv *out)
{
    int any = 0;
    for (const char *p = text; p && (p = strstr(p, "SEARCH_DIR(\"")) != NULL;) {
        p += 12;
        if (*p == '=')
            p++;
        size_t n = strcspn(p, "\"");
        if (n && cc_strv_push_own(out, cc_strndup(p, n)) != 0)
            return -1;
        any = 1;
        p += n;
    }
    return any ? 0 : -1;
}
