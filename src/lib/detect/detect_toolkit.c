/* detect_toolkit.c: find every CUDA toolkit (env vars, nvcc on PATH, /usr/local/cuda*, /opt/cuda*,
 * conda, pip wheels), read its version from every source, settle on the version most sources
 * agree on, and decide which toolkit is active and why. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "grow.h"

typedef struct {
    char *real; /* resolved root-relative dir */
    char *found_via;
    cc_strv aliases;
    int is_wheel, is_conda, from_scan;
    char *site;                  /* site-packages of a wheel (for its dist-info) */
    char *include_dir, *lib_dir; /* where cuda.h / libcudart are (root-relative, as found) */
    char *anchor; /* resolved cuda_runtime_api.h, cuda.h or libcudart: where the tree really is */
    int view_of;  /* index of the toolkit this dir only links into, -1 when none */
} tk_cand;

typedef struct {
    tk_cand *v;
    size_t n, cap;
    char *first_nvcc;      /* PATH entry of the first nvcc (root-relative, as on PATH) */
    char *first_nvcc_tk;   /* its toolkit (resolved) */
    char *cuda_link_real;  /* /usr/local/cuda target (resolved), NULL when no link */
    char *cuda_link_chain; /* "/usr/local/cuda -> ... -> /usr/local/cuda-13.0" */
} tk_list;

static void cand_free(tk_cand *c)
{
    free(c->real);
    free(c->found_via);
    free(c->site);
    free(c->include_dir);
    free(c->lib_dir);
    free(c->anchor);
    cc_strv_free(&c->aliases);
}

static void list_free(tk_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        cand_free(&l->v[i]);
    free(l->v);
    free(l->first_nvcc);
    free(l->first_nvcc_tk);
    free(l->cuda_link_real);
    free(l->cuda_link_chain);
}

static tk_cand *find_cand(tk_list *l, const char *real)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].real, real) == 0)
            return &l->v[i];
    return NULL;
}

/* Add the dir `path` (root-relative, may contain links). quiet: say nothing when it is no dir
 * (conda prefixes and wheels are looked at on speculation). Returns -1 on OOM only. */
static int add_cand(cc_detect_run *run, tk_list *l, const char *path, const char *via, int quiet,
                    tk_cand **out)
{
    if (out)
        *out = NULL;
    int missing = 0;
    char *real = cc_detect_resolve(run->ctx, path, &missing);
    if (!real) {
        if (!quiet)
            cc_detect_note(run, "%s: %s cannot be resolved (symlink loop?)", via, path);
        return 0;
    }
    cc_pf_stat_t st;
    if (!missing)
        cc_detect_stat(run->ctx, real, &st);
    if (missing || !st.is_dir) {
        if (!quiet)
            cc_detect_note(run, "%s: %s %s", via, path,
                           missing ? "does not exist" : "is not a directory");
        free(real);
        return 0;
    }
    tk_cand *c = find_cand(l, real);
    if (!c) {
        if (cc_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) != 0) {
            free(real);
            return -1;
        }
        c = &l->v[l->n++];
        memset(c, 0, sizeof(*c));
        c->real = real;
        real = NULL;
        c->found_via = cc_strdup(via);
        if (!c->found_via)
            return -1;
    }
    free(real);
    char *clean = cc_detect_clean(path);
    if (!clean)
        return -1;
    if (strcmp(clean, c->real) != 0 && !cc_strv_contains(&c->aliases, clean)) {
        if (cc_strv_push_own(&c->aliases, clean) != 0)
            return -1;
    } else {
        free(clean);
    }
    if (out)
        *out = c;
    return 0;
}

/* /usr/local/cuda*, /opt/cuda* */
static int scan_prefix_dir(cc_detect_run *run, tk_list *l, const char *dir)
{
    cc_strv ents;
    if (cc_detect_list(run->ctx, dir, "cuda", &ents) != 0)
        return 0;
    int rc = 0;
    char *via = cc_asprintf("%s/cuda*", dir);
    for (size_t i = 0; via && rc == 0 && i < ents.n; i++) {
        if (!cc_str_starts(ents.v[i], "cuda"))
            continue;
        char *p = cc_path_join(dir, ents.v[i]);
        if (!p) {
            rc = -1;
            break;
        }
        cc_pf_stat_t lst;
        char *host = cc_rooted(run->ctx, p);
        if (host && cc_pf_lstat(host, &lst) == 0 && lst.is_link) {
            int dangling = 0;
            char *chain = cc_detect_link_chain(run->ctx, p, &dangling);
            if (dangling)
                cc_detect_note(run, "%s is a dangling link", chain ? chain : p);
            free(chain);
        }
        free(host);
        tk_cand *c = NULL;
        rc = add_cand(run, l, p, via, 1, &c);
        if (c)
            c->from_scan = 1;
        free(p);
    }
    if (!via)
        rc = -1;
    free(via);
    cc_strv_free(&ents);
    return rc;
}

static int scan_path_nvcc(cc_detect_run *run, tk_list *l)
{
    const char *path = cc_pf_getenv("PATH");
    if (!path)
        return 0;
    const char *s = path;
    while (*s) {
        size_t n = strcspn(s, ":");
        char *d = cc_strndup(s, n);
        char *dir = d ? cc_detect_env_path(run->ctx, d) : NULL;
        free(d);
        s += n;
        if (*s == ':')
            s++;
        if (!dir)
            continue;
        char *nvcc = cc_path_join(dir, "nvcc");
        int missing = 0;
        char *real = nvcc ? cc_detect_resolve(run->ctx, nvcc, &missing) : NULL;
        cc_pf_stat_t st = {0};
        if (real && !missing)
            cc_detect_stat(run->ctx, real, &st);
        if (real && !missing && st.is_reg && (st.mode & 0111)) {
            char *bin = cc_path_dir(real);
            char *tk = bin ? cc_path_dir(bin) : NULL;
            char *via = cc_asprintf("PATH (%s)", nvcc);
            int rc = (tk && via) ? 0 : -1;
            tk_cand *c = NULL;
            if (rc == 0)
                rc = add_cand(run, l, tk, via, 0, &c);
            if (c) {
                c->from_scan = 1;
                /* the PATH dir's parent (/usr/local/cuda) is an alias of the toolkit */
                char *parent = cc_path_dir(dir);
                int m2 = 0;
                char *rp = parent ? cc_detect_resolve(run->ctx, parent, &m2) : NULL;
                if (rp && !m2 && strcmp(rp, c->real) == 0 && strcmp(parent, c->real) != 0 &&
                    !cc_strv_contains(&c->aliases, parent))
                    cc_strv_push(&c->aliases, parent);
                free(rp);
                free(parent);
                if (!l->first_nvcc) {
                    l->first_nvcc = cc_strdup(nvcc);
                    l->first_nvcc_tk = cc_strdup(c->real);
                }
            }
            free(bin);
            free(tk);
            free(via);
            if (rc != 0) {
                free(real);
                free(nvcc);
                free(dir);
                return -1;
            }
        }
        free(real);
        free(nvcc);
        free(dir);
    }
    return 0;
}

static int scan_wheels(cc_detect_run *run, tk_list *l)
{
    for (size_t i = 0; i < run->sites.n; i++) {
        char *nv = cc_path_join(run->sites.v[i], "nvidia");
        cc_strv ents;
        if (!nv)
            return -1;
        if (cc_detect_list(run->ctx, nv, NULL, &ents) != 0) {
            free(nv);
            continue;
        }
        for (size_t k = 0; k < ents.n; k++) {
            const char *e = ents.v[k];
            /* nvidia/cu13 (the consolidated CUDA 13 wheels), nvidia/cuda_runtime (11.x/12.x) */
            int cu = cc_str_starts(e, "cu") && e[2] >= '0' && e[2] <= '9';
            if (!cu && strcmp(e, "cuda_runtime") != 0)
                continue;
            char *p = cc_path_join(nv, e);
            char *via = cc_asprintf("pip wheel (%s)", run->sites.v[i]);
            tk_cand *c = NULL;
            int rc = (p && via) ? add_cand(run, l, p, via, 1, &c) : -1;
            if (c) {
                c->is_wheel = 1;
                free(c->site);
                c->site = cc_strdup(run->sites.v[i]);
            }
            free(p);
            free(via);
            if (rc != 0) {
                cc_strv_free(&ents);
                free(nv);
                return -1;
            }
        }
        cc_strv_free(&ents);
        free(nv);
    }
    return 0;
}

/* Where the tree's files really are: a dir like /usr/local whose include/ and lib64 are only links
 * into /usr/local/cuda-13.0 (plus an nvcc wrapper script in bin/) is a view of that toolkit, not
 * a toolkit of its own. -1 on OOM. */
static int anchor(cc_detect_run *run, tk_cand *c)
{
    if (cc_detect_tk_include_dir(run, c->real, &c->include_dir) != 0 ||
        cc_detect_tk_lib_dir(run, c->real, &c->lib_dir) != 0)
        return -1;
    const char *files[] = {"cuda_runtime_api.h", "cuda.h"};
    for (size_t i = 0; c->include_dir && i < 2 && !c->anchor; i++) {
        char *p = cc_path_join(c->include_dir, files[i]);
        int missing = 0;
        char *r = p ? cc_detect_resolve(run->ctx, p, &missing) : NULL;
        if (r && !missing)
            c->anchor = r;
        else
            free(r);
        free(p);
    }
    if (!c->anchor && c->lib_dir) {
        int missing = 0;
        char *r = cc_detect_resolve(run->ctx, c->lib_dir, &missing);
        if (r && !missing)
            c->anchor = r;
        else
            free(r);
    }
    return 0;
}

static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* Mark candidates that are views of another one (the candidate with the longest path that
 * contains the anchor). */
static void find_views(cc_detect_run *run, tk_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        tk_cand *c = &l->v[i];
        c->view_of = -1;
        if (!c->anchor)
            continue;
        size_t best_len = 0;
        int best = -1;
        for (size_t j = 0; j < l->n; j++)
            if (inside(c->anchor, l->v[j].real) && strlen(l->v[j].real) > best_len) {
                best_len = strlen(l->v[j].real);
                best = (int)j;
            }
        if (best >= 0 && (size_t)best != i) {
            c->view_of = best;
            cc_detect_note(run, "%s only links into %s (found via %s): not a toolkit of its own",
                           c->real, l->v[best].real, c->found_via);
        }
    }
    /* the first nvcc on PATH may be a wrapper in such a view */
    for (size_t i = 0; l->first_nvcc_tk && i < l->n; i++)
        if (l->v[i].view_of >= 0 && strcmp(l->v[i].real, l->first_nvcc_tk) == 0) {
            char *t = cc_strdup(l->v[l->v[i].view_of].real);
            if (t) {
                free(l->first_nvcc_tk);
                l->first_nvcc_tk = t;
            }
            break;
        }
}

static int cmp_toolkit(const void *a, const void *b)
{
    const cudnnctl_toolkit *x = a, *y = b;
    /* installed toolkits first, the runtimes inside Python wheels last */
    int xw = strcmp(x->origin, "wheel") == 0, yw = strcmp(y->origin, "wheel") == 0;
    if (xw != yw)
        return xw - yw;
    if (x->major != y->major)
        return y->major - x->major;
    if (x->minor != y->minor)
        return y->minor - x->minor;
    return strcmp(x->path, y->path);
}

static cudnnctl_toolkit *by_path(cudnnctl_detect_result *r, const char *path)
{
    for (size_t i = 0; path && i < r->n_toolkits; i++)
        if (strcmp(r->toolkits[i].path, path) == 0)
            return &r->toolkits[i];
    return NULL;
}

/* The toolkit a resolved dir stands for: itself, or the toolkit a view links into. */
static const char *canonical(const tk_list *l, const char *real)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].real, real) == 0)
            return l->v[i].view_of >= 0 ? l->v[l->v[i].view_of].real : real;
    return real;
}

/* CUDA_HOME / CUDA_PATH > first nvcc on PATH > the /usr/local/cuda target. */
static int choose_active(cc_detect_run *run, tk_list *l)
{
    cudnnctl_detect_result *r = run->r;
    cudnnctl_toolkit *active = NULL;
    cc_buf why = {0};
    static const char *const vars[] = {"CUDA_HOME", "CUDA_PATH"};
    cudnnctl_toolkit *env_tk = NULL;
    for (size_t i = 0; i < 2 && !env_tk; i++) {
        char *p = cc_detect_env_path(run->ctx, cc_pf_getenv(vars[i]));
        if (!p)
            continue;
        int missing = 0;
        char *real = cc_detect_resolve(run->ctx, p, &missing);
        const char *tk = (real && !missing) ? canonical(l, real) : NULL;
        env_tk = by_path(r, tk);
        if (env_tk) {
            if (strcmp(tk, p) != 0)
                cc_buf_printf(&why, "%s=%s -> %s", vars[i], p, tk);
            else
                cc_buf_printf(&why, "%s=%s", vars[i], p);
        } else if (real && !missing) { /* a missing dir was noted when it was looked at */
            cc_detect_note(run, "%s=%s is not a CUDA toolkit detect could read: ignored", vars[i],
                           p);
        }
        free(real);
        free(p);
    }
    cudnnctl_toolkit *path_tk = by_path(r, l->first_nvcc_tk);
    cudnnctl_toolkit *link_tk =
        l->cuda_link_real ? by_path(r, canonical(l, l->cuda_link_real)) : NULL;
    active = env_tk ? env_tk : path_tk ? path_tk : link_tk;
    if (!active)
        return 0;
    if (path_tk == active)
        cc_buf_printf(&why, "%sfirst nvcc on PATH: %s", why.len ? "; " : "", l->first_nvcc);
    if (link_tk == active)
        cc_buf_printf(&why, "%s%s", why.len ? "; " : "", l->cuda_link_chain);
    active->active = 1;
    active->active_reason = why.data;
    if (!active->active_reason)
        return -1;
    if (path_tk && path_tk != active)
        cc_detect_note(run,
                       "the active toolkit is %s (%s) but the first nvcc on PATH (%s) belongs to "
                       "%s (%s)",
                       active->path, active->version, l->first_nvcc, path_tk->path,
                       path_tk->version);
    if (link_tk && link_tk != active)
        cc_detect_note(run, "the active toolkit is %s (%s) but %s", active->path, active->version,
                       l->cuda_link_chain);
    return 0;
}

static int conda_prefix_is(cc_detect_run *run, const char *real)
{
    char *cp = cc_detect_env_path(run->ctx, cc_pf_getenv("CONDA_PREFIX"));
    int missing = 0;
    char *r = cp ? cc_detect_resolve(run->ctx, cp, &missing) : NULL;
    int is = r && strcmp(r, real) == 0;
    free(cp);
    free(r);
    return is;
}

/* Every place a toolkit may be: CUDA_HOME / CUDA_PATH / CUDA_ROOT, nvcc on PATH, /usr/local,
 * /opt, CONDA_PREFIX, wheels; and where /usr/local/cuda leads. -1 on OOM. */
static int gather_candidates(cc_detect_run *run, tk_list *l)
{
    cudnnctl_ctx *ctx = run->ctx;
    static const char *const vars[] = {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"};
    for (size_t i = 0; i < 3; i++) {
        char *p = cc_detect_env_path(ctx, cc_pf_getenv(vars[i]));
        int rc = p ? add_cand(run, l, p, vars[i], 0, NULL) : 0;
        free(p);
        if (rc != 0)
            return -1;
    }
    if (scan_path_nvcc(run, l) != 0 || scan_prefix_dir(run, l, "/usr/local") != 0 ||
        scan_prefix_dir(run, l, "/opt") != 0)
        return -1;
    char *conda = cc_detect_env_path(ctx, cc_pf_getenv("CONDA_PREFIX"));
    tk_cand *cc = NULL;
    int crc = conda ? add_cand(run, l, conda, "CONDA_PREFIX", 1, &cc) : 0;
    free(conda);
    if (crc != 0)
        return -1;
    if (cc)
        cc->is_conda = 1;
    if (scan_wheels(run, l) != 0)
        return -1;
    /* the /usr/local/cuda link (often through /etc/alternatives) */
    int dangling = 0;
    l->cuda_link_chain = cc_detect_link_chain(ctx, "/usr/local/cuda", &dangling);
    if (l->cuda_link_chain && !dangling) {
        int missing = 0;
        l->cuda_link_real = cc_detect_resolve(ctx, "/usr/local/cuda", &missing);
    }
    return 0;
}

/* One candidate (not a view of another) into the result when some source gives its version;
 * a note when none does. -1 on OOM. */
static int add_toolkit(cc_detect_run *run, const tk_list *l, tk_cand *c)
{
    cudnnctl_detect_result *r = run->r;
    cudnnctl_toolkit *t = cc_detect_toolkit_slot(run, r);
    if (!t)
        return -1;
    /* include_dir and lib_dir were found by anchor() */
    t->include_dir = c->include_dir;
    t->lib_dir = c->lib_dir;
    c->include_dir = c->lib_dir = NULL;
    int env_applies = l->cuda_link_real && strcmp(l->cuda_link_real, c->real) == 0;
    if (cc_detect_toolkit_versions(run, c->real, c->site, env_applies, t) != 0) {
        cc_detect_toolkit_clear(t);
        return -1;
    }
    if (!t->version) {
        /* a dir without any version source: leftovers, a runtime-less wheel, a bad CUDA_HOME */
        if (!c->is_wheel && !c->is_conda)
            cc_detect_note(run,
                           "%s (found via %s): no CUDA version found (no version.json, "
                           "version.txt, nvcc, cuda.h or libcudart): not a usable toolkit",
                           c->real, c->found_via);
        for (size_t k = 0; k < t->n_problems; k++)
            cc_detect_note(run, "%s", t->problems[k]);
        cc_detect_toolkit_clear(t);
        return 0;
    }
    t->path = cc_strdup(c->real);
    t->found_via = cc_strdup(c->found_via);
    if (c->is_wheel)
        t->origin = cc_strdup("wheel");
    else if (c->is_conda || conda_prefix_is(run, c->real))
        t->origin = cc_strdup("conda");
    else if (c->from_scan || cc_str_starts(c->real, "/usr/") || cc_str_starts(c->real, "/opt/"))
        t->origin = cc_strdup("system");
    else
        t->origin = cc_strdup("env");
    for (size_t k = 0; k < c->aliases.n; k++)
        if (cc_strs_push(&t->aliases, &t->n_aliases, cc_strdup(c->aliases.v[k])) != 0)
            break;
    r->n_toolkits++;
    if (!t->path || !t->found_via || !t->origin || t->n_aliases != c->aliases.n)
        return -1;
    return 0;
}

cudnnctl_err cc_detect_find_toolkits(cc_detect_run *run)
{
    cudnnctl_detect_result *r = run->r;
    tk_list l = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (gather_candidates(run, &l) != 0)
        goto oom;
    for (size_t i = 0; i < l.n; i++)
        if (anchor(run, &l.v[i]) != 0)
            goto oom;
    find_views(run, &l);
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].view_of < 0 && add_toolkit(run, &l, &l.v[i]) != 0)
            goto oom;
    if (r->n_toolkits > 1)
        qsort(r->toolkits, r->n_toolkits, sizeof(*r->toolkits), cmp_toolkit);
    if (choose_active(run, &l) != 0)
        goto oom;
    goto out;
oom:
    e = CC_ERR(run->ctx, CUDNNCTL_E_NOMEM, "out of memory while detecting CUDA toolkits");
out:
    list_free(&l);
    return e;
}
