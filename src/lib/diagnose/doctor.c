/* doctor.c: the doctor run (detect, then each check group), the finding list (sorted by
 * severity) and the JSON of a result. Findings, codes and path helpers: doctor_finding.c. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "detect_path.h"
#include "doctor_int.h"

/* ---- the run -------------------------------------------------------------------------------- */

/* qsort is not stable: order by severity, keeping each severity's findings in check order */
static int sort_findings(cudnnctl_doctor_result *r)
{
    if (r->n_findings < 2)
        return 0;
    cudnnctl_finding *tmp = malloc(r->n_findings * sizeof(*tmp));
    if (!tmp)
        return -1;
    size_t k = 0;
    for (int s = CUDNNCTL_SEV_ERROR; s >= CUDNNCTL_SEV_INFO; s--)
        for (size_t i = 0; i < r->n_findings; i++)
            if ((int)r->findings[i].severity == s)
                tmp[k++] = r->findings[i];
    memcpy(r->findings, tmp, r->n_findings * sizeof(*tmp));
    free(tmp);
    return 0;
}

void cudnnctl_doctor_result_free(cudnnctl_doctor_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_findings; i++) {
        free(r->findings[i].message);
        free(r->findings[i].fix);
        free(r->findings[i].path);
        free(r->findings[i].command);
    }
    free(r->findings);
    free(r);
}

cudnnctl_err cudnnctl_doctor(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                             const cudnnctl_doctor_opts *opts, cudnnctl_doctor_result **out)
{
    static const cudnnctl_doctor_opts defaults = {0};
    cudnnctl_detect_result *own = NULL;
    cudnnctl_err e = CUDNNCTL_E_OK;
    *out = NULL;
    if (!det) {
        if ((e = cudnnctl_detect(ctx, &own)) != CUDNNCTL_E_OK)
            return e;
        det = own;
    }
    /* the checks rely on what detect always fills; a hand-made result must too */
    for (size_t i = 0; i < det->n_toolkits; i++)
        if (!det->toolkits[i].path || !det->toolkits[i].version || !det->toolkits[i].origin) {
            e = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                       "detect result: toolkit %zu lacks path, version "
                       "or origin",
                       i);
            goto out_det;
        }
    for (size_t i = 0; i < det->n_cudnn; i++)
        if (!det->cudnn[i].path || !det->cudnn[i].version || !det->cudnn[i].origin) {
            e = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                       "detect result: cuDNN copy %zu lacks path, "
                       "version or origin",
                       i);
            goto out_det;
        }
    uint64_t t0 = cc_pf_now_ms();
    cc_doctor_run run = {.ctx = ctx, .det = det, .opts = opts ? opts : &defaults};
    run.r = calloc(1, sizeof(*run.r));
    if (!run.r)
        goto oom;
    run.r->deep = run.opts->deep;
    int win = run.opts->platform && cc_str_starts(run.opts->platform, "windows");
    if (win ? cc_diag_check_windows(&run) != 0
            : (cc_diag_state_load(&run) != 0 || cc_diag_check_toolkits(&run) != 0 ||
               cc_diag_check_driver(&run) != 0 || cc_diag_check_files(&run) != 0 ||
               cc_diag_check_cudnn(&run) != 0 || cc_diag_check_links(&run) != 0 ||
               cc_diag_check_loader(&run) != 0 || cc_diag_check_paths(&run) != 0 ||
               cc_diag_check_consumer(&run) != 0 || cc_diag_check_state(&run) != 0 ||
               cc_diag_check_python(&run) != 0 || cc_diag_check_build(&run) != 0))
        goto oom;
    if (run.err != CUDNNCTL_E_OK) {
        e = run.err;
        goto out;
    }
    if (run.oom || sort_findings(run.r) != 0)
        goto oom;
    for (size_t i = 0; i < run.r->n_findings; i++) {
        switch (run.r->findings[i].severity) {
        case CUDNNCTL_SEV_ERROR:
            run.r->n_errors++;
            break;
        case CUDNNCTL_SEV_WARNING:
            run.r->n_warnings++;
            break;
        default:
            run.r->n_info++;
            break;
        }
    }
    run.r->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
    *out = run.r;
    run.r = NULL;
    goto out;
oom:
    e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while checking the machine");
out:
    cc_diag_state_free(&run);
    cc_diag_catalog_free(&run);
    cc_strv_free(&run.loader_dirs);
    cc_strv_free(&run.llp_dirs);
    cudnnctl_doctor_result_free(run.r);
out_det:
    cudnnctl_detect_result_free(own);
    return e;
}

cudnnctl_err cudnnctl_doctor_result_json(const cudnnctl_doctor_result *r, char **json)
{
    *json = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = root ? cJSON_AddArrayToObject(root, "findings") : NULL;
    if (!arr)
        goto oom;
    for (size_t i = 0; i < r->n_findings; i++) {
        const cudnnctl_finding *f = &r->findings[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "code", f->code) ||
            !cJSON_AddStringToObject(o, "severity", cudnnctl_severity_name(f->severity)) ||
            !cJSON_AddStringToObject(o, "message", f->message) ||
            !cJSON_AddStringToObject(o, "fix", f->fix) ||
            !(f->path ? cJSON_AddStringToObject(o, "path", f->path)
                      : cJSON_AddNullToObject(o, "path")) ||
            !(f->command ? cJSON_AddStringToObject(o, "command", f->command)
                         : cJSON_AddNullToObject(o, "command")))
            goto oom;
    }
    if (!cJSON_AddNumberToObject(root, "errors", (double)r->n_errors) ||
        !cJSON_AddNumberToObject(root, "warnings", (double)r->n_warnings) ||
        !cJSON_AddNumberToObject(root, "info", (double)r->n_info) ||
        !cJSON_AddBoolToObject(root, "ok", r->n_errors == 0) ||
        !cJSON_AddBoolToObject(root, "deep", r->deep) ||
        !cJSON_AddNumberToObject(root, "receipt_files_checked", (double)r->n_receipt_files) ||
        !cJSON_AddNumberToObject(root, "seconds", r->seconds))
        goto oom;
    *json = cJSON_Print(root);
    cJSON_Delete(root);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
oom:
    cJSON_Delete(root);
    return CUDNNCTL_E_NOMEM;
}
