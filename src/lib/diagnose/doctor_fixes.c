/* doctor_fixes.c: the one place that turns "install cuDNN M for CUDA C" into `cudnnctl install`
 * arguments the catalog can satisfy (never a version that has no build for that CUDA on the
 * platform), loading the embedded catalog once, when a fix first needs it. Used by the check
 * groups; uses only doctor_finding.c and the catalog. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

void cc_diag_catalog_free(cc_doctor_run *run)
{
    cudnnctl_catalog_free(run->catalog);
    run->catalog = NULL;
}

static const char *platform_of(const cc_doctor_run *run)
{
    return run->opts->platform ? run->opts->platform : run->det->platform;
}

char *cc_diag_install_args(cc_doctor_run *run, int major, int minor, int cuda_major)
{
    if (!run->catalog && !run->catalog_failed) {
        cudnnctl_catalog *cat = NULL;
        if (cudnnctl_catalog_load(run->ctx, &cat) != CUDNNCTL_E_OK) {
            cc_clear_error(run->ctx);
            run->catalog_failed = 1;
        }
        run->catalog = cat;
    }
    if (!run->catalog)
        return NULL;
    const cudnnctl_archive *best = NULL;
    cc_version bv = {{-1, -1, -1, -1}, 0};
    for (size_t i = 0; i < cudnnctl_catalog_count(run->catalog); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(run->catalog, i);
        cc_version v;
        if (!a->platform || strcmp(a->platform, platform_of(run)) != 0 ||
            a->cuda_major != cuda_major || a->cuda_minor >= 0 ||
            cc_version_parse(a->cudnn_version, &v) != 0 || v.part[0] != major ||
            (minor >= 0 && v.part[1] < minor))
            continue;
        if (!best || cc_version_cmp(&v, &bv) > 0) {
            best = a;
            bv = v;
        }
    }
    return best ? cc_asprintf("--cudnn %d.%d --cuda %d", bv.part[0], bv.part[1], cuda_major)
                : NULL;
}

