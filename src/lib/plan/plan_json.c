/* plan_json.c: the plan as JSON, with the keys of CLI.md ("plan --json"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"

static int add_str(cJSON *o, const char *k, const char *v)
{
    return (v ? cJSON_AddStringToObject(o, k, v) : cJSON_AddNullToObject(o, k)) != NULL;
}

static cJSON *target_json(const cudnnctl_plan *p)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    int ok = add_str(t, "mode", p->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree");
    ok = ok && add_str(t, "path", p->target_path);
    ok = ok && add_str(t, "install_dir", p->install_dir);
    ok = ok && add_str(t, "lib_dir", p->lib_dir);
    ok = ok && add_str(t, "include_dir", p->include_dir);
    ok = ok && add_str(t, "bin_dir", p->bin_dir);
    if (!ok) {
        cJSON_Delete(t);
        return NULL;
    }
    return t;
}

static cJSON *steps_json(const cudnnctl_plan *p)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < p->n_steps; i++) {
        cJSON *s = cJSON_CreateObject();
        if (!s || !add_str(s, "name", p->step_names ? p->step_names[i] : NULL) ||
            !add_str(s, "detail", p->steps[i]) || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *rejected_json(const cudnnctl_plan *p)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < p->n_rejected; i++) {
        const cudnnctl_rejection *r = &p->rejected[i];
        cJSON *o = cJSON_CreateObject();
        int ok = o && add_str(o, "relative_path", r->archive->relative_path);
        ok = ok && add_str(o, "cudnn_version", r->archive->cudnn_version);
        ok = ok && add_str(o, "platform", r->archive->platform);
        ok = ok && add_str(o, "cuda_variant", r->archive->cuda_variant);
        ok = ok && add_str(o, "kind", r->kind);
        ok = ok && cJSON_AddNumberToObject(o, "count", (double)r->count);
        ok = ok && add_str(o, "reason", r->reason);
        if (!ok || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *strings_json(char *const *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *s = cJSON_CreateString(v[i]);
        if (!s || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static int add_item(cJSON *o, const char *k, cJSON *item)
{
    if (!item)
        return 0;
    if (!cJSON_AddItemToObject(o, k, item)) {
        cJSON_Delete(item);
        return 0;
    }
    return 1;
}

cudnnctl_err cudnnctl_plan_json(const cudnnctl_plan *p, char **json)
{
    *json = NULL;
    if (!p)
        return CUDNNCTL_E_USAGE;
    cJSON *o = cJSON_CreateObject();
    char major[16];
    snprintf(major, sizeof(major), "%d", p->archive.cuda_major);
    int ok = o && add_str(o, "cudnn_version", p->archive.cudnn_version);
    ok = ok && add_str(o, "cuda_variant", major);
    ok = ok && add_str(o, "cuda_build", p->archive.cuda_variant); /* "13" or "13.4" */
    ok = ok && add_str(o, "platform", p->platform ? p->platform : p->archive.platform);
    ok = ok && add_item(o, "archive", cc_archive_to_json(&p->archive, 0));
    ok = ok && add_str(o, "flavor", cudnnctl_flavor_name(p->flavor));
    ok = ok && add_item(o, "sizes", cc_sizes_to_json(&p->sizes));
    ok = ok && add_str(o, "url", p->url);
    ok = ok && add_str(o, "source", cudnnctl_source_name(p->source));
    ok = ok && add_str(o, "source_reason", p->source_reason);
    if (ok && p->wheel) {
        cJSON *w = cJSON_CreateObject();
        ok = w && add_str(w, "package", p->wheel->package) &&
             add_str(w, "version", p->wheel->version) &&
             add_str(w, "filename", p->wheel->filename) && add_str(w, "tag", p->wheel->tag) &&
             add_str(w, "sha256", p->wheel->sha256) &&
             cJSON_AddNumberToObject(w, "size", (double)p->wheel->size) != NULL &&
             add_str(w, "url", p->wheel->url);
        ok = add_item(o, "wheel", w) && ok;
    } else if (ok) {
        ok = cJSON_AddNullToObject(o, "wheel") != NULL;
    }
    ok = ok && add_item(o, "target", target_json(p));
    ok = ok && add_str(o, "toolkit_version", p->toolkit_version);
    if (ok) {
        cJSON *d = cJSON_CreateObject();
        ok = d && add_str(d, "version", p->driver_version) && add_str(d, "floor", p->driver_floor);
        ok = add_item(o, "driver", d) && ok;
    }
    if (ok && p->consumer) {
        cJSON *c = cJSON_CreateObject();
        ok = c && add_str(c, "for", p->consumer) && add_str(c, "cudnn", p->consumer_cudnn);
        ok = add_item(o, "consumer", c) && ok;
    } else if (ok) {
        ok = cJSON_AddNullToObject(o, "consumer") != NULL;
    }
    ok = ok && add_item(o, "steps", steps_json(p));
    ok = ok && add_str(o, "reason", p->reason);
    ok = ok && add_item(o, "rejected", rejected_json(p));
    ok = ok && add_item(o, "warnings", strings_json(p->warnings, p->n_warnings));
    char *s = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        return CUDNNCTL_E_NOMEM;
    *json = cc_strdup(s);
    cJSON_free(s);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
