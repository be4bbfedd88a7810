/* callbacks.c: what the library tells its caller, through the callbacks set on the context: log
 * lines, events and progress (a bottom file of core: ctx.c and errors.c call down into it). */
#include <stdarg.h>
#include <stdlib.h>

#include "internal.h"
#include "vformat.h"

void cc_log(cudnnctl_ctx *ctx, cudnnctl_log_level lvl, const char *fmt, ...)
{
    if (!ctx || !ctx->log_cb)
        return;
    char *msg;
    CC_VFORMAT(msg, fmt);
    if (msg)
        ctx->log_cb(ctx->log_user, lvl, msg);
    free(msg);
}

void cc_event(cudnnctl_ctx *ctx, cudnnctl_event_kind kind, const char *text, const char *path)
{
    if (!ctx || !ctx->event_cb)
        return;
    cudnnctl_event ev = {kind, text, path};
    ctx->event_cb(ctx->event_user, &ev);
}

void cc_progress(cudnnctl_ctx *ctx, const char *stage, uint64_t done, uint64_t total)
{
    if (!ctx || !ctx->progress_cb)
        return;
    cudnnctl_progress p = {stage, done, total};
    ctx->progress_cb(ctx->progress_user, &p);
}
