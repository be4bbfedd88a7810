/* detect_stub.c: placeholder detection (platform key only) until the detect work lands. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

cudnnctl_err cudnnctl_detect(cudnnctl_ctx *ctx, cudnnctl_detect_result **out)
{
    cudnnctl_detect_result *r = calloc(1, sizeof(*r));
    if (!r)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    r->platform = cc_asprintf("%s-%s", cc_pf_os(), cc_pf_machine());
    *out = r;
    return CUDNNCTL_E_OK;
}

void cudnnctl_detect_result_free(cudnnctl_detect_result *r)
{
    if (!r)
        return;
    free(r->platform);
    free(r);
}

const cudnnctl_toolkit *cudnnctl_detect_active_toolkit(const cudnnctl_detect_result *r)
{
    (void)r;
    return NULL;
}

cudnnctl_err cudnnctl_detect_result_json(const cudnnctl_detect_result *r, char **json)
{
    *json = cc_asprintf("{\"platform\":\"%s\"}", r->platform);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
