/* archive_ref.c: the archive an install came from (cudnnctl_archive_ref), as the install result
 * reports it and its receipt keeps it: one clear, one copy (the receipt's is the result's), and
 * the JSON keys both write. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "receipt.h"

void cc_archive_ref_clear(cudnnctl_archive_ref *a)
{
    free(a->relative_path);
    free(a->url);
    free(a->sha256);
    free(a->manifest);
    free(a->manifest_sha256);
    free(a->manifest_override);
    memset(a, 0, sizeof(*a));
}

int cc_dup_opt(char **dst, const char *src)
{
    *dst = src ? cc_strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

int cc_archive_ref_copy(cudnnctl_archive_ref *dst, const cudnnctl_archive_ref *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->size = src->size;
    dst->verified = src->verified;
    dst->in_catalog = src->in_catalog;
    if (cc_dup_opt(&dst->relative_path, src->relative_path) || cc_dup_opt(&dst->url, src->url) ||
        cc_dup_opt(&dst->sha256, src->sha256) || cc_dup_opt(&dst->manifest, src->manifest) ||
        cc_dup_opt(&dst->manifest_sha256, src->manifest_sha256) ||
        cc_dup_opt(&dst->manifest_override, src->manifest_override)) {
        cc_archive_ref_clear(dst);
        return -1;
    }
    return 0;
}

int cc_archive_ref_json(cJSON *a, const cudnnctl_archive_ref *r)
{
    return a && !cc_json_str(a, "relative_path", r->relative_path) &&
                   !cc_json_str(a, "url", r->url) && !cc_json_str(a, "sha256", r->sha256) &&
                   cJSON_AddNumberToObject(a, "size", (double)r->size) &&
                   cJSON_AddBoolToObject(a, "verified", r->verified) &&
                   cJSON_AddBoolToObject(a, "in_catalog", r->in_catalog)
               ? 0
               : -1;
}
