/* detect_wincudnn.c: cuDNN copies on Windows — the cudnn*.dll sets in each toolkit's bin and
 * bin\x64 (a zip copied into the CUDA tree), and those of NVIDIA's graphical cuDNN installer, which
 * keeps one set per CUDA version: <Program Files>\NVIDIA\CUDNN\v<M.m>\bin\<X.Y>\ with
 * include\<X.Y>\ and lib\<X.Y>\x64\ beside it (e.g. CUDNN\v9.1\bin\11.8 and bin\12.4). Version
 * from cudnn_version.h when its major matches cudnn64_<N>.dll, else the installer dir's v<M.m>,
 * else the DLL name; in_loader_path = the dir is on PATH; cuDNN 8.3-9.1 without a 64-bit
 * zlibwapi.dll beside its DLLs gets a problem. Files are read through the host profile and under
 * --root (cc_detect_win_* in detect_windows.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

/* Is dir one of the entries of PATH (case-insensitive, trailing '\\' ignored)? */
static int on_path(cudnnctl_ctx *ctx, const char *dir)
{
    const char *path = cc_host_getenv(ctx, "PATH");
    if (!path)
        return 0;
    int hit = 0;
    char *copy = cc_strdup(path);
    for (char *tok = copy, *next; tok && !hit; tok = next) {
        next = strchr(tok, ';');
        if (next)
            *next++ = '\0';
        char *n = *tok ? cc_detect_win_norm(tok) : NULL;
        hit = n && cc_detect_win_same_path(n, dir);
        free(n);
    }
    free(copy);
    return hit;
}

/* ---- cuDNN copies ------------------------------------------------------------------------------
 */
/* The machine field of a PE image (0x8664 x64, 0x14c x86, 0xaa64 Arm64); 0 when it is no PE. */
static unsigned pe_machine(cudnnctl_ctx *ctx, const char *path)
{
    unsigned char h[4096];
    size_t len = 0;
    char *real = cc_rooted(ctx, path);
    cc_pf_fd fd = real ? cc_pf_open(real, CC_PF_O_RDONLY, 0) : -1;
    free(real);
    if (fd == -1)
        return 0;
    long long r;
    while (len < sizeof(h) && (r = cc_pf_read(fd, h + len, sizeof(h) - len)) > 0)
        len += (size_t)r;
    cc_pf_close(fd);
    if (len < 0x40 || h[0] != 'M' || h[1] != 'Z')
        return 0;
    size_t pe =
        (size_t)h[0x3c] | (size_t)h[0x3d] << 8 | (size_t)h[0x3e] << 16 | (size_t)h[0x3f] << 24;
    if (pe + 6 > len || memcmp(h + pe, "PE\0\0", 4) != 0)
        return 0;
    return (unsigned)h[pe + 4] | (unsigned)h[pe + 5] << 8;
}

static int problem(cudnnctl_cudnn_copy *c, char *msg)
{
    return msg ? cc_strs_push(&c->problems, &c->n_problems, msg) : -1;
}

/* cuDNN 8.3 - 9.1 load zlibwapi.dll (cudnn-distribution.md failure mode 7). */
static int check_zlibwapi(cudnnctl_ctx *ctx, cudnnctl_cudnn_copy *c)
{
    int needs = (c->major == 8 && (c->minor < 0 || c->minor >= 3)) ||
                (c->major == 9 && c->minor >= 0 && c->minor <= 1);
    if (!needs)
        return 0;
    char *z = cc_detect_win_join(c->path, "zlibwapi.dll");
    if (!z)
        return -1;
    int rc = 0;
    if (!cc_detect_win_exists(ctx, z, 0)) {
        rc = problem(
            c, cc_asprintf("cuDNN %s needs zlibwapi.dll and there is none in %s: put a 64-bit "
                           "zlibwapi.dll there (beside the cuDNN DLLs), or install cuDNN 9.2 or "
                           "newer, which needs none",
                           c->version, c->path));
    } else {
        unsigned m = pe_machine(ctx, z);
        if (m != 0x8664)
            rc = problem(
                c, cc_asprintf("%s is not a 64-bit Windows DLL (%s): loading cuDNN fails with "
                               "Windows error 193; replace it with a 64-bit zlibwapi.dll, or "
                               "install cuDNN 9.2 or newer",
                               z,
                               m == 0x14c ? "32-bit x86"
                               : m        ? "another machine type"
                                          : "no PE image"));
    }
    free(z);
    return rc;
}

/* The cuDNN DLL names in @p dir (sorted) and the major of cudnn64_<N>.dll (-1 when none). */
static int list_dlls(cudnnctl_ctx *ctx, const char *dir, cc_strv *libs, int *major)
{
    *major = -1;
    cc_pf_dir *d = cc_detect_win_opendir(ctx, dir);
    const char *n;
    while (d && (n = cc_pf_readdir(d)) != NULL) {
        if (cc_detect_win_ci_prefix(n, "cudnn", 5) != 0 || !cc_str_iends(n, ".dll"))
            continue;
        if (cc_strv_push(libs, n) != 0) {
            cc_pf_closedir(d);
            return -1;
        }
        int m = 0;
        if (sscanf(n, "cudnn64_%d.dll", &m) == 1 || sscanf(n, "CUDNN64_%d.DLL", &m) == 1)
            *major = m;
    }
    cc_pf_closedir(d);
    cc_strv_sort(libs);
    return 0;
}

static cudnnctl_cudnn_copy *new_copy(cc_detect_run *run)
{
    cudnnctl_cudnn_copy *c = cc_detect_cudnn_slot(run);
    if (c)
        c->major = c->minor = c->patch = -1;
    return c;
}

/* Version from <inc>\cudnn_version.h when it matches the DLLs' major; a problem when not. */
static int read_header(cudnnctl_ctx *ctx, cudnnctl_cudnn_copy *c, const char *inc, int major)
{
    char *hdr = cc_detect_win_join(inc, "cudnn_version.h");
    char *text = hdr ? cc_detect_win_slurp(ctx, hdr, 1 << 20) : NULL;
    cc_detect_ver hv;
    int rc = hdr ? 0 : -1;
    if (text && cc_detect_parse_cudnn_header(text, &hv) == 0) {
        c->include_dir = cc_strdup(inc);
        c->header_version = cc_asprintf("%d.%d.%d", hv.major, hv.minor, hv.patch);
        if (!c->include_dir || !c->header_version)
            rc = -1;
        else if (major < 0 || hv.major == major) {
            c->major = hv.major;
            c->minor = hv.minor;
            c->patch = hv.patch;
            c->version_source = cc_strdup("header");
            rc = c->version_source ? 0 : -1;
        } else {
            rc = problem(c, cc_asprintf("%s\\cudnn_version.h says %d.%d.%d but the DLLs are "
                                        "cudnn64_%d.dll: headers and DLLs of different cuDNN "
                                        "majors; reinstall one cuDNN into this tree",
                                        c->include_dir, hv.major, hv.minor, hv.patch, major));
        }
    }
    free(text);
    free(hdr);
    return rc;
}

/* One copy from the DLLs in @p dir (none there: nothing added). @p inc: its include dir;
 * @p vdir_major/minor: the installer's v<M.m> (-1 when none); @p cuda: the CUDA X.Y its layout
 * names (NULL when none). */
static int add_copy(cc_detect_run *run, const char *dir, const char *inc, const char *origin,
                    int vdir_major, int vdir_minor, const char *cuda)
{
    cc_strv libs = {0};
    int major = -1;
    if (list_dlls(run->ctx, dir, &libs, &major) != 0) {
        cc_strv_free(&libs);
        return -1;
    }
    if (libs.n == 0)
        return 0;
    cudnnctl_cudnn_copy *c = new_copy(run);
    if (!c) {
        cc_strv_free(&libs);
        return -1;
    }
    c->libs = libs.v;
    c->n_libs = libs.n;
    c->path = cc_strdup(dir);
    c->origin = cc_strdup(origin);
    c->major = major;
    c->in_loader_path = on_path(run->ctx, dir);
    if (!c->path || !c->origin || (cuda && !(c->cuda_version = cc_strdup(cuda))) ||
        read_header(run->ctx, c, inc, major) != 0)
        return -1;
    if (!c->version_source && vdir_major >= 0 && (major < 0 || vdir_major == major)) {
        c->major = vdir_major;
        c->minor = vdir_minor;
        c->version_source = cc_strdup("install-dir");
    }
    if (!c->version_source)
        c->version_source = cc_strdup("file-name");
    c->version = c->minor < 0   ? cc_asprintf("%d", c->major)
                 : c->patch < 0 ? cc_asprintf("%d.%d", c->major, c->minor)
                                : cc_asprintf("%d.%d.%d", c->major, c->minor, c->patch);
    if (!c->version || !c->version_source || check_zlibwapi(run->ctx, c) != 0)
        return -1;
    return 0;
}

/* "12.4" -> 1 (a CUDA X.Y dir name of the installer layout). */
static int is_cuda_dir(const char *n)
{
    int a = -1, b = -1;
    char tail = 0;
    return sscanf(n, "%d.%d%c", &a, &b, &tail) == 2 && a > 0 && b >= 0;
}

/* <Program Files>\NVIDIA\CUDNN\v<M.m>\bin\<X.Y>[\x64] with include\<X.Y>. */
static int find_installer(cc_detect_run *run)
{
    cudnnctl_ctx *ctx = run->ctx;
    const char *pf = cc_host_getenv(ctx, "ProgramW6432");
    if (!pf || !*pf)
        pf = cc_host_getenv(ctx, "ProgramFiles");
    char *base = cc_asprintf("%s\\NVIDIA\\CUDNN", pf && *pf ? pf : "C:\\Program Files");
    cc_pf_dir *d = base ? cc_detect_win_opendir(ctx, base) : NULL;
    const char *v;
    int rc = base ? 0 : -1;
    while (rc == 0 && d && (v = cc_pf_readdir(d)) != NULL) {
        int vmaj = -1, vmin = -1;
        if ((v[0] != 'v' && v[0] != 'V') || cc_detect_win_parse_vdir(v, &vmaj, &vmin) != 0)
            continue;
        char *bin = cc_asprintf("%s\\%s\\bin", base, v);
        cc_pf_dir *bd = bin ? cc_detect_win_opendir(ctx, bin) : NULL;
        const char *cu;
        rc = bin ? 0 : -1;
        while (rc == 0 && bd && (cu = cc_pf_readdir(bd)) != NULL) {
            if (!is_cuda_dir(cu))
                continue;
            char *dir = cc_asprintf("%s\\%s", bin, cu), *x64 = cc_asprintf("%s\\%s\\x64", bin, cu);
            char *inc = cc_asprintf("%s\\%s\\include\\%s", base, v, cu);
            rc = dir && x64 && inc &&
                         add_copy(run, dir, inc, "nvidia-installer", vmaj, vmin, cu) == 0 &&
                         add_copy(run, x64, inc, "nvidia-installer", vmaj, vmin, cu) == 0
                     ? 0
                     : -1;
            free(dir);
            free(x64);
            free(inc);
        }
        cc_pf_closedir(bd);
        free(bin);
    }
    cc_pf_closedir(d);
    free(base);
    return rc;
}

int cc_detect_win_find_cudnn(cc_detect_run *run)
{
    cudnnctl_detect_result *r = run->r;
    size_t ntk = r->n_toolkits;
    for (size_t i = 0; i < ntk; i++) {
        const char *tk = r->toolkits[i].path;
        char *x64 = cc_detect_win_join(tk, "bin\\x64"), *bin = cc_detect_win_join(tk, "bin");
        char *inc = cc_detect_win_join(tk, "include");
        int bad = !x64 || !bin || !inc || add_copy(run, x64, inc, "cuda-tree", -1, -1, NULL) != 0 ||
                  add_copy(run, bin, inc, "cuda-tree", -1, -1, NULL) != 0;
        free(x64);
        free(bin);
        free(inc);
        if (bad)
            return -1;
    }
    return find_installer(run);
}
