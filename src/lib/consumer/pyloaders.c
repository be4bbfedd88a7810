/* pyloaders.c: what a framework's own Python code loads before its CUDA extension asks the
 * loader — read from the package's source as installed (never imported), so the model follows
 * the version of the code that is there:
 *   - torch (torch/__init__.py): _load_global_deps() calls _preload_cuda_deps(), which ctypes-
 *     loads the first sys.path entry's nvidia/cudnn/lib/libcudnn.so.*[0-9] (also nvidia/cuNN/lib
 *     and cudnn/lib where the code says so) by absolute path; older releases only on an OSError;
 *   - jax's CUDA plugins (jax_plugins/xla_cudaNN/__init__.py): initialize() runs
 *     _load_nvidia_libraries(): _load("cudnn", ["libcudnn.so.9"]) loads nvidia.cudnn's lib/ file
 *     (the first sys.path entry holding the nvidia/cudnn package);
 *   - NVIDIA's cudnn-frontend (cudnn/__init__.py, _dlopen_cudnn): since 1.17 each LD_LIBRARY_PATH
 *     dir's libcudnn.so.9 / libcudnn.so first, then purelib's nvidia/cudnn/lib (and cudnn_jit),
 *     then dlopen of the name;
 *   - cupy <= 13 (cupy/_environment.py _preload_library + cupy/.data/_wheel.json): the cuDNN of
 *     `cupyx.tools.install_library` (CUPY_CUDA_LIB_PATH or ~/.cupy/cuda_lib), else the exact
 *     versioned name (libcudnn.so.8.8.1) through the loader.
 * The markers are the statements themselves; where a package's code does not have them, nothing
 * is preloaded and the extension's own search decides (which.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "consumer_int.h"
#include "platform.h"

static char *read_text(const cudnnctl_ctx *ctx, const char *site, const char *rel)
{
    char *p = cc_path_join(site, rel);
    char *text = cc_consumer_rooted_text(ctx, p, 8u << 20);
    free(p);
    return text;
}

static int exists(const cudnnctl_ctx *ctx, const char *path)
{
    return cc_consumer_rooted_exists(ctx, path, 1);
}

/* The body of `def name(` in text (up to the next top-level def / statement). malloc'd. */
static char *function_body(const char *text, const char *name)
{
    char head[96];
    snprintf(head, sizeof(head), "def %s(", name);
    const char *a = strstr(text, head);
    if (!a)
        return NULL;
    const char *e = a + strlen(head);
    while ((e = strchr(e, '\n')) != NULL && e[1] && (e[1] == ' ' || e[1] == '\t' || e[1] == '\n' ||
                                                     e[1] == ')' || e[1] == '#'))
        e++;
    return cc_strndup(a, e ? (size_t)(e - a) : strlen(a));
}

/* The first file in dir (root-relative) named "<prefix><digits and dots>" that ends in a digit:
 * Python's glob("libcudnn.so.*[0-9]"). The real one when several match is the directory order,
 * which glob does not sort: the shortest name is taken (wheels hold one: libcudnn.so.9). */
static char *glob_lib(const cudnnctl_ctx *ctx, const char *dir, const char *prefix)
{
    char *h = cc_rooted(ctx, dir);
    cc_pf_dir *d = h ? cc_pf_opendir(h) : NULL;
    const char *n;
    char *best = NULL;
    size_t pl = strlen(prefix);
    while (d && (n = cc_pf_readdir(d)) != NULL) {
        size_t l = strlen(n);
        if (l <= pl || strncmp(n, prefix, pl) != 0 || n[l - 1] < '0' || n[l - 1] > '9')
            continue;
        if (!best || strlen(cc_path_base(best)) > l) {
            free(best);
            best = cc_path_join(dir, n);
        }
    }
    if (d)
        cc_pf_closedir(d);
    free(h);
    return best;
}

/* ---- torch -------------------------------------------------------------------------------- */

static char *torch_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const char *site,
                           int cuda_major, char **why)
{
    char *text = read_text(ctx, site, "torch/__init__.py");
    char *body = text ? function_body(text, "_load_global_deps") : NULL;
    const char *exc = body ? strstr(body, "except OSError") : NULL;
    const char *call = body ? strstr(body, "_preload_cuda_deps(") : NULL;
    int always = call && exc && call < exc; /* in the success path, not only on an error */
    int cu_dir = text && strstr(text, "\"cu{maj_cuda_version}\"") != NULL;
    int plain_dir = text && strstr(text, "os.path.join(path, lib_folder, \"lib\", lib_name)");
    char *out = NULL;
    for (size_t i = 0; always && !out && i < env->syspath->n; i++) {
        const char *p = env->syspath->v[i];
        char cu[32];
        snprintf(cu, sizeof(cu), "nvidia/cu%d/lib", cuda_major);
        const char *dirs[] = {"nvidia/cudnn/lib", cu_dir && cuda_major > 0 ? cu : NULL,
                              plain_dir ? "cudnn/lib" : NULL};
        for (size_t k = 0; k < 3 && !out; k++) {
            char *d = dirs[k] ? cc_path_join(p, dirs[k]) : NULL;
            out = d ? glob_lib(ctx, d, "libcudnn.so.") : NULL;
            free(d);
        }
        if (out)
            *why = cc_asprintf("torch/__init__.py: _load_global_deps() calls _preload_cuda_deps(), "
                               "which loads the first sys.path entry's nvidia/cudnn/lib/"
                               "libcudnn.so.*[0-9] by path (sys.path entry %zu: %s); the "
                               "extension's DT_NEEDED libcudnn.so.9 then reuses it",
                               i, p);
    }
    free(body);
    free(text);
    return out;
}

/* ---- jax ---------------------------------------------------------------------------------- */

static char *jax_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const char *site,
                         const char *dist, int major, char **why)
{
    const char *cu = strstr(dist, "cuda");
    int nn = cu ? atoi(cu + 4) : 0;
    char rel[96];
    snprintf(rel, sizeof(rel), "jax_plugins/xla_cuda%d/__init__.py", nn);
    char *text = nn > 0 ? read_text(ctx, site, rel) : NULL;
    char want[64];
    snprintf(want, sizeof(want), "_load(\"cudnn\", [\"libcudnn.so.%d\"])", major);
    char *init = text ? function_body(text, "initialize") : NULL;
    int runs = text && strstr(text, want) && init && strstr(init, "_load_nvidia_libraries()");
    char *out = NULL;
    for (size_t i = 0; runs && !out && i < env->syspath->n; i++) {
        char *pkg = cc_path_join(env->syspath->v[i], "nvidia/cudnn");
        char *ini = pkg ? cc_path_join(pkg, "__init__.py") : NULL;
        char lib[32];
        snprintf(lib, sizeof(lib), "lib/libcudnn.so.%d", major);
        char *f = pkg && ini && exists(ctx, ini) ? cc_path_join(pkg, lib) : NULL;
        if (f && exists(ctx, f)) {
            out = f;
            f = NULL;
            *why = cc_asprintf("%s: initialize() runs _load_nvidia_libraries(), whose _load(\"cudnn\", "
                               "[\"libcudnn.so.%d\"]) loads the nvidia.cudnn package's lib/ file "
                               "by path (the first sys.path entry that holds it: %s)",
                               rel, major, env->syspath->v[i]);
        } else if (f) {
            i = env->syspath->n; /* the package is found here but has no such file: no preload */
        }
        free(f);
        free(ini);
        free(pkg);
    }
    free(init);
    free(text);
    return out;
}

/* ---- NVIDIA's cudnn-frontend -------------------------------------------------------------- */

static char *frontend_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const char *site,
                              char **why, char **by_name)
{
    char *text = read_text(ctx, site, "cudnn/__init__.py");
    char *body = text ? function_body(text, "_dlopen_cudnn") : NULL;
    char *out = NULL;
    if (body && strstr(body, "os.environ.get(\"LD_LIBRARY_PATH\"") && env->llp) {
        static const char *const names[] = {"libcudnn.so.9", "libcudnn.so"};
        char *copy = cc_strdup(env->llp);
        for (char *p = copy, *next; p && !out; p = next) {
            next = strchr(p, ':');
            if (next)
                *next++ = '\0';
            for (size_t k = 0; *p && k < 2 && !out; k++) {
                char *f = cc_path_join(p, names[k]);
                if (f && strstr(body, names[k]) && exists(ctx, f)) {
                    out = f;
                    *why = cc_asprintf("cudnn/__init__.py: _dlopen_cudnn() loads %s of the first "
                                       "LD_LIBRARY_PATH dir that has one, by path, before the "
                                       "nvidia-cudnn wheel (%s)",
                                       names[k], p);
                } else {
                    free(f);
                }
            }
        }
        free(copy);
    }
    static const char *const wheels[] = {"nvidia/cudnn/lib", "nvidia/cudnn_jit/lib"};
    for (size_t k = 0; body && !out && env->purelib && k < 2; k++) {
        if (!strstr(body, wheels[k]))
            continue;
        char *d = cc_path_join(env->purelib, wheels[k]);
        out = d ? glob_lib(ctx, d, "libcudnn.so.") : NULL;
        if (out)
            *why = cc_asprintf("cudnn/__init__.py: _dlopen_cudnn() loads purelib's %s/"
                               "libcudnn.so.*[0-9] by path (%s)",
                               wheels[k], env->purelib);
        free(d);
    }
    if (body && !out)
        *by_name = cc_strdup(strstr(body, "CDLL(\"libcudnn.so.9\")") ? "libcudnn.so.9"
                                                                     : "libcudnn.so");
    free(body);
    free(text);
    return out;
}

/* ---- cupy <= 13 --------------------------------------------------------------------------- */

static char *cupy_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const char *site, char **why,
                          char **by_name)
{
    char *code = read_text(ctx, site, "cupy/_environment.py");
    char *conf = code && strstr(code, "def _preload_library") ? read_text(ctx, site, "cupy/.data/_wheel.json")
                                                              : NULL;
    cJSON *j = conf ? cJSON_Parse(conf) : NULL;
    const cJSON *dnn = j ? cJSON_GetObjectItemCaseSensitive(j, "cudnn") : NULL;
    const cJSON *cuda = j ? cJSON_GetObjectItemCaseSensitive(j, "cuda") : NULL;
    const cJSON *ver = dnn ? cJSON_GetObjectItemCaseSensitive(dnn, "version") : NULL;
    const cJSON *files = dnn ? cJSON_GetObjectItemCaseSensitive(dnn, "filenames") : NULL;
    const cJSON *first = cJSON_IsArray(files) ? cJSON_GetArrayItem(files, 0) : NULL;
    char *out = NULL;
    if (cJSON_IsString(ver) && cJSON_IsString(cuda) && cJSON_IsString(first)) {
        const char *base = cc_pf_getenv("CUPY_CUDA_LIB_PATH");
        char *home = base ? NULL : cc_pf_home_dir();
        char *root = base ? cc_strdup(base) : home ? cc_path_join(home, ".cupy/cuda_lib") : NULL;
        static const char *const sub[] = {"lib", "lib64", "bin"};
        for (size_t k = 0; root && k < 3 && !out; k++) {
            char *f = cc_asprintf("%s/%s/cudnn/%s/%s/%s", root, cuda->valuestring,
                                  ver->valuestring, sub[k], first->valuestring);
            if (f && exists(ctx, f)) {
                out = f;
                *why = cc_asprintf("cupy/_environment.py: _preload_library('cudnn') loads the cuDNN "
                                   "%s that `cupyx.tools.install_library` put in %s, by path",
                                   ver->valuestring, root);
            } else {
                free(f);
            }
        }
        if (!out)
            *by_name = cc_strdup(first->valuestring); /* then CDLL of the exact versioned name */
        free(root);
        free(home);
    }
    (void)env;
    cJSON_Delete(j);
    free(conf);
    free(code);
    return out;
}

char *cc_consumer_py_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const cudnnctl_consumer *c,
                             const char *site, char **why, char **by_name)
{
    *why = NULL;
    *by_name = NULL;
    int major = c->need_cudnn_major > 0 ? c->need_cudnn_major : 9;
    const char *d = c->name;
    if (strcmp(d, "torch") == 0)
        return torch_preload(ctx, env, site, c->need_cuda_major, why);
    if (cc_str_starts(d, "jax_cuda"))
        return jax_preload(ctx, env, site, d, major, why);
    if (strcmp(d, "nvidia_cudnn_frontend") == 0)
        return frontend_preload(ctx, env, site, why, by_name);
    if (cc_str_starts(d, "cupy_cuda"))
        return cupy_preload(ctx, env, site, why, by_name);
    return NULL;
}

char *cc_consumer_py_preload_note(cudnnctl_ctx *ctx, const cudnnctl_consumer *c, const char *site)
{
    if (strcmp(c->name, "onnxruntime_gpu") != 0)
        return NULL;
    char *text = read_text(ctx, site, "onnxruntime/__init__.py");
    char *note = NULL;
    char *f = text && strstr(text, "def preload_dlls(") ? cc_path_join(site, "nvidia/cudnn/lib/libcudnn.so.9")
                                                       : NULL;
    if (f && exists(ctx, f))
        note = cc_asprintf("code that calls onnxruntime.preload_dlls() first loads %s by path "
                           "(onnxruntime/__init__.py); without it the provider finds cuDNN only "
                           "through the loader, as shown",
                           f);
    else if (f)
        note = cc_strdup("onnxruntime.preload_dlls() would load the nvidia-cudnn-cu wheel's "
                         "libcudnn.so.9 by path, but none is installed beside it");
    free(f);
    free(text);
    return note;
}
