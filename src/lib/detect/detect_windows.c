/* detect_windows.c: CUDA toolkits and cuDNN copies on Windows: CUDA_PATH, CUDA_PATH_Vx_y, the
 * registry (HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\vX.Y InstallDir), the
 * default install dir; versions from version.json, nvcc.exe --version, cuda.h, the registry key,
 * the env name and cudart64_*.dll names; cuDNN by its DLL names in bin and bin\x64 (cudnn64_8.dll,
 * cudnn64_9.dll and the sub-DLLs) with include\cudnn_version.h, and the zlibwapi.dll that cuDNN
 * 8.3-9.1 need (missing, or 32-bit: LoadLibrary error 193). Runs when the context's host profile
 * is Windows (host.h): environment variables and the registry come from the profile, and every
 * file is read through cc_rooted, so under --root C:\X is ROOT/c/X — the same code runs on Linux
 * against a fake tree and an in-memory registry. Paths in the result are Windows paths. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "grow.h"

#define CUDA_REG_KEY "HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA"

typedef struct {
    char *path;      /* normalised: '\\' separators, no trailing '\\' */
    char *found_via; /* first way it was found */
    int reg_major, reg_minor; /* registry key vX.Y naming it, -1 when none */
    int env_major, env_minor; /* CUDA_PATH_Vx_y naming it */
} win_cand;

typedef struct {
    win_cand *v;
    size_t n, cap;
} win_list;

static int add(cudnnctl_ctx *ctx, win_list *l, const char *path, const char *via, win_cand **out)
{
    *out = NULL;
    if (!path || !*path || !cc_host_is_abs(ctx, path))
        return 0;
    char *p = cc_detect_win_norm(path);
    if (!p)
        return -1;
    for (size_t i = 0; i < l->n; i++)
        if (cc_detect_win_same_path(l->v[i].path, p)) {
            free(p);
            *out = &l->v[i];
            return 0;
        }
    if (cc_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) != 0) {
        free(p);
        return -1;
    }
    win_cand *c = &l->v[l->n];
    memset(c, 0, sizeof(*c));
    c->path = p;
    c->found_via = cc_strdup(via);
    c->reg_major = c->reg_minor = c->env_major = c->env_minor = -1;
    if (!c->found_via) {
        free(p);
        return -1;
    }
    l->n++;
    *out = c;
    return 0;
}

static void list_free(win_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].found_via);
    }
    free(l->v);
}

static int find_candidates(cc_detect_run *run, win_list *l)
{
    cudnnctl_ctx *ctx = run->ctx;
    win_cand *c = NULL;
    if (add(ctx, l, cc_host_getenv(ctx, "CUDA_PATH"), "CUDA_PATH", &c) != 0)
        return -1;
    for (int major = 8; major <= 15; major++)
        for (int minor = 0; minor <= 9; minor++) {
            char name[32];
            snprintf(name, sizeof(name), "CUDA_PATH_V%d_%d", major, minor);
            if (add(ctx, l, cc_host_getenv(ctx, name), name, &c) != 0)
                return -1;
            if (c) {
                c->env_major = major;
                c->env_minor = minor;
            }
        }
    char **keys = cc_host_reg_subkeys(ctx, CUDA_REG_KEY);
    for (size_t i = 0; keys && keys[i]; i++) {
        int major, minor;
        char *key = cc_asprintf("%s\\%s", CUDA_REG_KEY, keys[i]), *dir = NULL;
        int type = 0;
        if (key && cc_detect_win_parse_vdir(keys[i], &major, &minor) == 0 &&
            cc_host_reg_get(ctx, key, "InstallDir", &dir, &type) == 0 && dir) {
            if (add(ctx, l, dir, "registry", &c) != 0) {
                free(dir);
                free(key);
                goto oom;
            }
            if (c) {
                c->reg_major = major;
                c->reg_minor = minor;
            }
        }
        free(dir);
        free(key);
    }
    const char *pf = cc_host_getenv(ctx, "ProgramW6432");
    if (!pf || !*pf)
        pf = cc_host_getenv(ctx, "ProgramFiles");
    char *base = cc_asprintf("%s\\NVIDIA GPU Computing Toolkit\\CUDA", pf && *pf ? pf : "C:\\Program Files");
    if (!base)
        goto oom;
    cc_pf_dir *d = cc_detect_win_opendir(ctx, base);
    const char *n;
    while (d && (n = cc_pf_readdir(d)) != NULL) {
        int major, minor;
        if (cc_detect_win_parse_vdir(n, &major, &minor) != 0)
            continue;
        char *p = cc_detect_win_join(base, n);
        int rc = p ? add(ctx, l, p, "default install dir", &c) : -1;
        free(p);
        if (rc != 0) {
            cc_pf_closedir(d);
            free(base);
            goto oom;
        }
    }
    cc_pf_closedir(d);
    free(base);
    for (size_t i = 0; keys && keys[i]; i++)
        free(keys[i]);
    free(keys);
    return 0;
oom:
    for (size_t i = 0; keys && keys[i]; i++)
        free(keys[i]);
    free(keys);
    return -1;
}

/* cudart64_12.dll -> 12.x; cudart64_110.dll -> 11.x (every 11.x); cudart64_102.dll -> 10.2. */
static int parse_cudart_dll(const char *name, cc_detect_ver *v)
{
    const char *pre = "cudart64_";
    if (strncmp(name, pre, strlen(pre)) != 0)
        return -1;
    const char *d = name + strlen(pre);
    size_t nd = strspn(d, "0123456789");
    if (nd < 2 || nd > 3 || strcmp(d + nd, ".dll") != 0)
        return -1;
    int num = atoi(d);
    v->patch = -1;
    if (nd == 3) { /* 110, 101, 100 */
        v->major = num / 10;
        v->minor = v->major == 11 ? -1 : num % 10;
    } else if (num >= 12) { /* 12, 13: one DLL per major */
        v->major = num;
        v->minor = -1;
    } else { /* 92, 91, 90 */
        v->major = num / 10;
        v->minor = num % 10;
    }
    return 0;
}

static int add_reading(cudnnctl_toolkit *t, unsigned src, const cc_detect_ver *v)
{
    if (cc_grow(&t->readings, NULL, t->n_readings + 1, sizeof(*t->readings)) != 0)
        return -1;
    char *s = v->minor < 0 ? cc_asprintf("%d", v->major)
              : v->patch < 0 ? cc_asprintf("%d.%d", v->major, v->minor)
                             : cc_asprintf("%d.%d.%d", v->major, v->minor, v->patch);
    if (!s)
        return -1;
    t->readings[t->n_readings].source = src;
    t->readings[t->n_readings].version = s;
    t->readings[t->n_readings].agrees = 0;
    t->n_readings++;
    t->sources |= src;
    return 0;
}

/* The dir of cudart64_*.dll (bin\x64 in CUDA 13, bin before), or NULL; *v from its name. */
static char *cudart_dir(cudnnctl_ctx *ctx, const char *tk, cc_detect_ver *v, int *found)
{
    const char *subs[] = {"bin\\x64", "bin"};
    *found = 0;
    for (int i = 0; i < 2; i++) {
        char *dir = cc_detect_win_join(tk, subs[i]);
        cc_pf_dir *d = dir ? cc_detect_win_opendir(ctx, dir) : NULL;
        const char *n;
        while (d && (n = cc_pf_readdir(d)) != NULL)
            if (parse_cudart_dll(n, v) == 0) {
                *found = 1;
                break;
            }
        cc_pf_closedir(d);
        if (*found)
            return dir;
        free(dir);
    }
    return NULL;
}

/* Settle on the first reading, in the order of trust, that gives major.minor; every reading that
 * says otherwise is a problem of the toolkit. */
static int settle_version(const win_cand *c, cudnnctl_toolkit *t)
{
    static const unsigned order[] = {CUDNNCTL_SRC_VERSION_JSON, CUDNNCTL_SRC_NVCC, CUDNNCTL_SRC_CUDA_H,
                                     CUDNNCTL_SRC_REGISTRY,     CUDNNCTL_SRC_ENV,  CUDNNCTL_SRC_SONAME};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]) && !t->version; k++)
        for (size_t i = 0; i < t->n_readings; i++) {
            cc_version pv;
            if (t->readings[i].source != order[k] || cc_version_parse(t->readings[i].version, &pv) != 0 ||
                pv.n < 2)
                continue;
            t->major = pv.part[0];
            t->minor = pv.part[1];
            t->patch = pv.n > 2 ? pv.part[2] : -1;
            t->version = cc_asprintf("%d.%d", t->major, t->minor);
            if (pv.n > 2)
                t->version_full = cc_strdup(t->readings[i].version);
            if (!t->version)
                return -1;
            break;
        }
    for (size_t i = 0; t->version && i < t->n_readings; i++) {
        cc_version pv;
        if (cc_version_parse(t->readings[i].version, &pv) != 0)
            continue;
        t->readings[i].agrees = pv.part[0] == t->major && (pv.n < 2 || pv.part[1] == t->minor);
        if (!t->readings[i].agrees) {
            t->sources_disagree = 1;
            char *msg = cc_asprintf("%s: %s says %s, %s says %s", c->path,
                                    cudnnctl_detect_source_name(t->readings[i].source),
                                    t->readings[i].version, "the toolkit", t->version);
            if (!msg || cc_strs_push(&t->problems, &t->n_problems, msg) != 0)
                return -1;
        }
    }
    return 0;
}

/* Settle on a version: version.json, nvcc, cuda.h, registry, env name, cudart name. */
static int toolkit_versions(cc_detect_run *run, const win_cand *c, cudnnctl_toolkit *t)
{
    cudnnctl_ctx *ctx = run->ctx;
    cc_detect_ver v;
    char *real = NULL, *p = cc_detect_win_join(c->path, "version.json");
    char *text = p ? cc_detect_win_slurp(ctx, p, 1 << 20) : NULL;
    int date_patch = 0;
    if (text && cc_detect_parse_version_json(text, &v, &date_patch) == 0 &&
        add_reading(t, CUDNNCTL_SRC_VERSION_JSON, &v))
        goto oom;
    free(p);
    free(text);
    p = cc_asprintf("%s\\bin\\nvcc.exe", c->path);
    text = NULL;
    /* a foreign profile runs nothing of the other OS; nothing under --root is run */
    real = p && !ctx->root && cc_host_is_native(ctx) && cc_detect_win_exists(ctx, p, 0)
               ? cc_rooted(ctx, p)
               : NULL;
    char *why = NULL;
    if (real && cc_detect_may_run(ctx, real, &why) != 1) {
        free(real);
        real = NULL;
    }
    free(why);
    if (real) {
        const char *argv[] = {real, "--version", NULL};
        size_t len = 0;
        int status = 0;
        if (cc_pf_run(argv, NULL, NULL, 10000, 1, &text, &len, &status) == 0 && status == 0 &&
            text && cc_detect_parse_nvcc(text, &v) == 0 && add_reading(t, CUDNNCTL_SRC_NVCC, &v))
            goto oom;
    }
    free(real);
    real = NULL;
    free(p);
    free(text);
    p = cc_detect_win_join(t->include_dir ? t->include_dir : c->path, "cuda.h");
    text = p ? cc_detect_win_slurp(ctx, p, 1 << 20) : NULL;
    long enc = 0;
    if (text && cc_detect_parse_define(text, "CUDA_VERSION", &enc) == 0 &&
        cc_detect_cuda_encoded(enc, &v) == 0 && add_reading(t, CUDNNCTL_SRC_CUDA_H, &v))
        goto oom;
    free(p);
    free(text);
    p = text = NULL;
    cc_detect_ver r = {c->reg_major, c->reg_minor, -1}, e = {c->env_major, c->env_minor, -1};
    if (r.major >= 0 && add_reading(t, CUDNNCTL_SRC_REGISTRY, &r))
        goto oom;
    if (e.major >= 0 && add_reading(t, CUDNNCTL_SRC_ENV, &e))
        goto oom;
    int found = 0;
    char *dir = cudart_dir(ctx, c->path, &v, &found);
    free(dir);
    if (found && add_reading(t, CUDNNCTL_SRC_SONAME, &v))
        goto oom;
    return settle_version(c, t);
oom:
    free(real);
    free(p);
    free(text);
    return -1;
}

static int newest_first(const void *a, const void *b)
{
    const cudnnctl_toolkit *x = a, *y = b;
    if (x->major != y->major)
        return y->major - x->major;
    if (x->minor != y->minor)
        return y->minor - x->minor;
    return strcmp(x->path, y->path);
}

cudnnctl_err cc_detect_find_windows(cc_detect_run *run)
{
    cudnnctl_ctx *ctx = run->ctx;
    if (!cc_host_is_windows(ctx))
        return CUDNNCTL_E_OK;
    cudnnctl_detect_result *r = run->r;
    win_list l = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (find_candidates(run, &l) != 0)
        goto oom;
    const char *cuda_path = cc_host_getenv(ctx, "CUDA_PATH");
    for (size_t i = 0; i < l.n; i++) {
        win_cand *c = &l.v[i];
        if (!cc_detect_win_exists(ctx, c->path, 1)) {
            cc_detect_note(run, "%s (found via %s) does not exist", c->path, c->found_via);
            continue;
        }
        cudnnctl_toolkit *t = cc_detect_toolkit_slot(run, r);
        if (!t)
            goto oom;
        char *inc = cc_detect_win_join(c->path, "include");
        char *cuda_h = inc ? cc_detect_win_join(inc, "cuda.h") : NULL;
        if (cuda_h && cc_detect_win_exists(ctx, cuda_h, 0)) {
            t->include_dir = inc;
            inc = NULL;
        }
        free(inc);
        free(cuda_h);
        cc_detect_ver v;
        int found = 0;
        t->lib_dir = cudart_dir(ctx, c->path, &v, &found);
        if (toolkit_versions(run, c, t) != 0) {
            cc_detect_toolkit_clear(t);
            goto oom;
        }
        if (!t->version) {
            cc_detect_note(run,
                           "%s (found via %s): no CUDA version found (no version.json, nvcc.exe, "
                           "cuda.h, registry key or cudart64_*.dll): not a usable toolkit",
                           c->path, c->found_via);
            cc_detect_toolkit_clear(t);
            continue;
        }
        t->path = cc_strdup(c->path);
        t->found_via = cc_strdup(c->found_via);
        t->origin = cc_strdup("system");
        if (cuda_path && *cuda_path) {
            char *cp = cc_detect_win_norm(cuda_path);
            if (cp && cc_detect_win_same_path(cp, c->path)) {
                t->active = 1;
                t->active_reason = cc_strdup("CUDA_PATH");
            }
            free(cp);
        }
        r->n_toolkits++;
        if (!t->path || !t->found_via || !t->origin || (t->active && !t->active_reason))
            goto oom;
    }
    if (r->n_toolkits > 1)
        qsort(r->toolkits, r->n_toolkits, sizeof(*r->toolkits), newest_first);
    if (cc_detect_win_find_cudnn(run) != 0)
        goto oom;
    goto out;
oom:
    e = CC_ERR(run->ctx, CUDNNCTL_E_NOMEM, "out of memory while detecting Windows CUDA toolkits");
out:
    list_free(&l);
    return e;
}
