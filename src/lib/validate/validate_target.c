/* validate_target.c: what to validate: the cuDNN lib dir behind a target (lib dir, prefix, CUDA
 * tree, wheel, file), its version header, and where libcudart / cuBLAS / nvrtc come from. */
#include <stdlib.h>
#include <string.h>

#include "libnames.h"
#include "strjoin.h"
#include "validate_int.h"

/* <stem>.so.N or <stem>.so.N.n → N (Windows: <stem>64_N.dll, libnames.c); else -1. */
static int soname_major(const char *name, const char *stem)
{
    return cc_ln_major(name, stem);
}

int cc_val_find_soname(const char *dir, const char *stem, int want, char **name)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    int best = -1;
    char *best_name = NULL;
    if (!d)
        return -1;
    const char *n;
    while ((n = cc_pf_readdir(d)) != NULL) {
        int m = soname_major(n, stem);
        if (m < 0 || (want >= 0 && m != want))
            continue;
        /* prefer the plain .so.N over .so.N.n for the same N */
        if (m > best || (m == best && best_name && strlen(n) < strlen(best_name))) {
            best = m;
            free(best_name);
            best_name = cc_strdup(n);
        }
    }
    cc_pf_closedir(d);
    if (name)
        *name = best_name;
    else
        free(best_name);
    return best;
}

char *cc_val_header_version(const char *text)
{
    static const char *const keys[3] = {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"};
    int v[3] = {-1, -1, -1};
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        int is_define = 0;
        if (q < p + n && *q == '#') {
            q++;
            while (q < p + n && (*q == ' ' || *q == '\t'))
                q++;
            if ((size_t)(p + n - q) > 6 && strncmp(q, "define", 6) == 0) {
                q += 6;
                is_define = 1;
            }
        }
        if (is_define) {
            while (q < p + n && (*q == ' ' || *q == '\t'))
                q++;
            for (int i = 0; i < 3; i++) {
                size_t lk = strlen(keys[i]);
                if ((size_t)(p + n - q) > lk && strncmp(q, keys[i], lk) == 0 &&
                    (q[lk] == ' ' || q[lk] == '\t')) {
                    const char *r = q + lk;
                    while (r < p + n && (*r == ' ' || *r == '\t'))
                        r++;
                    if (r < p + n && *r >= '0' && *r <= '9')
                        v[i] = atoi(r);
                }
            }
        }
        p = e ? e + 1 : NULL;
    }
    if (v[0] < 0 || v[1] < 0 || v[2] < 0)
        return NULL;
    return cc_asprintf("%d.%d.%d", v[0], v[1], v[2]);
}

static int is_dir(const char *p)
{
    cc_pf_stat_t st;
    return cc_pf_stat(p, &st) == 0 && st.exists && st.is_dir;
}

/* The lib dirs of a CUDA-style tree, in the order NVIDIA's layouts use them. */
static int tree_lib_dirs(const char *root, cc_strv *out)
{
    if (cc_ln_windows()) {
        /* DLLs: bin\x64 (CUDA 13, cuDNN 9.18+ zips) and bin */
        const char *wsubs[2] = {"bin/x64", "bin"};
        for (int i = 0; i < 2; i++) {
            char *p = cc_path_join(root, wsubs[i]);
            if (!p)
                return -1;
            if (is_dir(p) ? cc_strv_push_own(out, p) != 0 : (free(p), 0))
                return -1;
        }
        return 0;
    }
    const char *m = cc_pf_machine();
    const char *subs[6] = {"lib64", NULL, NULL, "lib", "current/lib", "current/lib64"};
    char *t1 = cc_asprintf("targets/%s-linux/lib", strcmp(m, "aarch64") == 0 ? "sbsa" : m);
    char *t2 = strcmp(m, "aarch64") == 0 ? cc_strdup("targets/aarch64-linux/lib") : NULL;
    subs[1] = t1;
    subs[2] = t2;
    int rc = 0;
    for (int i = 0; i < 6 && rc == 0; i++) {
        if (!subs[i])
            continue;
        char *p = cc_path_join(root, subs[i]);
        if (!p)
            rc = -1;
        else if (is_dir(p))
            rc = cc_strv_push_own(out, p);
        else
            free(p);
    }
    free(t1);
    free(t2);
    return rc;
}

int cc_val_toolkit_dirs(const char *path, cc_strv *out)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) != 0 || !st.exists)
        return 0;
    if (!st.is_dir) {
        char *d = cc_path_dir(path);
        return d ? cc_strv_push_own(out, d) : -1;
    }
    if (cc_val_find_soname(path, "libcudart", -1, NULL) >= 0)
        return cc_strv_push(out, path);
    return tree_lib_dirs(path, out);
}

/* A wheel's nvidia/cudnn/lib: its CUDA siblings (nvidia/cu13/lib, nvidia/cuda_runtime/lib,
 * nvidia/cublas/lib, nvidia/cuda_nvrtc/lib) are what its RUNPATH points at. */
static int wheel_sibling_dirs(const char *lib_dir, cc_strv *out)
{
    if (!cc_str_ends(lib_dir, "/cudnn/lib"))
        return 0;
    char *nvidia = cc_strndup(lib_dir, strlen(lib_dir) - strlen("/cudnn/lib"));
    if (!nvidia)
        return -1;
    int rc = 0;
    cc_strv names = {0};
    cc_pf_dir *d = cc_pf_opendir(nvidia);
    if (d) {
        const char *n;
        while ((n = cc_pf_readdir(d)) != NULL)
            if (n[0] == 'c' && n[1] == 'u' && cc_all_digits(n + 2, strlen(n + 2)))
                cc_strv_push(&names, n);
        cc_pf_closedir(d);
    }
    cc_strv_sort(&names);
    for (size_t i = names.n; i-- > 0 && rc == 0;) /* cu13 before cu12 */
        rc = cc_strv_push_own(out, cc_path_join3(nvidia, names.v[i], "lib"));
    const char *more[] = {"cuda_runtime/lib", "cublas/lib", "cuda_nvrtc/lib"};
    for (size_t i = 0; i < 3 && rc == 0; i++)
        rc = cc_strv_push_own(out, cc_path_join(nvidia, more[i]));
    cc_strv_free(&names);
    free(nvidia);
    return rc;
}

static cudnnctl_err find_lib_dir(cudnnctl_ctx *ctx, const char *target, cc_val_target *t)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(target, &st) != 0 || !st.exists)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "validate: %s does not exist: give the dir that holds libcudnn.so.<M>, a "
                   "prefix made by cudnnctl install, or a CUDA tree", target);
    if (!st.is_dir) {
        const char *base = cc_path_base(target);
        int m = soname_major(base, "libcudnn");
        if (m < 0) {
            int parts[3];
            if (cc_str_starts(base, "libcudnn.so.") && cc_val_file_version(base, parts) > 0)
                m = parts[0];
        }
        if (m < 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                       "validate: %s is a file but not libcudnn.so.<M>: give the cuDNN library "
                       "dir or its libcudnn.so.<M>", target);
        t->lib_dir = cc_path_dir(target);
        t->cudnn_lib = cc_strdup(target);
        t->major = m;
        return (t->lib_dir && t->cudnn_lib) ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
    }
    cc_strv cand = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (cc_strv_push(&cand, target) != 0 || tree_lib_dirs(target, &cand) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    /* a wheel's nvidia/cudnn dir */
    char *wl = cc_path_join(target, "lib");
    if (wl && !cc_strv_contains(&cand, wl))
        cc_strv_push(&cand, wl);
    free(wl);
    for (size_t i = 0; i < cand.n; i++) {
        char *name = NULL;
        int m = cc_val_find_soname(cand.v[i], "libcudnn", -1, &name);
        if (m >= 0) {
            t->lib_dir = cc_strdup(cand.v[i]);
            t->cudnn_lib = cc_path_join(cand.v[i], name);
            t->major = m;
            free(name);
            if (!t->lib_dir || !t->cudnn_lib)
                e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    }
    {
        char *looked = cc_strv_join(&cand, ", ");
        e = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "validate: no libcudnn.so.<M> under %s (looked in %s): give the dir that holds "
                   "libcudnn.so.9, a prefix made by cudnnctl install, or a CUDA tree with cuDNN",
                   target, looked ? looked : target);
        free(looked);
    }
out:
    cc_strv_free(&cand);
    return e;
}

static void find_header(cudnnctl_ctx *ctx, const char *include_opt, cc_val_target *t)
{
    cc_strv dirs = {0};
    if (include_opt) {
        cc_strv_push_own(&dirs, cc_rooted(ctx, include_opt));
    } else {
        char *up = cc_path_dir(t->lib_dir);
        if (up) {
            cc_strv_push_own(&dirs, cc_path_join(up, "include"));
            /* Debian-style /usr/lib/<triplet> → /usr/include/<triplet>, /usr/include */
            const char *trip = cc_path_base(t->lib_dir);
            if (strstr(trip, "-linux-gnu")) {
                char *upup = cc_path_dir(up);
                if (upup) {
                    cc_strv_push_own(&dirs, cc_path_join3(upup, "include", trip));
                    cc_strv_push_own(&dirs, cc_path_join(upup, "include"));
                }
                free(upup);
            }
        }
        free(up);
    }
    char *v_name = cc_asprintf("cudnn_version_v%d.h", t->major);
    const char *names[3] = {"cudnn_version.h", v_name, "cudnn.h"};
    for (size_t i = 0; i < dirs.n && !t->header_version; i++)
        for (int k = 0; k < 3 && !t->header_version; k++) {
            if (!names[k])
                continue;
            char *f = cc_path_join(dirs.v[i], names[k]);
            char *text = NULL;
            size_t len = 0;
            cc_pf_stat_t st;
            if (f && cc_pf_stat(f, &st) == 0 && st.exists && st.is_reg &&
                cc_sys_read_file(ctx, f, 1u << 20, &text, &len) == 0) {
                t->header_version = cc_val_header_version(text);
                if (t->header_version) {
                    t->header_file = f;
                    f = NULL;
                    t->include_dir = cc_strdup(dirs.v[i]);
                }
            }
            free(text);
            free(f);
        }
    free(v_name);
    cc_strv_free(&dirs);
}

static void active_toolkit_dirs(cudnnctl_ctx *ctx, cc_strv *out)
{
    cudnnctl_detect_result *dr = NULL;
    if (cudnnctl_detect(ctx, &dr) == CUDNNCTL_E_OK && dr) {
        const cudnnctl_toolkit *tk = cudnnctl_detect_active_toolkit(dr);
        if (tk) {
            char *p = cc_rooted(ctx, tk->lib_dir ? tk->lib_dir : tk->path);
            if (p)
                cc_val_toolkit_dirs(p, out);
            free(p);
        }
    }
    cudnnctl_detect_result_free(dr);
    cc_clear_error(ctx); /* detect problems are not validation problems */
}

/* The dir to validate: TARGET, else the cuDNN of --cuda-home, else the active toolkit's (or
 * /usr/local/cuda); rooted, malloc'd in *target. */
static cudnnctl_err pick_target(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *opts,
                                char **target)
{
    if (opts->target && *opts->target) {
        *target = cc_pf_is_abs(opts->target) ? cc_rooted(ctx, opts->target)
                                            : cc_pf_realpath(opts->target);
        if (!*target)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                       "validate: %s does not exist: give the dir that holds libcudnn.so.<M>",
                       opts->target);
    } else if (opts->cuda_home && *opts->cuda_home) {
        /* no TARGET: the cuDNN in the named toolkit, as install and uninstall read the flag */
        *target = cc_pf_is_abs(opts->cuda_home) ? cc_rooted(ctx, opts->cuda_home)
                                               : cc_pf_realpath(opts->cuda_home);
        if (!*target || !is_dir(*target)) {
            free(*target);
            *target = NULL;
            CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                       "validate: --cuda-home %s does not exist: give the CUDA toolkit whose "
                       "cuDNN to validate (or the cuDNN dir as the TARGET argument)",
                       opts->cuda_home);
        }
    } else {
        cc_strv tk = {0};
        active_toolkit_dirs(ctx, &tk);
        if (tk.n > 0) {
            *target = cc_strdup(tk.v[0]);
        } else {
            char *def = cc_rooted(ctx, "/usr/local/cuda");
            if (def && is_dir(def))
                *target = def;
            else
                free(def);
        }
        cc_strv_free(&tk);
        if (!*target)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                       "validate: no target given and no active CUDA toolkit found: pass the "
                       "cuDNN lib dir or prefix (cudnnctl validate DIR)");
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_val_resolve_target(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *opts,
                                   cc_val_target *t)
{
    memset(t, 0, sizeof(*t));
    cudnnctl_err e = CUDNNCTL_E_OK;
    char *target = NULL;
    if ((e = pick_target(ctx, opts, &target)) != CUDNNCTL_E_OK)
        return e;
    /* drop trailing separators so mapped paths compare cleanly */
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        target[--n] = '\0';
    e = find_lib_dir(ctx, target, t);
    if (e != CUDNNCTL_E_OK)
        goto out;
    find_header(ctx, opts->include_dir, t);

    if (opts->cuda_home && *opts->cuda_home) {
        char *ch = cc_pf_is_abs(opts->cuda_home) ? cc_rooted(ctx, opts->cuda_home)
                                                 : cc_pf_realpath(opts->cuda_home);
        int before = (int)t->toolkit_dirs.n;
        if (ch)
            cc_val_toolkit_dirs(ch, &t->toolkit_dirs);
        int found = 0;
        for (size_t i = (size_t)before; i < t->toolkit_dirs.n; i++)
            if (cc_val_find_soname(t->toolkit_dirs.v[i], "libcudart", -1, NULL) >= 0)
                found = 1;
        if (!found) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                       "validate: no libcudart.so.<M> under --cuda-home %s (looked in lib64, "
                       "targets/*/lib, lib): give a CUDA toolkit root or the dir that holds "
                       "libcudart", opts->cuda_home);
            free(ch);
            goto out;
        }
        free(ch);
    } else {
        if (cc_val_find_soname(t->lib_dir, "libcudart", -1, NULL) >= 0)
            cc_strv_push(&t->toolkit_dirs, t->lib_dir);
        wheel_sibling_dirs(t->lib_dir, &t->toolkit_dirs);
        active_toolkit_dirs(ctx, &t->toolkit_dirs);
        char *def = cc_rooted(ctx, "/usr/local/cuda");
        if (def)
            cc_val_toolkit_dirs(def, &t->toolkit_dirs);
        free(def);
    }
out:
    free(target);
    if (e != CUDNNCTL_E_OK)
        cc_val_target_free(t);
    return e;
}

int cc_val_is_jit(const char *lib_dir, int major)
{
    static const char *const legacy[] = {"libcudnn_ops", "libcudnn_cnn", "libcudnn_adv"};
    if (cc_val_find_soname(lib_dir, "libcudnn_graph", major, NULL) < 0 ||
        cc_val_find_soname(lib_dir, "libcudnn_engines_runtime_compiled", major, NULL) < 0)
        return 0;
    for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
        if (cc_val_find_soname(lib_dir, legacy[i], major, NULL) >= 0)
            return 0;
    return 1;
}

void cc_val_target_free(cc_val_target *t)
{
    free(t->lib_dir);
    free(t->cudnn_lib);
    free(t->include_dir);
    free(t->header_file);
    free(t->header_version);
    cc_strv_free(&t->toolkit_dirs);
    memset(t, 0, sizeof(*t));
}
