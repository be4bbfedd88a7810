/* detect_json.c: a detect result as the JSON document of CLI.md ("detect --json"), made with
 * cJSON. Keys of CLI.md first; the extra keys add what a person or doctor needs. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "detect_int.h"
#include "json.h"

static int add_int_or_null(cJSON *o, const char *k, int v)
{
    return (v >= 0 ? cJSON_AddNumberToObject(o, k, v) : cJSON_AddNullToObject(o, k)) ? 0 : -1;
}

static int add_list(cJSON *o, const char *k, char *const *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, k);
    if (!a)
        return -1;
    for (size_t i = 0; i < n; i++) {
        cJSON *s = cJSON_CreateString(v[i]);
        if (!s || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            return -1;
        }
    }
    return 0;
}

static int toolkit_json(cJSON *arr, const cudnnctl_toolkit *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return -1;
    }
    int rc = cc_json_str(o, "path", t->path) | cc_json_str(o, "version", t->version) |
             add_int_or_null(o, "major", t->major) | add_int_or_null(o, "minor", t->minor) |
             add_int_or_null(o, "patch", t->patch) | cc_json_str(o, "version_full", t->version_full);
    cJSON *src = cJSON_AddArrayToObject(o, "sources");
    if (!src)
        return -1;
    for (unsigned bit = 1; bit && bit <= CUDNNCTL_SRC_DIST_INFO; bit <<= 1)
        if (t->sources & bit) {
            cJSON *s = cJSON_CreateString(cudnnctl_detect_source_name(bit));
            if (!s || !cJSON_AddItemToArray(src, s)) {
                cJSON_Delete(s);
                return -1;
            }
        }
    rc |= cJSON_AddBoolToObject(o, "active", t->active) ? 0 : -1;
    rc |= cc_json_str(o, "active_reason", t->active_reason) | cc_json_str(o, "lib_dir", t->lib_dir) |
          cc_json_str(o, "include_dir", t->include_dir) | cc_json_str(o, "origin", t->origin) |
          cc_json_str(o, "found_via", t->found_via) | add_list(o, "aliases", t->aliases, t->n_aliases);
    rc |= cJSON_AddBoolToObject(o, "sources_disagree", t->sources_disagree) ? 0 : -1;
    cJSON *rd = cJSON_AddArrayToObject(o, "readings");
    if (!rd)
        return -1;
    for (size_t i = 0; i < t->n_readings; i++) {
        cJSON *x = cJSON_CreateObject();
        if (!x || !cJSON_AddItemToArray(rd, x)) {
            cJSON_Delete(x);
            return -1;
        }
        rc |= cc_json_str(x, "source", cudnnctl_detect_source_name(t->readings[i].source)) |
              cc_json_str(x, "version", t->readings[i].version);
        rc |= cJSON_AddBoolToObject(x, "agrees", t->readings[i].agrees) ? 0 : -1;
    }
    rc |= add_list(o, "problems", t->problems, t->n_problems);
    return rc ? -1 : 0;
}

/* Which cuDNN 9 build the copy is, by its sub-libraries: "jit" (libcudnn_graph and the
 * runtime-compiled engines, no legacy-API library), "full", or NULL (cuDNN 8, or no library). */
static const char *flavor_of(const cudnnctl_cudnn_copy *c)
{
    int graph = 0, rc = 0, legacy = 0;
    for (size_t i = 0; i < c->n_libs; i++) {
        const char *n = c->libs[i];
        graph |= cc_str_starts(n, "libcudnn_graph.so") || cc_str_starts(n, "cudnn_graph64_");
        rc |= cc_str_starts(n, "libcudnn_engines_runtime_compiled.so") ||
              cc_str_starts(n, "cudnn_engines_runtime_compiled64_");
        legacy |= cc_str_starts(n, "libcudnn_ops.so") || cc_str_starts(n, "libcudnn_cnn.so") ||
                  cc_str_starts(n, "libcudnn_adv.so") || cc_str_starts(n, "cudnn_ops64_");
    }
    if (c->major != 9 || !c->n_libs)
        return NULL;
    return graph && rc && !legacy ? "jit" : "full";
}

static int cudnn_json(cJSON *arr, const cudnnctl_cudnn_copy *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return -1;
    }
    int rc = cc_json_str(o, "path", c->path) | cc_json_str(o, "version", c->version) |
             add_int_or_null(o, "major", c->major) | add_int_or_null(o, "minor", c->minor) |
             add_int_or_null(o, "patch", c->patch) | cc_json_str(o, "origin", c->origin) |
             cc_json_str(o, "version_source", c->version_source) |
             cc_json_str(o, "package_version", c->package_version) |
             cc_json_str(o, "include_dir", c->include_dir) |
             cc_json_str(o, "header_version", c->header_version) |
             cc_json_str(o, "cuda_version", c->cuda_version) |
             cc_json_str(o, "flavor", flavor_of(c)) | add_list(o, "libs", c->libs, c->n_libs);
    rc |= cJSON_AddBoolToObject(o, "in_loader_path", c->in_loader_path) ? 0 : -1;
    rc |= cJSON_AddBoolToObject(o, "in_ld_library_path", c->in_ld_library_path) ? 0 : -1;
    rc |= add_list(o, "problems", c->problems, c->n_problems);
    return rc ? -1 : 0;
}

cudnnctl_err cudnnctl_detect_result_json(const cudnnctl_detect_result *r, char **json)
{
    *json = NULL;
    cJSON *root = cJSON_CreateObject();
    cudnnctl_err e = CUDNNCTL_E_NOMEM;
    if (!root || cc_json_str(root, "platform", r->platform) != 0)
        goto out;
    cJSON *tks = cJSON_AddArrayToObject(root, "toolkits");
    if (!tks)
        goto out;
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (toolkit_json(tks, &r->toolkits[i]) != 0)
            goto out;
    if (!r->driver) {
        if (!cJSON_AddNullToObject(root, "driver"))
            goto out;
    } else {
        cJSON *d = cJSON_AddObjectToObject(root, "driver");
        if (!d || cc_json_str(d, "version", r->driver->version) != 0 ||
            (r->driver->cuda_version > 0
                 ? !cJSON_AddNumberToObject(d, "cuda_version", r->driver->cuda_version)
                 : !cJSON_AddNullToObject(d, "cuda_version")) ||
            !cJSON_AddBoolToObject(d, "cuda_version_estimated",
                                   r->driver->cuda_version_estimated) ||
            cc_json_str(d, "source", r->driver->source) != 0)
            goto out;
    }
    cJSON *cud = cJSON_AddArrayToObject(root, "cudnn");
    if (!cud)
        goto out;
    for (size_t i = 0; i < r->n_cudnn; i++)
        if (cudnn_json(cud, &r->cudnn[i]) != 0)
            goto out;
    if (add_list(root, "notes", r->notes, r->n_notes) != 0)
        goto out;
    *json = cJSON_Print(root);
    if (*json)
        e = CUDNNCTL_E_OK;
out:
    cJSON_Delete(root);
    return e;
}
