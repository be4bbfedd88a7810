/* json_fields.h: a record's string (or flag) members written as JSON keys from a table of
 * {key, offset} rows, where a writer would otherwise spell out one call a member. */
#ifndef CC_JSON_FIELDS_H
#define CC_JSON_FIELDS_H

#include <stddef.h>

#include <cjson/cJSON.h>

typedef struct {
    const char *key;
    size_t off; /* offsetof the member in the record */
} cc_json_field;

/* A row whose key is the member's name. */
#define CC_JSON_FIELD(type, member)                                                                \
    {                                                                                              \
#member, offsetof(type, member)                                                            \
    }

/* o[key] = the char * member (null when NULL), for each of the n rows in order. */
void cc_json_str_fields(cJSON *o, const void *rec, const cc_json_field *f, size_t n);
/* o[key] = the int member as true / false, for each of the n rows in order. */
void cc_json_bool_fields(cJSON *o, const void *rec, const cc_json_field *f, size_t n);

#endif
