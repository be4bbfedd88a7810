/* json.c: the small cJSON helpers the library's JSON writers share, and cudnnctl_json_attach
 * (a key added to a JSON document, for front ends that merge the library's documents). */
#include "json.h"
#include "internal.h"

int cc_json_str(cJSON *o, const char *k, const char *v)
{
    cJSON *x = v ? cJSON_CreateString(v) : cJSON_CreateNull();
    if (!x)
        return -1;
    if (!cJSON_AddItemToObject(o, k, x)) {
        cJSON_Delete(x);
        return -1;
    }
    return 0;
}

int cc_json_strs(cJSON *o, const char *k, char *const *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, k);
    if (!a)
        return -1;
    for (size_t i = 0; i < n; i++) {
        cJSON *s = cJSON_CreateString(v[i]);
        if (!s)
            return -1;
        if (!cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            return -1;
        }
    }
    return 0;
}

cudnnctl_err cc_json_out(cJSON *o, int pretty, char **json)
{
    *json = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

cudnnctl_err cudnnctl_json_attach(const char *doc, const char *key, const char *value_json,
                                  char **out)
{
    *out = NULL;
    cJSON *d = cJSON_Parse(doc);
    cJSON *v = cJSON_Parse(value_json);
    if (d && cJSON_IsArray(d)) {
        cJSON *w = cJSON_CreateObject();
        if (w)
            cJSON_AddItemToObject(w, "changes", d);
        d = w;
    }
    if (!d || !v || !cJSON_IsObject(d)) {
        cJSON_Delete(d);
        cJSON_Delete(v);
        return CUDNNCTL_E_PARSE;
    }
    if (cJSON_GetObjectItemCaseSensitive(d, key))
        cJSON_ReplaceItemInObjectCaseSensitive(d, key, v); /* one key: the newer value */
    else
        cJSON_AddItemToObject(d, key, v);
    *out = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    return *out ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

const char *cc_json_get_str(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

char *cc_json_dup_str(const cJSON *o, const char *k)
{
    const char *v = cc_json_get_str(o, k);
    return v ? cc_strdup(v) : NULL;
}

const cJSON *cc_json_format1_array(const cJSON *j, const char *key)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(j, "format");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsObject(j) && cJSON_IsNumber(fmt) && fmt->valueint == 1 && cJSON_IsArray(a)
               ? a
               : NULL;
}
