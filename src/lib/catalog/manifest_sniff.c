/* manifest_sniff.c: is what came as a manifest a web page? A login portal, a proxy's error page
 * or a browser's "Save as" answers with HTML where JSON belongs; such bytes are named as what
 * they are (never "not valid JSON near byte 0") and never kept in the manifest cache. The bottom
 * file of the manifest readers: it calls nothing of catalog/. */
#include <ctype.h>
#include <string.h>

#include "catalog_model.h"

/* Case-insensitive search for needle in the first n bytes of hay. */
static int has_word(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k && tolower((unsigned char)hay[i + j]) == needle[j])
            j++;
        if (j == k)
            return 1;
    }
    return 0;
}

const char *cc_manifest_markup(const char *data, size_t len)
{
    size_t i = 0;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        i = 3; /* a UTF-8 byte order mark */
    while (i < len && isspace((unsigned char)data[i]))
        i++;
    if (i >= len || data[i] != '<')
        return NULL;
    size_t n = len - i < 65536 ? len - i : 65536; /* the head of the page says enough */
    const char *p = data + i;
    int html = has_word(p, n, "<html") || has_word(p, n, "<!doctype html") ||
               has_word(p, n, "<head") || has_word(p, n, "<body");
    if (!html)
        return "markup (XML or HTML)";
    if (has_word(p, n, "type=\"password\"") || has_word(p, n, "type='password'") ||
        has_word(p, n, "type=password") || has_word(p, n, "sign in") ||
        has_word(p, n, "log in") || has_word(p, n, "login"))
        return "an HTML login page";
    return "an HTML page";
}
