/* detect_driver.c: the NVIDIA driver: cuDriverGetVersion through libcuda (host only, never
 * under --root), else /proc/driver/nvidia/version, else nvidia-smi (host only, with a timeout).
 * No driver -> result->driver stays NULL. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "libnames.h"

#define SMI_TIMEOUT_MS 3000u

typedef int (*cu_driver_get_version_fn)(int *);

static int libcuda_version(void)
{
    void *h = cc_pf_dlopen(cc_ln_driver()); /* the loader of the machine we run on */
    if (!h)
        return 0;
    int v = 0;
    void *sym = cc_pf_dlsym(h, "cuDriverGetVersion");
    if (sym) {
        cu_driver_get_version_fn fn;
        memcpy(&fn, &sym, sizeof(fn)); /* object -> function pointer without a pedantic cast */
        if (fn(&v) != 0)
            v = 0;
    }
    cc_pf_dlclose(h);
    return v > 0 ? v : 0;
}

/* The host path of an executable named `name` on PATH, NULL when none. */
static char *on_path(const char *name)
{
    const char *path = cc_pf_getenv("PATH");
    if (!path)
        return NULL;
    const char *s = path;
    while (*s) {
        size_t n = strcspn(s, ":");
        if (n > 0 && s[0] == '/') {
            char *dir = cc_strndup(s, n);
            char *p = dir ? cc_path_join(dir, name) : NULL;
            free(dir);
            cc_pf_stat_t st;
            if (p && cc_pf_stat(p, &st) == 0 && st.is_reg && (st.mode & 0111))
                return p;
            free(p);
        }
        s += n;
        if (*s == ':')
            s++;
    }
    return NULL;
}

static char *smi_version(cc_detect_run *run)
{
    char *smi = on_path("nvidia-smi");
    if (!smi)
        return NULL;
    char *why = NULL;
    int may = cc_detect_may_run(run->ctx, smi, &why); /* PATH under sudo -E may be anyone's */
    if (may == 0)
        cc_detect_note(run, "%s not run (%s): driver version from /proc and libcuda only", smi,
                       why);
    free(why);
    if (may != 1) {
        free(smi);
        return NULL;
    }
    const char *argv[] = {smi, "--query-gpu=driver_version", "--format=csv,noheader", NULL};
    char *out = NULL, *ver = NULL;
    int status = 0;
    if (cc_pf_run(argv, NULL, NULL, SMI_TIMEOUT_MS, 0, &out, NULL, &status) == 0) {
        if (status == -1)
            cc_detect_note(run, "%s did not answer within %u ms: driver version unknown", smi,
                           SMI_TIMEOUT_MS);
        else if (status == 0)
            cc_detect_parse_smi(out, &ver);
    }
    free(out);
    free(smi);
    return ver;
}

cudnnctl_err cc_detect_find_driver(cc_detect_run *run)
{
    cudnnctl_ctx *ctx = run->ctx;
    int cuda = 0;
    char *ver = NULL;
    const char *source = NULL;

    /* under --root the host's libcuda says nothing about the tree being examined */
    if (!ctx->root && cc_host_is_native(ctx)) {
        cuda = libcuda_version();
        if (cuda)
            source = "libcuda";
    }
    char *text = NULL;
    if (cc_detect_read(ctx, "/proc/driver/nvidia/version", 64 * 1024, &text) == 0) {
        if (cc_detect_parse_proc_driver(text, &ver) == 0) {
            if (!source)
                source = "/proc/driver/nvidia/version";
        } else {
            cc_detect_note(run, "/proc/driver/nvidia/version has no \"NVRM version\" line");
        }
    }
    free(text);
    if (!ver && !ctx->root && cc_host_is_native(ctx)) {
        ver = smi_version(run);
        if (ver && !source)
            source = "nvidia-smi";
    }
    if (!cuda && !ver)
        return CUDNNCTL_E_OK;
    cudnnctl_driver *d = calloc(1, sizeof(*d));
    if (!d) {
        free(ver);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    d->version = ver;
    d->cuda_version = cuda;
    if (!cuda && ver) {
        d->cuda_version = cc_detect_driver_cuda_floor(ver);
        d->cuda_version_estimated = d->cuda_version > 0;
    }
    d->source = cc_strdup(source);
    run->r->driver = d;
    if (!d->source)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}
