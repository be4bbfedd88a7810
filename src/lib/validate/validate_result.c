/* validate_result.c: the validation result: built from the child's report lines (and from how
 * the child ended), its overall status, its JSON, and freeing it. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate_int.h"
#include "grow.h"
#include "json.h"
#include "json_fields.h"

#define VENDOR_TAIL 4096

const char *cudnnctl_validate_status_name(cudnnctl_validate_status s)
{
    switch (s) {
    case CUDNNCTL_VALIDATE_OK: return "ok";
    case CUDNNCTL_VALIDATE_NO_GPU: return "no-gpu";
    default: return "failed";
    }
}

int cc_val_result_add_check(cudnnctl_validate_result *r, const char *name, int ok, int skipped,
                            double seconds, double max_abs, double tol, const char *error,
                            const char *detail)
{
    if (cc_grow(&r->checks, NULL, r->n_checks + 1, sizeof(*r->checks)) != 0)
        return -1;
    cudnnctl_validate_check *k = &r->checks[r->n_checks++];
    memset(k, 0, sizeof(*k));
    k->name = cc_strdup(name ? name : "?");
    k->ok = ok;
    k->skipped = skipped;
    k->seconds = seconds;
    k->max_abs_err = max_abs;
    k->tolerance = tol;
    k->error = error ? cc_strdup(error) : NULL;
    k->detail = detail ? cc_strdup(detail) : NULL;
    return 0;
}

void cc_val_result_finish(cudnnctl_validate_result *r, int gpu_skipped)
{
    int failed = 0;
    for (size_t i = 0; i < r->n_checks; i++)
        if (!r->checks[i].ok && !r->checks[i].skipped)
            failed = 1;
    r->status = failed ? CUDNNCTL_VALIDATE_FAILED
                       : (gpu_skipped ? CUDNNCTL_VALIDATE_NO_GPU : CUDNNCTL_VALIDATE_OK);
}

static double jnum(const cJSON *o, const char *key, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static void set_str(char **slot, const char *v)
{
    free(*slot);
    *slot = v ? cc_strdup(v) : NULL;
}

static int add_modules(cudnnctl_ctx *ctx, const cJSON *arr, cudnnctl_validate_module **list,
                       size_t *n)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *p = cc_json_get_str(it, "path"), *rp = cc_json_get_str(it, "realpath");
        if (!p)
            continue;
        if (cc_grow(list, NULL, *n + 1, sizeof(**list)) != 0)
            return -1;
        (*list)[*n].path = cc_unrooted(ctx, p);
        (*list)[*n].realpath = cc_unrooted(ctx, rp ? rp : p);
        (*n)++;
    }
    return 0;
}

typedef struct {
    char *last_step;
    int step_open; /* a vendor step started and no check closed it yet */
    int done;
    int no_gpu;
    char *crash;
    cc_buf vendor;
} parse_state;

static void apply_facts(cudnnctl_ctx *ctx, const cJSON *f, cudnnctl_validate_result *r,
                        parse_state *ps)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, f)
    {
        const char *k = it->string;
        const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
        if (strcmp(k, "cudnn_version") == 0)
            set_str(&r->cudnn_version, s);
        else if (strcmp(k, "cudnn_version_raw") == 0)
            r->cudnn_version_raw = (long)jnum(f, k, 0);
        else if (strcmp(k, "cudnn_cudart_version") == 0)
            set_str(&r->cudnn_cudart_version, s);
        else if (strcmp(k, "cudart_version") == 0)
            set_str(&r->cudart_version, s);
        else if (strcmp(k, "driver_version") == 0)
            set_str(&r->driver_version, s);
        else if (strcmp(k, "driver_cuda_version") == 0)
            set_str(&r->driver_cuda_version, s);
        else if (strcmp(k, "gpu_name") == 0)
            set_str(&r->gpu_name, s);
        else if (strcmp(k, "compute_capability") == 0)
            r->compute_capability = (int)jnum(f, k, 0);
        else if (strcmp(k, "max_device_version") == 0)
            r->max_device_version = (int)jnum(f, k, 0);
        else if (strcmp(k, "child_ld_library_path") == 0)
            set_str(&r->child_ld_library_path, s);
        else if (strcmp(k, "no_gpu") == 0)
            ps->no_gpu = jnum(f, k, 0) != 0;
        else if (strcmp(k, "cudart_lib") == 0 && s) {
            free(r->toolkit_lib_dir);
            char *d = cc_path_dir(s);
            r->toolkit_lib_dir = cc_unrooted(ctx, d);
            free(d);
        }
    }
}

static void handle_line(cudnnctl_ctx *ctx, const char *json, cudnnctl_validate_result *r,
                        parse_state *ps)
{
    cJSON *j = cJSON_Parse(json);
    if (!j) {
        cc_buf_puts(&ps->vendor, json); /* not ours after all */
        cc_buf_puts(&ps->vendor, "\n");
        return;
    }
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "step")) && cJSON_IsString(v)) {
        set_str(&ps->last_step, v->valuestring);
        ps->step_open = 1;
    } else if ((v = cJSON_GetObjectItemCaseSensitive(j, "check")) && cJSON_IsObject(v)) {
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(v, "max_abs_err");
        const cJSON *tl = cJSON_GetObjectItemCaseSensitive(v, "tolerance");
        cc_val_result_add_check(
            r, cc_json_get_str(v, "name"), cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "ok")),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "skipped")), jnum(v, "seconds", 0),
            cJSON_IsNumber(mx) ? mx->valuedouble : -1, cJSON_IsNumber(tl) ? tl->valuedouble : -1,
            cc_json_get_str(v, "error"), cc_json_get_str(v, "detail"));
        ps->step_open = 0;
    } else if ((v = cJSON_GetObjectItemCaseSensitive(j, "facts")) && cJSON_IsObject(v)) {
        apply_facts(ctx, v, r, ps);
    } else if ((v = cJSON_GetObjectItemCaseSensitive(j, "crash")) && cJSON_IsString(v)) {
        set_str(&ps->crash, v->valuestring);
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "done"))) {
        ps->done = 1;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "loaded")) && cJSON_IsArray(v))
        add_modules(ctx, v, &r->loaded, &r->n_loaded);
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "vendor")) && cJSON_IsArray(v))
        add_modules(ctx, v, &r->vendor_libs, &r->n_vendor_libs);
    cJSON_Delete(j);
}

/* Why the child ended before its report was done (a DLL cuDNN could not locate, a hang, a
 * crash, an early exit), as the check's error text (malloc'd). */
static char *unfinished(const parse_state *ps, const char *vendor, int status, unsigned timeout_ms)
{
    const char *where = ps->last_step ? ps->last_step : "its start";
    const char *in = ps->step_open ? "inside the vendor library during" : "after";
    char *e;
    /* NVIDIA's Windows cuDNN ends the process when a DLL it loads by name is not found */
    const char *nf = vendor ? strstr(vendor, "Could not locate ") : NULL;
    char *dll = NULL;
    if (nf) {
        nf += strlen("Could not locate ");
        const char *x = strstr(nf, ".dll");
        if (x && x - nf < 128)
            dll = cc_strndup(nf, (size_t)(x - nf) + 4);
    }
    if (dll && strstr(dll, "zlibwapi"))
        e = cc_asprintf("cuDNN ended the validation child %s %s: it could not locate %s. "
                        "cuDNN 8.3-9.1 need a 64-bit zlibwapi.dll: put one beside the cuDNN "
                        "DLLs (or use cuDNN >= 9.2, which does not need it)",
                        in, where, dll);
    else if (dll)
        e = cc_asprintf("cuDNN ended the validation child %s %s: it could not locate %s, a "
                        "sub-library or dependency it loads by name through PATH (not from "
                        "its own dir). Install the complete cuDNN set (every cudnn*64_N.dll "
                        "of one zip) into the cuDNN bin dir, and put that dir and the "
                        "toolkit's bin and bin\\x64 on PATH",
                        in, where, dll);
    else if (status == -1)
        e = cc_asprintf("the validation child hung for %u s %s %s: a vendor library did not "
                        "return, so cudnnctl killed it (nothing was changed); run with a "
                        "longer --timeout if the GPU is busy", timeout_ms / 1000, in, where);
    else if (ps->crash || status == -2)
        e = cc_asprintf("the validation child was killed by %s %s %s: a crash in the vendor "
                        "library, not in cudnnctl (nothing was changed)%s%s",
                        ps->crash ? ps->crash : "a signal", in, where,
                        vendor ? "; it printed: " : "",
                        vendor ? vendor : "");
    else
        e = cc_asprintf("the validation child ended (exit %d) without finishing its report, "
                        "%s %s%s%s", status, in, where,
                        vendor ? "; it printed: " : "",
                        vendor ? vendor : "");
    free(dll);
    return e;
}

cudnnctl_err cc_val_parse_report(cudnnctl_ctx *ctx, const char *out, size_t len, int status,
                                 unsigned timeout_ms, cudnnctl_validate_result *r)
{
    parse_state ps;
    memset(&ps, 0, sizeof(ps));
    const size_t mark_len = strlen(CC_VAL_MARK);
    const char *p = out ? out : "", *end = p + (out ? len : 0);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        char *line = cc_strndup(p, (size_t)(le - p));
        if (!line)
            break;
        /* vendor text and our marker can share a line when a vendor print lacked a newline */
        char *m = strstr(line, CC_VAL_MARK);
        if (m) {
            if (m > line) {
                cc_buf_append(&ps.vendor, line, (size_t)(m - line));
                cc_buf_puts(&ps.vendor, "\n");
            }
            handle_line(ctx, m + mark_len, r, &ps);
        } else if (*line) {
            cc_buf_puts(&ps.vendor, line);
            cc_buf_puts(&ps.vendor, "\n");
        }
        free(line);
        p = nl ? nl + 1 : end;
    }
    if (ps.vendor.len) {
        size_t off = ps.vendor.len > VENDOR_TAIL ? ps.vendor.len - VENDOR_TAIL : 0;
        r->vendor_output = cc_strdup(ps.vendor.data + off);
    }
    if (!ps.done) {
        char *e = unfinished(&ps, r->vendor_output, status, timeout_ms);
        cc_val_result_add_check(r, "child", 0, 0, 0, -1, -1, e, ps.last_step);
        free(e);
    }
    cc_val_result_finish(r, ps.no_gpu);
    free(ps.last_step);
    free(ps.crash);
    cc_buf_free(&ps.vendor);
    (void)ctx;
    return CUDNNCTL_E_OK;
}

/* Timings come from a millisecond clock: print them as such. */
static double ms_round(double s)
{
    return (double)(long long)(s * 1000.0 + 0.5) / 1000.0;
}

static void add_modules_json(cJSON *o, const char *key, const cudnnctl_validate_module *m,
                             size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", m[i].path);
        cJSON_AddStringToObject(e, "realpath", m[i].realpath);
        cJSON_AddItemToArray(arr, e);
    }
}

cudnnctl_err cudnnctl_validate_result_json(const cudnnctl_validate_result *r, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return CUDNNCTL_E_NOMEM;
    cJSON_AddStringToObject(o, "status", cudnnctl_validate_status_name(r->status));
    cJSON_AddStringToObject(o, "flavor", cudnnctl_flavor_name(r->flavor));
    cc_json_str(o, "lib_dir", r->lib_dir);
    cc_json_str(o, "cudnn_lib", r->cudnn_lib);
    cc_json_str(o, "cudnn_version", r->cudnn_version);
    if (r->cudnn_version_raw)
        cJSON_AddNumberToObject(o, "cudnn_version_raw", (double)r->cudnn_version_raw);
    else
        cJSON_AddNullToObject(o, "cudnn_version_raw");
#define F(m) CC_JSON_FIELD(cudnnctl_validate_result, m)
    static const cc_json_field versions[] = {
        F(header_version),  F(include_dir),    F(cudnn_cudart_version), F(cudart_version),
        F(toolkit_lib_dir), F(driver_version), F(driver_cuda_version)};
#undef F
    cc_json_str_fields(o, r, versions, sizeof(versions) / sizeof(versions[0]));
    if (r->compute_capability) {
        cJSON *g = cJSON_AddObjectToObject(o, "gpu");
        cc_json_str(g, "name", r->gpu_name);
        char cc[16];
        snprintf(cc, sizeof(cc), "%d.%d", r->compute_capability / 10, r->compute_capability % 10);
        cJSON_AddStringToObject(g, "compute_capability", cc);
    } else {
        cJSON_AddNullToObject(o, "gpu");
    }
    if (r->max_device_version)
        cJSON_AddNumberToObject(o, "max_device_version", r->max_device_version);
    else
        cJSON_AddNullToObject(o, "max_device_version");
    cJSON *lf = cJSON_AddArrayToObject(o, "loaded_from");
    for (size_t i = 0; lf && i < r->n_loaded; i++)
        cJSON_AddItemToArray(lf, cJSON_CreateString(r->loaded[i].path));
    add_modules_json(o, "loaded", r->loaded, r->n_loaded);
    add_modules_json(o, "vendor_libs", r->vendor_libs, r->n_vendor_libs);
    cJSON *checks = cJSON_AddArrayToObject(o, "checks");
    for (size_t i = 0; checks && i < r->n_checks; i++) {
        const cudnnctl_validate_check *k = &r->checks[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", k->name);
        cJSON_AddBoolToObject(c, "ok", k->ok);
        cJSON_AddBoolToObject(c, "skipped", k->skipped);
        if (k->advisory)
            cJSON_AddBoolToObject(c, "advisory", 1);
        cJSON_AddNumberToObject(c, "seconds", ms_round(k->seconds));
        if (k->max_abs_err >= 0)
            cJSON_AddNumberToObject(c, "max_abs_err", k->max_abs_err);
        if (k->tolerance >= 0)
            cJSON_AddNumberToObject(c, "tolerance", k->tolerance);
        cc_json_str(c, "error", k->error);
        cc_json_str(c, "detail", k->detail);
        cJSON_AddItemToArray(checks, c);
    }
    cc_json_str(o, "child_ld_library_path", r->child_ld_library_path);
    cJSON_AddNumberToObject(o, "seconds", ms_round(r->seconds));
    cc_json_str(o, "vendor_output", r->vendor_output);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s)
        return CUDNNCTL_E_NOMEM;
    *json = cc_strdup(s);
    cJSON_free(s);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

static void free_modules(cudnnctl_validate_module *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].path);
        free(m[i].realpath);
    }
    free(m);
}

void cudnnctl_validate_result_free(cudnnctl_validate_result *r)
{
    if (!r)
        return;
    free(r->lib_dir);
    free(r->cudnn_lib);
    free(r->include_dir);
    free(r->toolkit_lib_dir);
    free(r->cudnn_version);
    free(r->header_version);
    free(r->cudnn_cudart_version);
    free(r->cudart_version);
    free(r->driver_version);
    free(r->driver_cuda_version);
    free(r->gpu_name);
    free_modules(r->loaded, r->n_loaded);
    free_modules(r->vendor_libs, r->n_vendor_libs);
    for (size_t i = 0; i < r->n_checks; i++) {
        free(r->checks[i].name);
        free(r->checks[i].error);
        free(r->checks[i].detail);
    }
    free(r->checks);
    free(r->child_ld_library_path);
    free(r->vendor_output);
    free(r);
}
