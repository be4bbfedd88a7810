/* keyline.h: the value of a "KEY=value" line in a text (os-release, ld.so --list-diagnostics). */
#ifndef CC_KEYLINE_H
#define CC_KEYLINE_H

#include <stddef.h>

/* The value after "key=" on the first line of text that starts so, *n its length up to the
 * first of stop's characters (or the end); NULL when no line does. */
const char *cc_str_key_line(const char *text, const char *key, const char *stop, size_t *n);

#endif
