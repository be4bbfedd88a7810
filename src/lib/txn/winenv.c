/* winenv.c: CUDA_PATH, CUDA_PATH_Vx_y and PATH in the Windows registry (user or machine
 * environment), applied idempotently and recorded so that an uninstall restores them exactly. */
#include "winenv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static const char *type_name(int t)
{
    switch (t) {
    case CC_PF_REG_SZ:
        return "REG_SZ";
    case CC_PF_REG_EXPAND_SZ:
        return "REG_EXPAND_SZ";
    case CC_PF_REG_DWORD:
        return "REG_DWORD";
    case CC_PF_REG_NONE:
        return "none";
    default:
        return "other";
    }
}

static int type_of(const char *s)
{
    if (!s || strcmp(s, "none") == 0)
        return CC_PF_REG_NONE;
    if (strcmp(s, "REG_SZ") == 0)
        return CC_PF_REG_SZ;
    if (strcmp(s, "REG_EXPAND_SZ") == 0)
        return CC_PF_REG_EXPAND_SZ;
    if (strcmp(s, "REG_DWORD") == 0)
        return CC_PF_REG_DWORD;
    return CC_PF_REG_OTHER;
}

/* A PATH entry in a comparable form: %CUDA_PATH% replaced by @p cuda_path (when given), other
 * %VAR% expanded, '/' -> '\', no trailing '\' (except "C:\"), lower case. */
static char *norm_entry(cudnnctl_ctx *ctx, const char *e, const char *cuda_path)
{
    char *s = NULL;
    const char *tag = "%CUDA_PATH%";
    size_t tl = strlen(tag);
    if (cuda_path && strlen(e) >= tl) {
        char head[16];
        memcpy(head, e, tl);
        head[tl] = '\0';
        if (cc_str_ieq(head, tag))
            s = cc_asprintf("%s%s", cuda_path, e + tl);
    }
    if (!s)
        s = cc_strdup(e);
    if (s && strchr(s, '%')) {
        char *x = cc_host_expand_env(ctx, s);
        if (x) {
            free(s);
            s = x;
        }
    }
    if (!s)
        return NULL;
    for (char *p = s; *p; p++)
        *p = *p == '/' ? '\\' : (char)tolower((unsigned char)*p);
    size_t n = strlen(s);
    while (n > 3 && s[n - 1] == '\\')
        s[--n] = '\0';
    return s;
}

static int in_list(const char *norm, const cc_strv *v)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(norm, v->v[i]) == 0)
            return 1;
    return 0;
}

/* The non-empty entries of a PATH value; -1 when out of memory. */
static int split_path(const char *value, cc_strv *out)
{
    const char *p = value ? value : "";
    while (*p) {
        const char *semi = strchr(p, ';');
        size_t n = semi ? (size_t)(semi - p) : strlen(p);
        if (n && cc_strv_push_own(out, cc_strndup(p, n)) != 0)
            return -1;
        p += n + (semi ? 1 : 0);
    }
    return 0;
}

static char *join_path(const cc_strv *v)
{
    cc_buf b = {0};
    for (size_t i = 0; i < v->n; i++) {
        if ((i && cc_buf_append(&b, ";", 1) != 0) ||
            cc_buf_append(&b, v->v[i], strlen(v->v[i])) != 0) {
            free(b.data);
            return NULL;
        }
    }
    return b.data ? b.data : cc_strdup("");
}

static cudnnctl_err record(cudnnctl_ctx *ctx, cJSON *changes, const char *key, const char *name,
                           const char *old, int old_type, const char *nw, int new_type)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "kind", "registry") ||
        !cJSON_AddStringToObject(o, "key", key) || !cJSON_AddStringToObject(o, "name", name) ||
        !(old ? cJSON_AddStringToObject(o, "old", old) : cJSON_AddNullToObject(o, "old")) ||
        !cJSON_AddStringToObject(o, "old_type", type_name(old_type)) ||
        !cJSON_AddStringToObject(o, "new", nw) ||
        !cJSON_AddStringToObject(o, "new_type", type_name(new_type)) ||
        !cJSON_AddItemToArray(changes, o)) {
        cJSON_Delete(o);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    return CUDNNCTL_E_OK;
}

static cudnnctl_err reg_fail(cudnnctl_ctx *ctx, const char *what, const char *key, const char *name,
                             int system)
{
    cudnnctl_err code = cc_pf_last_error();
    if (code == CUDNNCTL_E_OK)
        code = CUDNNCTL_E_IO;
    CC_RET_ERR(ctx, code, "cannot %s %s\\%s: %s%s", what, key, name, cc_pf_last_error_text(),
               system ? ". The machine environment needs an elevated prompt (Run as "
                        "administrator); without --system only your user environment changes"
                      : "");
}

static cudnnctl_err set_value(cudnnctl_ctx *ctx, const cc_winenv_want *w, const char *key,
                              const char *name, const char *value, int keep_type, cJSON *changes,
                              int *n)
{
    char *old = NULL;
    int old_type = CC_PF_REG_NONE;
    if (cc_host_reg_get(ctx, key, name, &old, &old_type) != 0)
        return reg_fail(ctx, "read", key, name, w->system);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int type = keep_type && (old_type == CC_PF_REG_SZ || old_type == CC_PF_REG_EXPAND_SZ)
                   ? old_type
                   : (keep_type ? CC_PF_REG_EXPAND_SZ : CC_PF_REG_SZ);
    if (old && old_type == type && strcmp(old, value) == 0)
        goto out;
    if (!w->dry && cc_host_reg_set(ctx, key, name, value, type) != 0) {
        rc = reg_fail(ctx, "write", key, name, w->system);
        goto out;
    }
    rc = record(ctx, changes, key, name, old, old_type, value, type);
    (*n)++;
out:
    free(old);
    return rc;
}

cudnnctl_err cc_winenv_toolkit_bins(cudnnctl_ctx *ctx, const char *toolkit, cc_strv *out)
{
    char *bin = cc_path_join(toolkit, "bin");
    char *x64 = cc_path_join(toolkit, "bin/x64");
    cc_pf_stat_t st;
    char *real = x64 ? cc_rooted(ctx, x64) : NULL;
    int has_x64 = real && cc_pf_stat(real, &st) == 0 && st.exists && st.is_dir;
    free(real);
    int bad = !bin || !x64 || cc_strv_push_own(out, cc_host_native_path(ctx, bin)) != 0 ||
              (has_x64 && cc_strv_push_own(out, cc_host_native_path(ctx, x64)) != 0);
    free(bin);
    free(x64);
    if (bad)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_winenv_install_bins(cudnnctl_ctx *ctx, int tree, const char *target,
                                    const char *current, const char *bin_dir, cc_strv *out)
{
    /* real paths (under --root) in, shown paths out */
    char *tk = tree ? cc_unrooted(ctx, target) : NULL, *dir = NULL;
    if (tree && !tk)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = tree ? cc_winenv_toolkit_bins(ctx, tk, out) : CUDNNCTL_E_OK;
    free(tk);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (!tree && current) {
        char *shown = cc_unrooted(ctx, current);
        dir = shown ? cc_path_join(shown, "bin") : NULL;
        free(shown);
    } else if (bin_dir) {
        dir = cc_unrooted(ctx, bin_dir);
    } else {
        return CUDNNCTL_E_OK;
    }
    if (!dir || cc_strv_push_own(out, cc_host_native_path(ctx, dir)) != 0) {
        free(dir);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    free(dir);
    return CUDNNCTL_E_OK;
}

/* CUDA_PATH, and CUDA_PATH_V<major>_<minor> when the version is known, set to the toolkit tk. */
static cudnnctl_err set_cuda_path(cudnnctl_ctx *ctx, const cc_winenv_want *w, const char *key,
                                  const char *tk, cJSON *changes, int *n)
{
    cudnnctl_err rc = set_value(ctx, w, key, "CUDA_PATH", tk, 0, changes, n);
    int maj = -1, min = -1;
    if (rc == CUDNNCTL_E_OK && w->version && sscanf(w->version, "%d.%d", &maj, &min) == 2 &&
        maj >= 0 && min >= 0) {
        char name[40];
        snprintf(name, sizeof(name), "CUDA_PATH_V%d_%d", maj, min);
        rc = set_value(ctx, w, key, name, tk, 0, changes, n);
    }
    return rc;
}

/* The PATH entries to put first (want, once each; want_norm their comparable forms) and the
 * comparable forms of the entries cudnnctl manages (drop). 0, or -1 when out of memory. */
static int wanted_entries(cudnnctl_ctx *ctx, const cc_winenv_want *w, const char *tk, cc_strv *want,
                          cc_strv *want_norm, cc_strv *drop)
{
    for (size_t i = 0; i < w->n_bins; i++) {
        char *nat = cc_host_native_path(ctx, w->bins[i]);
        char *nm = nat ? norm_entry(ctx, nat, tk) : NULL;
        if (!nat || !nm) {
            free(nat);
            free(nm);
            return -1;
        }
        if (in_list(nm, want_norm)) {
            free(nat);
            free(nm);
            continue;
        }
        cc_strv_push_own(want, nat);
        cc_strv_push_own(want_norm, nm);
    }
    for (size_t i = 0; i < w->n_managed; i++) {
        char *nat = cc_host_native_path(ctx, w->managed[i]);
        char *nm = nat ? norm_entry(ctx, nat, tk) : NULL;
        free(nat);
        if (!nm || cc_strv_push_own(drop, nm) != 0)
            return -1;
    }
    return 0;
}

cudnnctl_err cc_winenv_apply(cudnnctl_ctx *ctx, const cc_winenv_want *w, cJSON *changes,
                             int *n_changed)
{
    const char *key = w->system ? CC_WINENV_SYSTEM_KEY : CC_WINENV_USER_KEY;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_strv want = {0}, want_norm = {0}, drop = {0}, old_v = {0}, new_v = {0};
    char *tk = w->toolkit ? cc_host_native_path(ctx, w->toolkit) : NULL, *old = NULL, *nw = NULL;
    int n = 0, old_type = CC_PF_REG_NONE;
    if (w->toolkit && !tk)
        goto oom;
    if (tk && (rc = set_cuda_path(ctx, w, key, tk, changes, &n)) != CUDNNCTL_E_OK)
        goto out;
    /* PATH: our dirs first, once; the user's entries after them in their order */
    if (wanted_entries(ctx, w, tk, &want, &want_norm, &drop) != 0)
        goto oom;
    if (cc_host_reg_get(ctx, key, "Path", &old, &old_type) != 0) {
        rc = reg_fail(ctx, "read", key, "Path", w->system);
        goto out;
    }
    if (split_path(old, &old_v) != 0)
        goto oom;
    for (size_t i = 0; i < want.n; i++)
        cc_strv_push(&new_v, want.v[i]);
    for (size_t i = 0; i < old_v.n; i++) {
        char *nm = norm_entry(ctx, old_v.v[i], tk);
        if (!nm)
            goto oom;
        int keep = !in_list(nm, &want_norm) && !in_list(nm, &drop);
        free(nm);
        if (keep)
            cc_strv_push(&new_v, old_v.v[i]);
    }
    if (!(nw = join_path(&new_v)))
        goto oom;
    if (want.n || w->n_managed)
        rc = set_value(ctx, w, key, "Path", nw, 1, changes, &n);
out:
    if (n && !w->dry)
        cc_host_env_broadcast(ctx); /* best effort: a failed broadcast changes nothing stored */
    if (n_changed)
        *n_changed = n;
    cc_strv_free(&want);
    cc_strv_free(&want_norm);
    cc_strv_free(&drop);
    cc_strv_free(&old_v);
    cc_strv_free(&new_v);
    free(tk);
    free(old);
    free(nw);
    return rc;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    goto out;
}

/* PATH changed since the install: remove what the install added (entries of new not in old). */
static char *path_without_added(const char *now, const char *old, const char *nw)
{
    cc_strv now_v = {0}, old_v = {0}, new_v = {0}, out_v = {0};
    char *r = NULL;
    if (split_path(now, &now_v) || split_path(old, &old_v) || split_path(nw, &new_v))
        goto out;
    for (size_t i = 0; i < now_v.n; i++) {
        int added = 0;
        for (size_t j = 0; j < new_v.n && !added; j++)
            added = cc_str_ieq(now_v.v[i], new_v.v[j]);
        for (size_t j = 0; j < old_v.n && added; j++)
            if (cc_str_ieq(now_v.v[i], old_v.v[j]))
                added = 0;
        if (!added)
            cc_strv_push(&out_v, now_v.v[i]);
    }
    r = join_path(&out_v);
out:
    cc_strv_free(&now_v);
    cc_strv_free(&old_v);
    cc_strv_free(&new_v);
    cc_strv_free(&out_v);
    return r;
}

cudnnctl_err cc_winenv_restore(cudnnctl_ctx *ctx, const cJSON *changes, cc_strv *warnings,
                               int *n_restored)
{
    int n = 0, count = cJSON_IsArray(changes) ? cJSON_GetArraySize(changes) : 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (int i = count - 1; i >= 0 && rc == CUDNNCTL_E_OK; i--) {
        const cJSON *c = cJSON_GetArrayItem(changes, i);
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "kind"));
        if (!kind || strcmp(kind, "registry") != 0)
            continue;
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "key"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
        const char *old = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "old"));
        const char *nw = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "new"));
        int old_type =
            type_of(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "old_type")));
        if (!key || !name || !nw)
            continue;
        int system = cc_str_starts(key, "HKLM");
        char *now = NULL;
        int now_type = CC_PF_REG_NONE;
        if (cc_host_reg_get(ctx, key, name, &now, &now_type) != 0) {
            rc = reg_fail(ctx, "read", key, name, system);
            break;
        }
        int as_written = now && strcmp(now, nw) == 0;
        int is_path = cc_str_ieq(name, "Path");
        char *put = NULL;
        int put_type = old_type;
        if (as_written) {
            put = old ? cc_strdup(old) : NULL;
        } else if (is_path && now) {
            put = path_without_added(now, old, nw);
            put_type = now_type;
            if (!put) {
                free(now);
                rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
                break;
            }
            if (strcmp(put, now) == 0) {
                free(put);
                free(now);
                continue;
            }
        } else {
            if (warnings)
                cc_strv_push_own(warnings,
                                 cc_asprintf("%s\\%s was changed after the install (now %s): "
                                             "left as it is",
                                             key, name, now ? now : "absent"));
            free(now);
            continue;
        }
        int bad = put || (as_written && old)
                      ? cc_host_reg_set(ctx, key, name, put ? put : "",
                                      put_type == CC_PF_REG_NONE ? CC_PF_REG_SZ : put_type)
                      : cc_host_reg_delete(ctx, key, name);
        if (bad)
            rc = reg_fail(ctx, "restore", key, name, system);
        else
            n++;
        free(put);
        free(now);
    }
    if (n)
        cc_host_env_broadcast(ctx);
    if (n_restored)
        *n_restored = n;
    return rc;
}

cudnnctl_err cc_winenv_use(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                           const char *toolkit, const char *version, int system, cJSON *changes,
                           int *n_changed)
{
    cc_strv bins = {0}, managed = {0};
    cJSON *own = changes ? NULL : cJSON_CreateArray();
    cudnnctl_err rc = cc_winenv_toolkit_bins(ctx, toolkit, &bins);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && det && i < det->n_toolkits; i++) {
        const char *tk = det->toolkits[i].path;
        if (!tk)
            continue;
        /* every toolkit's bin and bin\x64 (exists or not: a stale PATH entry goes too) */
        char *b = cc_path_join(tk, "bin"), *x = cc_path_join(tk, "bin/x64");
        if (!b || !x || cc_strv_push(&managed, b) != 0 || cc_strv_push(&managed, x) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(b);
        free(x);
    }
    if (rc == CUDNNCTL_E_OK && !changes && !own)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK) {
        cc_winenv_want w = {0};
        w.system = system;
        w.toolkit = toolkit;
        w.version = version;
        w.bins = (const char *const *)bins.v;
        w.n_bins = bins.n;
        w.managed = (const char *const *)managed.v;
        w.n_managed = managed.n;
        rc = cc_winenv_apply(ctx, &w, changes ? changes : own, n_changed);
    }
    cJSON_Delete(own);
    cc_strv_free(&bins);
    cc_strv_free(&managed);
    return rc;
}
