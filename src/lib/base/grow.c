/* grow.c: cc_grow, the library's one realloc, and the string-array push built on it (grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cc_grow(void *pptr, size_t *cap, size_t need, size_t elem)
{
    void *old, *p;
    size_t n = need;
    memcpy(&old, pptr, sizeof(old)); /* pptr is a T **: read and write it as bytes, whatever T */
    if (cap) {
        if (old && need <= *cap)
            return 0;
        n = *cap ? *cap : 8;
        while (n < need) {
            if (n > SIZE_MAX / 2)
                return -1;
            n *= 2;
        }
    }
    if (elem && n > SIZE_MAX / elem)
        return -1;
    p = realloc(old, n && elem ? n * elem : 1);
    if (!p)
        return -1;
    memcpy(pptr, &p, sizeof(p));
    if (cap)
        *cap = n;
    return 0;
}

int cc_strs_push(char ***v, size_t *n, char *s)
{
    if (!s)
        return -1;
    if (cc_grow(v, NULL, *n + 2, sizeof(**v)) != 0) {
        free(s);
        return -1;
    }
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
    return 0;
}
