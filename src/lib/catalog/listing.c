/* listing.c: the manifest names a redist directory listing offers — NVIDIA's index page, an
 * Apache or nginx autoindex, an Artifactory or Nexus generic listing, python's http.server, the
 * index.html `cudnnctl mirror` writes. Not an HTML parser: every href attribute's value is taken
 * (quoted or not), its last path segment kept, and only names of the strict form
 * redistrib_<digits>(.<digits>){1,3}.json survive; whatever else the page holds is ignored. */
#include <ctype.h>
#include <string.h>

#include "catalog_model.h"

/* More than NVIDIA will ever list; a page offering more is not a redist listing. */
#define LISTING_MAX_NAMES 4096

int cc_catalog_listing_name_ok(const char *name)
{
    static const char pre[] = "redistrib_", post[] = ".json";
    size_t n = name ? strlen(name) : 0;
    if (n <= sizeof(pre) - 1 + sizeof(post) - 1 || n > 64 || strncmp(name, pre, sizeof(pre) - 1) ||
        strcmp(name + n - (sizeof(post) - 1), post))
        return 0;
    const char *p = name + sizeof(pre) - 1, *end = name + n - (sizeof(post) - 1);
    int parts = 0, digits = 0;
    for (; p < end; p++) {
        if (isdigit((unsigned char)*p)) {
            if (++digits > 9)
                return 0;
        } else if (*p == '.' && digits) {
            parts++;
            digits = 0;
        } else {
            return 0;
        }
    }
    if (!digits)
        return 0;
    parts++;
    return parts >= 2 && parts <= 4;
}

static int ci_prefix(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p[i]) != word[i])
            return 0;
    return 1;
}

/* The value of one href attribute starting at p (just after "href"); *next: where to go on. */
static int href_value(const char *p, const char *end, const char **v, size_t *vn,
                      const char **next)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p >= end || *p != '=') {
        *next = p;
        return 0;
    }
    p++;
    while (p < end && isspace((unsigned char)*p))
        p++;
    const char *s = p;
    if (p < end && (*p == '"' || *p == '\'')) {
        char q = *p++;
        s = p;
        while (p < end && *p != q && *p != '<' && *p != '>')
            p++;
        if (p >= end || *p != q) {
            *next = p; /* unterminated: not a value */
            return 0;
        }
    } else {
        while (p < end && !isspace((unsigned char)*p) && *p != '>' && *p != '<' && *p != '"' &&
               *p != '\'')
            p++;
    }
    *v = s;
    *vn = (size_t)(p - s);
    *next = p;
    return *vn > 0;
}

/* The last path segment of a link ("./x", "/compute/cudnn/redist/x", "https://host/dir/x"); a
 * query or fragment makes it no manifest link. */
static int link_name(const char *v, size_t vn, char *out, size_t outn)
{
    if (memchr(v, '?', vn) || memchr(v, '#', vn))
        return 0;
    const char *b = v;
    for (size_t i = 0; i < vn; i++)
        if (v[i] == '/')
            b = v + i + 1;
    size_t n = (size_t)(v + vn - b);
    if (n == 0 || n >= outn)
        return 0;
    memcpy(out, b, n);
    out[n] = '\0';
    return cc_catalog_listing_name_ok(out);
}

int cc_catalog_listing_parse(const char *text, size_t len, cc_strv *names)
{
    const char *p = text, *end = text + len;
    while (p && p < end) {
        const char *h = NULL;
        for (const char *q = p; q + 4 <= end; q++)
            if (ci_prefix(q, end, "href") &&
                (q == text || isspace((unsigned char)q[-1]))) {
                h = q;
                break;
            }
        if (!h)
            break;
        const char *v = NULL, *next = NULL;
        size_t vn = 0;
        char name[72];
        if (href_value(h + 4, end, &v, &vn, &next) && link_name(v, vn, name, sizeof(name)) &&
            !cc_strv_contains(names, name)) {
            if (names->n >= LISTING_MAX_NAMES)
                return 1;
            if (cc_strv_push(names, name) != 0)
                return -1;
        }
        p = next > h ? next : h + 4;
    }
    return 0;
}
