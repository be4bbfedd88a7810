/* uninstall_json.c: the uninstall result: freeing it and its JSON (as install_json.c does for
 * the install result). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "json.h"

void cudnnctl_uninstall_result_free(cudnnctl_uninstall_result *r)
{
    if (!r)
        return;
    cc_strs_free(r->removed_ids, r->n_removed_ids);
    cc_strs_free(r->versions, r->n_versions);
    free(r->target_path);
    cc_strs_free(r->files_removed, r->n_files_removed);
    cc_strs_free(r->files_restored, r->n_files_restored);
    cc_strs_free(r->files_kept, r->n_files_kept);
    cc_strs_free(r->warnings, r->n_warnings);
    free(r->recovered);
    free(r->ldconfig);
    free(r);
}

cudnnctl_err cudnnctl_uninstall_result_json(const cudnnctl_uninstall_result *r, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o || cc_json_str(o, "target", r->target_path) ||
        cc_json_strs(o, "removed", r->removed_ids, r->n_removed_ids) ||
        cc_json_strs(o, "versions", r->versions, r->n_versions) ||
        cc_json_strs(o, "files_removed", r->files_removed, r->n_files_removed) ||
        cc_json_strs(o, "files_restored", r->files_restored, r->n_files_restored) ||
        cc_json_strs(o, "files_kept", r->files_kept, r->n_files_kept) ||
        cc_json_strs(o, "warnings", r->warnings, r->n_warnings) || cc_json_str(o, "recovered", r->recovered) ||
        cc_json_str(o, "ldconfig", r->ldconfig) ||
        cc_json_str(o, "result", r->n_removed_ids ? "removed" : "nothing"))
        goto oom;
    return cc_json_out(o, 0, json);
oom:
    cJSON_Delete(o);
    return CUDNNCTL_E_NOMEM;
}
