/* env_lookup.c: finding what environment wiring works on: toolkits by version (from detect),
 * cudnnctl prefixes and their cudnn-<ver>-cuda<M> installs. */
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "grow.h"
#include "envwire_int.h"

int cc_env_parse_install_name(const char *name, char **version, int *major)
{
    if (version)
        *version = NULL;
    if (!cc_str_starts(name, "cudnn-"))
        return 0;
    const char *v = name + 6;
    const char *c = strstr(v, "-cuda");
    if (!c || c == v)
        return 0;
    /* the version: digits and dots only; the suffix: digits only */
    for (const char *q = v; q < c; q++)
        if (!((*q >= '0' && *q <= '9') || *q == '.'))
            return 0;
    const char *m = c + 5;
    if (!*m)
        return 0;
    for (const char *q = m; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    if (major)
        *major = atoi(m);
    if (version) {
        *version = cc_strndup(v, (size_t)(c - v));
        if (!*version)
            return 0;
    }
    return 1;
}

/* A prefix without `current`: the install the state records as its selected one (direct.h). */
static void direct_selected(cudnnctl_ctx *ctx, cc_env_prefix *p)
{
    char *state = cc_state_dir(ctx);
    char *name = state ? cc_direct_recorded(ctx, state, p->prefix) : NULL;
    for (size_t i = 0; name && i < p->n; i++)
        if (strcmp(cc_path_base(p->v[i].path), name) == 0) {
            p->current = (int)i;
            p->direct = 1;
        }
    free(name);
    free(state);
}

void cc_env_prefix_free(cc_env_prefix *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].path);
        free(p->v[i].version);
    }
    free(p->v);
    free(p->prefix);
    memset(p, 0, sizeof(*p));
    p->current = -1;
}

cudnnctl_err cc_env_scan_prefix(cudnnctl_ctx *ctx, const char *prefix, cc_env_prefix *out)
{
    memset(out, 0, sizeof(*out));
    out->current = -1;
    out->prefix = cc_strdup(prefix);
    char *rp = cc_rooted(ctx, prefix);
    char *cur = cc_path_join(prefix, "current");
    char *cur_real = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!out->prefix || !rp || !cur) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    cc_pf_dir *d = cc_pf_opendir(rp);
    if (!d)
        goto out; /* no such prefix: nothing installed there */
    const char *name;
    while ((name = cc_pf_readdir(d)) != NULL) {
        char *ver = NULL;
        int major = -1;
        if (!cc_env_parse_install_name(name, &ver, &major))
            continue;
        char *path = cc_path_join(prefix, name);
        if (!path || !cc_env_is_dir(ctx, path)) {
            free(path);
            free(ver);
            continue;
        }
        if (cc_grow(&out->v, NULL, out->n + 1, sizeof(*out->v)) != 0) {
            free(path);
            free(ver);
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            break;
        }
        out->v[out->n].path = path;
        out->v[out->n].version = ver;
        out->v[out->n].cuda_major = major;
        out->n++;
    }
    cc_pf_closedir(d);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    cur_real = cc_env_exists(ctx, cur) ? cc_env_realpath(ctx, cur) : NULL;
    for (size_t i = 0; cur_real && i < out->n; i++) {
        char *r = cc_env_realpath(ctx, out->v[i].path);
        if (r && strcmp(r, cur_real) == 0)
            out->current = (int)i;
        free(r);
    }
    if (!cur_real && out->n)
        direct_selected(ctx, out);
out:
    free(rp);
    free(cur);
    free(cur_real);
    return rc;
}

int cc_env_prefix_pick(const cc_env_prefix *p, int major)
{
    if (p->current >= 0 && p->v[p->current].cuda_major == major)
        return p->current;
    int best = -1;
    cc_version bv = {{0}, 0};
    for (size_t i = 0; i < p->n; i++) {
        if (p->v[i].cuda_major != major)
            continue;
        cc_version v;
        if (cc_version_parse(p->v[i].version, &v) != 0)
            continue;
        if (best < 0 || cc_version_cmp(&v, &bv) > 0) {
            best = (int)i;
            bv = v;
        }
    }
    return best;
}

cudnnctl_err cc_env_known_prefixes(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, cc_strv *out)
{
    for (size_t i = 0; in && i < in->n_prefixes; i++) {
        if (!in->prefixes[i] || !*in->prefixes[i])
            continue;
        char *p = cc_env_abs(ctx, in->prefixes[i]);
        if (!p)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (cc_strv_contains(out, p)) {
            free(p);
            continue;
        }
        if (cc_strv_push_own(out, p) != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    /* every prefix an install receipt records (a damaged receipt store only costs a warning:
     * activation must keep working) */
    cudnnctl_install_list *l = NULL;
    if (cudnnctl_list(ctx, NULL, &l) != CUDNNCTL_E_OK) {
        cc_log(ctx, CUDNNCTL_LOG_WARN, "install receipts not read (%s): only --prefix is used",
               cudnnctl_last_error(ctx)->detail);
        cudnnctl_install_list_free(l);
        return CUDNNCTL_E_OK;
    }
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; l && i < l->n_items && rc == CUDNNCTL_E_OK; i++) {
        const cudnnctl_install_record *it = &l->items[i];
        if (it->mode != CUDNNCTL_TARGET_PREFIX || !it->target_path ||
            cc_strv_contains(out, it->target_path))
            continue;
        if (cc_strv_push(out, it->target_path) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    cudnnctl_install_list_free(l);
    return rc;
}

cudnnctl_err cc_env_detect(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                           const cudnnctl_detect_result **det, cudnnctl_detect_result **owned)
{
    *owned = NULL;
    if (in && in->detect) {
        *det = in->detect;
        return CUDNNCTL_E_OK;
    }
    cudnnctl_err e = cudnnctl_detect(ctx, owned);
    if (e != CUDNNCTL_E_OK)
        return e;
    *det = *owned;
    return CUDNNCTL_E_OK;
}

char *cc_env_toolkit_list(const cudnnctl_detect_result *det)
{
    cc_buf b = {0};
    for (size_t i = 0; det && i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        cc_buf_printf(&b, "%s%s (%s)", b.len ? ", " : "", t->version ? t->version : "?",
                      t->path ? t->path : "?");
    }
    if (!b.len)
        cc_buf_puts(&b, "none");
    return b.data;
}

int cc_env_is_version(const char *s)
{
    if (!s || !*s || *s == '.')
        return 0;
    for (const char *q = s; *q; q++)
        if (!((*q >= '0' && *q <= '9') || *q == '.'))
            return 0;
    cc_version v;
    return cc_version_parse(s, &v) == 0;
}

static int tk_matches(const cudnnctl_toolkit *t, const cc_version *w)
{
    if (t->major != w->part[0])
        return 0;
    if (w->n >= 2 && t->minor != w->part[1])
        return 0;
    if (w->n >= 3 && t->patch >= 0 && t->patch != w->part[2])
        return 0;
    return 1;
}

/* Prefer /usr/local/cuda-X.Y, then the active one, then the first found. */
static int tk_rank(const cudnnctl_toolkit *t)
{
    char *want = cc_asprintf("/usr/local/cuda-%d.%d", t->major, t->minor);
    int r = (want && t->path && strcmp(t->path, want) == 0) ? 2 : t->active ? 1 : 0;
    free(want);
    return r;
}

const cudnnctl_toolkit *cc_env_find_toolkit(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                            const char *spec)
{
    const cudnnctl_toolkit *hit = NULL;
    if (!cc_env_is_version(spec)) {
        /* a dir: the detected toolkit with the same real path */
        char *abs = cc_env_abs(ctx, spec);
        char *want = abs ? cc_env_realpath(ctx, abs) : NULL;
        free(abs);
        for (size_t i = 0; want && det && i < det->n_toolkits && !hit; i++) {
            char *r = cc_env_realpath(ctx, det->toolkits[i].path);
            if (r && strcmp(r, want) == 0)
                hit = &det->toolkits[i];
            free(r);
        }
        free(want);
        if (!hit) {
            char *list = cc_env_toolkit_list(det);
            CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                   "%s is not a CUDA toolkit cudnnctl found (found: %s); give a version or one of "
                   "those dirs",
                   spec, list ? list : "?");
            free(list);
        }
        return hit;
    }
    cc_version w;
    cc_version_parse(spec, &w);
    char *hit_real = NULL;
    int ambiguous = 0;
    for (size_t i = 0; det && i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        if (!tk_matches(t, &w))
            continue;
        char *r = cc_env_realpath(ctx, t->path);
        if (!hit) {
            hit = t;
            hit_real = r;
            continue;
        }
        if (r && hit_real && strcmp(r, hit_real) == 0) {
            /* the same dir found twice: keep the better named one */
            if (tk_rank(t) > tk_rank(hit))
                hit = t;
            free(r);
            continue;
        }
        if (w.n < 2 && (t->minor != hit->minor))
            ambiguous = 1;
        if (tk_rank(t) > tk_rank(hit)) {
            hit = t;
            free(hit_real);
            hit_real = r;
        } else {
            free(r);
        }
    }
    free(hit_real);
    char *list = cc_env_toolkit_list(det);
    if (!hit)
        CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
               "no CUDA toolkit %s on this machine (found: %s); install CUDA %s or pick one of "
               "those",
               spec, list ? list : "?", spec);
    else if (ambiguous) {
        CC_ERR(ctx, CUDNNCTL_E_USAGE, "CUDA %s is ambiguous (found: %s); give major.minor", spec,
               list ? list : "?");
        hit = NULL;
    }
    free(list);
    return hit;
}

cudnnctl_err cc_env_use_target(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                               const char *version, int real_path,
                               const cudnnctl_detect_result **det, cudnnctl_detect_result **owned,
                               const cudnnctl_toolkit **tk, cudnnctl_use_result **r)
{
    cudnnctl_err rc = cc_env_detect(ctx, in, det, owned);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (!(*tk = cc_env_find_toolkit(ctx, *det, version)))
        return cudnnctl_last_error(ctx)->code;
    const char *path = (*tk)->path, *tv = (*tk)->version;
    cudnnctl_use_result *u = *r = calloc(1, sizeof(**r));
    if (!u || !(u->toolkit_path = real_path ? cc_env_realpath(ctx, path) : cc_strdup(path)) ||
        (tv && !(u->toolkit_version = cc_strdup(tv))))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}
