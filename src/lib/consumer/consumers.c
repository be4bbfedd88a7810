/* consumers.c: the CUDA frameworks of a Python interpreter, found by reading files only: the
 * interpreter is run once for its site dirs (paths only; no framework is imported), then each
 * site dir's *.dist-info (METADATA: Version, Requires-Dist nvidia-cudnn-cuXX), the framework's
 * own build-info file and its CUDA extension ELF (DT_NEEDED, DT_RPATH / DT_RUNPATH). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "consumer_int.h"
#include "platform.h"

typedef struct {
    const char *dist; /* dist-info name, normalised (lower case, '_') */
    const char *ext[3];
    const char *build_info;
} fw_def;

static const fw_def FWS[] = {
    {"torch", {"torch/lib/libtorch_cuda.so", NULL, NULL}, "torch/version.py"},
    {"tensorflow",
     {"tensorflow/libtensorflow_framework.so.2", "tensorflow/libtensorflow_cc.so.2", NULL},
     "tensorflow/python/platform/build_info.py"},
    {"jax_cuda13_plugin", {"jax_cuda13_plugin/_versions.so", NULL, NULL}, NULL},
    {"jax_cuda12_plugin", {"jax_cuda12_plugin/_versions.so", NULL, NULL}, NULL},
    {"jax_cuda13_pjrt", {"jax_plugins/xla_cuda13/xla_cuda_plugin.so", NULL, NULL}, NULL},
    {"jax_cuda12_pjrt", {"jax_plugins/xla_cuda12/xla_cuda_plugin.so", NULL, NULL}, NULL},
    {"onnxruntime_gpu", {"onnxruntime/capi/libonnxruntime_providers_cuda.so", NULL, NULL},
     "onnxruntime/capi/build_and_package_info.py"},
    /* the CPython extension names carry the ABI tag: cudnn.cpython-312-x86_64-linux-gnu.so */
    {"cupy_cuda13x", {"cupy_backends/cuda/libs/cudnn*.so", "cupy/cuda/cudnn*.so", NULL}, NULL},
    {"cupy_cuda12x", {"cupy_backends/cuda/libs/cudnn*.so", "cupy/cuda/cudnn*.so", NULL}, NULL},
    {"cupy_cuda11x", {"cupy_backends/cuda/libs/cudnn*.so", "cupy/cuda/cudnn*.so", NULL}, NULL},
    {"paddlepaddle_gpu", {"paddle/base/libpaddle.so", "paddle/fluid/libpaddle.so", NULL}, NULL},
    /* NVIDIA's cudnn-frontend: its own _dlopen_cudnn() loads cuDNN (pyloaders.c) */
    {"nvidia_cudnn_frontend", {"cudnn/_compiled_module*.so", NULL, NULL}, NULL},
};

/* SITE/pattern with at most one '*' in the last element, the first match (sorted); NULL none. */
static char *find_ext(const char *site, const char *pattern)
{
    const char *star = strchr(pattern, '*');
    if (!star) {
        char *p = cc_path_join(site, pattern);
        cc_pf_stat_t st;
        if (p && cc_pf_stat(p, &st) == 0 && st.exists)
            return p;
        free(p);
        return NULL;
    }
    char *rel = cc_path_dir(pattern);
    char *dir = rel ? cc_path_join(site, rel) : NULL;
    const char *base = cc_path_base(pattern);
    size_t pre = (size_t)(strchr(base, '*') - base);
    const char *suf = strchr(base, '*') + 1;
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    cc_strv hits = {0};
    const char *n;
    while (d && (n = cc_pf_readdir(d)) != NULL)
        if (strncmp(n, base, pre) == 0 && strlen(n) >= pre + strlen(suf) && cc_str_ends(n, suf))
            cc_strv_push(&hits, n);
    if (d)
        cc_pf_closedir(d);
    cc_strv_sort(&hits);
    char *out = hits.n ? cc_path_join(dir, hits.v[0]) : NULL;
    cc_strv_free(&hits);
    free(dir);
    free(rel);
    return out;
}

static void normalise(char *s)
{
    for (; *s; s++) {
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
        else if (*s == '-' || *s == '.')
            *s = '_';
    }
}

/* The first quoted value on the line where `key` is assigned ("key = '1'", "'key': '1'",
 * "key: Optional[str] = '1'"). */
static char *assigned(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += n) {
        int start = p == text || p[-1] == '\n' || p[-1] == '\'' || p[-1] == '"' || p[-1] == ' ';
        const char *q = p + n;
        if (*q == '\'' || *q == '"')
            q++;
        while (*q == ' ')
            q++;
        if (!start || (*q != ':' && *q != '='))
            continue;
        const char *eol = strchr(q, '\n');
        const char *a = strpbrk(q, "'\"");
        if (!a || (eol && a > eol))
            continue;
        const char *b = strchr(a + 1, *a);
        if (!b || (eol && b > eol))
            continue;
        return cc_strndup(a + 1, (size_t)(b - a - 1));
    }
    return NULL;
}

/* major / minor of the first "==", ">=", "~=" or bare version in a requirement spec. */
static void spec_floor(const char *spec, int *major, int *minor)
{
    const char *p = strstr(spec, "==");
    if (!p)
        p = strstr(spec, ">=");
    if (!p)
        p = strstr(spec, "~=");
    p = p ? p + 2 : spec;
    while (*p == ' ' || *p == '(')
        p++;
    cc_version v;
    char *tok = cc_strndup(p, strspn(p, "0123456789."));
    if (tok && cc_version_parse(tok, &v) == 0) {
        *major = v.part[0];
        *minor = v.n >= 2 ? v.part[1] : -1;
    }
    free(tok);
}

/* METADATA: Version, and what Requires-Dist says about cuDNN and the CUDA runtime. */
static void read_metadata(const char *text, cudnnctl_consumer *c)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t len = strcspn(l, "\r\n");
        char *line = cc_strndup(l, len);
        if (!line)
            return;
        if (cc_str_starts(line, "Version: ") && !c->version)
            c->version = cc_strdup(line + 9);
        if (cc_str_starts(line, "Requires-Dist: ")) {
            char *req = line + 15;
            char *semi = strchr(req, ';');
            if (semi)
                *semi = '\0';
            size_t nl = strcspn(req, " ([<>=!~;");
            char *name = cc_strndup(req, nl);
            char *spec = cc_strdup(req + nl);
            if (name && spec) {
                normalise(name);
                char *s = cc_str_trim(spec);
                if (cc_str_starts(name, "nvidia_cudnn") && !c->build_cudnn) {
                    c->build_cudnn = cc_strdup(s);
                    spec_floor(s, &c->need_cudnn_major, &c->need_cudnn_minor);
                    if (cc_str_starts(name, "nvidia_cudnn_cu"))
                        c->need_cuda_major = atoi(name + 15);
                    free(c->build_source);
                    c->build_source = cc_asprintf("METADATA Requires-Dist %s", req);
                } else if (cc_str_starts(name, "nvidia_cuda_runtime") && c->need_cuda_major < 0) {
                    if (cc_str_starts(name, "nvidia_cuda_runtime_cu"))
                        c->need_cuda_major = atoi(name + 22);
                    else {
                        int mi = -1;
                        spec_floor(s, &c->need_cuda_major, &mi);
                    }
                }
            }
            free(name);
            free(spec);
        }
        free(line);
    }
}

/* The framework's own build-info file (torch/version.py, TF's build_info.py, ORT's). */
static void read_build_info(const cudnnctl_ctx *ctx, const char *site, const fw_def *d,
                            cudnnctl_consumer *c)
{
    if (!d->build_info)
        return;
    char *p = cc_path_join(site, d->build_info);
    char *text = NULL;
    size_t len = 0;
    (void)ctx;
    if (p && cc_ld_read_file(p, 1u << 20, &text, &len) == 0) {
        char *cuda = assigned(text, "cuda_version");
        if (!cuda)
            cuda = assigned(text, "cuda");
        char *dnn = assigned(text, "cudnn_version");
        if (cuda && *cuda) {
            free(c->build_cuda);
            c->build_cuda = cuda;
            cuda = NULL;
            if (c->need_cuda_major < 0)
                c->need_cuda_major = atoi(c->build_cuda);
        }
        if (dnn && *dnn && !c->build_cudnn) {
            c->build_cudnn = dnn;
            dnn = NULL;
            spec_floor(c->build_cudnn, &c->need_cudnn_major, &c->need_cudnn_minor);
            free(c->build_source);
            c->build_source = cc_strdup(d->build_info);
        }
        free(cuda);
        free(dnn);
    }
    free(text);
    free(p);
}

/* libcudnn as the framework gets it when its own Python code loads it first by path
 * (pyloaders.c): a result with rule "path" and that code named; the extension's DT_NEEDED
 * libcudnn.so.M then finds it already loaded. 1 done, 0 no preload, -1 OOM. */
static int add_preload(cc_ldmodel *m, const cc_py_env *py, int main_idx, cudnnctl_consumer *c,
                       const char *site)
{
    char *why = NULL, *by_name = NULL;
    char *file = cc_consumer_py_preload(m->ctx, py, c, site, &why, &by_name);
    int rc = 0;
    if (file) {
        if (cc_grow(&c->libs, NULL, c->n_libs + 1, sizeof(*c->libs)) != 0) {
            rc = -1;
        } else {
            cudnnctl_load_result *r = &c->libs[c->n_libs++];
            memset(r, 0, sizeof(*r));
            r->soname = cc_asprintf("libcudnn.so.%d", c->need_cudnn_major > 0 ? c->need_cudnn_major
                                                                               : 9);
            r->path = file;
            r->dir = cc_path_dir(file);
            r->rule = cc_strdup("path");
            r->why = why;
            file = why = NULL;
            cc_ld_finish(m, r);
            rc = 1;
        }
    } else if (by_name) { /* its code dlopens the name from the interpreter, not the extension */
        rc = cc_ld_add_lib(m, c, main_idx, by_name) == CUDNNCTL_E_OK ? 1 : -1;
        if (rc == 1 && !c->libs[c->n_libs - 1].path && cc_str_starts(c->name, "cupy")) {
            /* cupy falls back to the extension's own DT_NEEDED when that name is not found */
            cc_ld_result_clear(&c->libs[--c->n_libs]);
            rc = 0;
        } else if (rc == 1) {
            cudnnctl_load_result *r = &c->libs[c->n_libs - 1];
            char *w = cc_asprintf("%s's own code dlopens %s by name (after the places it looks "
                                  "first hold none): %s",
                                  c->name, by_name, r->why ? r->why : "");
            free(r->why);
            r->why = w;
        }
    }
    free(file);
    free(why);
    free(by_name);
    return rc;
}

/* Resolve the three families as the extension would: the soname its DT_NEEDED names, else the
 * one it dlopens for the majors it was built for; libcudnn from the framework's own preload when
 * its code has one. */
static cudnnctl_err resolve_fw(cc_ldmodel *m, const cc_py_env *py, int main_idx,
                               cudnnctl_consumer *c, const char *site)
{
    int req = cc_ldm_add(m, c->extension, main_idx, 0);
    if (req < 0)
        return CUDNNCTL_E_OK; /* unreadable extension: verdict "missing" says so */
    int pre = add_preload(m, py, main_idx, c, site);
    if (pre < 0)
        return CUDNNCTL_E_NOMEM;
    const cc_elf_info *e = &m->objs[req].elf;
    cudnnctl_err err = CUDNNCTL_E_OK;
    for (int fam = pre ? 1 : 0; fam < 3 && err == CUDNNCTL_E_OK; fam++) {
        char *soname = NULL;
        for (size_t i = 0; i < e->n_needed && !soname; i++)
            if (cc_ld_family(e->needed[i]) == fam)
                soname = cc_strdup(e->needed[i]);
        static const char *const rt[] = {"libcudnn", "libcudart", "libcublas"};
        if (!soname && fam == 0)
            soname = cc_asprintf("libcudnn.so.%d", c->need_cudnn_major > 0 ? c->need_cudnn_major
                                                                           : 9);
        else if (!soname && c->need_cuda_major > 0)
            soname = cc_asprintf("%s.so.%d", rt[fam], c->need_cuda_major);
        if (soname)
            err = cc_ld_add_lib(m, c, req, soname);
        free(soname);
    }
    char *note = cc_consumer_py_preload_note(m->ctx, c, site);
    if (note)
        cc_ld_note(c, note);
    if (err == CUDNNCTL_E_OK)
        cc_ld_sublibs(m, c);
    return err;
}

static cudnnctl_err scan_site(cudnnctl_ctx *ctx, cc_ldmodel *m, const cc_py_env *py, int main_idx,
                              const char *site, cudnnctl_which_report *rep)
{
    cc_pf_dir *d = cc_pf_opendir(site);
    const char *ent;
    cudnnctl_err e = CUDNNCTL_E_OK;
    while (d && e == CUDNNCTL_E_OK && (ent = cc_pf_readdir(d)) != NULL) {
        if (!cc_str_ends(ent, ".dist-info"))
            continue;
        char *name = cc_strndup(ent, strcspn(ent, "-"));
        if (!name)
            break;
        normalise(name);
        for (size_t k = 0; k < sizeof(FWS) / sizeof(FWS[0]); k++) {
            if (strcmp(name, FWS[k].dist) != 0)
                continue;
            char *extp = NULL;
            for (size_t x = 0; x < 3 && FWS[k].ext[x] && !extp; x++)
                extp = find_ext(site, FWS[k].ext[x]);
            cudnnctl_consumer *c;
            if ((e = cc_ld_push_consumer(rep, &c)) != CUDNNCTL_E_OK) {
                free(extp);
                break;
            }
            c->kind = cc_strdup("framework");
            c->name = cc_strdup(FWS[k].dist);
            c->location = cc_path_join(site, ent);
            c->extension = extp;
            char *meta = cc_path_join3(site, ent, "METADATA");
            char *text = NULL;
            size_t len = 0;
            if (meta && cc_ld_read_file(meta, 4u << 20, &text, &len) == 0)
                read_metadata(text, c);
            free(text);
            free(meta);
            read_build_info(ctx, site, &FWS[k], c);
            if (c->extension)
                e = resolve_fw(m, py, main_idx, c, site);
        }
        free(name);
    }
    if (d)
        cc_pf_closedir(d);
    return e;
}

/* The interpreter's own view, one tagged line each: sys.path in order (P), sysconfig's purelib
 * (U), the site dirs (S); paths only, nothing imported but site and sysconfig. */
static const char PY_SITES[] =
    "import sys, site, sysconfig\n"
    "d = []\n"
    "try:\n    d += site.getsitepackages()\nexcept Exception:\n    pass\n"
    "try:\n    d.append(site.getusersitepackages())\nexcept Exception:\n    pass\n"
    "print(sys.executable)\n"
    "for p in sys.path:\n    print('P\\t' + (p or '.'))\n"
    "print('U\\t' + sysconfig.get_paths()['purelib'])\n"
    "for p in d + sys.path:\n    print('S\\t' + p)\n";

/* What -E leaves out of sys.path: PYTHONPATH's dirs, right after the script's entry, as the
 * interpreter run without -E puts them (read, never handed to it: nothing of them runs as root). */
static void push_pythonpath(cc_strv *syspath)
{
    const char *pp = cc_pf_getenv("PYTHONPATH");
    char *copy = pp && *pp ? cc_strdup(pp) : NULL;
    for (char *d = copy, *next; d; d = next) {
        next = strchr(d, cc_pf_path_list_sep());
        if (next)
            *next++ = '\0';
        if (!*d)
            continue;
        char *abs = d[0] == '/' ? NULL : cc_pf_realpath(d); /* relative: from our cwd */
        if (d[0] == '/' || abs)
            cc_strv_push(syspath, abs ? abs : d);
        free(abs);
    }
    free(copy);
}

cudnnctl_err cc_consumer_python(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                                cudnnctl_which_report *rep)
{
    /* as root, -E: PYTHON* variables kept by sudo -E (PYTHONPATH's sitecustomize) run nothing;
     * the interpreter itself must pass the trust rule (cc_pf_run refuses it otherwise) */
    const char *argv_user[] = {o->python, "-c", PY_SITES, NULL};
    const char *argv_root[] = {o->python, "-E", "-c", PY_SITES, NULL};
    const char *const *argv = cc_pf_is_root() ? argv_root : argv_user;
    char *out = NULL;
    size_t len = 0;
    int status = 0;
    int ran = cc_pf_run(argv, NULL, NULL, 30000, 0, &out, &len, &status) == 0;
    if (!ran && cc_pf_last_error() == CUDNNCTL_E_UNTRUSTED) {
        char *what = cc_asprintf("--python %s", o->python);
        cudnnctl_err e = what ? cc_untrusted_refusal(ctx, what, "cudnnctl which --python", o->python)
                              : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(what);
        return e;
    }
    if (!ran || status != 0) {
        free(out);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "%s did not run (exit %d): give a Python interpreter, e.g. --python "
                   "$(command -v python3)",
                   o->python, status);
    }
    rep->python = cc_strdup(o->python);
    cc_strv sites = {0}, syspath = {0};
    char *purelib = NULL;
    int first = 1;
    for (char *l = out, *next; l && *l; l = next, first = 0) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        cc_pf_stat_t st;
        char tag = l[0] && l[1] == '\t' ? l[0] : 0;
        const char *v = tag ? l + 2 : l;
        if (first || !tag || !*v)
            continue;
        if (tag == 'P' && cc_strv_push(&syspath, v) == 0 && syspath.n == 1 && argv == argv_root)
            push_pythonpath(&syspath);
        else if (tag == 'U' && !purelib)
            purelib = cc_strdup(v);
        else if (tag == 'S' && !cc_strv_contains(&sites, v) && cc_pf_stat(v, &st) == 0 &&
                 st.exists && st.is_dir)
            cc_strv_push(&sites, v);
    }
    free(out);
    cc_py_env py = {&syspath, purelib, o->env.ld_library_path};
    rep->site_dirs = sites.v;
    rep->n_site_dirs = sites.n;
    cc_ldmodel m;
    if (cc_ldm_init(&m, ctx, &o->env) != 0) {
        cc_ldm_free(&m);
        cc_strv_free(&syspath);
        free(purelib);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    m.main = -1;
    char *exe = cc_pf_realpath(o->python); /* the program ld.so maps: links resolved */
    int main_idx = exe ? cc_ldm_add(&m, exe, -1, 1) : -1;
    free(exe);
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t i = 0; i < rep->n_site_dirs && e == CUDNNCTL_E_OK; i++)
        e = scan_site(ctx, &m, &py, main_idx, rep->site_dirs[i], rep);
    cc_ldm_free(&m);
    cc_strv_free(&syspath);
    free(purelib);
    if (e != CUDNNCTL_E_OK)
        CC_RET_ERR(ctx, e, "out of memory");
    return CUDNNCTL_E_OK;
}
