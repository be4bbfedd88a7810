/* install_json.c: the install result as JSON (CLI.md "install --json") and its release. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "json.h"
#include "receipt.h"

void cudnnctl_install_result_free(cudnnctl_install_result *r)
{
    if (!r)
        return;
    free(r->cudnn_version);
    free(r->cuda_variant);
    free(r->platform);
    cc_archive_ref_clear(&r->archive);
    free(r->source);
    free(r->source_reason);
    free(r->target_path);
    free(r->install_dir);
    free(r->lib_dir);
    free(r->include_dir);
    free(r->bin_dir);
    free(r->receipt_id);
    free(r->receipt_path);
    free(r->recovered);
    free(r->ldconfig);
    cudnnctl_validate_result_free(r->validation);
    cc_strs_free(r->steps, r->n_steps);
    cc_strs_free(r->warnings, r->n_warnings);
    cc_strs_free(r->files_written, r->n_files_written);
    cc_strs_free(r->files_replaced, r->n_files_replaced);
    free(r->validation_json);
    free(r->verified_at);
    free(r);
}

const char *cudnnctl_install_outcome_name(cudnnctl_install_outcome outcome)
{
    switch (outcome) {
    case CUDNNCTL_INSTALL_INSTALLED:
        return "installed";
    case CUDNNCTL_INSTALL_UNCHANGED:
        return "unchanged";
    case CUDNNCTL_INSTALL_DRY_RUN:
        return "dry-run";
    case CUDNNCTL_INSTALL_SWITCHED:
        return "switched";
    case CUDNNCTL_INSTALL_PREPARED:
        return "prepared";
    default:
        return "failed";
    }
}

cudnnctl_err cudnnctl_install_result_set_validation(cudnnctl_install_result *r, const char *json)
{
    char *c = json ? cc_strdup(json) : NULL;
    if (json && !c)
        return CUDNNCTL_E_NOMEM;
    free(r->validation_json);
    r->validation_json = c;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_install_result_json(const cudnnctl_install_result *r, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return CUDNNCTL_E_NOMEM;
    cJSON *a = NULL, *t = NULL, *rec = NULL, *err = NULL, *val = NULL;
    char comp[40], all[40];
    cudnnctl_components_text(r->components ? r->components : CUDNNCTL_COMPONENTS_ALL, comp,
                             sizeof(comp));
    cudnnctl_components_text(r->components_installed ? r->components_installed
                                                     : CUDNNCTL_COMPONENTS_ALL,
                             all, sizeof(all));
    if (cc_json_str(o, "cudnn_version", r->cudnn_version) || cc_json_str(o, "cuda_variant", r->cuda_variant) ||
        cc_json_str(o, "platform", r->platform) ||
        cc_json_str(o, "flavor", cudnnctl_flavor_name(r->flavor)) ||
        cc_json_str(o, "components", comp) || cc_json_str(o, "components_installed", all) ||
        cc_json_str(o, "source", r->source) || cc_json_str(o, "source_reason", r->source_reason))
        goto oom;
    cJSON *so = cJSON_AddObjectToObject(o, "store"); /* the unpacked store (docs/install.md) */
    if (!so || cc_json_str(so, "result", r->store) || cc_json_str(so, "link_mode", r->store_link))
        goto oom;
    if (!(a = cJSON_AddObjectToObject(o, "archive")) || cc_archive_ref_json(a, &r->archive) ||
        cc_json_str(a, "manifest", r->archive.manifest) ||
        cc_json_str(a, "verified_at_install", r->verified_at))
        goto oom;
    /* loud and machine-readable: an archive nothing checked */
    if (!cJSON_AddBoolToObject(o, "insecure",
                               !r->archive.sha256 ||
                                   (!r->archive.verified && r->result == CUDNNCTL_INSTALL_INSTALLED)))
        goto oom;
    if (!(t = cJSON_AddObjectToObject(o, "target")) ||
        cc_json_str(t, "mode", r->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree") ||
        cc_json_str(t, "path", r->target_path) || cc_json_str(t, "install_dir", r->install_dir) ||
        cc_json_str(t, "lib_dir", r->lib_dir) || cc_json_str(t, "include_dir", r->include_dir) ||
        cc_json_str(t, "bin_dir", r->bin_dir))
        goto oom;
    if (cc_json_strs(o, "steps", r->steps, r->n_steps) || cc_json_str(o, "result", cudnnctl_install_outcome_name(r->result)) ||
        cc_json_strs(o, "warnings", r->warnings, r->n_warnings))
        goto oom;
    if (r->receipt_id) {
        if (!(rec = cJSON_AddObjectToObject(o, "receipt")) || cc_json_str(rec, "id", r->receipt_id) ||
            cc_json_str(rec, "path", r->receipt_path))
            goto oom;
    } else if (!cJSON_AddNullToObject(o, "receipt")) {
        goto oom;
    }
    if (cc_json_str(o, "recovered", r->recovered) || cc_json_str(o, "ldconfig", r->ldconfig) ||
        cc_json_strs(o, "files_written", r->files_written, r->n_files_written) ||
        cc_json_strs(o, "files_replaced", r->files_replaced, r->n_files_replaced) ||
        !cJSON_AddNumberToObject(o, "bytes_written", (double)r->bytes_written) ||
        !cJSON_AddNumberToObject(o, "seconds", r->seconds))
        goto oom;
    if (r->error != CUDNNCTL_E_OK) {
        if (!(err = cJSON_AddObjectToObject(o, "error")) ||
            cc_json_str(err, "code", cudnnctl_err_name(r->error)) ||
            !cJSON_AddNumberToObject(err, "exit_code", cudnnctl_err_exit_code(r->error)))
            goto oom;
    } else if (!cJSON_AddNullToObject(o, "error")) {
        goto oom;
    }
    val = r->validation_json ? cJSON_Parse(r->validation_json) : cJSON_CreateString("not run");
    if (!val || !cJSON_AddItemToObject(o, "validation", val)) {
        cJSON_Delete(val);
        goto oom;
    }
    return cc_json_out(o, 0, json);
oom:
    cJSON_Delete(o);
    return CUDNNCTL_E_NOMEM;
}
