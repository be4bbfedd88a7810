/* validate.c: cudnnctl_validate: resolve the target, start the validation child with a scrubbed
 * environment, read its report over a pipe, add the header check, and decide the outcome. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "validate_int.h"

#define DEFAULT_TIMEOUT_MS 60000u

static char *build_request(const cc_val_target *t, int device)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "lib_dir", t->lib_dir);
    cJSON_AddStringToObject(o, "cudnn_lib", t->cudnn_lib);
    cJSON_AddNumberToObject(o, "major", t->major);
    cJSON_AddNumberToObject(o, "device", device);
    cJSON_AddStringToObject(o, "flavor", t->jit ? "jit" : "full");
    cJSON *tk = cJSON_AddArrayToObject(o, "toolkit_dirs");
    for (size_t i = 0; tk && i < t->toolkit_dirs.n; i++)
        cJSON_AddItemToArray(tk, cJSON_CreateString(t->toolkit_dirs.v[i]));
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    char *r = s ? cc_strdup(s) : NULL;
    cJSON_free(s);
    return r;
}

/* The header a build would compile against must be the library's version. */
static void header_check(cudnnctl_ctx *ctx, const cc_val_target *t, cudnnctl_validate_result *r)
{
    if (!t->header_version) {
        char *e = cc_asprintf("no cudnn_version.h beside %s (looked in ../include and the "
                              "distribution's include dirs): header not checked", r->lib_dir);
        cc_val_result_add_check(r, "header_version", 0, 1, 0, -1, -1, e, NULL);
        free(e);
        return;
    }
    char *hf = cc_unrooted(ctx, t->header_file);
    char *detail = cc_asprintf("%s: %s", hf ? hf : t->header_file, t->header_version);
    char *e = NULL;
    if (!r->cudnn_version)
        e = cc_asprintf("header %s is %s, the library's version could not be read",
                        hf ? hf : t->header_file, t->header_version);
    else if (strcmp(r->cudnn_version, t->header_version) != 0)
        e = cc_asprintf("header %s is cuDNN %s but the library is %s: programs built here would "
                        "compile against one version and run another; install the headers "
                        "and libraries of one release", hf ? hf : t->header_file,
                        t->header_version, r->cudnn_version);
    cc_val_result_add_check(r, "header_version", e == NULL, 0, 0, -1, -1, e, detail);
    free(e);
    free(detail);
    free(hf);
}

static cudnnctl_err outcome(cudnnctl_ctx *ctx, const cudnnctl_validate_result *r)
{
    if (r->status == CUDNNCTL_VALIDATE_OK)
        return CUDNNCTL_E_OK;
    if (r->status == CUDNNCTL_VALIDATE_NO_GPU)
        return CC_ERR(ctx, CUDNNCTL_E_NO_GPU,
                      "no GPU / driver: cuDNN %s in %s loaded and its versions and sub-libraries "
                      "checked; the GPU checks were skipped",
                      r->cudnn_version ? r->cudnn_version : "?", r->lib_dir);
    const cudnnctl_validate_check *first = NULL;
    size_t n_failed = 0;
    for (size_t i = 0; i < r->n_checks; i++)
        if (!r->checks[i].ok && !r->checks[i].skipped) {
            if (!first)
                first = &r->checks[i];
            n_failed++;
        }
    cudnnctl_err code = CUDNNCTL_E_VALIDATE_FAILED;
    if (first && (cc_str_starts(first->name, "load_") || strcmp(first->name, "cublas") == 0 ||
                  strcmp(first->name, "nvrtc") == 0))
        code = CUDNNCTL_E_LOAD;
    if (n_failed > 1)
        return CC_ERR(ctx, code, "validation of %s failed: %s: %s (and %zu more failed checks)",
                      r->lib_dir, first->name, first->error ? first->error : "failed",
                      n_failed - 1);
    return CC_ERR(ctx, code, "validation of %s failed: %s: %s", r->lib_dir,
                  first ? first->name : "?", first && first->error ? first->error : "failed");
}

cudnnctl_err cudnnctl_validate(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *opts,
                               cudnnctl_validate_result **out)
{
    cudnnctl_validate_opts none;
    memset(&none, 0, sizeof(none));
    if (!opts)
        opts = &none;
    *out = NULL;
    cc_val_target t;
    cudnnctl_err e = cc_val_resolve_target(ctx, opts, &t);
    if (e == CUDNNCTL_E_OK && (e = cc_val_trust(ctx, opts, &t)) != CUDNNCTL_E_OK)
        cc_val_target_free(&t);
    if (e != CUDNNCTL_E_OK)
        return e;
    t.jit = cc_val_is_jit(t.lib_dir, t.major); /* proven with the graph API, not the legacy one */
    cc_strv env = {0};
    char *req = build_request(&t, opts->device);
    char *exe = opts->child_exe ? cc_strdup(opts->child_exe) : cc_pf_self_exe();
    char *child_out = NULL;
    size_t child_len = 0;
    int status = 0;
    cudnnctl_validate_result *r = calloc(1, sizeof(*r));
    if (!req || !r || cc_val_child_env(&env) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (!exe) {
        e = CC_ERR(ctx, CUDNNCTL_E_GENERIC,
                   "validate: cannot find the running binary to start the validation child (%s)",
                   cc_pf_last_error_text());
        goto out;
    }
    r->lib_dir = cc_unrooted(ctx, t.lib_dir);
    r->cudnn_lib = cc_unrooted(ctx, t.cudnn_lib);
    r->include_dir = cc_unrooted(ctx, t.include_dir);
    r->header_version = t.header_version ? cc_strdup(t.header_version) : NULL;
    r->flavor = t.jit ? CUDNNCTL_FLAVOR_JIT : CUDNNCTL_FLAVOR_FULL;

    unsigned timeout = opts->timeout_ms ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
    const char *argv[] = {exe, "__validate-child", NULL};
    cc_log(ctx, CUDNNCTL_LOG_DEBUG, "validate: %s __validate-child, request %s", exe, req);
    cc_event(ctx, CUDNNCTL_EV_STEP, "validate", t.lib_dir);
    uint64_t t0 = cc_pf_now_ms();
    if (cc_pf_run(argv, (const char *const *)env.v, req, timeout, 1, &child_out, &child_len,
                  &status) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_GENERIC, "validate: could not start %s: %s", exe,
                   cc_pf_last_error_text());
        goto out;
    }
    r->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
    if (status == 127 && (!child_out || !strstr(child_out, CC_VAL_MARK))) {
        e = CC_ERR(ctx, CUDNNCTL_E_GENERIC,
                   "validate: %s could not be started as the validation child (exit 127%s%s): "
                   "its own shared libraries may need LD_LIBRARY_PATH, which the child does not "
                   "inherit; install cudnnctl's dependencies system-wide", exe,
                   child_len ? ": " : "", child_len ? child_out : "");
        goto out;
    }
    cc_val_parse_report(ctx, child_out, child_len, status, timeout, r);
    header_check(ctx, &t, r);
    int no_gpu = r->status == CUDNNCTL_VALIDATE_NO_GPU;
    cc_val_result_finish(r, no_gpu);
    cc_val_effective(ctx, r, exe, t.major); /* after the status: it does not change it */
    if (!r->toolkit_lib_dir && t.toolkit_dirs.n)
        r->toolkit_lib_dir = cc_unrooted(ctx, t.toolkit_dirs.v[0]);
    e = outcome(ctx, r);
    *out = r;
    r = NULL;
out:
    cudnnctl_validate_result_free(r);
    free(child_out);
    free(exe);
    free(req);
    cc_strv_free(&env);
    cc_val_target_free(&t);
    return e;
}
