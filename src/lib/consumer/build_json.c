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

static void add_str(cJSON *o, const char *k, const char *s)
{
    if (s)
        cJSON_AddStringToObject(o, k, s);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *str_array(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
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
        add_str(e, "name", c->name);
        add_str(e, "path", c->path);
        cJSON_AddItemToObject(e, "include_dirs", str_array(c->include_dirs, c->n_include_dirs));
        add_str(e, "header", c->header);
        add_str(e, "header_version", c->header_version);
        add_str(e, "error", c->error);
    }
    cJSON_AddItemToObject(o, "lib_dirs", str_array(v->lib_dirs, v->n_lib_dirs));
    add_str(o, "library", v->library);
    add_str(o, "library_real", v->library_real);
    add_str(o, "library_soname", v->library_soname);
    add_str(o, "library_version", v->library_version);
    if (v->runtime)
        cJSON_AddItemToObject(o, "runtime", cc_ld_result_obj(v->runtime));
    else
        cJSON_AddNullToObject(o, "runtime");
    if (v->agree < 0)
        cJSON_AddNullToObject(o, "agree");
    else
        cJSON_AddBoolToObject(o, "agree", v->agree);
    cJSON_AddItemToObject(o, "problems", str_array(v->problems, v->n_problems));
    return cc_json_out(o, 0, json);
}
