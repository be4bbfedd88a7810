/* build_json.c: the build view's JSON (docs/build.md) and its release. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "build_int.h"
#include "json.h"
#include "consumer_int.h"

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cudnnctl_build_view_free(cudnnctl_build_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_compilers; i++) {
        cudnnctl_build_compiler *c = &v->compilers[i];
        free(c->name);
        free(c->path);
        free_list(c->include_dirs, c->n_include_dirs);
        free(c->header);
        free(c->header_version);
        free(c->error);
    }
    free(v->compilers);
    free_list(v->lib_dirs, v->n_lib_dirs);
    free(v->library);
    free(v->library_real);
    free(v->library_soname);
    free(v->library_version);
    cudnnctl_load_result_free(v->runtime);
    free_list(v->problems, v->n_problems);
    free(v);
}

cudnnctl_err cudnnctl_build_view_json(const cudnnctl_build_view *v, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *cs = o ? cJSON_AddArrayToObject(o, "compilers") : NULL;
    if (!cs) {
        cJSON_Delete(o);
        return CUDNNCTL_E_NOMEM;
    }
    for (size_t i = 0; i < v->n_compilers; i++) {
        const cudnnctl_build_compiler *c = &v->compilers[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddItemToArray(cs, e);
        cc_json_str(e, "name", c->name);
        cc_json_str(e, "path", c->path);
        cc_json_strs(e, "include_dirs", c->include_dirs, c->n_include_dirs);
        cc_json_str(e, "header", c->header);
        cc_json_str(e, "header_version", c->header_version);
        cc_json_str(e, "error", c->error);
    }
    cc_json_strs(o, "lib_dirs", v->lib_dirs, v->n_lib_dirs);
    cc_json_str(o, "library", v->library);
    cc_json_str(o, "library_real", v->library_real);
    cc_json_str(o, "library_soname", v->library_soname);
    cc_json_str(o, "library_version", v->library_version);
    if (v->runtime)
        cJSON_AddItemToObject(o, "runtime", cc_ld_result_obj(v->runtime));
    else
        cJSON_AddNullToObject(o, "runtime");
    if (v->agree < 0)
        cJSON_AddNullToObject(o, "agree");
    else
        cJSON_AddBoolToObject(o, "agree", v->agree);
    cc_json_strs(o, "problems", v->problems, v->n_problems);
    return cc_json_out(o, 0, json);
}
