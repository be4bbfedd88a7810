/* json_fields.c: string and flag members of a record as JSON keys, from a table (json_fields.h). */
#include "json_fields.h"
#include "json.h"

void cc_json_str_fields(cJSON *o, const void *rec, const cc_json_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *const *p = (const char *const *)(const void *)((const char *)rec + f[i].off);
        cc_json_str(o, f[i].key, *p);
    }
}

void cc_json_bool_fields(cJSON *o, const void *rec, const cc_json_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const int *p = (const int *)(const void *)((const char *)rec + f[i].off);
        cJSON_AddBoolToObject(o, f[i].key, *p);
    }
}
