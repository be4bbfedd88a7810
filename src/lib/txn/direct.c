/* direct.c: prefix installs without PREFIX/current (direct.h): the probe for directory links, the
 * record of the selected install (STATE/direct.json), and pointing the registry Path at one
 * version dir (install, use --prefix, uninstall). */
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "json.h"
#include "winenv.h"

#define PROBE_DIR ".cudnnctl-link-probe"
#define PROBE_LINK ".cudnnctl-link-probe-link"
#define RECORD_MAX (1u << 20)

cudnnctl_err cc_direct_probe(cudnnctl_ctx *ctx, const char *dir, int *direct)
{
    *direct = 0;
    if (!cc_host_is_windows(ctx))
        return CUDNNCTL_E_OK;
    char *t = cc_path_join(dir, PROBE_DIR), *l = cc_path_join(dir, PROBE_LINK);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int made = 0;
    if (!t || !l) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_sys_mkdir(ctx, t, 0755) != 0) {
        rc = CC_ERR_PF(ctx, "cannot create", t);
    } else if ((made = 1, cc_sys_symlink_dir(ctx, PROBE_DIR, l)) != 0) {
        if (cc_pf_last_error() == CUDNNCTL_E_UNSUPPORTED)
            *direct = 1; /* (a half-made junction is removed by the platform layer) */
        else
            rc = CC_ERR_PF(ctx, "cannot create a directory link", l);
    } else if (cc_sys_rm_rf(ctx, l) != 0) {
        rc = CC_ERR_PF(ctx, "cannot remove", l);
    }
    /* the probe's dir goes in any case; a first error is the one reported */
    if (made && cc_sys_rm_rf(ctx, t) != 0 && rc == CUDNNCTL_E_OK)
        rc = CC_ERR_PF(ctx, "cannot remove", t);
    free(t);
    free(l);
    return rc;
}

/* ---- STATE/direct.json: {"format": 1, "prefixes": {"<prefix>": "cudnn-<ver>-cuda<M>"}} ---- */

static cJSON *record_load(cudnnctl_ctx *ctx, const char *state, char **path)
{
    *path = cc_path_join(state, "direct.json");
    char *data = NULL;
    size_t len = 0;
    cJSON *o = NULL;
    if (*path && cc_txn_kind(*path) == CC_OBJ_FILE &&
        cc_sys_read_file(ctx, *path, RECORD_MAX, &data, &len) == 0)
        o = cJSON_Parse(data);
    free(data);
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "prefixes"))) {
        cJSON_Delete(o); /* absent or damaged: nothing recorded (the newest install is selected) */
        o = cJSON_CreateObject();
        if (o && (!cJSON_AddNumberToObject(o, "format", 1) ||
                  !cJSON_AddObjectToObject(o, "prefixes"))) {
            cJSON_Delete(o);
            o = NULL;
        }
    }
    return o;
}

/* The entry of @p prefix in the record's "prefixes" (NULL when none). */
static cJSON *record_entry(const cudnnctl_ctx *ctx, cJSON *o, const char *prefix)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "prefixes"))
    {
        if (e->string && cc_host_same_path(ctx, e->string, prefix))
            return e;
    }
    return NULL;
}

char *cc_direct_recorded(cudnnctl_ctx *ctx, const char *state, const char *prefix)
{
    char *path = NULL;
    cJSON *o = state ? record_load(ctx, state, &path) : NULL;
    const char *name = cJSON_GetStringValue(record_entry(ctx, o, prefix));
    char *r = name ? cc_strdup(name) : NULL;
    cJSON_Delete(o);
    free(path);
    return r;
}

cudnnctl_err cc_direct_record(cudnnctl_ctx *ctx, const char *state, const char *prefix,
                              const char *name)
{
    char *path = NULL, *text = NULL;
    cJSON *o = record_load(ctx, state, &path);
    cJSON *px = cJSON_GetObjectItemCaseSensitive(o, "prefixes");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!o || !path || !px) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    cJSON *old = record_entry(ctx, o, prefix);
    if (old)
        cJSON_Delete(cJSON_DetachItemViaPointer(px, old));
    if (name && !cJSON_AddStringToObject(px, prefix, name)) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (!px->child) { /* nothing left to record: no file */
        if (cc_txn_kind(path) != CC_OBJ_NONE && cc_sys_unlink(ctx, path) != 0)
            rc = CC_ERR_PF(ctx, "cannot remove", path);
        goto out;
    }
    rc = cc_json_out(o, 1, &text); /* frees o */
    o = NULL;
    if (rc != CUDNNCTL_E_OK)
        goto out;
    if (cc_sys_write_file_atomic(ctx, path, text, strlen(text), 0644) != 0)
        rc = CC_ERR_PF(ctx, "cannot write", path);
out:
    cJSON_Delete(o);
    free(path);
    free(text);
    return rc;
}

/* ---- the selected install ------------------------------------------------------------------ */

static int live_direct_in(const cudnnctl_ctx *ctx, const cc_receipts *rs, const cc_receipt *r,
                          const char *prefix)
{
    return r->mode == CUDNNCTL_TARGET_PREFIX && r->direct && r->install_dir && r->target_path &&
           cc_host_same_path(ctx, r->target_path, prefix) && !cc_receipts_superseding(rs, r);
}

const cc_receipt *cc_direct_current(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                                    const char *prefix)
{
    char *name = cc_direct_recorded(ctx, state, prefix);
    const cc_receipt *newest = NULL, *named = NULL;
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *r = &rs->v[i];
        if (!live_direct_in(ctx, rs, r, prefix))
            continue;
        if (!newest || r->seq > newest->seq)
            newest = r;
        if (name && strcmp(cc_path_base(r->install_dir), name) == 0)
            named = r;
    }
    free(name);
    return named ? named : newest;
}

/* ---- the registry Path ----------------------------------------------------------------------- */

static int install_name(const char *name)
{
    return cc_str_starts(name, "cudnn-") && strstr(name, "-cuda") != NULL;
}

/* PATH entries (of @p key's Path) that are PREFIX\<install>\bin or PREFIX\current\bin: also
 * those of installs already gone (a restored Path may name one). */
static cudnnctl_err path_bins(cudnnctl_ctx *ctx, const char *prefix, const char *key,
                              cc_strv *out)
{
    char *val = NULL;
    int type = 0;
    if (cc_host_reg_get(ctx, key, "Path", &val, &type) != 0 || !val)
        return CUDNNCTL_E_OK; /* unreadable: winenv_apply reports it */
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (char *e = val, *next; e && rc == CUDNNCTL_E_OK; e = next) {
        next = strchr(e, ';');
        if (next)
            *next++ = 0;
        char *c = cc_strdup(e);
        if (!c) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            break;
        }
        for (char *q = c; *q; q++) /* a registry value: Windows separators, whatever runs us */
            if (*q == '\\')
                *q = '/';
        char *dir = strcmp(cc_path_base(c), "bin") == 0 ? cc_path_dir(c) : NULL;
        char *up = dir ? cc_path_dir(dir) : NULL;
        const char *name = dir ? cc_path_base(dir) : "";
        if (up && (install_name(name) || strcmp(name, "current") == 0) &&
            cc_host_same_path(ctx, up, prefix) && cc_strv_push(out, c) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(c);
        free(dir);
        free(up);
    }
    free(val);
    return rc;
}

/* What Path must not name besides @p keep's bin: every PREFIX/cudnn-*-cuda* dir's bin,
 * PREFIX/current/bin, and such entries already on Path (shown paths). */
static cudnnctl_err other_bins(cudnnctl_ctx *ctx, const char *prefix, const char *keep,
                               const char *key, cc_strv *out)
{
    char *real = cc_rooted(ctx, prefix);
    char *cur = cc_path_join3(prefix, "current", "bin");
    if (!real || !cur || cc_strv_push_own(out, cur) != 0) {
        free(real);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    cc_pf_dir *d = cc_pf_opendir(real);
    free(real);
    const char *name;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    while (d && rc == CUDNNCTL_E_OK && (name = cc_pf_readdir(d)) != NULL) {
        if (!install_name(name) || (keep && strcmp(name, cc_path_base(keep)) == 0))
            continue;
        char *b = cc_path_join3(prefix, name, "bin");
        if (!b || cc_strv_push_own(out, b) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (d)
        cc_pf_closedir(d);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_strv on_path = {0};
    rc = path_bins(ctx, prefix, key, &on_path);
    char *kb = keep ? cc_path_join(keep, "bin") : NULL;
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < on_path.n; i++)
        if (!(kb && cc_host_same_path(ctx, kb, on_path.v[i])) && cc_strv_push(out, on_path.v[i]) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(kb);
    cc_strv_free(&on_path);
    return rc;
}

cudnnctl_err cc_direct_wire(cudnnctl_ctx *ctx, const char *prefix, const char *install_dir,
                            int system, int dry, cJSON *changes, int *n_changed)
{
    cc_strv managed = {0};
    char *bin = install_dir ? cc_path_join(install_dir, "bin") : NULL;
    cudnnctl_err rc = bin || !install_dir
                          ? other_bins(ctx, prefix, install_dir,
                                       system ? CC_WINENV_SYSTEM_KEY : CC_WINENV_USER_KEY, &managed)
                          : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK) {
        const char *bins[1] = {bin};
        cc_winenv_want w = {0};
        w.system = system;
        w.bins = bins;
        w.n_bins = bin ? 1 : 0;
        w.managed = (const char *const *)managed.v;
        w.n_managed = managed.n;
        w.dry = dry;
        rc = cc_winenv_apply(ctx, &w, changes, n_changed);
    }
    free(bin);
    cc_strv_free(&managed);
    return rc;
}

/* The registry key of the Path value @p r's install set: 0 HKCU, 1 HKLM, -1 none (no_env). */
static int path_key_of(const cc_receipt *r)
{
    cJSON *env = r->env_json ? cJSON_Parse(r->env_json) : NULL;
    const cJSON *c;
    int sys = -1;
    cJSON_ArrayForEach(c, env)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "key"));
        if (sys < 0 && name && key && strcmp(name, "Path") == 0) /* as winenv.c writes it */
            sys = cc_str_starts(key, "HKLM");
    }
    cJSON_Delete(env);
    return sys;
}

/* Path and record: @p r selected, or with @p forget none of its prefix (in the key @p r's
 * install used); *n_env: registry values changed. */
static cudnnctl_err select_install(cudnnctl_ctx *ctx, const char *state, const cc_receipt *r,
                                   int forget, int *n_env)
{
    int sys = path_key_of(r);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    *n_env = 0;
    if (sys >= 0) {
        cJSON *changes = cJSON_CreateArray();
        rc = changes ? cc_direct_wire(ctx, r->target_path, forget ? NULL : r->install_dir, sys, 0,
                                      changes, n_env)
                     : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        cJSON_Delete(changes);
    }
    if (rc == CUDNNCTL_E_OK)
        rc = cc_direct_record(ctx, state, r->target_path,
                              forget ? NULL : cc_path_base(r->install_dir));
    return rc;
}

cudnnctl_err cc_direct_switch(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                              const cc_receipt *r, int *switched, cc_strv *steps)
{
    *switched = cc_direct_current(ctx, state, rs, r->target_path) != r;
    int n_env = 0;
    cudnnctl_err rc = select_install(ctx, state, r, 0, &n_env);
    if (rc == CUDNNCTL_E_OK && (*switched || n_env)) {
        *switched = 1;
        char *text = cc_asprintf("switch: the environment names %s (no directory link in %s: "
                                 "%d registry value(s) set, recorded in the state)",
                                 r->install_dir, r->target_path, n_env);
        cc_event(ctx, CUDNNCTL_EV_STEP, text, NULL);
        if (text)
            cc_strv_push_own(steps, text);
    }
    return rc;
}

void cc_direct_after_undo(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                          const cc_receipt *r, cc_strv *warnings)
{
    if (cc_direct_current(ctx, state, rs, r->target_path) != r)
        return; /* another install is selected: its Path entry and record stay */
    const cc_receipt *next = NULL;
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *o = &rs->v[i];
        char *real = o->install_dir ? cc_rooted(ctx, o->install_dir) : NULL;
        if (o != r && live_direct_in(ctx, rs, o, r->target_path) &&
            strcmp(o->install_dir, r->install_dir) != 0 && real &&
            cc_txn_kind(real) == CC_OBJ_DIR && (!next || o->seq > next->seq))
            next = o;
        free(real);
    }
    cc_saved_err se;
    cc_err_save(ctx, &se);
    int n_env = 0;
    /* none left: no entry of the prefix stays on Path (a restored Path may name an install
     * undone before), and the prefix is forgotten */
    cudnnctl_err rc = select_install(ctx, state, next ? next : r, !next, &n_env);
    if (rc != CUDNNCTL_E_OK && warnings)
        cc_strv_push_own(warnings, cc_asprintf("%s: the selected install was not %s: %s",
                                               r->target_path,
                                               next ? "switched to the remaining one" : "forgotten",
                                               cudnnctl_last_error(ctx)->detail));
    cc_err_restore(ctx, &se, NULL);
}
