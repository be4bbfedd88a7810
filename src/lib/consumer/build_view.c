/* build_view.c: which cuDNN a build takes (buildview.h): the first cudnn.h on each compiler's
 * include list, the first libcudnn.so / libcudnn.a on the link search list, and the file the
 * loader model maps at run time for the SONAME that library carries — and whether they are one
 * release. The compilers' lists come from the compilers themselves (build_probe.c). */
#include <stdlib.h>
#include <string.h>

#include "build_int.h"
#include "grow.h"
#include "elf_info.h"
#include "consumer_int.h"
#include "platform.h"

static cudnnctl_err oom(cudnnctl_ctx *ctx)
{
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

static long define_of(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p && (p = strstr(p, "#define ")) != NULL; p++) {
        const char *q = p + 8;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, n) == 0 && (q[n] == ' ' || q[n] == '\t'))
            return strtol(q + n, NULL, 10);
    }
    return -1;
}

/* "9.19.0" of the cudnn.h at @p header: the cudnn_version.h beside it (what its
 * #include "cudnn_version.h" takes: the including file's dir comes first), else cudnn.h. */
static char *header_version(const char *header)
{
    char *dir = cc_path_dir(header);
    const char *cand[2] = {"cudnn_version.h", "cudnn.h"};
    char *v = NULL;
    for (int i = 0; dir && i < 2 && !v; i++) {
        char *p = cc_path_join(dir, cand[i]);
        char *text = NULL;
        size_t len = 0;
        if (p && cc_ld_read_file(p, 1u << 20, &text, &len) == 0) {
            long a = define_of(text, "CUDNN_MAJOR"), b = define_of(text, "CUDNN_MINOR"),
                 c = define_of(text, "CUDNN_PATCHLEVEL");
            if (a >= 0 && b >= 0 && c >= 0)
                v = cc_asprintf("%ld.%ld.%ld", a, b, c);
        }
        free(text);
        free(p);
    }
    free(dir);
    return v;
}

static int is_file(const char *p)
{
    cc_pf_stat_t st;
    return p && cc_pf_stat(p, &st) == 0 && st.exists && st.is_reg;
}

/* "/a/lib/../lib/" -> "/a/lib" when both name the same dir (gcc appends ../lib to the
 * LIBRARY_PATH entries); else the path as given. */
static char *tidy_dir(const char *d)
{
    cc_strv parts = {0};
    for (const char *p = d; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.' && parts.n) {
            free(parts.v[--parts.n]);
            parts.v[parts.n] = NULL;
        } else if (n && !(n == 1 && p[0] == '.')) {
            cc_strv_push_own(&parts, cc_strndup(p, n));
        }
        p += n;
        if (*p == '/')
            p++;
    }
    cc_buf b = {0};
    for (size_t i = 0; i < parts.n; i++)
        cc_buf_printf(&b, "/%s", parts.v[i]);
    cc_strv_free(&parts);
    char *a = cc_pf_realpath(d), *c = b.data ? cc_pf_realpath(b.data) : NULL;
    int same = a && c && strcmp(a, c) == 0;
    free(a);
    free(c);
    if (same)
        return b.data;
    cc_buf_free(&b);
    return cc_strdup(d);
}

/* One compiler (@p label: how it is named in the view): run it with @p args, read its include
 * list, find cudnn.h on it. */
static cudnnctl_err ask_compiler(cudnnctl_ctx *ctx, const char *label, const char *cmd,
                                 const char *const *args, cudnnctl_build_compiler *c)
{
    cc_strv dirs = {0};
    char *out = NULL;
    int status = 0;
    size_t sp = strcspn(cmd, " \t");
    char *prog = cc_strndup(cmd, sp);
    c->name = cc_strdup(label);
    c->path = prog ? cc_bv_which(prog) : NULL;
    free(prog);
    if (!c->name)
        return oom(ctx);
    if (!c->path) {
        c->error = cc_strdup("not found on PATH");
        return CUDNNCTL_E_OK;
    }
    if (cc_bv_run(cmd, args, &out, &status) != 0 || cc_bv_parse_includes(out, &dirs) != 0) {
        c->error = cc_asprintf("could not read its include list (exit %d)", status);
        free(out);
        cc_strv_free(&dirs);
        return CUDNNCTL_E_OK;
    }
    free(out);
    for (size_t i = 0; i < dirs.n; i++) {
        char *t = tidy_dir(dirs.v[i]);
        if (t) {
            free(dirs.v[i]);
            dirs.v[i] = t;
        }
    }
    for (size_t i = 0; i < dirs.n && !c->header; i++) {
        char *h = cc_path_join(dirs.v[i], "cudnn.h");
        if (is_file(h)) {
            c->header = h;
            c->header_version = header_version(h);
        } else {
            free(h);
        }
    }
    c->include_dirs = dirs.v;
    c->n_include_dirs = dirs.n;
    return CUDNNCTL_E_OK;
}

static cudnnctl_err add_compiler(cudnnctl_ctx *ctx, cudnnctl_build_view *v, const char *label,
                                 const char *cmd, const char *const *args)
{
    if (cc_grow(&v->compilers, NULL, v->n_compilers + 1, sizeof(*v->compilers)) != 0)
        return oom(ctx);
    cudnnctl_build_compiler *c = &v->compilers[v->n_compilers++];
    memset(c, 0, sizeof(*c));
    return ask_compiler(ctx, label, cmd, args, c);
}

/* The link search list: cc's own (LIBRARY_PATH first), then ld's SEARCH_DIRs; existing dirs,
 * each once (by real path). */
static cudnnctl_err link_dirs(cudnnctl_ctx *ctx, const char *cc, cc_strv *out)
{
    static const char *const psd[] = {"-print-search-dirs", NULL};
    static const char *const pld[] = {"-print-prog-name=ld", NULL};
    cc_strv all = {0}, seen = {0};
    char *text = NULL, *ld = NULL;
    int st = 0;
    if (cc_bv_run(cc, psd, &text, &st) == 0 && st == 0)
        cc_bv_parse_libraries(text, &all);
    free(text);
    text = NULL;
    if (cc_bv_run(cc, pld, &ld, &st) == 0 && st == 0 && ld) {
        ld[strcspn(ld, "\r\n")] = '\0';
        static const char *const verbose[] = {"--verbose", NULL};
        if (*ld && cc_bv_run(ld, verbose, &text, &st) == 0)
            cc_bv_parse_ld_dirs(text, &all);
    }
    free(ld);
    free(text);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; i < all.n && rc == CUDNNCTL_E_OK; i++) {
        char *real = cc_pf_realpath(all.v[i]);
        if (real && !cc_strv_contains(&seen, real) &&
            (cc_strv_push(&seen, real) != 0 || cc_strv_push_own(out, tidy_dir(all.v[i])) != 0))
            rc = oom(ctx);
        free(real);
    }
    cc_strv_free(&all);
    cc_strv_free(&seen);
    return rc;
}

/* -lcudnn: in each dir libcudnn.so, then libcudnn.a (ld's -Bdynamic order). */
static void find_library(cudnnctl_ctx *ctx, cudnnctl_build_view *v)
{
    static const char *const names[] = {"libcudnn.so", "libcudnn.a"};
    for (size_t i = 0; i < v->n_lib_dirs && !v->library; i++)
        for (int k = 0; k < 2 && !v->library; k++) {
            char *p = cc_path_join(v->lib_dirs[i], names[k]);
            if (is_file(p))
                v->library = p;
            else
                free(p);
        }
    if (!v->library)
        return;
    v->library_real = cc_pf_realpath(v->library);
    v->library_soname = cc_elf_soname(v->library);
    const char *name = v->library_real ? v->library_real : v->library;
    v->library_version = cc_ld_version_from_name(name, "libcudnn");
    if (!v->library_version || !strchr(v->library_version, '.')) {
        char *dir = cc_path_dir(name);
        char *hv = dir ? cc_ld_cudnn_header_version(ctx, dir) : NULL;
        if (hv) {
            free(v->library_version);
            v->library_version = hv;
        }
        free(dir);
    }
}

/* The SONAME a program built here asks the loader for. */
static char *runtime_soname(const cudnnctl_build_view *v)
{
    if (v->library_soname)
        return cc_strdup(v->library_soname);
    for (size_t i = 0; i < v->n_compilers; i++)
        if (v->compilers[i].header_version)
            return cc_asprintf("libcudnn.so.%d", atoi(v->compilers[i].header_version));
    return NULL;
}

/* major.minor.patch equal (a 4th part, a build number, is not in the headers) */
static int same_release(const char *a, const char *b)
{
    cc_version x, y;
    if (!a || !b || cc_version_parse(a, &x) != 0 || cc_version_parse(b, &y) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if ((i < x.n ? x.part[i] : 0) != (i < y.n ? y.part[i] : 0))
            return 0;
    return 1;
}

static int problem(cudnnctl_build_view *v, char *text)
{
    if (!text)
        return -1;
    return cc_strs_push(&v->problems, &v->n_problems, text);
}

/* Compare what builds take with what programs load. */
static int judge(cudnnctl_build_view *v)
{
    const cudnnctl_load_result *r = v->runtime;
    const char *rv = r && r->path ? r->version : NULL;
    const char *rp = r && r->path ? (r->real_path ? r->real_path : r->path) : NULL;
    int compared = 0, bad = 0;
    for (size_t i = 0; i < v->n_compilers; i++) {
        const cudnnctl_build_compiler *c = &v->compilers[i];
        if (!c->header)
            continue;
        int same = same_release(c->header_version, rv);
        compared |= same >= 0 || !rp;
        if (same == 0 || !rp) {
            bad = 1;
            if (problem(v, rp ? cc_asprintf("%s compiles against cuDNN %s (%s), programs load "
                                            "%s (%s)",
                                            c->name, c->header_version ? c->header_version : "?",
                                            c->header, rv, rp)
                              : cc_asprintf("%s compiles against cuDNN %s (%s), but a program "
                                            "finds no %s at run time",
                                            c->name, c->header_version ? c->header_version : "?",
                                            c->header, r ? r->soname : "libcudnn")) != 0)
                return -1;
        }
    }
    if (v->library) {
        int same = same_release(v->library_version, rv);
        compared |= same >= 0 || !rp;
        if ((same == 0 || !rp) &&
            problem(v, rp ? cc_asprintf("ld -lcudnn links %s (cuDNN %s), programs load %s (%s)",
                                        v->library, v->library_version ? v->library_version : "?",
                                        rv, rp)
                          : cc_asprintf("ld -lcudnn links %s (cuDNN %s), but a program finds no "
                                        "%s at run time",
                                        v->library, v->library_version ? v->library_version : "?",
                                        r ? r->soname : "libcudnn")) != 0)
            return -1;
        bad |= same == 0 || !rp;
    }
    v->agree = bad ? 0 : compared ? 1 : -1;
    return 0;
}

static cudnnctl_err view_run(cudnnctl_ctx *ctx, const cudnnctl_build_opts *o,
                             cudnnctl_build_view *v)
{
    static const char *const c_args[] = {"-E",        "-v", "-x",        "c",
                                         "/dev/null", "-o", "/dev/null", NULL};
    static const char *const cxx_args[] = {"-E",        "-v", "-x",        "c++",
                                           "/dev/null", "-o", "/dev/null", NULL};
    static const char *const nvcc_args[] = {"-E",        "-Xcompiler", "-v",        "-x", "cu",
                                            "/dev/null", "-o",         "/dev/null", NULL};
    const char *cc = o && o->cc ? o->cc : cc_pf_getenv("CC");
    const char *cxx = o && o->cxx ? o->cxx : cc_pf_getenv("CXX");
    cc = cc && *cc ? cc : "cc";
    cxx = cxx && *cxx ? cxx : "c++";
    char *nvcc = o && o->nvcc ? cc_strdup(o->nvcc) : cc_bv_which("nvcc");
    const char *home = cc_pf_getenv("CUDA_HOME");
    if (!nvcc && home && *home)
        nvcc = cc_asprintf("%s/bin/nvcc", home);
    cudnnctl_err rc = add_compiler(ctx, v, cc, cc, c_args);
    if (rc == CUDNNCTL_E_OK)
        rc = add_compiler(ctx, v, cxx, cxx, cxx_args);
    if (rc == CUDNNCTL_E_OK && nvcc && is_file(nvcc))
        rc = add_compiler(ctx, v, "nvcc", nvcc, nvcc_args);
    free(nvcc);
    cc_strv dirs = {0};
    if (rc == CUDNNCTL_E_OK && (rc = link_dirs(ctx, cc, &dirs)) == CUDNNCTL_E_OK) {
        v->lib_dirs = dirs.v;
        v->n_lib_dirs = dirs.n;
        memset(&dirs, 0, sizeof(dirs));
        find_library(ctx, v);
    }
    cc_strv_free(&dirs);
    return rc;
}

cudnnctl_err cudnnctl_build_view_make(cudnnctl_ctx *ctx, const cudnnctl_build_opts *o,
                                      cudnnctl_build_view **out)
{
    *out = NULL;
    if (cc_host_native_windows() || ctx->root)
        CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                   "the build view asks this machine's compilers (gcc/clang, ld, nvcc on Linux): "
                   "it cannot look into --root or another OS");
    cudnnctl_build_view *v = calloc(1, sizeof(*v));
    if (!v)
        return oom(ctx);
    cudnnctl_err rc = view_run(ctx, o, v);
    char *soname = rc == CUDNNCTL_E_OK ? runtime_soname(v) : NULL;
    if (soname) {
        cudnnctl_loader_env env = o ? o->env : (cudnnctl_loader_env){0};
        if (!o || o->inherit_ld_library_path)
            env.ld_library_path = cc_pf_getenv("LD_LIBRARY_PATH");
        env.main_exe = NULL; /* `cc t.c -lcudnn` makes a program without RPATH / RUNPATH */
        rc = cudnnctl_loader_resolve(ctx, &env, NULL, soname, &v->runtime);
    }
    free(soname);
    if (rc == CUDNNCTL_E_OK && judge(v) != 0)
        rc = oom(ctx);
    if (rc != CUDNNCTL_E_OK) {
        cudnnctl_build_view_free(v);
        return rc;
    }
    *out = v;
    return CUDNNCTL_E_OK;
}
