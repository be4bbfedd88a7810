/* grow.h: the one growth rule for every array and buffer of the library and of platform/ (curl's
 * dynbuf idea, for any element type). It lives in base/, below platform/ and every stage, so that
 * both can use it without a cycle: it needs nothing but the C library. */
#ifndef CC_GROW_H
#define CC_GROW_H

#include <stddef.h>

/* Make the array whose pointer is at pptr (a T **, passed as &array) hold at least need elements
 * of elem bytes each.
 *  - cap NULL: exactly need elements (arrays whose owner keeps only a count, as the public result
 *    structs do: one more element a push).
 *  - cap given: *cap is the capacity in elements; it is doubled (from 8) until it holds need, so
 *    n pushes cost O(log n) moves.
 * 0 on success (new elements uninitialised); -1 on overflow or out of memory, with the array and
 * *cap unchanged and still the caller's to free.
 *
 *     if (cc_grow(&r->v, NULL, r->n + 1, sizeof(*r->v)) != 0)
 *         return -1;
 *     r->v[r->n++] = item;
 */
int cc_grow(void *pptr, size_t *cap, size_t need, size_t elem);

/* Append s (taken: freed when it cannot be stored) to the string array *v of *n entries, kept
 * NULL-terminated; 0, or -1 (s NULL, or out of memory: *v and *n unchanged). */
int cc_strs_push(char ***v, size_t *n, char *s);

#endif
