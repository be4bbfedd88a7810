/* keyline.c: the value of a "KEY=value" line in a text (keyline.h). */
#include <string.h>

#include "keyline.h"

const char *cc_str_key_line(const char *text, const char *key, const char *stop, size_t *n)
{
    size_t kn = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, kn) != 0 || l[kn] != '=')
            continue;
        *n = strcspn(l + kn + 1, stop);
        return l + kn + 1;
    }
    return NULL;
}
