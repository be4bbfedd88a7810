/* errors.c: the error list's names, messages and exit-code groups, error recording, and keeping
 * the first error while cleanup runs (cc_err_save / cc_err_restore). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "vformat.h"

static const struct {
    const char *name;
    int group;
    const char *msg;
} errtab[] = {
#define X(name, group, msg) {#name, group, msg},
#include "cudnnctl/errors.def"
#undef X
};

const char *cudnnctl_strerror(cudnnctl_err code)
{
    if ((int)code < 0 || code >= CUDNNCTL_E__COUNT)
        return "unknown error";
    return errtab[code].msg;
}

const char *cudnnctl_err_name(cudnnctl_err code)
{
    if ((int)code < 0 || code >= CUDNNCTL_E__COUNT)
        return "UNKNOWN";
    return errtab[code].name;
}

int cudnnctl_err_exit_code(cudnnctl_err code)
{
    if ((int)code < 0 || code >= CUDNNCTL_E__COUNT)
        return 1;
    return errtab[code].group;
}

cudnnctl_err cc_set_error(cudnnctl_ctx *ctx, cudnnctl_err code, const char *func, const char *file,
                          int line, const char *fmt, ...)
{
    if (!ctx)
        return code;
    /* format first, free after: an argument may be the current detail ("... failed (%s)",
     * ctx->err.detail), which was read after free before (found by the ASan stage) */
    char *detail = NULL;
    if (fmt)
        CC_VFORMAT(detail, fmt);
    free(ctx->err_detail);
    ctx->err_detail = detail;
    ctx->err.code = code;
    ctx->err.detail = ctx->err_detail ? ctx->err_detail : cudnnctl_strerror(code);
    ctx->err.func = func;
    ctx->err.file = file;
    ctx->err.line = line;
    cc_log(ctx, CUDNNCTL_LOG_DEBUG, "error %s at %s (%s:%d): %s", cudnnctl_err_name(code), func,
           file, line, ctx->err.detail);
    return code;
}

void cc_clear_error(cudnnctl_ctx *ctx)
{
    free(ctx->err_detail);
    ctx->err_detail = NULL;
    memset(&ctx->err, 0, sizeof(ctx->err));
    ctx->err.detail = "";
}

cudnnctl_err cc_refuse_ctl_path(cudnnctl_ctx *ctx, const char *what, const char *path)
{
    const char *c = cc_str_ctl(path);
    if (!c)
        return CUDNNCTL_E_OK;
    char *shown = cc_str_printable(path);
    cudnnctl_err rc =
        CC_ERR(ctx, CUDNNCTL_E_USAGE,
               "%s %s: byte %zu of the path is the control character \\x%02x; cudnnctl refuses a "
               "target path with a control character (in shell activation text or a loader file "
               "it could become a command); fix: rename the directory without it, or choose "
               "another one",
               what, shown ? shown : "(path)", (size_t)(c - path) + 1, (unsigned char)*c);
    free(shown);
    return rc;
}

void cc_err_save(cudnnctl_ctx *ctx, cc_saved_err *s)
{
    s->code = ctx->err.code;
    s->detail = cc_strdup(ctx->err.detail);
    s->func = ctx->err.func;
    s->file = ctx->err.file;
    s->line = ctx->err.line;
}

cudnnctl_err cc_err_restore(cudnnctl_ctx *ctx, cc_saved_err *s, const char *extra)
{
    cc_set_error(ctx, s->code, s->func, s->file, s->line, "%s%s", s->detail ? s->detail : "",
                 extra ? extra : "");
    free(s->detail);
    s->detail = NULL;
    return s->code;
}

const cudnnctl_error_info *cudnnctl_last_error(const cudnnctl_ctx *ctx)
{
    return &ctx->err;
}
