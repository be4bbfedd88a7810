/* extract_limits.h: decompression bombs refused before their bytes are written — the declared
 * sizes of the entries are summed as the headers are read and held against a cap derived from
 * the archive and against the free space of the staging filesystem; sparse entries are refused
 * (NVIDIA's archives have none). docs/security.md, "Bomb limits". */
#ifndef CC_EXTRACT_LIMITS_H
#define CC_EXTRACT_LIMITS_H

#include <stdint.h>

#include "internal.h"

/* NVIDIA's largest cuDNN archives (Windows 9.x zips, ~1.9 GB) unpack to < 4 GiB. */
#define CC_UNPACK_ABS_CAP (6ull << 30)
/* cuDNN's libraries compress ~1.5-3:1 (static libraries and headers better): 10x the archive
 * with a floor for tiny archives is far above any real one and far below a bomb. */
#define CC_UNPACK_RATIO 10u
#define CC_UNPACK_FLOOR (256ull << 20)
/* Left free on the staging filesystem after the last entry. */
#define CC_UNPACK_SPACE_MARGIN (4ull << 20)

typedef struct {
    uint64_t cap;          /* refuse when the declared total goes above this */
    uint64_t archive_size; /* compressed bytes (0 unknown) */
    int overridden;        /* cap set by the caller (--max-unpacked) */
    uint64_t declared;     /* declared bytes of the entries read so far */
    uint64_t avail;        /* free bytes of the staging filesystem at the start */
    int have_avail;
} cc_xlimits;

/* archive_size: the archive's compressed size (0: unknown: the absolute cap alone);
 * max_unpacked: the caller's cap (0: derived); staging_root: where the bytes go (its free space
 * is read once; the rest is accounted as entries are declared). */
void cc_xlimits_init(cc_xlimits *l, uint64_t archive_size, uint64_t max_unpacked,
                     const char *staging_root);

/* One entry header: declared: its size (-1 unknown), sparse: it carries a sparse map.
 * OK, or CUDNNCTL_E_TOO_LARGE / CUDNNCTL_E_UNSAFE_ARCHIVE recorded on ctx naming the entry and
 * the limit. */
cudnnctl_err cc_xlimits_entry(cudnnctl_ctx *ctx, cc_xlimits *l, const char *name, int64_t declared,
                              int sparse);

/* Bytes actually produced so far (entries of unknown size count here): over the cap → error. */
cudnnctl_err cc_xlimits_produced(cudnnctl_ctx *ctx, const cc_xlimits *l, const char *name,
                                 uint64_t produced);

#endif
