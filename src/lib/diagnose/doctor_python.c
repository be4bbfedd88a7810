/* doctor_python.c: `doctor --python EXE`: what each CUDA framework of that interpreter needs
 * (dist-info, build info) against what it will really load (the loader model, cudnnctl_which),
 * as findings with a fix that can be run: pip for the interpreter's own nvidia-cudnn wheel, or an
 * LD_LIBRARY_PATH without the dir that overrides the framework's cuDNN. */
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

/* LD_LIBRARY_PATH without the entries that hold a copy the framework should not get. */
static char *llp_without(const char *llp, const cudnnctl_consumer *c)
{
    cc_buf b = {0};
    char *copy = cc_strdup(llp);
    for (char *p = copy, *next; p; p = next) {
        next = strchr(p, ':');
        if (next)
            *next++ = '\0';
        int drop = 0;
        for (size_t i = 0; i < c->n_libs && !drop; i++)
            drop = c->libs[i].rule && strcmp(c->libs[i].rule, "ld_library_path") == 0 &&
                   c->libs[i].dir && strcmp(c->libs[i].dir, p) == 0 &&
                   cc_str_starts(c->libs[i].soname, "libcudnn");
        if (!drop && *p)
            cc_buf_printf(&b, "%s%s", b.len ? ":" : "", p);
    }
    free(copy);
    return b.data ? b.data : cc_strdup("");
}

static char *fix_for(const cudnnctl_which_report *rep, const cudnnctl_consumer *c)
{
    int by_llp = 0;
    for (size_t i = 0; i < c->n_libs; i++)
        by_llp |= c->libs[i].rule && strcmp(c->libs[i].rule, "ld_library_path") == 0 &&
                  cc_str_starts(c->libs[i].soname, "libcudnn");
    if (by_llp && rep->ld_library_path) {
        char *keep = llp_without(rep->ld_library_path, c);
        char *fix = *keep ? cc_asprintf("export LD_LIBRARY_PATH=%s", keep)
                          : cc_strdup("unset LD_LIBRARY_PATH");
        free(keep);
        return fix;
    }
    int cuda = c->need_cuda_major > 0 ? c->need_cuda_major : 13;
    const char *spec = c->build_cudnn ? c->build_cudnn : ">=9";
    return cc_asprintf("%s -m pip install --upgrade 'nvidia-cudnn-cu%d%s%s'", rep->python, cuda,
                       (spec[0] == '=' || spec[0] == '<' || spec[0] == '>' || spec[0] == '~') ? ""
                                                                                            : "==",
                       spec);
}

int cc_doc_check_python(cc_doctor_run *run)
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
        char *fix = fix_for(rep, c);
        cc_buf msg = {0};
        for (size_t k = 0; k < c->n_problems; k++)
            cc_buf_printf(&msg, "%s%s", k ? "; " : "", c->problems[k]);
        cc_doc_add(run,
                   strcmp(c->verdict, "missing") == 0 ? CC_DC_PYTHON_FRAMEWORK_NO_CUDNN
                                                      : CC_DC_PYTHON_FRAMEWORK_CUDNN_MISMATCH,
                   c->extension, fix, "%s %s (%s): %s", c->name, c->version ? c->version : "",
                   rep->python, msg.data ? msg.data : c->verdict);
        cc_buf_free(&msg);
        free(fix);
    }
    cudnnctl_which_report_free(rep);
    return 0;
}
