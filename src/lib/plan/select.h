/* select.h: choosing one archive from the catalog for a platform, a toolkit CUDA version, a
 * driver and the user's pins, with a reason for the choice and for every candidate rejected. */
#ifndef CC_SELECT_H
#define CC_SELECT_H

#include "catalog_model.h"
#include "compat.h"

typedef struct {
    const char *platform;
    int cuda_major;              /* the toolkit's CUDA major (required) */
    int cuda_minor;              /* -1 when unknown */
    const char *cuda_from;       /* where the CUDA version came from, for messages ("--cuda 13") */
    const char *cudnn_pin;       /* --cudnn: "9", "9.13", "9.13.x", "9.13.0.50"; NULL = none */
    const cc_consumer *consumer; /* resolved --for, NULL = none */
    const char *driver;          /* driver version, NULL when unknown */
    int driver_cuda;             /* cuDriverGetVersion encoding (13000), 0 when unknown */
} cc_select_in;

typedef struct {
    const cudnnctl_archive *archive; /* points into the catalog */
    char *reason;
    const char *kind;
    size_t count;
} cc_select_rej;

typedef struct {
    const cudnnctl_archive *chosen; /* points into the catalog */
    char *reason;
    const char *floor; /* the chosen build's driver floor (static), NULL if unknown */
    cc_select_rej *rejected;
    size_t n_rejected;
    cc_strv warnings;
} cc_select_out;

/* NO_MATCH / DRIVER_TOO_OLD / BAD_PLATFORM (with the reason and the fix in ctx) when nothing
 * fits; BAD_VERSION for an unparseable --cudnn or driver version. */
cudnnctl_err cc_select(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat, const cc_select_in *in,
                       cc_select_out *out);
void cc_select_out_free(cc_select_out *out);

/* Parsed --cudnn: parts given, and whether it names a series ("9", "9.13.x") or, for "9.13", the
 * release 9.13.0 (NVIDIA's 3-part release label) with the newest 9.13.x as a fallback. */
typedef struct {
    cc_version v;
    int series;
    int release; /* "M.m": prefer M.m.0 */
} cc_cudnn_pin;
int cc_cudnn_pin_parse(const char *s, cc_cudnn_pin *pin);
int cc_cudnn_pin_match(const cc_cudnn_pin *pin, const char *cudnn_version);

#endif
