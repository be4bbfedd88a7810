/* detect_result.c: what a detect result owns (the stage's bottom file: the scanners and
 * detect.c call down into it, it calls none of them): freeing a toolkit, a cuDNN copy, the
 * driver and the whole result, the active-toolkit accessor, and the names of version sources. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

void cc_detect_toolkit_clear(cudnnctl_toolkit *t)
{
    free(t->path);
    free(t->version);
    free(t->lib_dir);
    free(t->origin);
    free(t->active_reason);
    free(t->found_via);
    free(t->version_full);
    free(t->include_dir);
    cc_strs_free(t->aliases, t->n_aliases);
    for (size_t i = 0; t->readings && i < t->n_readings; i++)
        free(t->readings[i].version);
    free(t->readings);
    cc_strs_free(t->problems, t->n_problems);
    memset(t, 0, sizeof(*t));
}

void cc_detect_cudnn_clear(cudnnctl_cudnn_copy *c)
{
    free(c->path);
    free(c->include_dir);
    free(c->version);
    free(c->header_version);
    free(c->origin);
    cc_strs_free(c->libs, c->n_libs);
    cc_strs_free(c->problems, c->n_problems);
    free(c->version_source);
    free(c->package_version);
    free(c->cuda_version);
    memset(c, 0, sizeof(*c));
}

void cc_detect_driver_free(cudnnctl_driver *d)
{
    if (!d)
        return;
    free(d->version);
    free(d->source);
    free(d);
}

void cudnnctl_detect_result_free(cudnnctl_detect_result *r)
{
    if (!r)
        return;
    free(r->platform);
    for (size_t i = 0; i < r->n_toolkits; i++)
        cc_detect_toolkit_clear(&r->toolkits[i]);
    free(r->toolkits);
    cc_detect_driver_free(r->driver);
    for (size_t i = 0; i < r->n_cudnn; i++)
        cc_detect_cudnn_clear(&r->cudnn[i]);
    free(r->cudnn);
    cc_strs_free(r->notes, r->n_notes);
    free(r);
}

const cudnnctl_toolkit *cudnnctl_detect_active_toolkit(const cudnnctl_detect_result *r)
{
    if (!r || r->n_toolkits == 0)
        return NULL;
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (r->toolkits[i].active)
            return &r->toolkits[i];
    /* no active one: the only / newest non-wheel toolkit (toolkits are sorted newest first) */
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (r->toolkits[i].origin && strcmp(r->toolkits[i].origin, "wheel") != 0)
            return &r->toolkits[i];
    return &r->toolkits[0];
}

const char *cudnnctl_detect_source_name(unsigned source)
{
    switch (source) {
    case CUDNNCTL_SRC_VERSION_JSON:
        return "version.json";
    case CUDNNCTL_SRC_VERSION_TXT:
        return "version.txt";
    case CUDNNCTL_SRC_NVCC:
        return "nvcc";
    case CUDNNCTL_SRC_CUDA_H:
        return "cuda.h";
    case CUDNNCTL_SRC_CUDART_H:
        return "cuda_runtime_api.h";
    case CUDNNCTL_SRC_SONAME:
        return "soname";
    case CUDNNCTL_SRC_REGISTRY:
        return "registry";
    case CUDNNCTL_SRC_ENV:
        return "env";
    case CUDNNCTL_SRC_DIST_INFO:
        return "dist-info";
    default:
        return "unknown";
    }
}
