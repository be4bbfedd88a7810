/* strset.c: a cc_strv used as a set of names (strset.h). */
#include "strset.h"

int cc_strset_add(cc_strv *sv, const char *s)
{
    return cc_strv_contains(sv, s) ? 0 : cc_strv_push(sv, s);
}

char *cc_strset_join(cc_strv *sv, const char *sep, const char *if_empty)
{
    cc_strv_sort(sv);
    cc_buf b = {0};
    for (size_t i = 0; i < sv->n; i++)
        cc_buf_printf(&b, "%s%s", i ? sep : "", sv->v[i]);
    cc_strv_free(sv);
    return b.data ? b.data : cc_strdup(if_empty);
}
