/* json.c: the small cJSON helpers the library's JSON writers share. */
#include "json.h"

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
