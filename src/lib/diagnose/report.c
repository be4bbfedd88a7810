/* report.c: the environment record — one JSON document with the tool version, the time, host
 * name, OS, platform key, detect's full result, the installs cudnnctl made, doctor's findings
 * and optionally a validation. Keys are stable: docs/formats.md ("report"). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "json.h"
#include "keyline.h"

#define REPORT_FORMAT_VERSION 1

/* ISO 8601 UTC of epoch seconds, without the C library's non-reentrant gmtime (days to civil
 * date: Howard Hinnant's algorithm). */
static char *iso_utc(int64_t t)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    return cc_asprintf("%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", (long long)y, (long long)m,
                       (long long)d, (long long)(secs / 3600), (long long)(secs % 3600 / 60),
                       (long long)(secs % 60));
}

/* Small text file under the root (NULL when absent). */
static char *read_small(cudnnctl_ctx *ctx, const char *abs)
{
    char *h = cc_rooted(ctx, abs);
    char *data = NULL;
    size_t len = 0;
    cc_pf_stat_t st;
    if (h && cc_pf_stat(h, &st) == 0 && st.exists && st.is_reg &&
        cc_sys_read_file(ctx, h, 64 * 1024, &data, &len) != 0)
        data = NULL;
    free(h);
    return data;
}

/* One value of os-release ("KEY=value", "KEY=\"value\""), malloc'd or NULL. */
static char *os_release_value(const char *text, const char *key)
{
    size_t n = 0;
    const char *v = cc_str_key_line(text, key, "\r\n", &n);
    if (!v)
        return NULL;
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        v++;
        n -= 2;
    }
    return cc_strndup(v, n);
}

static cJSON *host_json(cudnnctl_ctx *ctx)
{
    cJSON *h = cJSON_CreateObject();
    if (!h)
        return NULL;
    /* under --root the image's own name and OS, not this machine's */
    char *name = NULL;
    if (ctx->root) {
        char *t = read_small(ctx, "/etc/hostname");
        if (t) {
            char *s = cc_str_trim(t);
            s[strcspn(s, "\r\n \t")] = '\0';
            name = *s ? cc_strdup(s) : NULL;
            free(t);
        }
    } else {
        name = cc_pf_hostname();
    }
    char *kernel = ctx->root ? NULL : cc_pf_kernel_release();
    char *osr = read_small(ctx, "/etc/os-release");
    if (!osr)
        osr = read_small(ctx, "/usr/lib/os-release");
    char *id = osr ? os_release_value(osr, "ID") : NULL;
    char *ver = osr ? os_release_value(osr, "VERSION_ID") : NULL;
    char *pretty = osr ? os_release_value(osr, "PRETTY_NAME") : NULL;
    cJSON *os = cJSON_CreateObject();
    int ok = os && cJSON_AddItemToObject(h, "os", os) && cc_json_str(h, "hostname", name) == 0 &&
             cJSON_AddStringToObject(os, "name", cc_host_os_name(ctx)) && cc_json_str(os, "id", id) == 0 &&
             cc_json_str(os, "version_id", ver) == 0 &&
             cc_json_str(os, "pretty_name", pretty) == 0 &&
             cc_json_str(os, "kernel", kernel) == 0 &&
             cJSON_AddStringToObject(os, "machine", cc_pf_machine());
    free(name);
    free(kernel);
    free(osr);
    free(id);
    free(ver);
    free(pretty);
    if (!ok) {
        cJSON_Delete(h);
        return NULL;
    }
    return h;
}

/* Parse library-made JSON text and add it under key (freeing the text). */
static int add_json_text(cJSON *o, const char *key, char *text)
{
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    cudnnctl_free(text);
    if (!j)
        return 0;
    if (!cJSON_AddItemToObject(o, key, j)) {
        cJSON_Delete(j);
        return 0;
    }
    return 1;
}

static cudnnctl_err add_validation(cudnnctl_ctx *ctx, cJSON *root, const cudnnctl_report_opts *o)
{
    cudnnctl_validate_result *vr = NULL;
    cudnnctl_err e = cudnnctl_validate(ctx, &o->validate_opts, &vr);
    if (vr) {
        char *text = NULL;
        cudnnctl_err je = cudnnctl_validate_result_json(vr, &text);
        cudnnctl_validate_result_free(vr);
        if (je != CUDNNCTL_E_OK || !add_json_text(root, "validate", text))
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while recording the validation");
        cc_clear_error(ctx);
        return CUDNNCTL_E_OK;
    }
    /* it could not run at all (no cuDNN to validate, child not started): say so, keep going */
    const cudnnctl_error_info *ei = cudnnctl_last_error(ctx);
    cJSON *v = cJSON_CreateObject();
    if (!v || !cJSON_AddItemToObject(root, "validate", v) ||
        !cJSON_AddStringToObject(v, "status", "error") ||
        !cJSON_AddStringToObject(v, "error", cudnnctl_err_name(e)) ||
        !cJSON_AddStringToObject(v, "detail", ei->detail ? ei->detail : cudnnctl_strerror(e))) {
        if (v && !cJSON_GetObjectItem(root, "validate"))
            cJSON_Delete(v);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while recording the validation");
    }
    cc_clear_error(ctx);
    return CUDNNCTL_E_OK;
}

/* The installs cudnnctl made (receipts, as `list --json` gives them) and an interrupted run's
 * journal. Receipts that cannot be read are recorded as an error in the document, not a
 * failure of the report. */
static cudnnctl_err cc_report_add_installs(cudnnctl_ctx *ctx, cJSON *root)
{
    cudnnctl_install_list *l = NULL;
    char *text = NULL;
    cudnnctl_err e = cudnnctl_list(ctx, NULL, &l);
    if (e == CUDNNCTL_E_NOMEM)
        return e;
    if (e != CUDNNCTL_E_OK) {
        const char *d = cudnnctl_last_error(ctx)->detail;
        int ok = cJSON_AddNullToObject(root, "installs") &&
                 cJSON_AddNullToObject(root, "pending_journal") &&
                 cJSON_AddStringToObject(root, "installs_error", d ? d : cudnnctl_strerror(e));
        cc_clear_error(ctx);
        return ok ? CUDNNCTL_E_OK : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    e = cudnnctl_install_list_json(l, &text);
    cudnnctl_install_list_free(l);
    cJSON *j = e == CUDNNCTL_E_OK ? cJSON_Parse(text) : NULL;
    cudnnctl_free(text);
    cJSON *arr = j ? cJSON_DetachItemFromObjectCaseSensitive(j, "installs") : NULL;
    cJSON *pj = j ? cJSON_DetachItemFromObjectCaseSensitive(j, "pending_journal") : NULL;
    cJSON_Delete(j);
    if (!arr || !pj || !cJSON_AddItemToObject(root, "installs", arr)) {
        cJSON_Delete(arr);
        cJSON_Delete(pj);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while writing the report");
    }
    if (!cJSON_AddItemToObject(root, "pending_journal", pj)) {
        cJSON_Delete(pj);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while writing the report");
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_report(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                             const cudnnctl_report_opts *opts, char **json)
{
    static const cudnnctl_report_opts defaults = {0};
    cudnnctl_detect_result *own = NULL;
    cudnnctl_err e = CUDNNCTL_E_OK;
    cJSON *root = NULL;
    *json = NULL;
    if (!opts)
        opts = &defaults;
    if (!det) {
        if ((e = cudnnctl_detect(ctx, &own)) != CUDNNCTL_E_OK)
            return e;
        det = own;
    }
    char *now = iso_utc(cc_pf_time());
    char *text = NULL;
    root = cJSON_CreateObject();
    cJSON *host = host_json(ctx);
    int ok = root && now && host && cJSON_AddStringToObject(root, "format", "cudnnctl-report") &&
             cJSON_AddNumberToObject(root, "format_version", REPORT_FORMAT_VERSION) &&
             cJSON_AddStringToObject(root, "cudnnctl_version", CUDNNCTL_VERSION_STRING) &&
             cJSON_AddStringToObject(root, "created_at", now) &&
             cc_json_str(root, "root", ctx->root) == 0 && cJSON_AddItemToObject(root, "host", host);
    if (!ok && host && (!root || !cJSON_GetObjectItem(root, "host")))
        cJSON_Delete(host);
    free(now);
    if (!ok)
        goto oom;
    ok = cc_json_str(root, "platform", det->platform) == 0;
    /* driver at the top for readers that want only it; the full detect result below */
    cJSON *drv = det->driver ? cJSON_AddObjectToObject(root, "driver")
                             : cJSON_AddNullToObject(root, "driver");
    if (!ok || !drv)
        goto oom;
    if (det->driver && (cc_json_str(drv, "version", det->driver->version) != 0 ||
                        !cJSON_AddNumberToObject(drv, "cuda_version", det->driver->cuda_version) ||
                        cc_json_str(drv, "source", det->driver->source) != 0))
        goto oom;
    if (cudnnctl_detect_result_json(det, &text) != CUDNNCTL_E_OK ||
        !add_json_text(root, "detect", text))
        goto oom;
    if ((e = cc_report_add_installs(ctx, root)) != CUDNNCTL_E_OK)
        goto out;
    if (opts->doctor) {
        cudnnctl_doctor_opts dopts = {0};
        cudnnctl_doctor_result *dr = NULL;
        if ((e = cudnnctl_doctor(ctx, det, &dopts, &dr)) != CUDNNCTL_E_OK)
            goto out;
        text = NULL;
        cudnnctl_err je = cudnnctl_doctor_result_json(dr, &text);
        cudnnctl_doctor_result_free(dr);
        if (je != CUDNNCTL_E_OK || !add_json_text(root, "doctor", text))
            goto oom;
    } else if (!cJSON_AddNullToObject(root, "doctor")) {
        goto oom;
    }
    if (opts->validate) {
        if ((e = add_validation(ctx, root, opts)) != CUDNNCTL_E_OK)
            goto out;
    } else if (!cJSON_AddNullToObject(root, "validate")) {
        goto oom;
    }
    *json = cJSON_Print(root);
    if (!*json)
        goto oom;
    goto out;
oom:
    e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while writing the report");
out:
    cJSON_Delete(root);
    cudnnctl_detect_result_free(own);
    return e;
}
