/* which.c: what a consumer will really load (libcudnn, libcudart, libcublas), and whether that
 * combination works: cuDNN major equal to the build's, minor at least the build's, the cuDNN
 * built for the consumer's CUDA major, the driver new enough for that CUDA major. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "ldmodel.h"
#include "platform.h"

static const char *const FAMILIES[] = {"libcudnn", "libcudart", "libcublas"};

int cc_ld_family(const char *soname)
{
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(FAMILIES[i]);
        if (strncmp(soname, FAMILIES[i], n) == 0 && strncmp(soname + n, ".so", 3) == 0)
            return i;
    }
    return -1;
}

/* The lowest driver of each CUDA major (CUDA release notes, table 3: Linux x86_64). */
const char *cc_ld_driver_floor(int cuda_major)
{
    switch (cuda_major) {
    case 11: return "450.80.02";
    case 12: return "525.60.13";
    case 13: return "580.65.06";
    default: return NULL;
    }
}

/* The driver version: /proc/driver/nvidia/version, else the file libcuda.so.1 leads to in this
 * environment (libcuda.so.580.159.04: the driver's version is in its name; VMs and containers
 * often have no /proc/driver/nvidia). NULL when neither says. */
char *cc_ld_driver_version(cc_ldmodel *m)
{
    char *h = cc_rooted(m->ctx, "/proc/driver/nvidia/version");
    char *text = NULL, *out = NULL;
    size_t len = 0;
    if (h && cc_ld_read_file(h, 65536, &text, &len) == 0) {
        const char *p = strstr(text, "Kernel Module");
        if (p) /* also the open module's "Kernel Module for x86_64  580.95.05" */
            out = cc_ld_first_version(p + strlen("Kernel Module"));
    }
    free(text);
    free(h);
    if (!out) {
        cudnnctl_load_result r;
        if (cc_ld_one(m, -1, "libcuda.so.1", &r) == CUDNNCTL_E_OK) {
            const char *name = r.real_path ? cc_path_base(r.real_path) : NULL;
            cc_version v;
            if (name && cc_str_starts(name, "libcuda.so.") &&
                cc_version_parse(name + strlen("libcuda.so."), &v) == 0 && v.n >= 2 &&
                v.part[0] > 1)
                out = cc_strdup(name + strlen("libcuda.so."));
            cc_ld_result_clear(&r);
        }
    }
    return out;
}

/* A CUDA major in a path: ".../cuda-13.0/lib", "cudnn-9.19.0.56-cuda13", "..._cuda12-archive". */
static int major_in_path(const char *path)
{
    for (const char *p = path; (p = strstr(p, "cuda")) != NULL; p += 4) {
        const char *q = p + 4;
        if (*q == '-' || *q == '_')
            q++;
        if (*q >= '1' && *q <= '9' && (p == path || p[-1] == '/' || p[-1] == '-' || p[-1] == '_'))
            return atoi(q);
    }
    return -1;
}

/* The wheel that holds a nvidia/cudnn/lib dir: SITE/nvidia_cudnn_cuXX-*.dist-info. */
static int major_from_wheel(const cudnnctl_ctx *ctx, const char *lib_dir)
{
    if (!cc_str_ends(lib_dir, "/nvidia/cudnn/lib"))
        return -1;
    char *site = cc_strndup(lib_dir, strlen(lib_dir) - strlen("/nvidia/cudnn/lib"));
    char *host = site ? cc_rooted(ctx, site) : NULL;
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    int major = -1;
    const char *name;
    while (d && major < 0 && (name = cc_pf_readdir(d)) != NULL)
        if (cc_str_starts(name, "nvidia_cudnn_cu") && cc_str_ends(name, ".dist-info"))
            major = atoi(name + strlen("nvidia_cudnn_cu"));
    if (d)
        cc_pf_closedir(d);
    free(host);
    free(site);
    return major > 0 ? major : -1;
}

/* A distribution package that lists the file: /var/lib/dpkg/info/libcudnn9-cuda-13*.list. */
static int major_from_dpkg(const cudnnctl_ctx *ctx, const char *file)
{
    char *host = cc_rooted(ctx, "/var/lib/dpkg/info");
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    int major = -1;
    const char *name;
    while (d && major < 0 && (name = cc_pf_readdir(d)) != NULL) {
        const char *c = strstr(name, "-cuda-");
        if (!cc_str_starts(name, "libcudnn") || !c || !cc_str_ends(name, ".list"))
            continue;
        char *p = cc_path_join(host, name);
        char *text = NULL;
        size_t len = 0;
        if (p && cc_ld_read_file(p, 1u << 20, &text, &len) == 0 && strstr(text, file))
            major = atoi(c + 6);
        free(text);
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    free(host);
    return major > 0 ? major : -1;
}

/* CUDA major a cuDNN copy was built for: the DT_NEEDED of its libraries (libcublasLt.so.12,
 * libcudart.so.12 in older 9.x), the wheel that holds it, the package that lists it, a CUDA
 * major in its path. -1 when nothing says. *how names the source. */
int cc_ld_cudnn_cuda_major(const cudnnctl_ctx *ctx, const char *file, const char **how)
{
    static const char *const deps[] = {"libcublasLt.so.", "libcublas.so.", "libcudart.so.",
                                       "libnvrtc.so."};
    char *lib_dir = cc_path_dir(file);
    char *host = lib_dir ? cc_rooted(ctx, lib_dir) : NULL;
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    int major = -1;
    const char *name;
    *how = "DT_NEEDED";
    while (d && major < 0 && (name = cc_pf_readdir(d)) != NULL) {
        if (!cc_str_starts(name, "libcudnn") || !strstr(name, ".so"))
            continue;
        char *p = cc_path_join(host, name);
        cc_elf_info e;
        if (p && cc_elf_read_dyn(p, &e) == 0) {
            for (size_t i = 0; i < e.n_needed && major < 0; i++)
                for (size_t k = 0; k < 4 && major < 0; k++)
                    if (cc_str_starts(e.needed[i], deps[k]))
                        major = atoi(e.needed[i] + strlen(deps[k]));
            cc_elf_info_free(&e);
        }
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    free(host);
    if (major <= 0 && lib_dir && (major = major_from_wheel(ctx, lib_dir)) > 0)
        *how = "the nvidia-cudnn-cuXX wheel that holds it";
    if (major <= 0 && (major = major_from_dpkg(ctx, file)) > 0)
        *how = "the distribution package that lists it";
    if (major <= 0 && (major = major_in_path(file)) > 0)
        *how = "its path";
    free(lib_dir);
    return major > 0 ? major : -1;
}

static int cmp_driver(const char *a, const char *b)
{
    cc_version va, vb;
    if (cc_version_parse(a, &va) != 0 || cc_version_parse(b, &vb) != 0)
        return 0;
    return cc_version_cmp(&va, &vb);
}

/* The verdict, from the found libraries and what the consumer was built for. */
void cc_ld_judge(cudnnctl_ctx *ctx, cudnnctl_consumer *c, const char *driver)
{
    const cudnnctl_load_result *dnn = NULL;
    for (size_t i = 0; i < c->n_libs && !dnn; i++)
        if (cc_ld_family(c->libs[i].soname) == 0)
            dnn = &c->libs[i];
    c->system_install_affects = 1;
    if (strcmp(c->kind, "framework") == 0 && !c->extension) {
        c->verdict = cc_strdup("unknown");
        cc_ld_problem(c, cc_strdup("no CUDA extension that loads cuDNN was found in this package: "
                              "nothing to check"));
        return;
    }
    c->ld_library_path_affects = 1;
    c->loaded_cudnn_cuda_major = -1;
    if (!dnn || !dnn->path) {
        c->verdict = cc_strdup("missing");
        c->causes |= dnn && dnn->rule && strcmp(dnn->rule, "error") == 0 ? CUDNNCTL_CAUSE_BAD_FILE
                                                                          : CUDNNCTL_CAUSE_NOT_FOUND;
        cc_ld_problem(c, dnn && dnn->rule && strcmp(dnn->rule, "error") == 0
                       ? cc_strdup(dnn->why)
                       : cc_asprintf("no %s is found: it cannot use cuDNN",
                                     dnn ? dnn->soname : "libcudnn"));
        return;
    }
    /* the flags: over libcudnn and the sub-libraries it loads itself */
    c->ld_library_path_affects = c->system_install_affects = 0;
    for (size_t i = 0; i < c->n_libs; i++) {
        const char *rule = c->libs[i].rule;
        if (!cc_str_starts(c->libs[i].soname, "libcudnn"))
            continue;
        if (strcmp(rule, "rpath") != 0 && strcmp(rule, "path") != 0 && strcmp(rule, "loaded") != 0)
            c->ld_library_path_affects = 1;
        if (strcmp(rule, "ld.so.cache") == 0 || strcmp(rule, "default_dirs") == 0 ||
            strcmp(rule, "not_found") == 0)
            c->system_install_affects = 1;
    }
    const char *how = NULL;
    c->loaded_cudnn_cuda_major = cc_ld_cudnn_cuda_major(ctx, dnn->path, &how);
    if (c->loaded_cudnn_cuda_major < 0 && dnn->real_path)
        c->loaded_cudnn_cuda_major = cc_ld_cudnn_cuda_major(ctx, dnn->real_path, &how);
    c->loaded_cudnn_cuda_source = c->loaded_cudnn_cuda_major > 0 ? cc_strdup(how) : NULL;
    cc_version v;
    int have_v = dnn->version && cc_version_parse(dnn->version, &v) == 0;
    size_t before = 0; /* problems found while resolving (a mixed cuDNN) count too */
    if (have_v && c->need_cudnn_major >= 0 && v.part[0] != c->need_cudnn_major &&
        (c->causes |= CUDNNCTL_CAUSE_MAJOR))
        cc_ld_problem(c, cc_asprintf("it was built for cuDNN %d but loads cuDNN %s (%s): the major "
                               "must match",
                               c->need_cudnn_major, dnn->version, dnn->path));
    else if (have_v && v.n >= 2 && c->need_cudnn_minor >= 0 && v.part[1] < c->need_cudnn_minor &&
             (c->causes |= CUDNNCTL_CAUSE_TOO_OLD))
        cc_ld_problem(c, cc_asprintf("it was built for cuDNN %d.%d but loads the older %s (%s): the "
                               "minor must be at least the build's",
                               c->need_cudnn_major, c->need_cudnn_minor, dnn->version, dnn->path));
    if (c->need_cuda_major > 0 && c->loaded_cudnn_cuda_major > 0 &&
        c->need_cuda_major != c->loaded_cudnn_cuda_major && (c->causes |= CUDNNCTL_CAUSE_CUDA_MAJOR))
        cc_ld_problem(c, cc_asprintf("it uses CUDA %d but the cuDNN it loads was built for CUDA %d",
                               c->need_cuda_major, c->loaded_cudnn_cuda_major));
    int cuda = c->need_cuda_major > 0 ? c->need_cuda_major : c->loaded_cudnn_cuda_major;
    const char *floor = cc_ld_driver_floor(cuda);
    if (floor && driver && cmp_driver(driver, floor) < 0 && (c->causes |= CUDNNCTL_CAUSE_DRIVER))
        cc_ld_problem(c, cc_asprintf("CUDA %d needs NVIDIA driver %s or newer; this driver is %s",
                               cuda, floor, driver));
    if (c->n_problems > before)
        c->verdict = cc_strdup("mismatch");
    else if (!have_v || (c->need_cudnn_major < 0 && c->need_cuda_major < 0))
        c->verdict = cc_strdup("unknown");
    else
        c->verdict = cc_strdup("ok");
}

/* Resolve soname for a consumer (on behalf of objs[req]) and add it to its libs. */
cudnnctl_err cc_ld_add_lib(cc_ldmodel *m, cudnnctl_consumer *c, int req, const char *soname)
{
    if (cc_grow(&c->libs, NULL, c->n_libs + 1, sizeof(*c->libs)) != 0)
        return CUDNNCTL_E_NOMEM;
    cudnnctl_err e = cc_ld_one(m, req, soname, &c->libs[c->n_libs]);
    c->n_libs++;
    return e;
}
