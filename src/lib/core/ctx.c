/* ctx.c: the library context: options, setting the callbacks (calling them: callbacks.c),
 * root-relative paths. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "vformat.h"

cudnnctl_err cudnnctl_ctx_new(cudnnctl_ctx **out)
{
    cudnnctl_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return CUDNNCTL_E_NOMEM;
    cc_sys_default(&ctx->sys);
    cc_host_default(&ctx->host);
    cc_clear_error(ctx);
    *out = ctx;
    return CUDNNCTL_E_OK;
}

void cudnnctl_ctx_free(cudnnctl_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->root)
        cc_pf_set_resolve_root(NULL); /* the process's --root goes with the context that set it */
    free(ctx->root);
    free(ctx->cache_dir);
    free(ctx->state_dir);
    free(ctx->proxy);
    free(ctx->cacert);
    free(ctx->err_detail);
    cc_memreg_free(ctx->own_reg);
    free(ctx);
}

cudnnctl_err cudnnctl_set_host_os(cudnnctl_ctx *ctx, const char *os)
{
    cc_host h;
    cc_host_default(&h);
    int windows = os && strcmp(os, "windows") == 0;
    if (os && *os && !windows && strcmp(os, "linux") != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "unknown host OS '%s': use linux or windows", os);
    if (!os || !*os || windows == cc_host_native_windows()) {
        cc_host_set(ctx, &h);
        return CUDNNCTL_E_OK;
    }
    cc_memreg *m = ctx->own_reg ? ctx->own_reg : cc_memreg_new();
    if (!m)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    ctx->own_reg = m;
    h.os = windows ? CC_HOST_WINDOWS : CC_HOST_LINUX;
    h.native = 0; /* nothing of the other OS is run or loaded; its registry starts empty */
    cc_memreg_backend(m, &h.reg);
    cc_host_set(ctx, &h);
    return CUDNNCTL_E_OK;
}

const char *cudnnctl_host_os(const cudnnctl_ctx *ctx)
{
    return cc_host_os_name(ctx);
}

static cudnnctl_err set_dir(cudnnctl_ctx *ctx, char **slot, const char *dir, const char *what)
{
    char *copy = NULL;
    if (dir && *dir) {
        if (!cc_pf_is_abs(dir)) {
            char *real = cc_pf_realpath(dir);
            if (!real)
                CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "%s %s: %s", what, dir,
                           cc_pf_last_error_text());
            copy = real;
        } else {
            copy = cc_strdup(dir);
            if (!copy)
                CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        /* drop trailing separators so joins stay clean */
        size_t n = strlen(copy);
        while (n > 1 && copy[n - 1] == '/')
            copy[--n] = '\0';
    }
    free(*slot);
    *slot = copy;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_set_root(cudnnctl_ctx *ctx, const char *root)
{
    cudnnctl_err rc = set_dir(ctx, &ctx->root, root, "--root");
    if (rc == CUDNNCTL_E_OK)
        cc_pf_set_resolve_root(ctx->root); /* writes under the root stay in it */
    return rc;
}

cudnnctl_err cudnnctl_set_cache_dir(cudnnctl_ctx *ctx, const char *dir)
{
    return set_dir(ctx, &ctx->cache_dir, dir, "--cache-dir");
}

cudnnctl_err cudnnctl_set_state_dir(cudnnctl_ctx *ctx, const char *dir)
{
    return set_dir(ctx, &ctx->state_dir, dir, "--state-dir");
}

/* A string option: a copy of value, or none for NULL or "". */
static cudnnctl_err set_str(cudnnctl_ctx *ctx, char **slot, const char *value)
{
    char *p = value && *value ? cc_strdup(value) : NULL;
    if (value && *value && !p)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(*slot);
    *slot = p;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_set_proxy(cudnnctl_ctx *ctx, const char *url)
{
    return set_str(ctx, &ctx->proxy, url);
}

cudnnctl_err cudnnctl_set_cacert(cudnnctl_ctx *ctx, const char *file)
{
    return set_str(ctx, &ctx->cacert, file);
}

/* cudnnctl_set_<name>_cb: the callback and its user pointer, ctx-><name>_cb and _user. */
#define CB_SETTER(name)                                                                            \
    void cudnnctl_set_##name##_cb(cudnnctl_ctx *ctx, cudnnctl_##name##_cb cb, void *user)          \
    {                                                                                              \
        ctx->name##_cb = cb;                                                                       \
        ctx->name##_user = user;                                                                   \
    }
CB_SETTER(log)
CB_SETTER(progress)
CB_SETTER(event)
CB_SETTER(question)
CB_SETTER(cancel)
#undef CB_SETTER

void cudnnctl_set_read_only(cudnnctl_ctx *ctx, int on)
{
    ctx->read_only = on != 0;
}

void cudnnctl_set_lock_wait(cudnnctl_ctx *ctx, int seconds)
{
    ctx->lock_wait_s = seconds < 0 ? -1 : seconds;
}

int cc_ask(cudnnctl_ctx *ctx, cudnnctl_question_kind kind, int dflt, const char *fmt, ...)
{
    if (!ctx || !ctx->question_cb)
        return dflt;
    char *text;
    CC_VFORMAT(text, fmt);
    cudnnctl_question q = {kind, text ? text : "", dflt};
    int a = ctx->question_cb(ctx->question_user, &q);
    free(text);
    return a == 0 || a == 1 ? a : dflt;
}

int cc_cancel_requested(const cudnnctl_ctx *ctx)
{
    return ctx && ctx->cancel_cb && ctx->cancel_cb(ctx->cancel_user) != 0;
}

cudnnctl_err cc_cancel_check(cudnnctl_ctx *ctx, const char *where)
{
    if (!cc_cancel_requested(ctx))
        return CUDNNCTL_E_OK;
    CC_RET_ERR(ctx, CUDNNCTL_E_INTERRUPTED, "cancelled during %s: what this run did was rolled "
               "back, the target is as it was", where);
}

void cudnnctl_set_fault_injection(cudnnctl_ctx *ctx, unsigned long fail_at)
{
    ctx->fail_at = fail_at;
    ctx->sys_calls = 0;
}

void cudnnctl_set_fault_sticky(cudnnctl_ctx *ctx, int sticky)
{
    ctx->fail_sticky = sticky ? 1 : 0;
}

unsigned long cudnnctl_sys_calls(const cudnnctl_ctx *ctx)
{
    return ctx->sys_calls;
}

void cudnnctl_set_archive_hook(cudnnctl_ctx *ctx, cudnnctl_archive_hook fn, void *user)
{
    ctx->archive_hook = fn;
    ctx->archive_hook_user = user;
}

void cudnnctl_free(void *p)
{
    free(p);
}

/* ROOT/c/rest for "C:\\rest" (separators '/'). */
static char *rooted_drive(const cudnnctl_ctx *ctx, const char *p)
{
    char *r = cc_asprintf("%s/%c/%s", ctx->root, tolower((unsigned char)p[0]), p + 3);
    for (char *c = r ? r + strlen(ctx->root) : NULL; c && *c; c++)
        if (*c == '\\')
            *c = '/';
    size_t n = r ? strlen(r) : 0;
    while (n > 1 && r[n - 1] == '/')
        r[--n] = '\0';
    return r;
}

char *cc_rooted(const cudnnctl_ctx *ctx, const char *abs_path)
{
    if (!abs_path)
        return NULL;
    if (!ctx->root || !cc_host_is_abs(ctx, abs_path))
        return cc_strdup(abs_path);
    if (cc_host_is_windows(ctx) && cc_host_drive(abs_path) &&
        !(cc_str_starts(abs_path, ctx->root) && strchr("/\\", abs_path[strlen(ctx->root)])))
        return rooted_drive(ctx, abs_path);
    if (cc_str_starts(abs_path, ctx->root) &&
        (abs_path[strlen(ctx->root)] == '/' || abs_path[strlen(ctx->root)] == '\0'))
        return cc_strdup(abs_path); /* already under the root */
    return cc_path_join(ctx->root, abs_path);
}

char *cc_unrooted(const cudnnctl_ctx *ctx, const char *real_path)
{
    if (!real_path)
        return NULL;
    if (ctx->root && cc_str_starts(real_path, ctx->root)) {
        const char *rest = real_path + strlen(ctx->root);
        if (*rest == '\0')
            return cc_strdup("/");
        if (*rest == '/' && cc_host_is_windows(ctx) && isalpha((unsigned char)rest[1]) &&
            (rest[2] == '/' || !rest[2]))
            return cc_asprintf("%c:/%s", toupper((unsigned char)rest[1]), rest[2] ? rest + 3 : "");
        if (*rest == '/')
            return cc_strdup(rest);
    }
    return cc_strdup(real_path);
}

char *cc_cache_dir(const cudnnctl_ctx *ctx)
{
    if (ctx->cache_dir)
        return cc_strdup(ctx->cache_dir);
    char *d = cc_pf_default_cache_dir();
    char *r = cc_rooted(ctx, d);
    free(d);
    return r;
}

char *cc_state_dir(const cudnnctl_ctx *ctx)
{
    if (ctx->state_dir)
        return cc_strdup(ctx->state_dir);
    char *d = cc_pf_default_state_dir();
    char *r = cc_rooted(ctx, d);
    free(d);
    return r;
}
