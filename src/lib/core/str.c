/* str.c: string, path, buffer, list and version helpers shared by the whole library (and the
 * current time as text). */
#include "str.h"
#include "vformat.h"

#include "grow.h"

#include "cudnnctl/cudnnctl.h"

#include "platform.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *cc_strdup(const char *s)
{
    if (!s)
        return NULL;
    return cc_strndup(s, strlen(s));
}

char *cc_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cc_vasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *cc_asprintf(const char *fmt, ...)
{
    char *p;
    CC_VFORMAT(p, fmt);
    return p;
}

int cc_str_starts(const char *s, const char *prefix)
{
    return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

int cc_str_cudnn_lib(const char *name)
{
    return cc_str_starts(name, "libcudnn") && (name[8] == '.' || name[8] == '_');
}

int cc_str_ends(const char *s, const char *suffix)
{
    if (!s || !suffix)
        return 0;
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int cc_str_ieqn(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
            return 0;
        if (!a[i])
            return 1;
    }
    return 1;
}

int cc_str_ieq(const char *a, const char *b)
{
    return a && b && cc_str_ieqn(a, b, strlen(a) + 1);
}

int cc_str_istarts(const char *s, const char *prefix)
{
    return s && prefix && cc_str_ieqn(s, prefix, strlen(prefix));
}

int cc_str_iends(const char *s, const char *suffix)
{
    if (!s || !suffix)
        return 0;
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && cc_str_ieqn(s + a - b, suffix, b);
}

char *cc_str_lower(const char *s)
{
    char *r = cc_strdup(s);
    for (char *p = r; p && *p; p++)
        *p = (char)ascii_lower((unsigned char)*p);
    return r;
}

void cudnnctl_size_text(double v, char *buf, size_t n)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB"};
    int i = 0;
    while (v >= 1024 && i < 3) {
        v /= 1024;
        i++;
    }
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

int cc_all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

char *cc_str_trim(char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

const char *cc_str_ctl(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            return s;
    return NULL;
}

char *cc_str_printable(const char *s)
{
    cc_buf b = {0};
    if (cc_buf_puts(&b, "") != 0)
        return NULL;
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c < 0x20 || c == 0x7f) && cc_buf_printf(&b, "\\x%02x", c) != 0)
            break;
        if (c >= 0x20 && c != 0x7f && cc_buf_append(&b, s, 1) != 0)
            break;
    }
    if (s && *s) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
}

char *cc_path_join(const char *a, const char *b)
{
    if (!a || !*a)
        return cc_strdup(b);
    if (!b || !*b)
        return cc_strdup(a);
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    return cc_asprintf("%.*s/%s", (int)la, a, b);
}

char *cc_path_join3(const char *a, const char *b, const char *c)
{
    char *ab = cc_path_join(a, b);
    if (!ab)
        return NULL;
    char *r = cc_path_join(ab, c);
    free(ab);
    return r;
}

const char *cc_path_base(const char *path)
{
    const char *s = strrchr(path, '/');
#ifdef CC_PATH_BACKSLASH_TOO
    const char *t = strrchr(path, '\\');
    if (t && (!s || t > s))
        s = t;
#endif
    return s ? s + 1 : path;
}

char *cc_path_dir(const char *path)
{
    const char *s = strrchr(path, '/');
    size_t root = cc_pf_path_root_len(path);
    if (!s)
        return root ? cc_strndup(path, root) : cc_strdup(".");
    if ((size_t)(s - path) < root)
        return cc_strndup(path, root);
    if (s == path)
        return cc_strdup("/");
    return cc_strndup(path, (size_t)(s - path));
}

void cc_path_slashes(char *path)
{
    if (!path || cc_pf_path_sep() == '/')
        return;
    for (char *p = path; *p; p++)
        if (*p == cc_pf_path_sep())
            *p = '/';
}

char *cc_path_native(const char *path)
{
    char *r = cc_strdup(path);
    if (!r || cc_pf_path_sep() == '/')
        return r;
    for (char *p = r; *p; p++)
        if (*p == '/')
            *p = cc_pf_path_sep();
    return r;
}

int cc_buf_append(cc_buf *b, const void *data, size_t len)
{
    if (b->len + len + 1 < b->len || cc_grow(&b->data, &b->cap, b->len + len + 1, 1) != 0)
        return -1;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int cc_buf_puts(cc_buf *b, const char *s)
{
    return cc_buf_append(b, s, strlen(s));
}

int cc_buf_printf(cc_buf *b, const char *fmt, ...)
{
    char *s;
    CC_VFORMAT(s, fmt);
    if (!s)
        return -1;
    int rc = cc_buf_puts(b, s);
    free(s);
    return rc;
}

void cc_buf_free(cc_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int cc_strv_push_own(cc_strv *sv, char *s)
{
    if (!s)
        return -1;
    if (cc_grow(&sv->v, &sv->cap, sv->n + 2, sizeof(*sv->v)) != 0) {
        free(s);
        return -1;
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
    return 0;
}

int cc_strv_push(cc_strv *sv, const char *s)
{
    return cc_strv_push_own(sv, cc_strdup(s));
}

int cc_strv_contains(const cc_strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return 1;
    return 0;
}

void cc_strv_free(cc_strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

void cc_strs_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void cc_strv_sort(cc_strv *sv)
{
    if (sv->n > 1)
        qsort(sv->v, sv->n, sizeof(char *), cmp_str);
}

int cc_version_parse(const char *s, cc_version *v)
{
    memset(v, 0, sizeof(*v));
    for (int i = 0; i < 4; i++)
        v->part[i] = -1;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    const char *p = s;
    while (v->n < 4) {
        if (!isdigit((unsigned char)*p))
            return -1;
        long x = 0;
        while (isdigit((unsigned char)*p)) {
            x = x * 10 + (*p - '0');
            if (x > 100000000L)
                return -1;
            p++;
        }
        v->part[v->n++] = (int)x;
        if (*p == '.')
            p++;
        else
            break;
    }
    return *p == '\0' ? 0 : -1;
}

int cc_version_cmp(const cc_version *a, const cc_version *b)
{
    for (int i = 0; i < 4; i++) {
        if (a->part[i] != b->part[i])
            return a->part[i] < b->part[i] ? -1 : 1;
    }
    return 0;
}

int cc_version_prefix_match(const cc_version *prefix, const cc_version *full)
{
    for (int i = 0; i < prefix->n; i++)
        if (prefix->part[i] != full->part[i])
            return 0;
    return 1;
}

char *cc_version_str(const cc_version *v)
{
    cc_buf b = {0};
    for (int i = 0; i < v->n; i++)
        if (cc_buf_printf(&b, i ? ".%d" : "%d", v->part[i]) != 0) {
            cc_buf_free(&b);
            return NULL;
        }
    return b.data ? b.data : cc_strdup("");
}

int cc_version_cmp_str(const char *a, const char *b)
{
    cc_version va, vb;
    int oka = cc_version_parse(a, &va) == 0, okb = cc_version_parse(b, &vb) == 0;
    if (!oka || !okb)
        return oka - okb;
    for (int i = 0; i < 4; i++) {
        int x = va.part[i] < 0 ? 0 : va.part[i], y = vb.part[i] < 0 ? 0 : vb.part[i];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

char *cc_now_iso(void)
{
    time_t t = (time_t)cc_pf_time();
    struct tm *g = gmtime(&t);
    char buf[32];
    if (!g || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", g) == 0)
        return cc_strdup("1970-01-01T00:00:00Z");
    return cc_strdup(buf);
}

char *cc_sh_quote(const char *s)
{
    int plain = *s != '\0';
    for (const char *c = s; *c && plain; c++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%",
                       *c) != NULL;
    if (plain)
        return cc_strdup(s);
    cc_buf b = {0};
    cc_buf_puts(&b, "'");
    for (const char *c = s; *c; c++)
        cc_buf_puts(&b, *c == '\'' ? "'\\''" : (char[]){*c, '\0'});
    cc_buf_puts(&b, "'");
    return b.data;
}
