/* extract_limits.c: the bomb limits of extract_limits.h. */
#include "extract_limits.h"

#include <stdio.h>
#include <string.h>

static void human(char *buf, size_t n, uint64_t v)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int i = 0;
    while (d >= 1024 && i < 4) {
        d /= 1024;
        i++;
    }
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", d, u[i]);
}

void cc_xlimits_init(cc_xlimits *l, uint64_t archive_size, uint64_t max_unpacked,
                     const char *staging_root)
{
    memset(l, 0, sizeof(*l));
    l->archive_size = archive_size;
    if (max_unpacked) {
        l->cap = max_unpacked;
        l->overridden = 1;
    } else {
        uint64_t c = CC_UNPACK_ABS_CAP;
        if (archive_size && archive_size < CC_UNPACK_ABS_CAP / CC_UNPACK_RATIO) {
            c = archive_size * CC_UNPACK_RATIO;
            if (c < CC_UNPACK_FLOOR)
                c = CC_UNPACK_FLOOR;
        }
        l->cap = c;
    }
    if (staging_root && cc_pf_free_space(staging_root, &l->avail) == 0)
        l->have_avail = 1;
}

static cudnnctl_err over_cap(cudnnctl_ctx *ctx, const cc_xlimits *l, const char *name,
                             uint64_t total, const char *what)
{
    char t[32], c[32], a[32];
    human(t, sizeof(t), total);
    human(c, sizeof(c), l->cap);
    human(a, sizeof(a), l->archive_size);
    if (l->overridden)
        CC_RET_ERR(ctx, CUDNNCTL_E_TOO_LARGE,
                   "archive bomb refused: entry '%s' brings the %s unpacked size to %s, over the "
                   "cap of %s given with --max-unpacked; nothing was installed",
                   name, what, t, c);
    CC_RET_ERR(ctx, CUDNNCTL_E_TOO_LARGE,
               "archive bomb refused: entry '%s' brings the %s unpacked size to %s, over the cap "
               "of %s (%u x the archive's %s, at least %llu MiB, at most %llu GiB; NVIDIA's "
               "largest cuDNN archives unpack to < 4 GiB); nothing was installed. An archive you "
               "trust that is this large: raise the cap with --max-unpacked SIZE",
               name, what, t, c, CC_UNPACK_RATIO, l->archive_size ? a : "(unknown) size",
               (unsigned long long)(CC_UNPACK_FLOOR >> 20),
               (unsigned long long)(CC_UNPACK_ABS_CAP >> 30));
}

cudnnctl_err cc_xlimits_entry(cudnnctl_ctx *ctx, cc_xlimits *l, const char *name, int64_t declared,
                              int sparse)
{
    if (sparse)
        CC_RET_ERR(ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
                   "unsafe archive entry '%s': a sparse file (its holes would be written out in "
                   "full; NVIDIA's cuDNN archives have no sparse entries); nothing was installed",
                   name);
    if (declared <= 0)
        return CUDNNCTL_E_OK;
    uint64_t d = (uint64_t)declared;
    l->declared = d > UINT64_MAX - l->declared ? UINT64_MAX : l->declared + d;
    if (l->declared > l->cap)
        return over_cap(ctx, l, name, l->declared, "declared");
    if (l->have_avail &&
        (l->avail < CC_UNPACK_SPACE_MARGIN || l->declared > l->avail - CC_UNPACK_SPACE_MARGIN)) {
        char t[32], a[32];
        human(t, sizeof(t), l->declared);
        human(a, sizeof(a), l->avail);
        CC_RET_ERR(ctx, CUDNNCTL_E_TOO_LARGE,
                   "archive too large for the free space: entry '%s' brings the declared "
                   "unpacked size to %s, but the staging filesystem had %s free (less %llu MiB "
                   "kept free); nothing was installed. Free some space or install elsewhere with "
                   "--prefix DIR",
                   name, t, a, (unsigned long long)(CC_UNPACK_SPACE_MARGIN >> 20));
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_xlimits_produced(cudnnctl_ctx *ctx, const cc_xlimits *l, const char *name,
                                 uint64_t produced)
{
    if (produced > l->cap)
        return over_cap(ctx, l, name, produced, "actual");
    return CUDNNCTL_E_OK;
}
