/* install_validate.c: the install's last, optional step (opts.validate): validate the copy now in
 * place on the GPU and rule on what that means for the install. The rule lives here, not in a
 * front end: no GPU is a warning (the install stands, the call succeeds); a failed load or
 * compute check is the call's error, and the install still stands. */
#include <stdlib.h>
#include <string.h>

#include "install_internal.h"

cudnnctl_err cc_install_validate(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                                 cudnnctl_install_result *r)
{
    if (r->result == CUDNNCTL_INSTALL_FAILED || r->result == CUDNNCTL_INSTALL_DRY_RUN ||
        !r->lib_dir)
        return CUDNNCTL_E_OK;
    cudnnctl_validate_opts vo;
    memset(&vo, 0, sizeof(vo));
    vo.target = r->lib_dir;
    vo.include_dir = r->include_dir;
    vo.cuda_home = r->mode == CUDNNCTL_TARGET_CUDA_TREE ? r->target_path : NULL;
    vo.device = o->validate_device;
    vo.timeout_ms = o->validate_timeout_ms;
    cudnnctl_err ve = cudnnctl_validate(ctx, &vo, &r->validation);
    if (r->validation) {
        char *js = NULL;
        if (cudnnctl_validate_result_json(r->validation, &js) == CUDNNCTL_E_OK)
            cudnnctl_install_result_set_validation(r, js);
        cudnnctl_free(js);
    }
    if (ve == CUDNNCTL_E_OK) {
        r->postcheck = CUDNNCTL_POSTCHECK_PASSED;
        return CUDNNCTL_E_OK;
    }
    if (ve == CUDNNCTL_E_NO_GPU) {
        r->postcheck = CUDNNCTL_POSTCHECK_NO_GPU;
        cc_clear_error(ctx);
        return CUDNNCTL_E_OK;
    }
    r->postcheck = CUDNNCTL_POSTCHECK_FAILED; /* the error stays the validation's */
    return ve;
}
