/* detect_winpath.c: the Windows path helpers of the detect stage (normalising, comparing and
 * joining Windows paths, reading files and dirs under --root, v<M.m> dir names): the bottom file
 * that detect_windows.c (toolkits) and detect_wincudnn.c (NVIDIA's installer layout) both call. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

char *cc_detect_win_norm(const char *p)
{
    char *s = cc_strdup(p);
    if (!s)
        return NULL;
    for (char *c = s; *c; c++)
        if (*c == '/')
            *c = '\\';
    size_t n = strlen(s);
    while (n > 3 && s[n - 1] == '\\')
        s[--n] = '\0';
    return s;
}

int cc_detect_win_same_path(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int cc_detect_win_ci_prefix(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int x = tolower((unsigned char)a[i]), y = tolower((unsigned char)b[i]);
        if (x != y || !x)
            return x - y;
    }
    return 0;
}

char *cc_detect_win_join(const char *a, const char *b)
{
    return cc_asprintf("%s\\%s", a, b);
}

int cc_detect_win_exists(cudnnctl_ctx *ctx, const char *p, int want_dir)
{
    cc_pf_stat_t st;
    char *real = cc_rooted(ctx, p);
    int ok = real && cc_pf_stat(real, &st) == 0 && st.exists && (want_dir ? st.is_dir : st.is_reg);
    free(real);
    return ok;
}

/* A directory listing of a Windows path (under the root). */
cc_pf_dir *cc_detect_win_opendir(cudnnctl_ctx *ctx, const char *p)
{
    char *real = cc_rooted(ctx, p);
    cc_pf_dir *d = real ? cc_pf_opendir(real) : NULL;
    free(real);
    return d;
}

/* Add (or find) a candidate; -1 on OOM. */
/* "v12.4" -> 12, 4 */
int cc_detect_win_parse_vdir(const char *name, int *major, int *minor)
{
    if (name[0] != 'v' && name[0] != 'V')
        return -1;
    char *end = NULL;
    long a = strtol(name + 1, &end, 10);
    if (end == name + 1 || *end != '.')
        return -1;
    char *end2 = NULL;
    long b = strtol(end + 1, &end2, 10);
    if (end2 == end + 1 || *end2)
        return -1;
    *major = (int)a;
    *minor = (int)b;
    return 0;
}

/* Read a small text file (NUL-terminated, malloc'd); NULL when absent. */
char *cc_detect_win_slurp(cudnnctl_ctx *ctx, const char *path, size_t max)
{
    char *real = cc_rooted(ctx, path);
    cc_pf_fd fd = real ? cc_pf_open(real, CC_PF_O_RDONLY, 0) : -1;
    free(real);
    if (fd == -1)
        return NULL;
    char *buf = malloc(max + 1);
    size_t len = 0;
    while (buf && len < max) {
        long long r = cc_pf_read(fd, buf + len, max - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    cc_pf_close(fd);
    if (buf)
        buf[len] = '\0';
    return buf;
}
