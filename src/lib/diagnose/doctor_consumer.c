/* doctor_consumer.c: `doctor --for torch==X / tensorflow==X`: what that framework release needs
 * (the compatibility tables, compat_data.c) against the cuDNN copies installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "doctor_int.h"

static const char *platform_of(const cc_doctor_run *run)
{
    return run->opts->platform ? run->opts->platform : run->det->platform;
}

/* The install fix for a consumer that needs cuDNN major.minor built for CUDA cuda_major. */
static void install_fix(cc_doctor_run *run, const cc_consumer *cons, const cc_version *need,
                        char **fix, char **cmd)
{
    char *args = cc_diag_install_args(run, need->part[0], need->part[1], cons->cuda_major);
    *fix = NULL;
    *cmd = NULL;
    if (cons->exact) {
        *fix = cc_asprintf("install the cuDNN wheel the framework pins, in its environment: "
                           "`pip install nvidia-cudnn-cu%d==%s`",
                           cons->cuda_major, cons->cudnn);
        *cmd = cc_asprintf("pip install nvidia-cudnn-cu%d==%s", cons->cuda_major, cons->cudnn);
        free(args);
        return;
    }
    if (!args) {
        *fix = cc_asprintf("the catalog has no cuDNN %d.%d+ build for CUDA %d on %s: use a %s "
                           "release built for a CUDA that cuDNN still ships for",
                           need->part[0], need->part[1], cons->cuda_major, platform_of(run),
                           cons->pkg);
        return;
    }
    char *full = cc_asprintf("install %s --prefix /opt/cudnn", args);
    *cmd = full ? cc_diag_cli(run, full) : NULL;
    *fix = cc_asprintf("install it beside the others and put it on the loader's path: `cudnnctl "
                       "%s` then `eval \"$(cudnnctl env)\"` (or an /etc/ld.so.conf.d entry)",
                       full ? full : "");
    free(full);
    free(args);
}

int cc_diag_check_consumer(cc_doctor_run *run)
{
    const char *spec = run->opts->for_pkg;
    if (!spec)
        return 0;
    cc_consumer cons;
    cudnnctl_err e = cc_compat_consumer(run->ctx, spec, 0, -1, &cons);
    if (e != CUDNNCTL_E_OK) {
        run->err = e;
        return 0;
    }
    cc_version need;
    if (cc_version_parse(cons.cudnn, &need) != 0 || need.n < 2) {
        cc_consumer_clear(&cons);
        return 0;
    }
    const cudnnctl_detect_result *d = run->det;
    const cudnnctl_cudnn_copy *same_major = NULL, *good = NULL;
    int good_variant = -1;
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (!c->n_libs || c->major != need.part[0] || cc_diag_stale8(run, c))
            continue;
        same_major = same_major ? same_major : c;
        int ok = cons.exact ? (c->minor == need.part[1] && (need.n < 3 || c->patch == need.part[2]))
                            : c->minor >= need.part[1];
        if (ok && !good) {
            const char *how = NULL;
            good = c;
            good_variant = cc_diag_copy_variant(run, c, &how);
        }
    }
    char *fix = NULL, *cmd = NULL;
    if (!same_major) {
        install_fix(run, &cons, &need, &fix, &cmd);
        cc_buf have = {0};
        for (size_t i = 0; i < d->n_cudnn; i++)
            if (d->cudnn[i].n_libs && !cc_diag_stale8(run, &d->cudnn[i]))
                cc_buf_printf(&have, "%s%s in %s", have.len ? ", " : "", d->cudnn[i].version,
                              d->cudnn[i].path);
        cc_diag_add_cmd(run, CC_DC_CONSUMER_CUDNN_MAJOR_MISSING, NULL, fix, cmd,
                        "%s needs cuDNN %d (built with %s for CUDA %d.%d; %s), but only %s is "
                        "installed: it fails at start with \"libcudnn.so.%d: cannot open shared "
                        "object file\" (a cuDNN of another major never substitutes)",
                        cons.label, need.part[0], cons.cudnn, cons.cuda_major, cons.cuda_minor,
                        cons.source, have.len ? have.data : "no cuDNN", need.part[0]);
        cc_buf_free(&have);
    } else if (!good) {
        install_fix(run, &cons, &need, &fix, &cmd);
        cc_diag_add_cmd(run, CC_DC_CONSUMER_CUDNN_TOO_OLD, same_major->path, fix, cmd,
                        "%s needs cuDNN %s%s (%s), but the cuDNN %d here is %s in %s: \"Loaded "
                        "runtime CuDNN library: %s but source was compiled with: %s\"",
                        cons.label, cons.cudnn, cons.exact ? " exactly" : " or a newer minor",
                        cons.source, need.part[0], same_major->version, same_major->path,
                        same_major->version, cons.cudnn);
    } else if (good_variant > 0 && good_variant != cons.cuda_major) {
        install_fix(run, &cons, &need, &fix, &cmd);
        cc_diag_add_cmd(run, CC_DC_CONSUMER_CUDA_MISMATCH, good->path, fix, cmd,
                        "%s is built for CUDA %d and needs a cuDNN built for CUDA %d, but cuDNN "
                        "%s in %s is built for CUDA %d: it dlopens libcublasLt.so.%d, which the "
                        "framework's CUDA does not provide",
                        cons.label, cons.cuda_major, cons.cuda_major, good->version, good->path,
                        good_variant, good_variant);
    }
    free(fix);
    free(cmd);
    cc_consumer_clear(&cons);
    return run->oom ? -1 : 0;
}
