/* doctor_system.c: doctor's checks of the CUDA toolkits, the /usr/local/cuda links and the
 * NVIDIA driver (against the driver floor of every CUDA major in use). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "doctor_int.h"

/* ---- toolkits ------------------------------------------------------------------------------- */

static int readings_text(const cudnnctl_toolkit *t, cc_buf *b)
{
    for (size_t i = 0; i < t->n_readings; i++) {
        const cudnnctl_version_reading *rd = &t->readings[i];
        if (cc_buf_printf(b, "%s%s says %s%s", i ? ", " : "",
                          cudnnctl_detect_source_name(rd->source), rd->version ? rd->version : "?",
                          rd->agrees ? "" : " (disagrees)") != 0)
            return -1;
    }
    return 0;
}

/* /usr/local/cuda and /usr/local/cuda-M[.m] links: dangling, or leading to no toolkit */
static int check_cuda_links(cc_doctor_run *run)
{
    cc_strv names = {0};
    if (cc_diag_list(run, "/usr/local", "cuda", &names) != 0)
        return 0;
    int rc = 0;
    for (size_t i = 0; i < names.n && rc == 0; i++) {
        const char *n = names.v[i];
        if (strcmp(n, "cuda") != 0 && !cc_str_starts(n, "cuda-"))
            continue;
        char *p = cc_path_join("/usr/local", n);
        cc_pf_stat_t st;
        if (!p) {
            rc = -1;
            break;
        }
        if (cc_diag_lstat(run, p, &st) != 0 || !st.exists || !st.is_link) {
            free(p);
            continue;
        }
        int dangling = 0;
        char *real = cc_diag_resolve(run, p, &dangling);
        char *host = cc_diag_host(run, p);
        char *target = host ? cc_pf_readlink(host) : NULL;
        free(host);
        if (!real || dangling) {
            char *fix = cc_asprintf(
                "point it at an installed toolkit: `cudnnctl use X.Y` (the toolkits are listed by "
                "`cudnnctl detect`), or `ln -sfn /usr/local/cuda-X.Y %s`; remove it when no "
                "toolkit is left",
                p);
            const cudnnctl_toolkit *to = cudnnctl_detect_active_toolkit(run->det);
            char *q = cc_diag_qhost(run, p);
            char *cmd = !q ? NULL
                        : to ? cc_asprintf("ln -sfn %s %s", to->path, q)
                             : cc_asprintf("rm -f %s", q);
            free(q);
            cc_diag_add_cmd(run, CC_DC_CUDA_LINK_DANGLING, p, fix, cmd,
                            "%s -> %s%s: the link leads nowhere, so every build and program that "
                            "uses %s fails to find CUDA",
                            p, target ? target : "?",
                            real ? ", which does not exist" : " (a link loop)", p);
            free(fix);
            free(cmd);
        } else {
            int known = 0;
            for (size_t k = 0; k < run->det->n_toolkits && !known; k++) {
                const cudnnctl_toolkit *t = &run->det->toolkits[k];
                int d2 = 0;
                char *tr = cc_diag_resolve(run, t->path, &d2);
                known = tr && strcmp(tr, real) == 0;
                free(tr);
                for (size_t a = 0; a < t->n_aliases && !known; a++)
                    known = strcmp(t->aliases[a], p) == 0;
            }
            cc_pf_stat_t rs;
            cc_diag_lstat(run, real, &rs);
            if (!known && rs.is_dir) {
                char *fix = cc_asprintf("point %s at a complete toolkit (`cudnnctl use X.Y`), or "
                                        "repair the toolkit in %s",
                                        p, real);
                cc_diag_add(run, CC_DC_CUDA_LINK_NOT_TOOLKIT, p, fix,
                            "%s leads to %s, where detect found no CUDA toolkit (no nvcc, "
                            "version.json, cuda.h or libcudart it could read)",
                            p, real);
                free(fix);
            }
        }
        free(target);
        free(real);
        free(p);
    }
    cc_strv_free(&names);
    return rc || run->oom ? -1 : 0;
}

int cc_diag_check_toolkits(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    if (d->n_toolkits == 0)
        cc_diag_add(run, CC_DC_NO_TOOLKIT, NULL,
                    "install a CUDA toolkit (NVIDIA's runfile / network repo, or the "
                    "distribution's package), or set CUDA_HOME to one; programs that bring CUDA "
                    "as pip wheels (PyTorch) do not need it",
                    "no CUDA toolkit found (looked at CUDA_HOME, CUDA_PATH, nvcc on PATH, "
                    "/usr/local/cuda*, conda and pip wheels): `cudnnctl install` into a CUDA "
                    "tree has no target and builds cannot find CUDA");
    for (size_t i = 0; i < d->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &d->toolkits[i];
        if (t->sources_disagree) {
            cc_buf b = {0};
            if (readings_text(t, &b) != 0) {
                cc_buf_free(&b);
                return -1;
            }
            char *fix = cc_asprintf("reinstall the toolkit in %s (a partial upgrade or copied "
                                    "files mix two releases), or remove the stale part",
                                    t->path);
            cc_diag_add(run, CC_DC_TOOLKIT_VERSION_DISAGREE, t->path, fix,
                        "the CUDA toolkit in %s reports different versions: %s; detect uses %s, "
                        "but builds may pick up the other one",
                        t->path, b.data ? b.data : "", t->version ? t->version : "?");
            free(fix);
            cc_buf_free(&b);
        }
        for (size_t k = 0; k < t->n_problems; k++) {
            if (strstr(t->problems[k], "disagree"))
                continue; /* reported above, with the readings */
            char *fix = cc_asprintf("check the files named; reinstall the toolkit in %s if "
                                    "they are damaged",
                                    t->path);
            cc_diag_add(run, CC_DC_TOOLKIT_PROBLEM, t->path, fix, "CUDA %s in %s: %s",
                        t->version ? t->version : "toolkit", t->path, t->problems[k]);
            free(fix);
        }
    }
    return check_cuda_links(run);
}

/* ---- driver --------------------------------------------------------------------------------- */

/* One CUDA major in use, and who uses it. */
typedef struct {
    int major;
    char *who;
} use;

static int add_use(use *u, size_t *n, size_t cap, int major, char *who)
{
    if (!who)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (u[i].major == major) {
            free(who);
            return 0;
        }
    if (*n == cap) {
        free(who);
        return 0;
    }
    u[*n].major = major;
    u[*n].who = who;
    (*n)++;
    return 0;
}

/* No driver. In a container the driver is the host's: the fix is how the container is started,
 * never a driver installed inside it. */
static void no_driver(cc_doctor_run *run, const cudnnctl_toolkit *active,
                      const cudnnctl_driver_stack *st)
{
    const char *floor = active ? cc_compat_driver_floor(active->major, run->det->platform) : NULL;
    if (st && st->container) {
        int nodes = st->device_nodes > 0;
        char *fix = cc_asprintf(
            "%s; the driver belongs to the host (never install it inside the container)",
            nodes ? "the runtime gave the container its GPU devices but not the driver's "
                    "libraries: start it with NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all) "
                    "through the NVIDIA Container Toolkit"
                  : "start the container with the GPUs: `docker run --gpus all ...` (the NVIDIA "
                    "Container Toolkit on the host), `podman run --device nvidia.com/gpu=all ...` "
                    "(CDI), or a Kubernetes limit nvidia.com/gpu");
        cc_diag_add(run, CC_DC_NO_DRIVER, NULL, fix,
                    "no NVIDIA driver in this %s container (no libcuda.so.1, no %s): it was "
                    "started without NVIDIA's container runtime, so cuDNN cannot run in it",
                    st->container, nodes ? "driver libraries" : "/dev/nvidia* devices");
        free(fix);
        return;
    }
    char *fix = cc_asprintf("install the NVIDIA driver%s%s%s; on a build machine without a "
                            "GPU this is expected (install with --no-validate)",
                            floor ? " (>= " : "", floor ? floor : "",
                            floor ? " for the active toolkit)" : "");
    cc_diag_add(run, CC_DC_NO_DRIVER, NULL, fix,
                "no NVIDIA driver found (no libcuda, /proc/driver/nvidia/version or "
                "nvidia-smi): cuDNN cannot run on this machine");
    free(fix);
}

/* The user-space driver (libcuda.so.<version>) must be the kernel module's release, except a
 * CUDA forward-compatibility libcuda (.../compat), which may be newer. */
static void stack_check(cc_doctor_run *run, const cudnnctl_driver_stack *st)
{
    if (!st || !st->libcuda_version || !st->kernel_version ||
        cc_version_cmp_str(st->libcuda_version, st->kernel_version) == 0 ||
        (st->libcuda_compat && cc_version_cmp_str(st->libcuda_version, st->kernel_version) > 0))
        return;
    char *fix = st->container
                    ? cc_asprintf("remove the libcuda the image brings (%s): NVIDIA's container "
                                  "runtime mounts the host's, which matches its kernel module",
                                  st->libcuda_real ? st->libcuda_real : st->libcuda)
                    : cc_strdup("reboot, or unload and reload the nvidia kernel modules, so the "
                                "module is the release of the driver that is installed (an "
                                "upgrade replaced the libraries under a running module)");
    cc_diag_add(run, CC_DC_DRIVER_LIBRARY_MISMATCH,
                st->libcuda_real ? st->libcuda_real : st->libcuda, fix,
                "the user-space driver %s is %s but the loaded kernel module is %s (%s): CUDA "
                "fails to initialise (\"system has unsupported display driver / cuda driver "
                "combination\", error 803) and nvidia-smi says \"Failed to initialize NVML: "
                "Driver/library version mismatch\"",
                st->libcuda_real ? st->libcuda_real : st->libcuda, st->libcuda_version,
                st->kernel_version, st->kernel_source ? st->kernel_source : "?");
    free(fix);
}

int cc_diag_check_driver(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    const cudnnctl_toolkit *active = cudnnctl_detect_active_toolkit(d);
    const cudnnctl_driver *drv = d->driver;
    cudnnctl_driver_stack *st = NULL;
    if (cudnnctl_driver_stack_read(run->ctx, &st) != CUDNNCTL_E_OK)
        cc_clear_error(run->ctx);
    stack_check(run, st);
    if (!drv) { /* a libcuda or a kernel module the loader model sees is a driver, too */
        if (!st || (!st->libcuda && !st->kernel_version))
            no_driver(run, active, st);
        cudnnctl_driver_stack_free(st);
        return run->oom ? -1 : 0;
    }
    use uses[16];
    size_t n = 0;
    int rc = 0;
    if (active)
        rc |=
            add_use(uses, &n, 16, active->major,
                    cc_asprintf("the active CUDA toolkit %s (%s)", active->version, active->path));
    for (size_t i = 0; i < d->n_cudnn && rc == 0; i++) {
        const char *how = NULL;
        int v = cc_diag_copy_variant(run, &d->cudnn[i], &how);
        if (v > 0)
            rc |= add_use(uses, &n, 16, v,
                          cc_asprintf("cuDNN %s in %s (built for CUDA %d, from its %s)",
                                      d->cudnn[i].version, d->cudnn[i].path, v, how));
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *floor = cc_compat_driver_floor(uses[i].major, d->platform);
        int too_old = 0;
        char have[64];
        if (drv->version && floor) {
            too_old = cc_version_cmp_str(drv->version, floor) < 0;
            snprintf(have, sizeof(have), "%s", drv->version);
        } else if (drv->cuda_version > 0 && !drv->cuda_version_estimated) {
            too_old = drv->cuda_version / 1000 < uses[i].major;
            snprintf(have, sizeof(have), "supporting CUDA %d.%d", drv->cuda_version / 1000,
                     (drv->cuda_version % 1000) / 10);
        }
        if (too_old) {
            const char *host = st && st->container ? " of the host (a container uses the "
                                                     "host's kernel driver: nothing inside it "
                                                     "changes this)"
                                                   : "";
            char *fix =
                floor ? cc_asprintf("upgrade the NVIDIA driver%s to %s or newer; else use the "
                                    "CUDA toolkit and cuDNN builds of an older CUDA major that "
                                    "this driver supports",
                                    host, floor)
                      : cc_asprintf("upgrade the NVIDIA driver%s to one supporting CUDA %d",
                                    host, uses[i].major);
            cc_diag_add(run, CC_DC_DRIVER_TOO_OLD, NULL, fix,
                        "the NVIDIA driver (%s) is older than CUDA %d needs (>= %s), which %s "
                        "uses: cuDNN fails with CUDNN_STATUS_NOT_INITIALIZED or 'driver version "
                        "is insufficient'",
                        have, uses[i].major, floor ? floor : "a CUDA-capable release", uses[i].who);
            free(fix);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(uses[i].who);
    cudnnctl_driver_stack_free(st);
    return rc || run->oom ? -1 : 0;
}
