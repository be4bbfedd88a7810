/* use.c: switching the active CUDA toolkit: /usr/local/cuda (a plain link flipped atomically, or
 * an update-alternatives group), /usr/local/cuda-<M>, each prefix's `current` cuDNN install, and
 * an existing /etc/ld.so.conf.d/cudnnctl-*.conf. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envwire_int.h"
#include "grow.h"
#include "lock.h"

#define CUDA_LINK "/usr/local/cuda"

void cudnnctl_cuda_link_free(cudnnctl_cuda_link *l)
{
    if (!l)
        return;
    free(l->link);
    free(l->target);
    free(l->alt_name);
    free(l->alt_mode);
    for (size_t i = 0; i < l->n_alt_choices; i++)
        free(l->alt_choices[i]);
    free(l->alt_choices);
    free(l);
}

const char *cudnnctl_cuda_link_kind_name(cudnnctl_cuda_link_kind kind)
{
    static const char *const names[] = {"missing", "link", "alternatives", "directory", "other"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "other";
}

const char *cudnnctl_use_mechanism_name(cudnnctl_use_mechanism mechanism)
{
    static const char *const names[] = {"", "link", "alternatives", "update-alternatives",
                                        "registry"};
    return (unsigned)mechanism < sizeof(names) / sizeof(names[0]) ? names[mechanism] : "";
}

cudnnctl_err cudnnctl_cuda_link_info(cudnnctl_ctx *ctx, cudnnctl_cuda_link **out)
{
    *out = NULL;
    cudnnctl_cuda_link *l = calloc(1, sizeof(*l));
    char *real = cc_rooted(ctx, CUDA_LINK);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!l || !real || !(l->link = cc_strdup(CUDA_LINK)))
        goto oom;
    cc_pf_stat_t st;
    if (cc_host_is_windows(ctx)) {
        memset(&st, 0, sizeof(st)); /* no /usr/local/cuda on Windows: "missing" */
    } else if (cc_pf_lstat(real, &st) != 0) {
        rc = CC_ERR_PF(ctx, "cannot inspect", CUDA_LINK);
        goto out;
    }
    l->kind = !st.exists   ? CUDNNCTL_CUDA_LINK_MISSING
              : st.is_link ? CUDNNCTL_CUDA_LINK_LINK
              : st.is_dir  ? CUDNNCTL_CUDA_LINK_DIRECTORY
                           : CUDNNCTL_CUDA_LINK_OTHER;
    l->mechanism = cc_host_is_windows(ctx) ? CUDNNCTL_MECH_REGISTRY : CUDNNCTL_MECH_LINK;
    if (st.is_link && cc_alt_manages(ctx, CUDA_LINK, &l->alt_name)) {
        l->kind = CUDNNCTL_CUDA_LINK_ALTERNATIVES;
        l->mechanism = ctx->root ? CUDNNCTL_MECH_ALTERNATIVES : CUDNNCTL_MECH_UPDATE_ALTERNATIVES;
        cc_alt a;
        if ((rc = cc_alt_load(ctx, l->alt_name, &a)) != CUDNNCTL_E_OK)
            goto out;
        l->alt_mode = cc_strdup(a.mode);
        l->alt_choices = calloc(a.n_choices ? a.n_choices : 1, sizeof(char *));
        for (size_t i = 0; l->alt_choices && i < a.n_choices; i++)
            if ((l->alt_choices[l->n_alt_choices] = cc_strdup(a.choices[i].path)) != NULL)
                l->n_alt_choices++;
        int bad = !l->alt_mode || !l->alt_choices || l->n_alt_choices != a.n_choices;
        cc_alt_free(&a);
        if (bad)
            goto oom;
    }
    if (st.exists && cc_env_is_dir(ctx, CUDA_LINK) &&
        !(l->target = cc_env_realpath(ctx, CUDA_LINK)))
        goto oom;
    *out = l;
    l = NULL;
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(real);
    cudnnctl_cuda_link_free(l);
    return rc;
}

static int add_note(cudnnctl_use_result *r, char *text)
{
    if (!text)
        return -1;
    return cc_strs_push(&r->notes, &r->n_notes, text);
}

/* Point a plain link at @p dest unless it already leads there. */
static cudnnctl_err flip_link(cudnnctl_ctx *ctx, const char *link, const char *dest,
                              cudnnctl_changes *ch)
{
    char *now = cc_env_is_dir(ctx, link) ? cc_env_realpath(ctx, link) : NULL;
    char *want = cc_env_realpath(ctx, dest);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (now && want && strcmp(now, want) == 0) {
        if (cc_changes_add(ch, "keep", link, dest) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else {
        char *text = cc_env_link_text(link, dest);
        rc = text ? cc_env_replace_link(ctx, link, text, ch)
                  : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(text);
    }
    free(now);
    free(want);
    return rc;
}

/* Select @p dest in the alternatives group @p name unless it is already the manual choice. */
static cudnnctl_err flip_alt(cudnnctl_ctx *ctx, const char *link, const char *name,
                             const char *dest, cudnnctl_changes *ch)
{
    cc_alt a;
    cudnnctl_err rc = cc_alt_load(ctx, name, &a);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    char *now = cc_env_is_dir(ctx, link) ? cc_env_realpath(ctx, link) : NULL;
    char *want = cc_env_realpath(ctx, dest);
    int same = now && want && strcmp(now, want) == 0 && strcmp(a.mode, "manual") == 0;
    cc_alt_free(&a);
    free(now);
    free(want);
    if (same)
        return cc_changes_add(ch, "keep", link, dest) ? CC_ERR(ctx, CUDNNCTL_E_NOMEM, "oom")
                                                      : CUDNNCTL_E_OK;
    return cc_alt_set(ctx, name, dest, ch);
}

/* /usr/local/cuda-<M>: follows when it is a link (plain, or its own alternatives group in which
 * the toolkit is registered); a real dir or a missing one is left alone. */
static cudnnctl_err flip_major(cudnnctl_ctx *ctx, int major, const char *dest,
                               cudnnctl_use_result *r)
{
    char *link = cc_asprintf("/usr/local/cuda-%d", major);
    char *real = link ? cc_rooted(ctx, link) : NULL;
    char *name = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_pf_stat_t st;
    if (!real) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (cc_pf_lstat(real, &st) != 0 || !st.exists || !st.is_link)
        goto out;
    if (cc_alt_manages(ctx, link, &name)) {
        cc_alt a;
        if ((rc = cc_alt_load(ctx, name, &a)) != CUDNNCTL_E_OK)
            goto out;
        int idx = cc_alt_find(ctx, &a, dest);
        cc_alt_free(&a);
        if (idx < 0) {
            if (add_note(r, cc_asprintf("%s is managed by the alternatives group '%s', in which %s "
                                        "is not registered: left as it is",
                                        link, name, dest)) != 0)
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        rc = flip_alt(ctx, link, name, dest, &r->changes);
    } else {
        rc = flip_link(ctx, link, dest, &r->changes);
    }
out:
    free(link);
    free(real);
    free(name);
    return rc;
}

/* Each known prefix: `current` to its install for CUDA @p major. */
static cudnnctl_err flip_prefixes(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, int major,
                                  cudnnctl_use_result *r)
{
    cc_strv prefixes = {0};
    cudnnctl_err rc = cc_env_known_prefixes(ctx, in, &prefixes);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < prefixes.n; i++) {
        cc_env_prefix p;
        if ((rc = cc_env_scan_prefix(ctx, prefixes.v[i], &p)) != CUDNNCTL_E_OK)
            break;
        int idx = cc_env_prefix_pick(&p, major);
        if (idx < 0) {
            if (p.n > 0 &&
                add_note(r, cc_asprintf("%s has no cuDNN for CUDA %d (its `current` stays); "
                                        "install one: cudnnctl install --cuda %d --prefix %s",
                                        p.prefix, major, major, p.prefix)) != 0)
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        } else {
            char *cur = cc_path_join(p.prefix, "current");
            if (!cur)
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            else if (idx == p.current)
                rc = cc_changes_add(&r->changes, "keep", cur, cc_path_base(p.v[idx].path))
                         ? CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory")
                         : CUDNNCTL_E_OK;
            else
                rc = cc_env_replace_link(ctx, cur, cc_path_base(p.v[idx].path), &r->changes);
            free(cur);
            if (rc == CUDNNCTL_E_OK && !r->cudnn_path &&
                !(r->cudnn_path = cc_strdup(p.v[idx].path)))
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        cc_env_prefix_free(&p);
    }
    cc_strv_free(&prefixes);
    return rc;
}

/* Point /usr/local/cuda (the link, or the update-alternatives group that manages it), then
 * cuda-<major> and the prefixes' links at dest; a real directory or file there is refused. */
static cudnnctl_err flip_all(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, const char *version,
                             const cudnnctl_toolkit *tk, const char *dest, cudnnctl_use_result *r)
{
    cudnnctl_cuda_link *info = NULL;
    cudnnctl_err rc = cudnnctl_cuda_link_info(ctx, &info);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (info->target && !(r->previous = cc_strdup(info->target)))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (info->kind == CUDNNCTL_CUDA_LINK_DIRECTORY || info->kind == CUDNNCTL_CUDA_LINK_OTHER)
        rc = CC_ERR(ctx, CUDNNCTL_E_ENV,
                    "%s is a real %s, not a link: cudnnctl will not replace it; move it to "
                    "/usr/local/cuda-<its version> and run cudnnctl use %s again",
                    CUDA_LINK, info->kind == CUDNNCTL_CUDA_LINK_DIRECTORY ? "directory" : "file",
                    version);
    else {
        r->mechanism = info->mechanism;
        rc = info->kind == CUDNNCTL_CUDA_LINK_ALTERNATIVES
                 ? flip_alt(ctx, CUDA_LINK, info->alt_name, dest, &r->changes)
                 : flip_link(ctx, CUDA_LINK, dest, &r->changes);
    }
    cudnnctl_cuda_link_free(info);
    if (rc == CUDNNCTL_E_OK && tk->major >= 0)
        rc = flip_major(ctx, tk->major, dest, r);
    if (rc == CUDNNCTL_E_OK && tk->major >= 0)
        rc = flip_prefixes(ctx, in, tk->major, r);
    return rc;
}

cudnnctl_err cudnnctl_use(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, const char *version,
                          unsigned flags, cudnnctl_use_result **out)
{
    *out = NULL;
    if (!version || !*version)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "use needs a toolkit version: cudnnctl use X.Y");
    if (cc_host_is_windows(ctx)) /* CUDA_PATH / PATH in the registry */
        return cc_use_windows(ctx, in, version, flags, out);
    cc_use_run u = CC_USE_RUN_INIT;
    cudnnctl_env_selection *sel = NULL;
    cudnnctl_err rc = cc_env_use_target(ctx, in, version, 1, &u.det, &u.owned, &u.tk, &u.r);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    cudnnctl_use_result *r = u.r;
    const cudnnctl_detect_result *det = u.det;
    const char *dest = r->toolkit_path;
    if (cc_env_is_shared_root(dest)) {
        rc = CC_ERR(ctx, CUDNNCTL_E_ENV,
                    "the CUDA %s at %s belongs to the distribution's packages, not to "
                    "/usr/local/cuda; activate it per shell: cudnnctl env %s",
                    version, dest, version);
        goto out;
    }
    /* an ld.so.conf.d entry follows the switch: refused before anything flips when the dirs it
     * would then register fail the trust rule (the selection is the same after the flips) */
    cudnnctl_env_inputs in1 = {det, in ? in->prefixes : NULL, in ? in->n_prefixes : 0};
    if ((rc = cudnnctl_env_select(ctx, &in1, dest, 0, &sel)) != CUDNNCTL_E_OK ||
        (rc = cc_env_ldconf_allowed(ctx, sel, 1, "use")) != CUDNNCTL_E_OK)
        goto out;
    cudnnctl_env_selection_free(sel);
    sel = NULL;
    /* installs flip PREFIX/current too: one of us at a time */
    if ((rc = cc_use_run_lock(ctx, &u)) != CUDNNCTL_E_OK ||
        (rc = flip_all(ctx, in, version, u.tk, dest, r)) != CUDNNCTL_E_OK)
        goto out;
    /* an ld.so.conf.d entry written by `env --persist --system` follows the switch */
    cudnnctl_env_inputs in2 = {det, in ? in->prefixes : NULL, in ? in->n_prefixes : 0};
    if ((rc = cudnnctl_env_select(ctx, &in2, dest, 0, &sel)) != CUDNNCTL_E_OK ||
        (rc = cc_env_write_ldconf(ctx, sel, 1, (flags & CUDNNCTL_USE_NO_LDCONFIG) != 0,
                                  &r->changes)) != CUDNNCTL_E_OK)
        goto out;
    for (size_t i = 0; i < r->changes.n; i++)
        if (strcmp(r->changes.v[i].action, "keep") != 0)
            r->changed = 1;
out:
    cudnnctl_env_selection_free(sel);
    return cc_use_run_end(ctx, &u, rc, out);
}

cudnnctl_err cudnnctl_use_result_json(const cudnnctl_use_result *r, char **json)
{
    *json = NULL;
    char *changes = NULL;
    if (cudnnctl_changes_json(&r->changes, &changes) != CUDNNCTL_E_OK)
        return CUDNNCTL_E_NOMEM;
    cJSON *o = cJSON_CreateObject();
    cJSON *t = o ? cJSON_AddObjectToObject(o, "toolkit") : NULL;
    if (!t) {
        free(changes);
        cJSON_Delete(o);
        return CUDNNCTL_E_NOMEM;
    }
    cJSON_AddStringToObject(t, "path", r->toolkit_path);
    if (r->toolkit_version)
        cJSON_AddStringToObject(t, "version", r->toolkit_version);
    else
        cJSON_AddNullToObject(t, "version");
    if (r->previous)
        cJSON_AddStringToObject(o, "previous", r->previous);
    else
        cJSON_AddNullToObject(o, "previous");
    cJSON_AddStringToObject(o, "mechanism", cudnnctl_use_mechanism_name(r->mechanism));
    if (r->cudnn_path)
        cJSON_AddStringToObject(o, "cudnn", r->cudnn_path);
    else
        cJSON_AddNullToObject(o, "cudnn");
    cJSON_AddBoolToObject(o, "changed", r->changed);
    cJSON_AddItemToObject(o, "changes", cJSON_Parse(changes));
    cJSON *n = cJSON_AddArrayToObject(o, "notes");
    for (size_t i = 0; n && i < r->n_notes; i++)
        cJSON_AddItemToArray(n, cJSON_CreateString(r->notes[i]));
    free(changes);
    *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

cudnnctl_err cudnnctl_use_status_json(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                      const cudnnctl_cuda_link *link, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *ts = o ? cJSON_AddArrayToObject(o, "toolkits") : NULL;
    const cudnnctl_toolkit *act = cudnnctl_detect_active_toolkit(det);
    if (!ts) {
        cJSON_Delete(o);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; det && i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddItemToArray(ts, e);
        cJSON_AddStringToObject(e, "path", t->path ? t->path : "");
        cJSON_AddStringToObject(e, "version", t->version ? t->version : "");
        cJSON_AddNumberToObject(e, "major", t->major);
        cJSON_AddNumberToObject(e, "minor", t->minor);
        cJSON_AddBoolToObject(e, "active", t->active);
        char *r = cc_env_realpath(ctx, t->path);
        cJSON_AddBoolToObject(e, "selected",
                              r && link && link->target && strcmp(r, link->target) == 0);
        free(r);
    }
    if (act && act->path)
        cJSON_AddStringToObject(o, "active", act->path);
    else
        cJSON_AddNullToObject(o, "active");
    if (link) {
        cJSON *l = cJSON_AddObjectToObject(o, "link");
        cJSON_AddStringToObject(l, "link", link->link);
        cJSON_AddStringToObject(l, "kind", cudnnctl_cuda_link_kind_name(link->kind));
        if (link->target)
            cJSON_AddStringToObject(l, "target", link->target);
        else
            cJSON_AddNullToObject(l, "target");
        if (link->alt_name) {
            cJSON_AddStringToObject(l, "alt_name", link->alt_name);
            cJSON_AddStringToObject(l, "alt_mode", link->alt_mode ? link->alt_mode : "");
            cJSON *c = cJSON_AddArrayToObject(l, "alt_choices");
            for (size_t i = 0; c && i < link->n_alt_choices; i++)
                cJSON_AddItemToArray(c, cJSON_CreateString(link->alt_choices[i]));
        }
    } else {
        cJSON_AddNullToObject(o, "link");
    }
    *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!*json)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}
