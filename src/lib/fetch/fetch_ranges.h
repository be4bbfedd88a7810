/* fetch_ranges.h: a download over several connections (fetch_ranges.c), for the download
 * producer (fetch.c). Internal to the fetch stage. */
#ifndef CC_FETCH_RANGES_H
#define CC_FETCH_RANGES_H

#include "source_int.h"

/* 1 when this download may use ranges: a known size, a transport that batches, not forced to
 * one connection, and large enough (16 MiB, or two pieces when connections were asked for). */
int cc_ranges_eligible(const cc_source *s);
/* Fetch s->path over several connections, handing bytes over in order. *have: bytes handed
 * over. On *fallback = 1 (the server mishandles ranges) the part is cut to *have and the caller
 * goes on with one stream from there; else the result is final (OK: all bytes handed over). */
cudnnctl_err cc_fetch_ranges(cc_source *s, uint64_t *have, int *fallback, char **why);
/* A one-stream download about to reuse s->path: when an earlier run left ranges (a side file),
 * cut the part to its in-order prefix and drop the side file. Returns the bytes kept, or
 * UINT64_MAX when there was no side file (the part is a plain prefix). */
uint64_t cc_ranges_settle(cc_source *s, uint64_t expected_size);
/* "<part>.ranges" (malloc'd). */
char *cc_ranges_side_path(const char *part);

#endif
