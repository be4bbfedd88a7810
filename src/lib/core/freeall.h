/* freeall.h: the end of a function that made several buffers: CC_FREE_ALL(a, b, c) frees each
 * (NULL ones too, as free does). */
#ifndef CC_FREEALL_H
#define CC_FREEALL_H

#include <stddef.h>
#include <stdlib.h>

static inline void cc_free_each(void *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
}

#define CC_FREE_ALL(...)                                                                           \
    cc_free_each((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
