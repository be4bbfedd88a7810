/* env_select.c: resolving an activation target (version, toolkit dir, cudnnctl prefix or the
 * active toolkit) into a selection: CUDA_HOME, PATH and library dirs, and the managed dirs
 * whose entries an activation drops. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envwire_int.h"
#include "json.h"

typedef struct {
    cc_strv bins, libs, roots, managed, notes;
} sel_lists;

static void lists_free(sel_lists *l)
{
    cc_strv_free(&l->bins);
    cc_strv_free(&l->libs);
    cc_strv_free(&l->roots);
    cc_strv_free(&l->managed);
    cc_strv_free(&l->notes);
}

/* Move a strv into a (char **, size_t) pair of the public struct. */
static void take(cc_strv *sv, char ***v, size_t *n)
{
    *v = sv->v;
    *n = sv->n;
    memset(sv, 0, sizeof(*sv));
}

static int push_uniq(cc_strv *sv, const char *s)
{
    if (!s || !*s || cc_strv_contains(sv, s))
        return 0;
    return cc_strv_push(sv, s);
}

static int push_uniq_own(cc_strv *sv, char *s)
{
    if (!s)
        return -1;
    if (!*s || cc_strv_contains(sv, s)) {
        free(s);
        return 0;
    }
    return cc_strv_push_own(sv, s);
}

static int note(sel_lists *l, char *text)
{
    return text ? cc_strv_push_own(&l->notes, text) : -1;
}

/* A dir is managed unless it is shared with the system or belongs to conda / pip. */
static int push_managed(cudnnctl_ctx *ctx, cc_strv *m, const char *path)
{
    if (!path || cc_env_is_shared_root(path))
        return 0;
    if (push_uniq(m, path) != 0)
        return -1;
    char *r = cc_env_realpath(ctx, path);
    if (r && cc_env_is_shared_root(r)) {
        free(r);
        return 0;
    }
    return push_uniq_own(m, r ? r : cc_strdup(path));
}

static const cudnnctl_toolkit *toolkit_for_major(const cudnnctl_detect_result *det, int major)
{
    const cudnnctl_toolkit *act = cudnnctl_detect_active_toolkit(det);
    if (act && act->major == major)
        return act;
    const cudnnctl_toolkit *best = NULL;
    for (size_t i = 0; det && i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        if (t->major == major && (!best || t->minor > best->minor))
            best = t;
    }
    return best;
}

static int is_foreign_origin(const cudnnctl_toolkit *t)
{
    return t->origin && (strcmp(t->origin, "conda") == 0 || strcmp(t->origin, "wheel") == 0);
}

void cudnnctl_env_selection_free(cudnnctl_env_selection *s)
{
    if (!s)
        return;
    free(s->toolkit_path);
    free(s->toolkit_version);
    free(s->cudnn_path);
    free(s->cudnn_version);
    free(s->prefix);
    char **lists[] = {s->bin_dirs, s->lib_dirs, s->roots, s->managed, s->notes};
    size_t ns[] = {s->n_bin_dirs, s->n_lib_dirs, s->n_roots, s->n_managed, s->n_notes};
    for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i < ns[k]; i++)
            free(lists[k][i]);
        free(lists[k]);
    }
    cc_env_build_free(s);
    free(s);
}

/* The bin and lib dirs of the selection, in the order they go in front of PATH. */
static cudnnctl_err add_dirs(cudnnctl_ctx *ctx, cudnnctl_env_selection *s, sel_lists *l)
{
    int w = s->windows;
    if (s->toolkit_path) {
        if (cc_env_is_shared_root(s->toolkit_path)) {
            if (note(l, cc_asprintf("the toolkit at %s shares bin/ and lib/ with the system: "
                                    "PATH and library dirs are left as they are",
                                    s->toolkit_path)) != 0)
                goto oom;
        } else {
            if (push_uniq_own(&l->bins, cc_env_join(s->toolkit_path, "bin", w)) != 0)
                goto oom;
            if (w) {
                /* CUDA 13 moved its DLLs to bin\x64, which its installer leaves off PATH */
                char *x64 = cc_env_join(s->toolkit_path, "bin\\x64", 1);
                if (!x64)
                    goto oom;
                if (s->toolkit_major >= 13 || (s->toolkit_major < 0 && cc_env_is_dir(ctx, x64)))
                    cc_strv_push_own(&l->bins, x64);
                else
                    free(x64);
            } else {
                char *lib = cc_env_toolkit_libdir(ctx, s->toolkit_path);
                if (lib && push_uniq_own(&l->libs, lib) != 0)
                    goto oom;
            }
        }
    }
    if (s->cudnn_path) {
        if (w) {
            /* cuDNN 9.18+ CUDA-13 zips put the DLLs in bin\x64; older ones in bin */
            if (push_uniq_own(&l->bins, cc_env_join(s->cudnn_path, "bin", 1)) != 0 ||
                push_uniq_own(&l->bins, cc_env_join(s->cudnn_path, "bin\\x64", 1)) != 0)
                goto oom;
        } else {
            char *lib = cc_path_join(s->cudnn_path, "lib64");
            if (lib && !cc_env_is_dir(ctx, lib)) {
                free(lib);
                lib = cc_path_join(s->cudnn_path, "lib");
            }
            /* the cuDNN dir goes first: it is the explicit choice of this selection */
            if (!lib || cc_strv_push_own(&l->libs, lib) != 0)
                goto oom;
            if (l->libs.n > 1) {
                char *last = l->libs.v[l->libs.n - 1];
                memmove(&l->libs.v[1], &l->libs.v[0], sizeof(char *) * (l->libs.n - 1));
                l->libs.v[0] = last;
            }
        }
    }
    return CUDNNCTL_E_OK;
oom:
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

static int newest_install(const cc_env_prefix *p)
{
    int best = -1;
    cc_version bv = {{0}, 0};
    for (size_t i = 0; i < p->n; i++) {
        cc_version v;
        if (cc_version_parse(p->v[i].version, &v) != 0)
            continue;
        if (best < 0 || cc_version_cmp(&v, &bv) > 0 ||
            (cc_version_cmp(&v, &bv) == 0 && p->v[i].cuda_major > p->v[best].cuda_major)) {
            best = (int)i;
            bv = v;
        }
    }
    return best;
}

/* Find the install a prefix / install-dir target names. */
static int target_install(cudnnctl_ctx *ctx, const char *real, cc_env_prefix *px, size_t npx,
                          size_t *pi, int *ii)
{
    for (size_t p = 0; p < npx; p++)
        for (size_t i = 0; i < px[p].n; i++) {
            char *r = cc_env_realpath(ctx, px[p].v[i].path);
            int same = r && strcmp(r, real) == 0;
            free(r);
            if (same) {
                *pi = p;
                *ii = (int)i;
                return 1;
            }
        }
    return 0;
}

/* The working state of one cudnnctl_env_select call. */
typedef struct {
    const cudnnctl_detect_result *det;
    cudnnctl_detect_result *owned;
    cc_strv prefixes;
    cc_env_prefix *px;
    size_t npx;
    sel_lists l;
    char *real, *abs_target;
    cudnnctl_env_selection *s;
    const cudnnctl_toolkit *tk;
    size_t pi;
    int ii;
    int prefix_target;
} sel_state;

static cudnnctl_err sel_oom(cudnnctl_ctx *ctx)
{
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* A dir target: made absolute and real; an install dir or a prefix named directly joins the
 * prefixes looked at. */
static cudnnctl_err sel_dir_target(cudnnctl_ctx *ctx, sel_state *st, const char **target)
{
    if (!(st->abs_target = cc_env_abs(ctx, *target)))
        return sel_oom(ctx);
    *target = st->abs_target;
    if (!cc_env_is_dir(ctx, *target))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "%s is not a directory; give a toolkit version (X.Y), a toolkit dir or a "
                   "cudnnctl prefix",
                   *target);
    st->real = cc_env_realpath(ctx, *target);
    if (!st->real)
        return sel_oom(ctx);
    char *parent = cc_path_dir(st->real);
    if (!parent)
        return sel_oom(ctx);
    if (cc_env_parse_install_name(cc_path_base(st->real), NULL, NULL))
        push_uniq(&st->prefixes, parent);
    else
        push_uniq(&st->prefixes, st->real);
    free(parent);
    return CUDNNCTL_E_OK;
}

static cudnnctl_err sel_scan_prefixes(cudnnctl_ctx *ctx, sel_state *st)
{
    st->px = calloc(st->prefixes.n ? st->prefixes.n : 1, sizeof(*st->px));
    if (!st->px)
        return sel_oom(ctx);
    for (; st->npx < st->prefixes.n; st->npx++) {
        cudnnctl_err rc = cc_env_scan_prefix(ctx, st->prefixes.v[st->npx], &st->px[st->npx]);
        if (rc != CUDNNCTL_E_OK) {
            st->npx++;
            return rc;
        }
    }
    return CUDNNCTL_E_OK;
}

/* detect's toolkit whose real path is `real`, or NULL. */
static const cudnnctl_toolkit *detected_at(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                           const char *real)
{
    const cudnnctl_toolkit *tk = NULL;
    for (size_t i = 0; real && det && i < det->n_toolkits && !tk; i++) {
        char *r = cc_env_realpath(ctx, det->toolkits[i].path);
        if (r && strcmp(r, real) == 0)
            tk = &det->toolkits[i];
        free(r);
    }
    return tk;
}

/* No target: the toolkit `use` selected (/usr/local/cuda), whatever CUDA_HOME a previous
 * activation left in this session; detect's active toolkit where there is no link. */
static cudnnctl_err sel_default(cudnnctl_ctx *ctx, sel_state *st)
{
    cudnnctl_env_selection *s = st->s;
    char *lr = cc_env_has_cuda_link(ctx) ? cc_env_realpath(ctx, "/usr/local/cuda") : NULL;
    st->tk = detected_at(ctx, st->det, lr);
    if (lr && !st->tk) {
        s->toolkit_path = lr;
        lr = NULL;
        cc_env_read_toolkit_version(ctx, s->toolkit_path, &s->toolkit_version, &s->toolkit_major,
                                    &s->toolkit_minor);
    }
    free(lr);
    if (!st->tk && !s->toolkit_path)
        st->tk = cudnnctl_detect_active_toolkit(st->det);
    if (!st->tk && !s->toolkit_path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                   "no CUDA toolkit found; install one, or name a toolkit dir or a cudnnctl "
                   "prefix: cudnnctl env DIR");
    return CUDNNCTL_E_OK;
}

/* A dir that is neither an install nor a known one: a prefix (its current install, else its
 * newest), else a toolkit dir (detect's entry when it found it, else its own version files). */
static cudnnctl_err sel_prefix_or_toolkit(cudnnctl_ctx *ctx, sel_state *st)
{
    cudnnctl_env_selection *s = st->s;
    for (size_t p = 0; p < st->npx && st->ii < 0; p++) {
        char *r = cc_env_realpath(ctx, st->px[p].prefix);
        if (r && strcmp(r, st->real) == 0 && st->px[p].n > 0) {
            st->pi = p;
            st->ii = st->px[p].current >= 0 ? st->px[p].current : newest_install(&st->px[p]);
            st->prefix_target = 1;
        }
        free(r);
    }
    if (st->prefix_target)
        return CUDNNCTL_E_OK;
    st->tk = detected_at(ctx, st->det, st->real);
    if (st->tk)
        return CUDNNCTL_E_OK;
    s->toolkit_path = cc_strdup(st->real);
    if (!s->toolkit_path)
        return sel_oom(ctx);
    if (cc_env_read_toolkit_version(ctx, st->real, &s->toolkit_version, &s->toolkit_major,
                                    &s->toolkit_minor) != 0 &&
        note(&st->l, cc_asprintf("could not read the CUDA version of %s", st->real)) != 0)
        return sel_oom(ctx);
    return CUDNNCTL_E_OK;
}

/* The toolkit and the cuDNN install the target names. */
static cudnnctl_err sel_resolve(cudnnctl_ctx *ctx, sel_state *st, const char *target)
{
    cudnnctl_env_selection *s = st->s;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!target)
        rc = sel_default(ctx, st);
    else if (cc_env_is_version(target)) {
        if (!(st->tk = cc_env_find_toolkit(ctx, st->det, target)))
            rc = cudnnctl_last_error(ctx)->code;
    } else if (target_install(ctx, st->real, st->px, st->npx, &st->pi, &st->ii))
        st->prefix_target = 1;
    else
        rc = sel_prefix_or_toolkit(ctx, st);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (st->prefix_target) {
        s->cudnn_cuda_major = st->px[st->pi].v[st->ii].cuda_major;
        if (!st->tk)
            st->tk = toolkit_for_major(st->det, s->cudnn_cuda_major);
        if (!st->tk && note(&st->l, cc_asprintf("no CUDA %d toolkit found: only cuDNN is activated",
                                                s->cudnn_cuda_major)) != 0)
            return sel_oom(ctx);
    }
    if (st->tk) {
        s->toolkit_path = cc_env_realpath(ctx, st->tk->path);
        s->toolkit_version = st->tk->version ? cc_strdup(st->tk->version) : NULL;
        s->toolkit_major = st->tk->major;
        s->toolkit_minor = st->tk->minor;
        if (!s->toolkit_path)
            return sel_oom(ctx);
    }
    if (!st->prefix_target && s->toolkit_major >= 0) {
        for (size_t p = 0; p < st->npx && st->ii < 0; p++)
            if ((st->ii = cc_env_prefix_pick(&st->px[p], s->toolkit_major)) >= 0)
                st->pi = p;
    }
    if (st->ii >= 0) {
        const cc_env_prefix *pp = &st->px[st->pi];
        s->cudnn_path = cc_strdup(pp->v[st->ii].path);
        s->cudnn_version = cc_strdup(pp->v[st->ii].version);
        s->cudnn_cuda_major = pp->v[st->ii].cuda_major;
        s->prefix = cc_strdup(pp->prefix);
        if (!s->cudnn_path || !s->cudnn_version || !s->prefix)
            return sel_oom(ctx);
    }
    return CUDNNCTL_E_OK;
}

/* Refer to the links `use` flips, so persistent wiring follows later switches. */
static cudnnctl_err sel_follow(cudnnctl_ctx *ctx, sel_state *st)
{
    cudnnctl_env_selection *s = st->s;
    char *link_real = cc_env_has_cuda_link(ctx) ? cc_env_realpath(ctx, "/usr/local/cuda") : NULL;
    if (link_real && s->toolkit_path && strcmp(link_real, s->toolkit_path) == 0) {
        free(s->toolkit_path);
        if (!(s->toolkit_path = cc_strdup("/usr/local/cuda"))) {
            free(link_real);
            return sel_oom(ctx);
        }
    }
    free(link_real);
    if (st->ii >= 0 && st->px[st->pi].current == st->ii && !st->px[st->pi].direct) {
        free(s->cudnn_path);
        if (!(s->cudnn_path = cc_path_join(st->px[st->pi].prefix, "current")))
            return sel_oom(ctx);
    }
    s->follow = 1;
    return CUDNNCTL_E_OK;
}

/* roots: the selection's own dirs; managed: every dir whose entries an activation drops. */
static cudnnctl_err sel_managed(cudnnctl_ctx *ctx, sel_state *st)
{
    const cudnnctl_env_selection *s = st->s;
    sel_lists *l = &st->l;
    if (s->toolkit_path && !cc_env_is_shared_root(s->toolkit_path) &&
        push_uniq(&l->roots, s->toolkit_path) != 0)
        return sel_oom(ctx);
    if (s->cudnn_path && push_uniq(&l->roots, s->cudnn_path) != 0)
        return sel_oom(ctx);
    for (size_t i = 0; i < l->roots.n; i++)
        if (push_managed(ctx, &l->managed, l->roots.v[i]) != 0)
            return sel_oom(ctx);
    for (size_t i = 0; st->det && i < st->det->n_toolkits; i++)
        if (!is_foreign_origin(&st->det->toolkits[i]) &&
            push_managed(ctx, &l->managed, st->det->toolkits[i].path) != 0)
            return sel_oom(ctx);
    for (size_t p = 0; p < st->npx; p++) {
        const cc_env_prefix *pp = &st->px[p];
        if (pp->n == 0)
            continue;
        /* the prefix, and its installs one by one for shells that cannot match a prefix of a
         * path (cmd.exe replaces exact entries only) */
        char *cur = cc_path_join(pp->prefix, "current");
        int bad = !cur || push_managed(ctx, &l->managed, pp->prefix) != 0 ||
                  push_uniq(&l->managed, cur) != 0;
        free(cur);
        for (size_t i = 0; !bad && i < pp->n; i++)
            bad = push_uniq(&l->managed, pp->v[i].path) != 0;
        if (bad)
            return sel_oom(ctx);
    }
    if (s->prefix && s->toolkit_major >= 0 && s->cudnn_cuda_major != s->toolkit_major &&
        note(l, cc_asprintf("the cuDNN in %s is built for CUDA %d, the toolkit is CUDA %d",
                            s->cudnn_path, s->cudnn_cuda_major, s->toolkit_major)) != 0)
        return sel_oom(ctx);
    return CUDNNCTL_E_OK;
}

static cudnnctl_err sel_run(cudnnctl_ctx *ctx, sel_state *st, const cudnnctl_env_inputs *in,
                            const char *target, unsigned flags)
{
    cudnnctl_err rc = cc_env_detect(ctx, in, &st->det, &st->owned);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if ((rc = cc_env_known_prefixes(ctx, in, &st->prefixes)) != CUDNNCTL_E_OK)
        return rc;
    cudnnctl_env_selection *s = st->s = calloc(1, sizeof(*s));
    if (!s)
        return sel_oom(ctx);
    s->toolkit_major = s->toolkit_minor = s->cudnn_cuda_major = -1;
    if (target && !cc_env_is_version(target) &&
        (rc = sel_dir_target(ctx, st, &target)) != CUDNNCTL_E_OK)
        return rc;
    if ((rc = sel_scan_prefixes(ctx, st)) != CUDNNCTL_E_OK ||
        (rc = sel_resolve(ctx, st, target)) != CUDNNCTL_E_OK)
        return rc;
    if ((flags & CUDNNCTL_SELECT_FOLLOW) && !target && (rc = sel_follow(ctx, st)) != CUDNNCTL_E_OK)
        return rc;
    s->windows = cc_env_is_windows_path(s->toolkit_path) || cc_env_is_windows_path(s->cudnn_path);
    if ((rc = add_dirs(ctx, s, &st->l)) != CUDNNCTL_E_OK ||
        (rc = cc_env_build_dirs(ctx, s)) != CUDNNCTL_E_OK)
        return rc;
    return sel_managed(ctx, st);
}

cudnnctl_err cudnnctl_env_select(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                                 const char *target, unsigned flags, cudnnctl_env_selection **out)
{
    *out = NULL;
    cudnnctl_err rc = cc_refuse_ctl_path(ctx, "the env target", target);
    for (size_t i = 0; in && rc == CUDNNCTL_E_OK && i < in->n_prefixes; i++)
        rc = cc_refuse_ctl_path(ctx, "--prefix", in->prefixes[i]);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    sel_state st = {0};
    st.ii = -1;
    rc = sel_run(ctx, &st, in, target, flags);
    if (rc == CUDNNCTL_E_OK) {
        cudnnctl_env_selection *s = st.s;
        take(&st.l.bins, &s->bin_dirs, &s->n_bin_dirs);
        take(&st.l.libs, &s->lib_dirs, &s->n_lib_dirs);
        take(&st.l.roots, &s->roots, &s->n_roots);
        take(&st.l.managed, &s->managed, &s->n_managed);
        take(&st.l.notes, &s->notes, &s->n_notes);
        *out = s;
        st.s = NULL;
    }
    for (size_t p = 0; st.px && p < st.npx; p++)
        cc_env_prefix_free(&st.px[p]);
    free(st.px);
    cc_strv_free(&st.prefixes);
    lists_free(&st.l);
    cudnnctl_env_selection_free(st.s);
    cudnnctl_detect_result_free(st.owned);
    free(st.real);
    free(st.abs_target);
    return rc;
}

cudnnctl_err cudnnctl_env_selection_json(const cudnnctl_env_selection *s, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return CUDNNCTL_E_NOMEM;
    if (s->toolkit_path) {
        cJSON *t = cJSON_AddObjectToObject(o, "toolkit");
        cJSON_AddStringToObject(t, "path", s->toolkit_path);
        if (s->toolkit_version)
            cJSON_AddStringToObject(t, "version", s->toolkit_version);
        else
            cJSON_AddNullToObject(t, "version");
        cJSON_AddNumberToObject(t, "major", s->toolkit_major);
        cJSON_AddNumberToObject(t, "minor", s->toolkit_minor);
    } else {
        cJSON_AddNullToObject(o, "toolkit");
    }
    if (s->cudnn_path) {
        cJSON *c = cJSON_AddObjectToObject(o, "cudnn");
        cJSON_AddStringToObject(c, "path", s->cudnn_path);
        cJSON_AddStringToObject(c, "version", s->cudnn_version ? s->cudnn_version : "");
        cJSON_AddNumberToObject(c, "cuda_major", s->cudnn_cuda_major);
        cJSON_AddStringToObject(c, "prefix", s->prefix ? s->prefix : "");
    } else {
        cJSON_AddNullToObject(o, "cudnn");
    }
    cc_json_strs(o, "path_prepend", s->bin_dirs, s->n_bin_dirs);
    cc_json_strs(o, "lib_dirs", s->lib_dirs, s->n_lib_dirs);
    cc_json_strs(o, "roots", s->roots, s->n_roots);
    cc_json_strs(o, "managed", s->managed, s->n_managed);
    cJSON_AddBoolToObject(o, "windows", s->windows);
    cJSON_AddBoolToObject(o, "follow", s->follow);
    cc_json_strs(o, "notes", s->notes, s->n_notes);
    cJSON *b = cJSON_AddObjectToObject(o, "build");
    cc_env_list_var lv[CC_ENV_LIST_VARS];
    size_t nl = cc_env_list_vars(s, lv), nv = 0;
    for (size_t i = 0; b && i < nl; i++)
        cc_json_strs(b, lv[i].name, lv[i].dirs, lv[i].n);
    const cudnnctl_build_var *bv = cudnnctl_env_build_vars(&nv);
    cJSON *vars = b ? cJSON_AddObjectToObject(b, "vars") : NULL;
    for (size_t i = 0; vars && i < nv; i++) {
        const char *val = cudnnctl_env_build_value(s, &bv[i]);
        if (val)
            cJSON_AddStringToObject(vars, bv[i].name, val);
    }
    return cc_json_out(o, 0, json);
}
