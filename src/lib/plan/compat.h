/* compat.h: compatibility knowledge kept as data (compat_data.c) — driver floors per CUDA build,
 * tested toolkit ranges, and the cuDNN that PyTorch / TensorFlow releases pin — and the lookups
 * over it (compat.c). Sources: cudnn-distribution.md §4. */
#ifndef CC_COMPAT_H
#define CC_COMPAT_H

#include <stddef.h>

#include "internal.h"

/* Minimum driver of a CUDA major's builds. windows_floor NULL: none published. */
typedef struct {
    int cuda_major;
    const char *linux_floor;
    const char *windows_floor;
    const char *source;
} cc_driver_floor;

/* Toolkits a cuDNN range was tested with, per CUDA build (NVIDIA support matrices). Outside the
 * range the build usually still loads (CUDA minor-version compatibility): a warning, not a
 * rejection. */
typedef struct {
    const char *cudnn_lo, *cudnn_hi; /* inclusive, compared on the given parts */
    int cuda_major;
    const char *toolkit_lo, *toolkit_hi;
    const char *source;
} cc_toolkit_range;

/* What a framework release was built against. */
typedef struct {
    const char *pkg;             /* "torch", "tensorflow" */
    const char *ver_lo, *ver_hi; /* the releases this row covers (inclusive) */
    const char *cuda;            /* CUDA of the build ("13.0" = cu130) */
    const char *cudnn;           /* "9.13.0.50" (exact pin) or "9.3" (built with; >= at runtime) */
    int exact;                   /* 1: the wheel requires exactly this cuDNN */
    const char *source;
} cc_consumer_pin;

extern const cc_driver_floor cc_driver_floors[];
extern const size_t cc_driver_floor_count;
extern const cc_toolkit_range cc_toolkit_ranges[];
extern const size_t cc_toolkit_range_count;
extern const cc_consumer_pin cc_consumer_pins[];
extern const size_t cc_consumer_pin_count;

/* The driver floor of a CUDA major's builds on a platform ("linux-*" / "windows-*"); NULL when
 * unknown. */
const char *cc_compat_driver_floor(int cuda_major, const char *platform);
/* The tested-toolkit row for a cuDNN version and CUDA build, NULL when none is recorded. */
const cc_toolkit_range *cc_compat_toolkit_range(const char *cudnn_version, int cuda_major);

/* A resolved --for: the framework build chosen and the cuDNN it needs. */
typedef struct {
    char *label;    /* "torch==2.9.1+cu130" */
    char *pkg;      /* "torch" */
    int cuda_major; /* CUDA of the framework build */
    int cuda_minor;
    const char *cudnn; /* pin (static) */
    int exact;
    const char *source;
} cc_consumer;

/* Resolve "torch==2.9.1", "torch==2.9.1+cu130", "tensorflow==2.18.0" against the pins, for the
 * toolkit CUDA tk_major.tk_minor (0 / -1 when unknown). USAGE for bad syntax, NO_PIN when the
 * release is not in the table, NO_MATCH when it has no build for the toolkit's CUDA major. */
cudnnctl_err cc_compat_consumer(cudnnctl_ctx *ctx, const char *for_pkg, int tk_major, int tk_minor,
                                cc_consumer *out);
void cc_consumer_clear(cc_consumer *c);

#endif
