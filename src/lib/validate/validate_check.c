/* validate_check.c: how the validation child reports (the stage's bottom file for the child:
 * validate_child.c and validate_compute.c call down into it, it calls neither): each step, check
 * and fact as one marked JSON line through the emit callback, the names of cuDNN and CUDA
 * runtime errors, the skipped handle check, and the clock the checks are timed with. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "validate_vendor.h"

double cc_val_now(void)
{
    return (double)cc_pf_now_ms() / 1000.0;
}

void cc_val_emit(cc_val_child *c, cJSON *obj)
{
    char *s = obj ? cJSON_PrintUnformatted(obj) : NULL;
    if (s) {
        char *line = cc_asprintf(CC_VAL_MARK "%s", s);
        if (line)
            c->emit(c->user, line);
        free(line);
        cJSON_free(s);
    }
    cJSON_Delete(obj);
}

void cc_val_step(cc_val_child *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = cc_vasprintf(fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    if (o && text)
        cJSON_AddStringToObject(o, "step", text);
    cc_val_emit(c, o);
    free(text);
}

void cc_val_check(cc_val_child *c, const char *name, int ok, int skipped, double seconds,
                  double max_abs, double tol, const char *error, const char *detail)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *k = cJSON_AddObjectToObject(o, "check");
    if (k) {
        cJSON_AddStringToObject(k, "name", name);
        cJSON_AddBoolToObject(k, "ok", ok);
        cJSON_AddBoolToObject(k, "skipped", skipped);
        cJSON_AddNumberToObject(k, "seconds", seconds);
        if (max_abs >= 0)
            cJSON_AddNumberToObject(k, "max_abs_err", max_abs);
        if (tol >= 0)
            cJSON_AddNumberToObject(k, "tolerance", tol);
        if (error)
            cJSON_AddStringToObject(k, "error", error);
        if (detail)
            cJSON_AddStringToObject(k, "detail", detail);
    }
    cc_val_emit(c, o);
}

char *cc_val_dnn_error(cc_val_child *c, const char *call, int status)
{
    const char *name = c->dnn.GetErrorString ? c->dnn.GetErrorString(status) : NULL;
    char last[512] = "";
    if (c->dnn.GetLastErrorString)
        c->dnn.GetLastErrorString(last, sizeof(last));
    last[sizeof(last) - 1] = '\0';
    return cc_asprintf("%s returned %s (%d)%s%s%s", call, name ? name : "an error", status,
                       last[0] ? " [" : "", last, last[0] ? "]" : "");
}

const char *cc_val_rt_error(cc_val_child *c, int err)
{
    const char *n = c->rt.cudaGetErrorName ? c->rt.cudaGetErrorName(err) : NULL;
    return n ? n : "cudaError";
}

void cc_val_skip_handle(cc_val_child *c, const char *why, double t0, int (*create)(void **),
                        int (*destroy)(void *))
{
    char *e = NULL;
    /* Without a GPU, show that handle creation fails cleanly (a status, not a crash). */
    if (create) {
        void *handle = NULL;
        cc_val_step(c, "cudnnCreate without a GPU (libcudnn_graph)");
        int st = create(&handle);
        if (st == 0) {
            destroy(handle);
            e = cc_asprintf("%s: cudnnCreate succeeded, compute skipped", why);
        } else {
            char *d = cc_val_dnn_error(c, "cudnnCreate", st);
            e = cc_asprintf("%s: %s", why, d);
            free(d);
        }
    }
    cc_val_check(c, "handle", 0, 1, cc_val_now() - t0, -1, -1, e ? e : why, NULL);
    free(e);
}
