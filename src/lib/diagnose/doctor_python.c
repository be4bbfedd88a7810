/* doctor_python.c: `doctor --python EXE`: what each CUDA framework of that interpreter needs
 * (dist-info, build info) against what it will really load (the loader model, cudnnctl_which),
 * as findings with the fix the loader decides for each (loader/consumer_fix.c, which `which`
 * prints too): pip for the interpreter's own nvidia-cudnn wheel, an LD_LIBRARY_PATH without the
 * dir that overrides the framework's cuDNN, a driver upgrade. */
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

int cc_diag_check_python(cc_doctor_run *run)
{
    if (!run->opts->python)
        return 0;
    cudnnctl_which_opts wo;
    memset(&wo, 0, sizeof(wo));
    wo.python = run->opts->python;
    wo.inherit_ld_library_path = 1;
    cudnnctl_which_report *rep = NULL;
    cudnnctl_err e = cudnnctl_which(run->ctx, &wo, &rep);
    if (e == CUDNNCTL_E_UNTRUSTED) /* not run as root (another user could change it): say so */
        run->err = e;
    if (e != CUDNNCTL_E_OK)
        return 0; /* the interpreter did not run: the CLI checks that first */
    for (size_t i = 0; i < rep->n; i++) {
        const cudnnctl_consumer *c = &rep->v[i];
        if (!c->verdict || (strcmp(c->verdict, "mismatch") != 0 && strcmp(c->verdict, "missing")))
            continue;
        cc_buf msg = {0};
        for (size_t k = 0; k < c->n_problems; k++)
            cc_buf_printf(&msg, "%s%s", k ? "; " : "", c->problems[k]);
        /* the fix is the loader's (consumer_fix.c): which prints the same one */
        cc_diag_add_cmd(run,
                        strcmp(c->verdict, "missing") == 0 ? CC_DC_PYTHON_FRAMEWORK_NO_CUDNN
                                                           : CC_DC_PYTHON_FRAMEWORK_CUDNN_MISMATCH,
                        c->extension, c->fix, c->fix_command, "%s %s (%s): %s", c->name,
                        c->version ? c->version : "", rep->python,
                        msg.data ? msg.data : c->verdict);
        cc_buf_free(&msg);
    }
    cudnnctl_which_report_free(rep);
    return 0;
}
