/* json.h: the small cJSON helpers the library's JSON writers share (receipts, journal, results). */
#ifndef CC_JSON_H
#define CC_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "cudnnctl/cudnnctl.h"

/* o[k] = v as a string, or null when v is NULL. 0 on success, -1 on allocation failure. */
int cc_json_str(cJSON *o, const char *k, const char *v);
/* o[k] = [v[0], ..., v[n-1]] as strings. 0 on success, -1 on allocation failure. */
int cc_json_strs(cJSON *o, const char *k, char *const *v, size_t n);
/* o[k] when it is a string (borrowed), else NULL. */
const char *cc_json_get_str(const cJSON *o, const char *k);
/* A copy of o[k] when it is a string (free it), else NULL. */
char *cc_json_dup_str(const cJSON *o, const char *k);
/* The array j[key] of a document cudnnctl wrote in format 1 ({"format": 1, key: [...]}); NULL
 * when j is no such document. */
const cJSON *cc_json_format1_array(const cJSON *j, const char *key);
/* The public *_json functions' last step: *json = o printed (compact, or indented when pretty;
 * free it with cudnnctl_free), o deleted. CUDNNCTL_E_NOMEM when printing fails. */
cudnnctl_err cc_json_out(cJSON *o, int pretty, char **json);

#endif
