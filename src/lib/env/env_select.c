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

cudnnctl_err cudnnctl_env_select(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in,
                                 const char *target, unsigned flags, cudnnctl_env_selection **out)
{
    *out = NULL;
    const cudnnctl_detect_result *det = NULL;
    cudnnctl_detect_result *owned = NULL;
    cc_strv prefixes = {0};
    cc_env_prefix *px = NULL;
    size_t npx = 0;
    sel_lists l = {0};
    char *real = NULL, *abs_target = NULL;
    cudnnctl_env_selection *s = NULL;
    const cudnnctl_toolkit *tk = NULL;
    size_t pi = 0;
    int ii = -1;
    cudnnctl_err rc = cc_env_detect(ctx, in, &det, &owned);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    if ((rc = cc_env_known_prefixes(ctx, in, &prefixes)) != CUDNNCTL_E_OK)
        goto out;
    s = calloc(1, sizeof(*s));
    if (!s)
        goto oom;
    s->toolkit_major = s->toolkit_minor = s->cudnn_cuda_major = -1;

    int prefix_target = 0;
    if (target && !cc_env_is_version(target)) {
        if (!(abs_target = cc_env_abs(ctx, target)))
            goto oom;
        target = abs_target;
        if (!cc_env_is_dir(ctx, target)) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                        "%s is not a directory; give a toolkit version (X.Y), a toolkit dir or a "
                        "cudnnctl prefix",
                        target);
            goto out;
        }
        real = cc_env_realpath(ctx, target);
        if (!real)
            goto oom;
        /* an install dir or a prefix named directly joins the prefixes looked at */
        char *parent = cc_path_dir(real);
        if (!parent)
            goto oom;
        if (cc_env_parse_install_name(cc_path_base(real), NULL, NULL))
            push_uniq(&prefixes, parent);
        else
            push_uniq(&prefixes, real);
        free(parent);
    }
    px = calloc(prefixes.n ? prefixes.n : 1, sizeof(*px));
    if (!px)
        goto oom;
    for (; npx < prefixes.n; npx++)
        if ((rc = cc_env_scan_prefix(ctx, prefixes.v[npx], &px[npx])) != CUDNNCTL_E_OK) {
            npx++;
            goto out;
        }

    if (!target) {
        /* the toolkit `use` selected (/usr/local/cuda), whatever CUDA_HOME a previous
         * activation left in this session; detect's active toolkit where there is no link */
        char *lr = cc_env_has_cuda_link(ctx) ? cc_env_realpath(ctx, "/usr/local/cuda") : NULL;
        for (size_t i = 0; lr && det && i < det->n_toolkits && !tk; i++) {
            char *r = cc_env_realpath(ctx, det->toolkits[i].path);
            if (r && strcmp(r, lr) == 0)
                tk = &det->toolkits[i];
            free(r);
        }
        if (lr && !tk) {
            s->toolkit_path = lr;
            lr = NULL;
            cc_env_read_toolkit_version(ctx, s->toolkit_path, &s->toolkit_version,
                                        &s->toolkit_major, &s->toolkit_minor);
        }
        free(lr);
        if (!tk && !s->toolkit_path)
            tk = cudnnctl_detect_active_toolkit(det);
        if (!tk && !s->toolkit_path) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                        "no CUDA toolkit found; install one, or name a toolkit dir or a cudnnctl "
                        "prefix: cudnnctl env DIR");
            goto out;
        }
    } else if (cc_env_is_version(target)) {
        if (!(tk = cc_env_find_toolkit(ctx, det, target))) {
            rc = cudnnctl_last_error(ctx)->code;
            goto out;
        }
    } else if (target_install(ctx, real, px, npx, &pi, &ii)) {
        prefix_target = 1;
    } else {
        /* a prefix: its current install, else its newest */
        for (size_t p = 0; p < npx && ii < 0; p++) {
            char *r = cc_env_realpath(ctx, px[p].prefix);
            if (r && strcmp(r, real) == 0 && px[p].n > 0) {
                pi = p;
                ii = px[p].current >= 0 ? px[p].current : newest_install(&px[p]);
                prefix_target = 1;
            }
            free(r);
        }
        if (!prefix_target) {
            /* a toolkit dir: detect's entry when it found it, else its own version files */
            for (size_t i = 0; det && i < det->n_toolkits && !tk; i++) {
                char *r = cc_env_realpath(ctx, det->toolkits[i].path);
                if (r && strcmp(r, real) == 0)
                    tk = &det->toolkits[i];
                free(r);
            }
            if (!tk) {
                s->toolkit_path = cc_strdup(real);
                if (!s->toolkit_path)
                    goto oom;
                if (cc_env_read_toolkit_version(ctx, real, &s->toolkit_version, &s->toolkit_major,
                                                &s->toolkit_minor) != 0 &&
                    note(&l, cc_asprintf("could not read the CUDA version of %s", real)) != 0)
                    goto oom;
            }
        }
    }
    if (prefix_target) {
        s->cudnn_cuda_major = px[pi].v[ii].cuda_major;
        if (!tk)
            tk = toolkit_for_major(det, s->cudnn_cuda_major);
        if (!tk && note(&l, cc_asprintf("no CUDA %d toolkit found: only cuDNN is activated",
                                        s->cudnn_cuda_major)) != 0)
            goto oom;
    }
    if (tk) {
        s->toolkit_path = cc_env_realpath(ctx, tk->path);
        s->toolkit_version = tk->version ? cc_strdup(tk->version) : NULL;
        s->toolkit_major = tk->major;
        s->toolkit_minor = tk->minor;
        if (!s->toolkit_path)
            goto oom;
    }
    if (!prefix_target && s->toolkit_major >= 0) {
        for (size_t p = 0; p < npx && ii < 0; p++)
            if ((ii = cc_env_prefix_pick(&px[p], s->toolkit_major)) >= 0)
                pi = p;
    }
    if (ii >= 0) {
        s->cudnn_path = cc_strdup(px[pi].v[ii].path);
        s->cudnn_version = cc_strdup(px[pi].v[ii].version);
        s->cudnn_cuda_major = px[pi].v[ii].cuda_major;
        s->prefix = cc_strdup(px[pi].prefix);
        if (!s->cudnn_path || !s->cudnn_version || !s->prefix)
            goto oom;
    }
    if ((flags & CUDNNCTL_SELECT_FOLLOW) && !target) {
        /* refer to the links `use` flips, so persistent wiring follows later switches */
        char *link_real =
            cc_env_has_cuda_link(ctx) ? cc_env_realpath(ctx, "/usr/local/cuda") : NULL;
        if (link_real && s->toolkit_path && strcmp(link_real, s->toolkit_path) == 0) {
            free(s->toolkit_path);
            if (!(s->toolkit_path = cc_strdup("/usr/local/cuda"))) {
                free(link_real);
                goto oom;
            }
        }
        free(link_real);
        if (ii >= 0 && px[pi].current == ii) {
            free(s->cudnn_path);
            if (!(s->cudnn_path = cc_path_join(px[pi].prefix, "current")))
                goto oom;
        }
        s->follow = 1;
    }
    s->windows = cc_env_is_windows_path(s->toolkit_path) || cc_env_is_windows_path(s->cudnn_path);
    if ((rc = add_dirs(ctx, s, &l)) != CUDNNCTL_E_OK)
        goto out;

    /* roots: the selection's own dirs; managed: every dir whose entries an activation drops */
    if (s->toolkit_path && !cc_env_is_shared_root(s->toolkit_path) &&
        push_uniq(&l.roots, s->toolkit_path) != 0)
        goto oom;
    if (s->cudnn_path && push_uniq(&l.roots, s->cudnn_path) != 0)
        goto oom;
    for (size_t i = 0; i < l.roots.n; i++)
        if (push_managed(ctx, &l.managed, l.roots.v[i]) != 0)
            goto oom;
    for (size_t i = 0; det && i < det->n_toolkits; i++)
        if (!is_foreign_origin(&det->toolkits[i]) &&
            push_managed(ctx, &l.managed, det->toolkits[i].path) != 0)
            goto oom;
    for (size_t p = 0; p < npx; p++) {
        if (px[p].n == 0)
            continue;
        /* the prefix, and its installs one by one for shells that cannot match a prefix of a
         * path (cmd.exe replaces exact entries only) */
        char *cur = cc_path_join(px[p].prefix, "current");
        int bad = !cur || push_managed(ctx, &l.managed, px[p].prefix) != 0 ||
                  push_uniq(&l.managed, cur) != 0;
        free(cur);
        for (size_t i = 0; !bad && i < px[p].n; i++)
            bad = push_uniq(&l.managed, px[p].v[i].path) != 0;
        if (bad)
            goto oom;
    }
    if (s->prefix && s->toolkit_major >= 0 && s->cudnn_cuda_major != s->toolkit_major &&
        note(&l, cc_asprintf("the cuDNN in %s is built for CUDA %d, the toolkit is CUDA %d",
                             s->cudnn_path, s->cudnn_cuda_major, s->toolkit_major)) != 0)
        goto oom;
    take(&l.bins, &s->bin_dirs, &s->n_bin_dirs);
    take(&l.libs, &s->lib_dirs, &s->n_lib_dirs);
    take(&l.roots, &s->roots, &s->n_roots);
    take(&l.managed, &s->managed, &s->n_managed);
    take(&l.notes, &s->notes, &s->n_notes);
    *out = s;
    s = NULL;
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    for (size_t p = 0; px && p < npx; p++)
        cc_env_prefix_free(&px[p]);
    free(px);
    cc_strv_free(&prefixes);
    lists_free(&l);
    cudnnctl_env_selection_free(s);
    cudnnctl_detect_result_free(owned);
    free(real);
    free(abs_target);
    return rc;
}

static cJSON *str_array(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
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
    cJSON_AddItemToObject(o, "path_prepend", str_array(s->bin_dirs, s->n_bin_dirs));
    cJSON_AddItemToObject(o, "lib_dirs", str_array(s->lib_dirs, s->n_lib_dirs));
    cJSON_AddItemToObject(o, "roots", str_array(s->roots, s->n_roots));
    cJSON_AddItemToObject(o, "managed", str_array(s->managed, s->n_managed));
    cJSON_AddBoolToObject(o, "windows", s->windows);
    cJSON_AddBoolToObject(o, "follow", s->follow);
    cJSON_AddItemToObject(o, "notes", str_array(s->notes, s->n_notes));
    return cc_json_out(o, 0, json);
}
