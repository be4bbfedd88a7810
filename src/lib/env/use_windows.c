/* use_windows.c: `use X.Y` on Windows: CUDA_PATH, CUDA_PATH_Vx_y and PATH in the registry
 * (HKCU, or HKLM with CUDNNCTL_USE_SYSTEM) point at toolkit X.Y (winenv.c does the values). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envwire_int.h"
#include "lock.h"
#include "winenv.h"

cudnnctl_err cc_use_windows(cudnnctl_ctx *ctx, const cudnnctl_env_inputs *in, const char *version,
                            unsigned flags, cudnnctl_use_result **out)
{
    const cudnnctl_detect_result *det = NULL;
    cudnnctl_detect_result *owned = NULL;
    cudnnctl_use_result *r = NULL;
    cc_lock lock = {-1, NULL, 0, NULL, 0};
    char *state = NULL, *prev = NULL;
    cJSON *changes = NULL;
    int system = (flags & CUDNNCTL_USE_SYSTEM) != 0, n = 0, type = 0;
    const char *key = system ? CC_WINENV_SYSTEM_KEY : CC_WINENV_USER_KEY;
    const cudnnctl_toolkit *tk = NULL;
    cudnnctl_err rc = cc_env_use_target(ctx, in, version, 0, &det, &owned, &tk, &r);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    if (!(changes = cJSON_CreateArray()))
        goto oom;
    r->mechanism = CUDNNCTL_MECH_REGISTRY;
    /* installs write the same values: one of us at a time */
    if (!(state = cc_state_dir(ctx)))
        goto oom;
    if ((rc = cc_lock_acquire(ctx, state, "use", &lock)) != CUDNNCTL_E_OK)
        goto out;
    if (cc_host_reg_get(ctx, key, "CUDA_PATH", &prev, &type) == 0 && prev)
        r->previous = cc_strdup(prev);
    if ((rc = cc_winenv_use(ctx, det, tk->path, tk->version, system, changes, &n)) != CUDNNCTL_E_OK)
        goto out;
    const cJSON *c;
    cJSON_ArrayForEach(c, changes)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
        const char *nv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "new"));
        char *where = cc_asprintf("%s\\%s", key, name ? name : "?");
        int bad = !where || cc_changes_add(&r->changes, "registry", where, nv) != 0;
        free(where);
        if (bad)
            goto oom;
    }
    r->changed = n > 0;
    *out = r;
    r = NULL;
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    cc_lock_release(ctx, &lock);
    cJSON_Delete(changes);
    free(state);
    free(prev);
    cudnnctl_use_result_free(r);
    cudnnctl_detect_result_free(owned);
    return rc;
}
