/* detect.c: cudnnctl_detect orchestration (platform key, sites, loader view, toolkits, driver,
 * cuDNN copies), freeing a result, and the active-toolkit accessor. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void cc_dt_toolkit_clear(cudnnctl_toolkit *t)
{
    free(t->path);
    free(t->version);
    free(t->lib_dir);
    free(t->origin);
    free(t->active_reason);
    free(t->found_via);
    free(t->version_full);
    free(t->include_dir);
    free_list(t->aliases, t->n_aliases);
    for (size_t i = 0; t->readings && i < t->n_readings; i++)
        free(t->readings[i].version);
    free(t->readings);
    free_list(t->problems, t->n_problems);
    memset(t, 0, sizeof(*t));
}

void cc_dt_cudnn_clear(cudnnctl_cudnn_copy *c)
{
    free(c->path);
    free(c->include_dir);
    free(c->version);
    free(c->header_version);
    free(c->origin);
    free_list(c->libs, c->n_libs);
    free_list(c->problems, c->n_problems);
    free(c->version_source);
    free(c->package_version);
    free(c->cuda_version);
    memset(c, 0, sizeof(*c));
}

void cc_dt_driver_free(cudnnctl_driver *d)
{
    if (!d)
        return;
    free(d->version);
    free(d->source);
    free(d);
}

void cudnnctl_detect_result_free(cudnnctl_detect_result *r)
{
    if (!r)
        return;
    free(r->platform);
    for (size_t i = 0; i < r->n_toolkits; i++)
        cc_dt_toolkit_clear(&r->toolkits[i]);
    free(r->toolkits);
    cc_dt_driver_free(r->driver);
    for (size_t i = 0; i < r->n_cudnn; i++)
        cc_dt_cudnn_clear(&r->cudnn[i]);
    free(r->cudnn);
    free_list(r->notes, r->n_notes);
    free(r);
}

const cudnnctl_toolkit *cudnnctl_detect_active_toolkit(const cudnnctl_detect_result *r)
{
    if (!r || r->n_toolkits == 0)
        return NULL;
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (r->toolkits[i].active)
            return &r->toolkits[i];
    /* no active one: the only / newest non-wheel toolkit (toolkits are sorted newest first) */
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (r->toolkits[i].origin && strcmp(r->toolkits[i].origin, "wheel") != 0)
            return &r->toolkits[i];
    return &r->toolkits[0];
}

const char *cudnnctl_detect_source_name(unsigned source)
{
    switch (source) {
    case CUDNNCTL_SRC_VERSION_JSON:
        return "version.json";
    case CUDNNCTL_SRC_VERSION_TXT:
        return "version.txt";
    case CUDNNCTL_SRC_NVCC:
        return "nvcc";
    case CUDNNCTL_SRC_CUDA_H:
        return "cuda.h";
    case CUDNNCTL_SRC_CUDART_H:
        return "cuda_runtime_api.h";
    case CUDNNCTL_SRC_SONAME:
        return "soname";
    case CUDNNCTL_SRC_REGISTRY:
        return "registry";
    case CUDNNCTL_SRC_ENV:
        return "env";
    case CUDNNCTL_SRC_DIST_INFO:
        return "dist-info";
    default:
        return "unknown";
    }
}

/* Jetson / L4T: /etc/nv_tegra_release, or a device tree naming nvidia,tegra. */
static int is_tegra(const cudnnctl_ctx *ctx)
{
    cc_pf_stat_t st;
    cc_dt_stat(ctx, "/etc/nv_tegra_release", &st);
    if (st.exists)
        return 1;
    char *text = NULL;
    size_t len = 0;
    int tegra = 0;
    if (cc_dt_read_n(ctx, "/proc/device-tree/compatible", 4096, &text, &len) == 0) {
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
    r->platform = cc_dt_platform_key(os, machine, arm && is_tegra(ctx));
    /* both multiarch names: a --root tree may be of the other architecture */
    if (!r->platform || cc_strv_push(&run.multiarch, "x86_64-linux-gnu") != 0 ||
        cc_strv_push(&run.multiarch, "aarch64-linux-gnu") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "sbsa-linux" : "x86_64-linux") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "aarch64-linux" : "sbsa-linux") != 0 ||
        cc_strv_push(&run.arch_targets, arm ? "x86_64-linux" : "aarch64-linux") != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((e = cc_dt_find_sites(&run)) != CUDNNCTL_E_OK ||
        (e = cc_dt_find_loader(&run)) != CUDNNCTL_E_OK ||
        (e = cc_dt_find_toolkits(&run)) != CUDNNCTL_E_OK ||
        (e = cc_dt_find_driver(&run)) != CUDNNCTL_E_OK ||
        (e = cc_dt_find_cudnn(&run)) != CUDNNCTL_E_OK ||
        (e = cc_dt_find_windows(&run)) != CUDNNCTL_E_OK)
        goto out;
    if (r->n_toolkits == 0)
        cc_dt_note(&run, "no CUDA toolkit found (looked at CUDA_HOME, CUDA_PATH, CUDA_ROOT, nvcc "
                         "on PATH, /usr/local/cuda*, /opt/cuda*, CONDA_PREFIX, pip wheels)");
    if (!r->driver)
        cc_dt_note(&run, "no NVIDIA driver found%s", ctx->root ? " under --root" : "");
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
