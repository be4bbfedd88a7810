/* catalog_info.c: what the catalog holds and how old it is (embedded manifests, the ones
 * `cudnnctl update` stored, when it last ran) for `available`, `--version` and install's
 * warning; and the JSON of an update. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_store.h"
#include "embedded.h"
#include "json.h"

/* redistrib_9.19.1.json > redistrib_9.9.0.json: the labels compared as versions. */
static int newer(const char *a, const char *b)
{
    char va[64], vb[64];
    snprintf(va, sizeof(va), "%.*s", (int)(strlen(a) > 15 ? strlen(a) - 15 : 0), a + 10);
    snprintf(vb, sizeof(vb), "%.*s", (int)(strlen(b) > 15 ? strlen(b) - 15 : 0), b + 10);
    return cc_version_cmp_str(va, vb) > 0;
}

static char *release_date_of(const char *data, size_t len)
{
    cJSON *j = cJSON_ParseWithLength(data, len);
    char *r = cc_json_dup_str(j, "release_date");
    cJSON_Delete(j);
    return r;
}

void cudnnctl_catalog_info_clear(cudnnctl_catalog_info *info)
{
    if (!info)
        return;
    free(info->embedded_date);
    free(info->stored_newest);
    free(info->updated_at);
    free(info->source);
    free(info->catalog_dir);
    memset(info, 0, sizeof(*info));
}

cudnnctl_err cudnnctl_catalog_info_get(cudnnctl_ctx *ctx, cudnnctl_catalog_info *out)
{
    memset(out, 0, sizeof(*out));
    out->age_days = -1;
    out->embedded = cc_embedded_manifest_count;
    const cc_embedded_manifest *best = NULL;
    for (size_t i = 0; i < cc_embedded_manifest_count; i++)
        if (!best || newer(cc_embedded_manifests[i].name, best->name))
            best = &cc_embedded_manifests[i];
    out->embedded_newest = best ? best->name : "";
    out->embedded_date = best ? release_date_of(best->data, best->len) : NULL;
    char *state = cc_state_dir(ctx), *dir = state ? cc_store_dir(state) : NULL;
    cc_catalog_store st;
    cudnnctl_err e = state ? cc_store_load(ctx, state, &st)
                           : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    out->catalog_dir = dir ? cc_unrooted(ctx, dir) : NULL;
    free(state);
    free(dir);
    if (e != CUDNNCTL_E_OK)
        return e;
    out->stored = st.n;
    for (size_t i = 0; i < st.n; i++)
        if (!out->stored_newest || newer(st.v[i].name, out->stored_newest)) {
            free(out->stored_newest);
            out->stored_newest = cc_strdup(st.v[i].name);
        }
    out->updated_at = st.updated_at;
    out->source = st.source;
    st.updated_at = st.source = NULL;
    cc_store_free(&st);
    int64_t then = out->updated_at ? cc_iso_epoch(out->updated_at) : -1;
    int64_t built = cc_iso_epoch(out->embedded_date);
    if (built > then)
        then = built; /* the embedded catalog is at least as new as its newest release */
    if (then >= 0 && cc_pf_time() >= then)
        out->age_days = (long)((cc_pf_time() - then) / 86400);
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_catalog_info_json(const cudnnctl_catalog_info *info, char **json)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddNumberToObject(o, "embedded", (double)info->embedded) &&
             cc_json_str(o, "embedded_newest", info->embedded_newest) == 0 &&
             cc_json_str(o, "embedded_date", info->embedded_date) == 0 &&
             cJSON_AddNumberToObject(o, "stored", (double)info->stored) &&
             cc_json_str(o, "stored_newest", info->stored_newest) == 0 &&
             cc_json_str(o, "updated_at", info->updated_at) == 0 &&
             cc_json_str(o, "source", info->source) == 0 &&
             cc_json_str(o, "dir", info->catalog_dir) == 0 &&
             (info->age_days >= 0 ? cJSON_AddNumberToObject(o, "age_days", (double)info->age_days)
                                  : cJSON_AddNullToObject(o, "age_days")) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return CUDNNCTL_E_NOMEM;
    }
    return cc_json_out(o, 0, json);
}

static int add_items(cJSON *a, const cudnnctl_update_item *items, size_t n)
{
    int ok = a != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const cudnnctl_update_item *it = &items[i];
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddItemToArray(a, e) && cc_json_str(e, "name", it->name) == 0 &&
             cc_json_str(e, "url", it->url) == 0 && cc_json_str(e, "sha256", it->sha256) == 0 &&
             cc_json_str(e, "result", it->result) == 0 &&
             cc_json_str(e, "pinned_sha256", it->pinned_sha256) == 0 &&
             cc_json_str(e, "pinned_from", it->pinned_from) == 0;
    }
    return ok;
}

cudnnctl_err cudnnctl_update_result_json(const cudnnctl_update_result *r, char **json)
{
    cJSON *o = cJSON_CreateObject(), *a = o ? cJSON_AddArrayToObject(o, "manifests") : NULL;
    cJSON *w = o ? cJSON_AddObjectToObject(o, "wheels") : NULL;
    int ok = a && w && cc_json_str(o, "source", r->source) == 0 &&
             cc_json_str(o, "catalog_dir", r->catalog_dir) == 0 &&
             cJSON_AddNumberToObject(o, "added", (double)r->n_added) &&
             cJSON_AddNumberToObject(o, "refused", (double)r->n_refused) &&
             cJSON_AddNumberToObject(o, "stored", (double)r->n_stored) &&
             cc_json_str(o, "updated_at", r->updated_at) == 0 &&
             cc_json_str(o, "newest", r->newest) == 0 &&
             cJSON_AddNumberToObject(o, "seconds", r->seconds) &&
             add_items(a, r->items, r->n_items) && cc_json_str(w, "index", r->index_source) == 0 &&
             cc_json_str(w, "warning", r->index_warning) == 0 &&
             cJSON_AddNumberToObject(w, "added", (double)r->n_wheels_added) &&
             cJSON_AddNumberToObject(w, "refused", (double)r->n_wheels_refused) &&
             cJSON_AddNumberToObject(w, "stored", (double)r->n_wheels_stored) &&
             add_items(cJSON_AddArrayToObject(w, "files"), r->wheel_items, r->n_wheel_items);
    if (!ok) {
        cJSON_Delete(o);
        return CUDNNCTL_E_NOMEM;
    }
    return cc_json_out(o, 1, json);
}
