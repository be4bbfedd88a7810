/* strset.h: a cc_strv used as a set of names, and the sorted list of them as one string. */
#ifndef CC_STRSET_H
#define CC_STRSET_H

#include "str.h"

/* Add a copy of s unless sv holds it already. 0, or -1 when out of memory. */
int cc_strset_add(cc_strv *sv, const char *s);
/* The strings of sv sorted, joined by sep ("a,b"); a copy of if_empty when there are none.
 * Frees sv. NULL when out of memory. */
char *cc_strset_join(cc_strv *sv, const char *sep, const char *if_empty);

#endif
