/* use_windows.c: `use X.Y` on Windows: CUDA_PATH, CUDA_PATH_Vx_y and PATH in the registry
 * (HKCU, or HKLM with CUDNNCTL_USE_SYSTEM) point at toolkit X.Y (winenv.c does the values). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envwire_int.h"
#include "lock.h"
#include "winenv.h"

/* The registry values cc_winenv_use changed, as `registry` changes named KEY\NAME. */
static cudnnctl_err record_changes(cudnnctl_ctx *ctx, const char *key, const cJSON *changes,
                                   cudnnctl_changes *out)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, changes)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
        const char *nv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "new"));
        char *where = cc_asprintf("%s\\%s", key, name ? name : "?");
        int bad = !where || cc_changes_add(out, "registry", where, nv) != 0;
        free(where);
        if (bad)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_use_windows(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, const char *version,
                            unsigned flags, cudnnctl_use_result **out)
{
    cc_use_run u = CC_USE_RUN_INIT;
    char *prev = NULL;
    cJSON *changes = NULL;
    int system = (flags & CUDNNCTL_USE_SYSTEM) != 0, n = 0, type = 0;
    const char *key = system ? CC_WINENV_SYSTEM_KEY : CC_WINENV_USER_KEY;
    cudnnctl_err rc = cc_env_use_target(ctx, in, version, 0, &u.det, &u.owned, &u.tk, &u.r);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    cudnnctl_use_result *r = u.r;
    if (!(changes = cJSON_CreateArray())) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    r->mechanism = CUDNNCTL_MECH_REGISTRY;
    /* installs write the same values: one of us at a time */
    if ((rc = cc_use_run_lock(ctx, &u)) != CUDNNCTL_E_OK)
        goto out;
    if (cc_host_reg_get(ctx, key, "CUDA_PATH", &prev, &type) == 0 && prev)
        r->previous = cc_strdup(prev);
    if ((rc = cc_winenv_use(ctx, u.det, u.tk->path, u.tk->version, system, changes, &n)) !=
        CUDNNCTL_E_OK)
        goto out;
    if ((rc = record_changes(ctx, key, changes, &r->changes)) != CUDNNCTL_E_OK)
        goto out;
    r->changed = n > 0;
out:
    cJSON_Delete(changes);
    free(prev);
    return cc_use_run_end(ctx, &u, rc, out);
}
