/* doctor_variant.c: the CUDA major a cuDNN copy was built for (wheel dist-info, a receipt, the
 * Debian package that lists it, cudnnctl's prefix dir name, its own ELF) and the check that it
 * matches the CUDA it runs with (failure mode 6). Used by the cuDNN, driver, consumer and owner
 * checks; uses only doctor_finding.c and doctor_files.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

/* ---- where a copy's CUDA major comes from -------------------------------------------------- */

/* "<pkg>_cu<N>-<ver>.dist-info" -> *cu = N; "<pkg>-<ver>.dist-info" -> *cu = -1. *vmajor = the
 * version's major. 0 when the name is a dist-info of pkg. */
static int dist_name(const char *name, const char *pkg, int *cu, int *vmajor)
{
    size_t n = strlen(pkg);
    if (strncmp(name, pkg, n) != 0 || !cc_str_ends(name, ".dist-info"))
        return -1;
    const char *s = name + n;
    *cu = -1;
    if (strncmp(s, "_cu", 3) == 0) {
        char *end = NULL;
        long v = strtol(s + 3, &end, 10);
        if (end == s + 3 || *end != '-' || v <= 0 || v > 99)
            return -1;
        *cu = (int)v;
        s = end;
    }
    if (*s != '-' || s[1] < '0' || s[1] > '9')
        return -1;
    *vmajor = atoi(s + 1);
    return 0;
}

/* The site-packages dir of a wheel copy (".../site-packages/nvidia/cudnn/lib"), malloc'd. */
char *cc_diag_wheel_site(const char *path)
{
    const char *tail = "/nvidia/cudnn/lib";
    if (!cc_str_ends(path, tail))
        return NULL;
    return cc_strndup(path, strlen(path) - strlen(tail));
}

/* The CUDA major of the nvidia_cudnn_cu<N> dist-info of major `major` in dir; -1 none. */
static int dist_variant(cc_doctor_run *run, const char *dir, int major)
{
    cc_strv ents = {0};
    int out = -1;
    if (!dir || cc_diag_list(run, dir, "nvidia_cudnn", &ents) != 0)
        return -1;
    for (size_t i = 0; i < ents.n && out < 0; i++) {
        int cu, vm;
        if (dist_name(ents.v[i], "nvidia_cudnn", &cu, &vm) == 0 && cu > 0 && vm == major)
            out = cu;
    }
    cc_strv_free(&ents);
    return out;
}

/* NVIDIA's debs: /var/lib/dpkg/info/libcudnn9-cuda-12[:amd64].list names every file of the
 * package; the one listing this copy's libcudnn.so.M file says the CUDA major. -1 none. */
static int dpkg_variant(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "libcudnn%d-cuda-", c->major);
    cc_strv ents = {0};
    if (cc_diag_list(run, "/var/lib/dpkg/info", prefix, &ents) != 0)
        return -1;
    int out = -1;
    char *want = cc_asprintf("%s/libcudnn.so.%d", c->path, c->major);
    for (size_t i = 0; want && i < ents.n && out < 0; i++) {
        const char *n = ents.v[i] + strlen(prefix);
        char *end = NULL;
        long cu = strtol(n, &end, 10);
        if (end == n || (strcmp(end, ".list") != 0 && !cc_str_starts(end, ":")) ||
            !cc_str_ends(end, ".list") || cu <= 0 || cu > 99)
            continue;
        char *p = cc_path_join("/var/lib/dpkg/info", ents.v[i]);
        char *h = p ? cc_diag_host(run, p) : NULL;
        char *text = NULL;
        size_t len = 0;
        if (h && cc_sys_read_file(run->ctx, h, 1u << 20, &text, &len) == 0 && text) {
            /* a line that is the SONAME file or starts with it (libcudnn.so.9.14.0) */
            for (const char *l = text; l && *l && out < 0;) {
                const char *nl = strchr(l, '\n');
                size_t ln = nl ? (size_t)(nl - l) : strlen(l);
                if (ln >= strlen(want) && strncmp(l, want, strlen(want)) == 0)
                    out = (int)cu;
                l = nl ? nl + 1 : NULL;
            }
        }
        cc_clear_error(run->ctx);
        free(text);
        free(h);
        free(p);
    }
    free(want);
    cc_strv_free(&ents);
    return out;
}

/* "cudnn-9.19.0.56-cuda13" anywhere in the path (cudnnctl's prefix layout) -> 13. */
static int prefix_variant(const char *path)
{
    const char *s = path;
    while ((s = strstr(s, "/cudnn-")) != NULL) {
        s++;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const char *c = NULL;
        for (const char *q = s; q + 5 <= s + n; q++)
            if (strncmp(q, "-cuda", 5) == 0)
                c = q + 5;
        if (c && c < s + n && *c >= '0' && *c <= '9')
            return atoi(c);
    }
    return -1;
}

int cc_diag_copy_variant(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char **how)
{
    *how = NULL;
    if (!c->path)
        return -1;
    int v = -1;
    char *site = cc_diag_wheel_site(c->path);
    if (site) {
        v = dist_variant(run, site, c->major);
        free(site);
    } else {
        const cudnnctl_toolkit *t = cc_diag_toolkit_of(run->det, c->path);
        char *dist = t ? cc_path_join(t->path, "dist-info") : NULL;
        v = dist ? dist_variant(run, dist, c->major) : -1;
        free(dist);
    }
    if (v > 0) {
        *how = "dist-info (nvidia_cudnn_cuN)";
        return v;
    }
    for (size_t i = 0; i < run->n_installs; i++) {
        const cc_diag_install *in = &run->installs[i];
        if (in->cuda_major > 0 && in->lib_dir && strcmp(in->lib_dir, c->path) == 0) {
            *how = "install receipt";
            return in->cuda_major;
        }
    }
    if ((v = dpkg_variant(run, c)) > 0) {
        *how = "Debian package (libcudnnM-cuda-N)";
        return v;
    }
    if ((v = prefix_variant(c->path)) > 0) {
        *how = "prefix dir name (cudnn-<version>-cuda<M>)";
        return v;
    }
    if ((v = cc_diag_elf_variant(run, c, run->elf_how, sizeof(run->elf_how))) > 0) {
        *how = run->elf_how;
        return v;
    }
    return -1;
}

/* The CUDA majors of the CUDA runtime / cuBLAS wheels in a site-packages dir (bit per major). */
static unsigned long long site_cuda_majors(cc_doctor_run *run, const char *site)
{
    static const char *const pkgs[] = {"nvidia_cuda_runtime", "nvidia_cublas"};
    unsigned long long mask = 0;
    cc_strv ents = {0};
    if (cc_diag_list(run, site, "nvidia_", &ents) != 0)
        return 0;
    for (size_t i = 0; i < ents.n; i++)
        for (size_t k = 0; k < 2; k++) {
            int cu, vm;
            if (dist_name(ents.v[i], pkgs[k], &cu, &vm) != 0)
                continue;
            int m = cu > 0 ? cu : vm; /* cuBLAS / cudart majors follow CUDA's */
            if (m > 0 && m < 64)
                mask |= 1ull << m;
        }
    cc_strv_free(&ents);
    return mask;
}

void cc_diag_variant_check(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    const char *how = NULL;
    int v = cc_diag_copy_variant(run, c, &how);
    if (v <= 0 || c->n_libs == 0)
        return;
    const cudnnctl_toolkit *active = cudnnctl_detect_active_toolkit(run->det);
    char *with = NULL;
    int partner = -1;
    char *site = cc_diag_wheel_site(c->path);
    if (site) {
        unsigned long long m = site_cuda_majors(run, site);
        if (m & (1ull << v)) {
            free(site);
            return; /* the wheels beside it bring its CUDA */
        }
        for (int k = 63; k > 0 && partner < 0; k--)
            if (m & (1ull << k)) {
                partner = k;
                with = cc_asprintf("the CUDA %d wheels beside it in %s", k, site);
            }
    }
    free(site);
    if (partner < 0) {
        const cudnnctl_toolkit *t = cc_diag_toolkit_of(run->det, c->path);
        if (!t || strcmp(c->origin, "wheel") == 0)
            t = active;
        if (t) {
            partner = t->major;
            with = cc_asprintf("CUDA %s in %s%s", t->version, t->path,
                               t == active ? " (the active toolkit)" : "");
        }
    }
    if (partner > 0 && partner != v) {
        char *args = cc_diag_install_args(run, c->major, -1, partner);
        char *inst = args ? cc_asprintf("`cudnnctl install %s`, or ", args) : NULL;
        char *fix = cc_asprintf("install the cuDNN build for CUDA %d (%s`pip install "
                                "nvidia-cudnn-cu%d`) and remove this one, or run it with a CUDA "
                                "%d toolkit",
                                partner, inst ? inst : "", partner, v);
        free(inst);
        free(args);
        cc_diag_add(run, CC_DC_CUDNN_CUDA_MAJOR_MISMATCH, c->path, fix,
                    "cuDNN %s in %s is built for CUDA %d (its %s) but runs with %s: it dlopens "
                    "libcublasLt.so.%d and the CUDA %d runtime, which fail to load ('Cannot load "
                    "symbol cublasLtGetVersion', 'libcublasLt.so.%d: cannot open shared object "
                    "file')",
                    c->version, c->path, v, how, with ? with : "?", v, v, v);
        free(fix);
    }
    free(with);
}
