/* vformat.h: a variadic function's own arguments printed into a new string, the one way the
 * library's printf-style functions (cc_asprintf, cc_buf_printf, cc_log, cc_set_error, ...) turn
 * their "fmt, ..." into text. */
#ifndef CC_VFORMAT_H
#define CC_VFORMAT_H

#include <stdarg.h>

#include "str.h"

/* out = cc_vasprintf(fmt, the arguments after fmt): malloc'd, NULL when out of memory. Used
 * inside the function whose last named parameter is fmt. */
#define CC_VFORMAT(out, fmt)                                                                       \
    do {                                                                                           \
        va_list cc_vformat_ap_;                                                                    \
        va_start(cc_vformat_ap_, fmt);                                                             \
        (out) = cc_vasprintf((fmt), cc_vformat_ap_);                                               \
        va_end(cc_vformat_ap_);                                                                    \
    } while (0)

#endif
