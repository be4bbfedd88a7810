/* detect.c: cudnnctl_detect orchestration (platform key, sites, loader view, toolkits, driver,
 * cuDNN copies). The result's own functions (freeing, accessors): detect_result.c. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

/* Jetson / L4T: /etc/nv_tegra_release, or a device tree naming nvidia,tegra. */
static int is_tegra(const cudnnctl_ctx *ctx)
{
    cc_pf_stat_t st;
    cc_detect_stat(ctx, "/etc/nv_tegra_release", &st);
    if (st.exists)
        return 1;
    char *text = NULL;
    size_t len = 0;
    int tegra = 0;
    if (cc_detect_read_n(ctx, "/proc/device-tree/compatible", 4096, &text, &len) == 0) {
        /* NUL-separated strings such as "nvidia,p3768-0000+p3767-0005\0nvidia,tegra234" */
        for (size_t i = 0; i < len && !tegra; i += strlen(text + i) + 1)
            tegra = cc_str_starts(text + i, "nvidia,tegra");
    }
    free(text);
    return tegra;
}

static void run_free(cc_detect_run *run)
{
    cc_strv_free(&run->notes);
    cc_strv_free(&run->sites);
    cc_strv_free(&run->loader);
    cc_strv_free(&run->ld_library_path);
    cc_strv_free(&run->multiarch);
    cc_strv_free(&run->arch_targets);
}

cudnnctl_err cudnnctl_detect(cudnnctl_ctx *ctx, cudnnctl_detect_result **out)
{
    *out = NULL;
    cc_detect_run run;
    memset(&run, 0, sizeof(run));
    run.ctx = ctx;
    cudnnctl_err e = CUDNNCTL_E_OK;
    cudnnctl_detect_result *r = calloc(1, sizeof(*r));
    if (!r)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    run.r = r;
    uint64_t t0 = cc_pf_now_ms();

    const char *os = cc_host_os_name(ctx), *machine = cc_pf_machine();
    int arm = strcmp(machine, "aarch64") == 0 || strcmp(machine, "arm64") == 0;
    r->platform = cc_detect_platform_key(os, machine, arm && is_tegra(ctx));
    /* both multiarch names: a --root tree may be of the other architecture */
    if (!r->platform || cc_strv_push(&run.multiarch, "x86_64-linux-gnu") != 0 ||
        cc_strv_push(&run.multiarch, "aarch64-linux-gnu") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "sbsa-linux" : "x86_64-linux") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "aarch64-linux" : "sbsa-linux") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "x86_64-linux" : "aarch64-linux") != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((e = cc_detect_find_sites(&run)) != CUDNNCTL_E_OK ||
        (e = cc_detect_find_loader(&run)) != CUDNNCTL_E_OK ||
        (e = cc_detect_find_toolkits(&run)) != CUDNNCTL_E_OK ||
        (e = cc_detect_find_driver(&run)) != CUDNNCTL_E_OK ||
        (e = cc_detect_find_cudnn(&run)) != CUDNNCTL_E_OK ||
        (e = cc_detect_find_windows(&run)) != CUDNNCTL_E_OK)
        goto out;
    if (r->n_toolkits == 0)
        cc_detect_note(&run,
                       "no CUDA toolkit found (looked at CUDA_HOME, CUDA_PATH, CUDA_ROOT, nvcc "
                       "on PATH, /usr/local/cuda*, /opt/cuda*, CONDA_PREFIX, pip wheels)");
    if (!r->driver)
        cc_detect_note(&run, "no NVIDIA driver found%s", ctx->root ? " under --root" : "");
    cc_log(ctx, CUDNNCTL_LOG_DEBUG, "detect: %zu toolkit(s), %zu cuDNN copies in %llu ms",
           r->n_toolkits, r->n_cudnn, (unsigned long long)(cc_pf_now_ms() - t0));
    /* hand the notes over */
    r->notes = run.notes.v;
    r->n_notes = run.notes.n;
    memset(&run.notes, 0, sizeof(run.notes));
    *out = r;
    r = NULL;
out:
    run_free(&run);
    cudnnctl_detect_result_free(r);
    return e;
}
