/* driver_stack.c: the NVIDIA driver stack as user space sees it: the libcuda.so.1 a program maps
 * (the loader model) and its version (the driver's version is in its file name), the kernel
 * module's version where readable (/proc/driver/nvidia/version, /sys/module/nvidia/version), a
 * CUDA forward-compatibility libcuda (.../compat), the device nodes, and whether this is a
 * container and what its runtime exposed (NVIDIA_VISIBLE_DEVICES). All under --root. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "consumer_int.h"
#include "platform.h"

static int exists(const cudnnctl_ctx *ctx, const char *path)
{
    return cc_consumer_rooted_exists(ctx, path, 0);
}

static char *slurp(const cudnnctl_ctx *ctx, const char *path)
{
    return cc_consumer_rooted_text(ctx, path, 1u << 20);
}

const char *cc_consumer_container(cudnnctl_ctx *ctx)
{
    const char *env = cc_pf_getenv("container"); /* systemd's and podman's convention */
    if (exists(ctx, "/.dockerenv"))
        return "docker";
    if (exists(ctx, "/run/.containerenv"))
        return "podman";
    if (env && *env)
        return strcmp(env, "podman") == 0 ? "podman" : strcmp(env, "docker") == 0 ? "docker"
                                                                                  : "container";
    char *cg = slurp(ctx, "/proc/1/cgroup");
    const char *kind = !cg                       ? NULL
                       : strstr(cg, "kubepods")  ? "kubernetes"
                       : strstr(cg, "docker")    ? "docker"
                       : strstr(cg, "containerd") ? "containerd"
                       : strstr(cg, "lxc")       ? "lxc"
                                                 : NULL;
    free(cg);
    return kind;
}

/* "580.95.05" after "Kernel Module" in /proc/driver/nvidia/version, else /sys/module/nvidia. */
static char *kernel_version(const cudnnctl_ctx *ctx, const char **src)
{
    char *t = slurp(ctx, "/proc/driver/nvidia/version");
    char *out = NULL;
    const char *p = t ? strstr(t, "Kernel Module") : NULL;
    if (p) { /* "Kernel Module  580.95.05" or "Open Kernel Module for x86_64  580.95.05" */
        out = cc_ld_first_version(p + strlen("Kernel Module"));
        *src = "/proc/driver/nvidia/version";
    }
    free(t);
    if (!out && (t = slurp(ctx, "/sys/module/nvidia/version")) != NULL) {
        size_t n = strspn(t, "0123456789.");
        out = n ? cc_strndup(t, n) : NULL;
        *src = "/sys/module/nvidia/version";
        free(t);
    }
    return out;
}

static int device_nodes(const cudnnctl_ctx *ctx)
{
    if (!exists(ctx, "/dev/nvidiactl"))
        return 0;
    char *h = cc_rooted(ctx, "/dev");
    cc_pf_dir *d = h ? cc_pf_opendir(h) : NULL;
    const char *n;
    int gpus = 0;
    while (d && (n = cc_pf_readdir(d)) != NULL)
        gpus += cc_str_starts(n, "nvidia") && n[6] >= '0' && n[6] <= '9';
    if (d)
        cc_pf_closedir(d);
    free(h);
    return gpus;
}

cudnnctl_err cudnnctl_driver_stack_read(cudnnctl_ctx *ctx, cudnnctl_driver_stack **out)
{
    *out = NULL;
    cudnnctl_driver_stack *s = calloc(1, sizeof(*s));
    cc_ldmodel m;
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    cudnnctl_loader_env env = {llp && *llp ? llp : NULL, NULL, NULL};
    if (!s || cc_ldm_init(&m, ctx, &env) != 0) {
        free(s);
        cc_ldm_free(&m);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    m.main = -1;
    cudnnctl_load_result r;
    if (cc_ld_one(&m, -1, "libcuda.so.1", &r) == CUDNNCTL_E_OK && r.path) {
        s->libcuda = cc_strdup(r.path);
        s->libcuda_real = r.real_path ? cc_strdup(r.real_path) : NULL;
        const char *base = cc_path_base(s->libcuda_real ? s->libcuda_real : s->libcuda);
        cc_version v;
        if (cc_str_starts(base, "libcuda.so.") &&
            cc_version_parse(base + strlen("libcuda.so."), &v) == 0 && v.n >= 2 && v.part[0] > 1)
            s->libcuda_version = cc_strdup(base + strlen("libcuda.so."));
        s->libcuda_compat = strstr(s->libcuda, "/compat/") != NULL ||
                            (s->libcuda_real && strstr(s->libcuda_real, "/compat/") != NULL);
    }
    cc_ld_result_clear(&r);
    cc_ldm_free(&m);
    const char *src = NULL;
    s->kernel_version = kernel_version(ctx, &src);
    s->kernel_source = src;
    const char *box = cc_consumer_container(ctx);
    s->container = box ? cc_strdup(box) : NULL;
    s->device_nodes = device_nodes(ctx);
    const char *vis = cc_pf_getenv("NVIDIA_VISIBLE_DEVICES");
    s->visible_devices = vis ? cc_strdup(vis) : NULL;
    *out = s;
    return CUDNNCTL_E_OK;
}

void cudnnctl_driver_stack_free(cudnnctl_driver_stack *s)
{
    if (!s)
        return;
    free(s->libcuda);
    free(s->libcuda_real);
    free(s->libcuda_version);
    free(s->kernel_version);
    free(s->container);
    free(s->visible_devices);
    free(s);
}
