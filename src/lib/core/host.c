/* host.c: the context's host profile (OS, path style, environment and registry backends) and
 * the in-memory registry that lets the Windows policy run on Linux (host.h). */
#include "host.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the real registry through platform.h ---------------------------------------------------- */
static int pf_get(void *u, const char *key, const char *name, char **value, int *type)
{
    (void)u;
    return cc_pf_reg_get(key, name, value, type);
}
static int pf_set(void *u, const char *key, const char *name, const char *value, int type)
{
    (void)u;
    return cc_pf_reg_set(key, name, value, type);
}
static int pf_del(void *u, const char *key, const char *name)
{
    (void)u;
    return cc_pf_reg_delete(key, name);
}
static char **pf_subkeys(void *u, const char *key)
{
    (void)u;
    return cc_pf_reg_subkeys(key);
}
static int pf_broadcast(void *u)
{
    (void)u;
    return cc_pf_env_broadcast();
}

int cc_host_native_windows(void)
{
    return cc_pf_is_windows();
}

void cc_host_default(cc_host *h)
{
    memset(h, 0, sizeof(*h));
    h->os = cc_host_native_windows() ? CC_HOST_WINDOWS : CC_HOST_LINUX;
    h->native = 1;
    h->reg = (cc_host_registry){.get = pf_get,
                                .set = pf_set,
                                .del = pf_del,
                                .subkeys = pf_subkeys,
                                .broadcast = pf_broadcast};
}

void cc_host_set(cudnnctl_ctx *ctx, const cc_host *h)
{
    ctx->host = *h;
}

const cc_host *cc_host_get(const cudnnctl_ctx *ctx)
{
    return &ctx->host;
}

int cc_host_is_windows(const cudnnctl_ctx *ctx)
{
    return ctx->host.os == CC_HOST_WINDOWS;
}

int cc_host_is_native(const cudnnctl_ctx *ctx)
{
    return ctx->host.native;
}

const char *cc_host_os_name(const cudnnctl_ctx *ctx)
{
    return cc_host_is_windows(ctx) ? "windows" : "linux";
}

const char *cc_host_getenv(const cudnnctl_ctx *ctx, const char *name)
{
    if (ctx->host.env_get)
        return ctx->host.env_get(ctx->host.env_user, name);
    return cc_pf_getenv(name);
}

int cc_host_reg_get(const cudnnctl_ctx *ctx, const char *key, const char *name, char **value,
                    int *type)
{
    return ctx->host.reg.get(ctx->host.reg.user, key, name, value, type);
}

int cc_host_reg_set(const cudnnctl_ctx *ctx, const char *key, const char *name, const char *value,
                    int type)
{
    return ctx->host.reg.set(ctx->host.reg.user, key, name, value, type);
}

int cc_host_reg_delete(const cudnnctl_ctx *ctx, const char *key, const char *name)
{
    return ctx->host.reg.del(ctx->host.reg.user, key, name);
}

char **cc_host_reg_subkeys(const cudnnctl_ctx *ctx, const char *key)
{
    return ctx->host.reg.subkeys(ctx->host.reg.user, key);
}

int cc_host_env_broadcast(const cudnnctl_ctx *ctx)
{
    return ctx->host.reg.broadcast(ctx->host.reg.user);
}

char *cc_host_expand_env(const cudnnctl_ctx *ctx, const char *s)
{
    if (!s)
        return NULL;
    if (ctx->host.native && !ctx->host.env_get && cc_host_is_windows(ctx))
        return cc_pf_expand_env(s); /* ExpandEnvironmentStringsW */
    cc_buf b = {0};
    int bad = cc_buf_append(&b, "", 0);
    while (*s && !bad) {
        const char *end = *s == '%' ? strchr(s + 1, '%') : NULL;
        if (end && end > s + 1) {
            char *name = cc_strndup(s + 1, (size_t)(end - s - 1));
            const char *v = name ? cc_host_getenv(ctx, name) : NULL;
            bad = !name || (v ? cc_buf_puts(&b, v) : cc_buf_append(&b, s, (size_t)(end - s + 1)));
            free(name);
            s = end + 1;
        } else {
            bad = cc_buf_append(&b, s, 1);
            s++;
        }
    }
    if (bad) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* ---- paths ------------------------------------------------------------------------------------
 */
int cc_host_drive(const char *p)
{
    if (p && isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
        return toupper((unsigned char)p[0]);
    return 0;
}

int cc_host_is_abs(const cudnnctl_ctx *ctx, const char *path)
{
    if (!path)
        return 0;
    if (!cc_host_is_windows(ctx))
        return path[0] == '/';
    return cc_host_drive(path) || (path[0] == '\\' && path[1] == '\\') ||
           (path[0] == '/' && path[1] == '/') || path[0] == '/';
}

char *cc_host_native_path(const cudnnctl_ctx *ctx, const char *path)
{
    char *r = cc_strdup(path);
    if (!r || !cc_host_is_windows(ctx))
        return r;
    for (char *p = r; *p; p++)
        if (*p == '/')
            *p = '\\';
    return r;
}

static int is_sep(char c)
{
    return c == '/' || c == '\\';
}

int cc_host_same_path(const cudnnctl_ctx *ctx, const char *a, const char *b)
{
    int win = cc_host_is_windows(ctx);
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && (win ? is_sep(a[la - 1]) : a[la - 1] == '/'))
        la--;
    while (lb > 1 && (win ? is_sep(b[lb - 1]) : b[lb - 1] == '/'))
        lb--;
    if (la != lb)
        return 0;
    for (size_t i = 0; i < la; i++) {
        if (!win) {
            if (a[i] != b[i])
                return 0;
        } else if (!(is_sep(a[i]) && is_sep(b[i])) &&
                   tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) {
            return 0;
        }
    }
    return 1;
}
