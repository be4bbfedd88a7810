/* strjoin.h: a string vector as one line of text. */
#ifndef CC_STRJOIN_H
#define CC_STRJOIN_H

#include "str.h"

/* The strings of sv, sep between them (malloc'd); NULL when sv is empty or memory ran out. */
char *cc_strv_join(const cc_strv *sv, const char *sep);

#endif
