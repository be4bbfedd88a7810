/* detect_path.c: root-aware path work for detect: resolving symlink chains inside --root
 * (absolute link targets are re-rooted), reading small files, listing directories. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "grow.h"
#include "vformat.h"

#define MAX_LINKS 40

char *cc_detect_clean(const char *path)
{
    cc_buf b = {0};
    const char *s = path;
    if (cc_buf_puts(&b, "") != 0)
        return NULL;
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (!(n == 1 && s[0] == '.')) {
            if (cc_buf_puts(&b, "/") != 0 || cc_buf_append(&b, s, n) != 0) {
                cc_buf_free(&b);
                return NULL;
            }
        }
        s += n;
    }
    if (b.len == 0 && cc_buf_puts(&b, "/") != 0) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* Drop the last component of a resolved path in place ("/" stays "/"). */
static void pop_component(char *p)
{
    char *s = strrchr(p, '/');
    if (!s || s == p) {
        p[0] = '/';
        p[1] = '\0';
    } else
        *s = '\0';
}

/* A link met on the walk at host: what is left to walk becomes its target + the rest after end
 * (an absolute target restarts res at "/"). 0, or -1 (unreadable, too many links, OOM). */
static int follow_link(const char *host, char *res, char **todo, size_t end, int *links)
{
    char *target = cc_pf_readlink(host);
    if (!target || ++*links > MAX_LINKS) {
        free(target);
        return -1;
    }
    char *next = cc_asprintf("%s/%s", target, *todo + end);
    if (target[0] == '/') {
        res[0] = '/';
        res[1] = '\0';
    }
    free(target);
    if (!next)
        return -1;
    free(*todo);
    *todo = next;
    return 0;
}

char *cc_detect_resolve(const cudnnctl_ctx *ctx, const char *path, int *missing)
{
    *missing = 0;
    if (!path || path[0] != '/')
        return NULL;
    char *res = cc_strdup("/");
    char *todo = cc_strdup(path); /* components still to walk */
    char *out = NULL;
    int links = 0;
    if (!res || !todo)
        goto out;
    size_t pos = 0;
    for (;;) {
        while (todo[pos] == '/')
            pos++;
        if (!todo[pos])
            break;
        size_t end = pos;
        while (todo[end] && todo[end] != '/')
            end++;
        size_t n = end - pos;
        if (n == 1 && todo[pos] == '.') {
            pos = end;
            continue;
        }
        if (n == 2 && todo[pos] == '.' && todo[pos + 1] == '.') {
            pop_component(res);
            pos = end;
            continue;
        }
        char *cand =
            cc_asprintf("%s%s%.*s", res, strcmp(res, "/") == 0 ? "" : "/", (int)n, todo + pos);
        if (!cand)
            goto out;
        char *host = cc_rooted(ctx, cand);
        cc_pf_stat_t st;
        if (!host || cc_pf_lstat(host, &st) != 0 || !st.exists) {
            free(host);
            /* the rest cannot be resolved: hand back what we have plus the remainder */
            *missing = 1;
            char *joined = cc_asprintf("%s%s", cand, todo + end);
            free(cand);
            if (joined) {
                out = cc_detect_clean(joined);
                free(joined);
            }
            goto out;
        }
        if (st.is_link) {
            int rc = follow_link(host, res, &todo, end, &links);
            free(host);
            free(cand);
            if (rc != 0)
                goto out;
            pos = 0;
            continue;
        }
        free(host);
        free(res);
        res = cand;
        pos = end;
    }
    out = res;
    res = NULL;
out:
    free(res);
    free(todo);
    return out;
}

char *cc_detect_host(const cudnnctl_ctx *ctx, const char *path)
{
    int missing = 0;
    char *r = cc_detect_resolve(ctx, path, &missing);
    if (!r || missing) {
        free(r);
        return NULL;
    }
    char *h = cc_rooted(ctx, r);
    free(r);
    return h;
}

void cc_detect_stat(const cudnnctl_ctx *ctx, const char *path, cc_pf_stat_t *st)
{
    memset(st, 0, sizeof(*st));
    char *h = cc_detect_host(ctx, path);
    if (!h)
        return;
    if (cc_pf_stat(h, st) != 0)
        memset(st, 0, sizeof(*st));
    free(h);
}

int cc_detect_read(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data)
{
    return cc_detect_read_n(ctx, path, max, data, NULL);
}

int cc_detect_read_n(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data,
                     size_t *len)
{
    *data = NULL;
    if (len)
        *len = 0;
    char *h = cc_detect_host(ctx, path);
    if (!h)
        return -1;
    cc_pf_stat_t st;
    int rc = -1;
    cc_pf_fd fd = -1;
    char *buf = NULL;
    if (cc_pf_stat(h, &st) != 0 || !st.is_reg)
        goto out;
    fd = cc_pf_open(h, CC_PF_O_RDONLY, 0);
    if (fd < 0)
        goto out;
    /* procfs files report size 0: read to EOF (up to max), growing as needed */
    size_t cap = st.size > 0 ? (st.size < max ? (size_t)st.size : max) : (max < 4096 ? max : 4096);
    buf = malloc(cap + 1);
    if (!buf)
        goto out;
    size_t got = 0;
    for (;;) {
        if (got == cap) {
            if (cap >= max || st.size > 0) /* a real size is trusted */
                break;
            size_t nc = cap * 2 < max ? cap * 2 : max;
            if (cc_grow(&buf, NULL, nc + 1, 1) != 0)
                goto out;
            cap = nc;
        }
        long long n = cc_pf_read(fd, buf + got, cap - got);
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    *data = buf;
    if (len)
        *len = got;
    buf = NULL;
    rc = 0;
out:
    if (fd >= 0)
        cc_pf_close(fd);
    free(buf);
    free(h);
    return rc;
}

int cc_detect_list(const cudnnctl_ctx *ctx, const char *dir, const char *prefix, cc_strv *names)
{
    memset(names, 0, sizeof(*names));
    char *h = cc_detect_host(ctx, dir);
    if (!h)
        return -1;
    cc_pf_dir *d = cc_pf_opendir(h);
    free(h);
    if (!d)
        return -1;
    const char *e;
    int rc = 0;
    while ((e = cc_pf_readdir(d)) != NULL)
        if ((!prefix || cc_str_starts(e, prefix)) && cc_strv_push(names, e) != 0) {
            rc = -1;
            break;
        }
    cc_pf_closedir(d);
    if (rc != 0)
        cc_strv_free(names);
    else
        cc_strv_sort(names);
    return rc;
}

char *cc_detect_link_chain(const cudnnctl_ctx *ctx, const char *path, int *dangling)
{
    *dangling = 0;
    cc_buf b = {0};
    int missing = 0;
    /* resolve the directories above the last component first */
    char *dir = cc_path_dir(path);
    char *rdir = dir ? cc_detect_resolve(ctx, dir, &missing) : NULL;
    char *cur = rdir ? cc_path_join(rdir, cc_path_base(path)) : NULL;
    free(dir);
    free(rdir);
    if (!cur || cc_buf_puts(&b, path) != 0)
        goto fail;
    int hops = 0;
    for (;;) {
        char *host = cc_rooted(ctx, cur);
        cc_pf_stat_t st;
        if (!host || cc_pf_lstat(host, &st) != 0) {
            free(host);
            goto fail;
        }
        if (!st.exists) {
            free(host);
            if (hops == 0)
                goto fail;
            *dangling = 1;
            break;
        }
        if (!st.is_link) {
            free(host);
            break;
        }
        char *t = cc_pf_readlink(host);
        free(host);
        if (!t || ++hops > MAX_LINKS) {
            free(t);
            goto fail;
        }
        char *next;
        if (t[0] == '/') {
            next = cc_detect_clean(t);
        } else {
            char *d = cc_path_dir(cur);
            char *j = d ? cc_path_join(d, t) : NULL;
            free(d);
            next = NULL;
            if (j) {
                /* the parent dirs of a relative target may hold links themselves */
                char *pd = cc_path_dir(j);
                char *rpd = pd ? cc_detect_resolve(ctx, pd, &missing) : NULL;
                next = rpd ? cc_path_join(rpd, cc_path_base(j)) : NULL;
                free(pd);
                free(rpd);
                free(j);
            }
        }
        free(t);
        if (!next)
            goto fail;
        free(cur);
        cur = next;
        if (cc_buf_printf(&b, " -> %s", cur) != 0)
            goto fail;
    }
    free(cur);
    if (hops == 0) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
fail:
    free(cur);
    cc_buf_free(&b);
    return NULL;
}

char *cc_detect_env_path(const cudnnctl_ctx *ctx, const char *value)
{
    if (!value || value[0] != '/')
        return NULL;
    char *u = cc_unrooted(ctx, value);
    char *c = u ? cc_detect_clean(u) : NULL;
    free(u);
    return c;
}

cudnnctl_toolkit *cc_detect_toolkit_slot(cc_detect_run *run, cudnnctl_detect_result *r)
{
    if (cc_grow(&r->toolkits, &run->cap_toolkits, r->n_toolkits + 1, sizeof(*r->toolkits)) != 0)
        return NULL;
    cudnnctl_toolkit *t = &r->toolkits[r->n_toolkits];
    memset(t, 0, sizeof(*t));
    t->patch = -1;
    return t;
}

cudnnctl_cudnn_copy *cc_detect_cudnn_slot(cc_detect_run *run)
{
    cudnnctl_detect_result *r = run->r;
    if (cc_grow(&r->cudnn, &run->cap_cudnn, r->n_cudnn + 1, sizeof(*r->cudnn)) != 0)
        return NULL;
    cudnnctl_cudnn_copy *c = &r->cudnn[r->n_cudnn++];
    memset(c, 0, sizeof(*c));
    return c;
}

int cc_detect_note(cc_detect_run *run, const char *fmt, ...)
{
    char *s;
    CC_VFORMAT(s, fmt);
    if (!s)
        return -1;
    if (cc_strv_contains(&run->notes, s)) {
        free(s);
        return 0;
    }
    cc_log(run->ctx, CUDNNCTL_LOG_DEBUG, "detect: %s", s);
    return cc_strv_push_own(&run->notes, s);
}

int cc_detect_may_run(const cudnnctl_ctx *ctx, const char *host, char **why)
{
    *why = NULL;
    if (ctx->root) {
        *why = cc_asprintf("it is under --root %s, where nothing is run", ctx->root);
        return *why ? 0 : -1;
    }
    if (!cc_pf_is_root() || cc_pf_trust_check(host, CC_PF_TRUST_OBJECT) == 0)
        return 1;
    *why = cc_asprintf("running as root, cudnnctl runs only programs no other user can change: %s",
                       cc_pf_last_error_text());
    return *why ? 0 : -1;
}
