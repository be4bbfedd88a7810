/* pathcheck.c: pure checks of archive entry names and link targets (our own first line of
 * defence; libarchive's ARCHIVE_EXTRACT_SECURE_* flags are the second). The rules are the union
 * of what is dangerous on Linux and on Windows, so an archive is judged the same everywhere. */
#include "pathcheck.h"

#include <stdlib.h>
#include <string.h>

#include "str.h"

/* The n bytes at a are lit, ignoring case. */
static int ieq(const char *a, size_t n, const char *lit)
{
    return strlen(lit) == n && cc_str_ieqn(a, lit, n);
}

int cc_pathcheck_is_win_reserved(const char *comp, size_t len)
{
    /* Windows maps these names to devices whatever the extension ("CON.dll", "nul.tar.gz"),
     * and ignores trailing spaces before the extension ("NUL .txt"). */
    size_t stem = 0;
    while (stem < len && comp[stem] != '.')
        stem++;
    while (stem > 0 && comp[stem - 1] == ' ')
        stem--;
    static const char *const plain[] = {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (ieq(comp, stem, plain[i]))
            return 1;
    if (stem >= 4 && (ieq(comp, 3, "com") || ieq(comp, 3, "lpt"))) {
        const unsigned char *d = (const unsigned char *)comp + 3;
        size_t dl = stem - 3;
        if (dl == 1 && d[0] >= '0' && d[0] <= '9')
            return 1;
        /* COM¹ COM² COM³ (UTF-8 superscripts) are reserved too */
        if (dl == 2 && d[0] == 0xc2 && (d[1] == 0xb9 || d[1] == 0xb2 || d[1] == 0xb3))
            return 1;
    }
    return 0;
}

int cc_pathcheck_component(const char *comp, size_t len, const char **why)
{
    if (len == 2 && comp[0] == '.' && comp[1] == '.') {
        *why = "'..' component (would climb out of the staging directory)";
        return CC_PATHCHECK_UNSAFE;
    }
    if (len > CC_PATHCHECK_MAX_COMPONENT) {
        *why = "a path component is longer than 255 bytes";
        return CC_PATHCHECK_UNSAFE;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)comp[i];
        if (c < 0x20 || c == 0x7f) {
            *why = "control character in name";
            return CC_PATHCHECK_UNSAFE;
        }
        if (c == '\\') {
            *why = "backslash in name (a Windows path separator)";
            return CC_PATHCHECK_UNSAFE;
        }
        if (c == ':') {
            *why = "colon in name (drive letter or NTFS alternate data stream)";
            return CC_PATHCHECK_UNSAFE;
        }
        if (c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|') {
            *why = "character not allowed in Windows file names (* ? \" < > |)";
            return CC_PATHCHECK_UNSAFE;
        }
    }
    if (len > 0 && (comp[len - 1] == '.' || comp[len - 1] == ' ') &&
        !(len == 1 && comp[0] == '.')) {
        *why = "name ends with a dot or space (Windows strips it, so two names could collide)";
        return CC_PATHCHECK_UNSAFE;
    }
    if (cc_pathcheck_is_win_reserved(comp, len)) {
        *why = "Windows reserved device name (CON, PRN, AUX, NUL, COMn, LPTn, with any extension)";
        return CC_PATHCHECK_UNSAFE;
    }
    return 0;
}

/* Prefix rules shared by names and link targets. */
static int check_prefix(const char *s, const char **why)
{
    if ((s[0] == '\\' && s[1] == '\\') || (s[0] == '/' && s[1] == '/')) {
        *why = "UNC path (\\\\server\\share)";
        return CC_PATHCHECK_UNSAFE;
    }
    if (s[0] == '/' || s[0] == '\\') {
        *why = "absolute path";
        return CC_PATHCHECK_UNSAFE;
    }
    if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':') {
        *why = "drive letter (C:)";
        return CC_PATHCHECK_UNSAFE;
    }
    if (strchr(s, '\\')) {
        *why = "backslash in name (a Windows path separator)";
        return CC_PATHCHECK_UNSAFE;
    }
    return 0;
}

/* Split s on '/', validate components, push them onto a component stack. For names ".." is
 * refused by the component rule; for link targets (allow_dotdot) it pops, but never below the
 * top directory (depth 1): a target that leaves the top, even to come back, is refused. */
typedef struct {
    const char *p[CC_PATHCHECK_MAX_DEPTH * 2 + 2];
    size_t n[CC_PATHCHECK_MAX_DEPTH * 2 + 2];
    size_t depth;
} comp_stack;

static int push_path(comp_stack *st, const char *s, int allow_dotdot, const char **why)
{
    while (*s) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 0 || (len == 1 && s[0] == '.')) {
            /* empty or "." component: no effect */
        } else if (allow_dotdot && len == 2 && s[0] == '.' && s[1] == '.') {
            if (st->depth <= 1) {
                *why = "link target climbs out of the archive's top directory";
                return CC_PATHCHECK_UNSAFE;
            }
            st->depth--;
        } else {
            int rc = cc_pathcheck_component(s, len, why);
            if (rc)
                return rc;
            if (st->depth >= CC_PATHCHECK_MAX_DEPTH) {
                *why = "path nested deeper than 32 directories";
                return CC_PATHCHECK_UNSAFE;
            }
            st->p[st->depth] = s;
            st->n[st->depth] = len;
            st->depth++;
        }
        s += len;
        if (*s == '/')
            s++;
    }
    return 0;
}

static char *join_stack(const comp_stack *st, size_t upto)
{
    size_t total = 1;
    for (size_t i = 0; i < upto; i++)
        total += st->n[i] + 1;
    char *out = malloc(total);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < upto; i++) {
        if (i)
            out[o++] = '/';
        memcpy(out + o, st->p[i], st->n[i]);
        o += st->n[i];
    }
    out[o] = '\0';
    return out;
}

static int check_whole(const char *s, const char *what_empty, const char **why)
{
    if (!s || !*s) {
        *why = what_empty;
        return CC_PATHCHECK_UNSAFE;
    }
    if (strlen(s) > CC_PATHCHECK_MAX_NAME) {
        *why = "name longer than 1024 bytes";
        return CC_PATHCHECK_UNSAFE;
    }
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            *why = "control character in name";
            return CC_PATHCHECK_UNSAFE;
        }
    return check_prefix(s, why);
}

int cc_pathcheck_name(const char *name, char **norm, const char **why)
{
    *norm = NULL;
    int rc = check_whole(name, "empty name", why);
    if (rc)
        return rc;
    comp_stack st = {0};
    rc = push_path(&st, name, 0, why);
    if (rc)
        return rc;
    *norm = join_stack(&st, st.depth);
    return *norm ? 0 : CC_PATHCHECK_NOMEM;
}

int cc_pathcheck_link_target(const char *link_norm, const char *target, char **resolved,
                             const char **why)
{
    *resolved = NULL;
    int rc = check_whole(target, "empty link target", why);
    if (rc) {
        if (rc == CC_PATHCHECK_UNSAFE && target && *target) {
            /* name the link-specific reason */
            if (strstr(*why, "UNC"))
                *why = "UNC link target (\\\\server\\share)";
            else if (strstr(*why, "absolute"))
                *why = "absolute link target";
            else if (strstr(*why, "drive"))
                *why = "link target with a drive letter (C:)";
            else if (strstr(*why, "backslash"))
                *why = "backslash in link target";
        }
        return rc;
    }
    comp_stack st = {0};
    rc = push_path(&st, link_norm, 0, why);
    if (rc)
        return rc;
    if (st.depth < 2) {
        *why = "link outside the archive's top directory";
        return CC_PATHCHECK_UNSAFE;
    }
    st.depth--; /* the link's directory */
    rc = push_path(&st, target, 1, why);
    if (rc)
        return rc;
    /* strictly inside the top directory: [top, something...] with the same top */
    if (st.depth < 2) {
        *why = "link target is the archive's top directory itself";
        return CC_PATHCHECK_UNSAFE;
    }
    size_t toplen = strcspn(link_norm, "/");
    if (st.n[0] != toplen || memcmp(st.p[0], link_norm, toplen) != 0) {
        *why = "link target climbs out of the archive's top directory";
        return CC_PATHCHECK_UNSAFE;
    }
    *resolved = join_stack(&st, st.depth);
    return *resolved ? 0 : CC_PATHCHECK_NOMEM;
}

/* Length of the component starting at s. */
static size_t comp_len(const char *s)
{
    return strcspn(s, "/");
}

char *cc_path_relative(const char *from_dir, const char *to)
{
    /* skip the components both paths share */
    const char *f = from_dir, *t = to;
    while (*f && *t) {
        size_t fl = comp_len(f), tl = comp_len(t);
        if (fl != tl || memcmp(f, t, fl) != 0)
            break;
        f += fl + (f[fl] == '/');
        t += tl + (t[tl] == '/');
    }
    cc_buf b = {0};
    while (*f) {
        size_t fl = comp_len(f);
        if (cc_buf_puts(&b, "../") != 0)
            goto oom;
        f += fl + (f[fl] == '/');
    }
    if (cc_buf_puts(&b, t) != 0)
        goto oom;
    if (b.len > 0 && b.data[b.len - 1] == '/')
        b.data[--b.len] = '\0';
    if (b.len == 0 && cc_buf_puts(&b, ".") != 0)
        goto oom;
    return b.data;
oom:
    cc_buf_free(&b);
    return NULL;
}
