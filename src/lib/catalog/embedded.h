/* embedded.h: NVIDIA's manifests compiled into the binary (generated at build time). */
#ifndef CC_EMBEDDED_H
#define CC_EMBEDDED_H

#include <stddef.h>

typedef struct {
    const char *name; /* file name, "redistrib_9.13.0.json" */
    const char *data; /* the file's bytes, NUL-terminated */
    size_t len;
} cc_embedded_manifest;

extern const cc_embedded_manifest cc_embedded_manifests[];
extern const size_t cc_embedded_manifest_count;

#endif
