/* strjoin.c: cc_strv_join (strjoin.h). */
#include "strjoin.h"

char *cc_strv_join(const cc_strv *sv, const char *sep)
{
    cc_buf b = {0};
    for (size_t i = 0; i < sv->n; i++)
        cc_buf_printf(&b, "%s%s", i ? sep : "", sv->v[i]);
    return b.data;
}
