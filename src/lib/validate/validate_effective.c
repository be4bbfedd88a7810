/* validate_effective.c: the effective_load check. The by-path checks prove the files work; this
 * one asks the real loader whether a program that dlopens libcudnn.so.<M> by name in this
 * environment gets them (docs/which.md). It is added after the status is decided: wiring is
 * another question than whether the files work, and its error names the fix. */
#include <stdlib.h>
#include <string.h>

#include "validate_int.h"

void cc_val_effective(cudnnctl_ctx *ctx, cudnnctl_validate_result *r, const char *exe, int major)
{
    if (!r->lib_dir)
        return;
    if (ctx->root) {
        if (cc_val_result_add_check(r, "effective_load", 0, 1, 0, -1, -1,
                                    "under --root the loader of this machine does not apply",
                                    NULL) == 0)
            r->checks[r->n_checks - 1].advisory = 1;
        return;
    }
    int m = r->cudnn_version ? atoi(r->cudnn_version) : major;
    char *soname = cc_asprintf("libcudnn.so.%d", m > 0 ? m : 9);
    cudnnctl_effective *v = NULL;
    size_t n = 0;
    uint64_t t0 = cc_pf_now_ms();
    if (!soname || cudnnctl_effective_check(ctx, exe, soname, r->lib_dir, NULL, NULL,
                                            CUDNNCTL_EFFECTIVE_CURRENT_ONLY, &v, &n) !=
                       CUDNNCTL_E_OK ||
        n == 0) {
        free(soname);
        return;
    }
    double secs = (double)(cc_pf_now_ms() - t0) / 1000.0;
    char *detail = cc_asprintf("a process that loads %s by name in this environment maps %s", soname,
                               v[0].mapped ? v[0].mapped : "nothing");
    char *err = cudnnctl_effective_line(&v[0]);
    /* another copy of the same release fits (the line says so, and how to use this copy) */
    if (cc_val_result_add_check(r, "effective_load", v[0].matches || v[0].same_release, 0, secs,
                                -1, -1, v[0].same_release ? NULL : err,
                                v[0].same_release && err ? err : detail) == 0)
        r->checks[r->n_checks - 1].advisory = 1;
    cudnnctl_free(err);
    free(detail);
    free(soname);
    cudnnctl_effective_free(v, n);
}
