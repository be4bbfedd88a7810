/* detect_cudnn.c: every cuDNN copy on the machine: real libcudnn*.so* files in the CUDA trees,
 * cudnnctl prefixes, wheels, conda envs, system and loader dirs; their version from file names,
 * ELF SONAMEs, the headers beside them and wheel dist-info; mixed sub-library versions and
 * header/library disagreements are flagged. Never loads cuDNN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn_release.h"
#include "grow.h"
#include "detect_int.h"
#include "elf_info.h"

#define HEADER_MAX (64u * 1024u)

typedef struct {
    char *real;         /* resolved dir */
    const char *origin; /* static string */
    cc_strv incs;       /* include dirs to look for cudnn_version.h, in order */
    char *dist_dir;     /* where nvidia_cudnn_cu*.dist-info may sit, or NULL */
} lib_dir;

typedef struct {
    lib_dir *v;
    size_t n, cap;
    cc_strv claimed_headers; /* resolved cudnn_version.h files used by a library copy */
} dir_list;

typedef struct {
    char *name, *stem, *soname;
    cc_version v; /* from the file name */
    int major;    /* from the name, else the SONAME; -1 unknown */
    int not_elf;
    unsigned machine;
} lib_file;

static void dirs_free(dir_list *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].real);
        cc_strv_free(&d->v[i].incs);
        free(d->v[i].dist_dir);
    }
    free(d->v);
    cc_strv_free(&d->claimed_headers);
}

/* Add a library dir (deduplicated by its resolved path; the first origin wins). inc1/inc2 are
 * extra include dirs to try before <dir>/../include. -1 on OOM. */
static int add_dir(cc_detect_run *run, dir_list *d, const char *path, const char *origin,
                   const char *inc1, const char *inc2, const char *dist_dir)
{
    int missing = 0;
    char *real = cc_detect_resolve(run->ctx, path, &missing);
    if (!real)
        return 0;
    cc_pf_stat_t st = {0};
    if (!missing)
        cc_detect_stat(run->ctx, real, &st);
    if (missing || !st.is_dir) {
        free(real);
        return 0;
    }
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].real, real) == 0) {
            free(real);
            return 0;
        }
    if (cc_grow(&d->v, &d->cap, d->n + 1, sizeof(*d->v)) != 0) {
        free(real);
        return -1;
    }
    lib_dir *l = &d->v[d->n++];
    memset(l, 0, sizeof(*l));
    l->real = real;
    l->origin = origin;
    /* <dir>/../include of the resolved dir first (a tree's lib64 -> targets/x86_64-linux/lib has
     * its headers in targets/x86_64-linux/include), except for system dirs: /usr/lib/<multiarch>
     * pairs with /usr/include/<multiarch> and /usr/include, given as hints */
    int system = strcmp(origin, "system") == 0;
    char *up = cc_path_dir(real);
    char *inc = up ? cc_path_join(up, "include") : NULL;
    free(up);
    if (!inc)
        return -1;
    if (!system && cc_strv_push(&l->incs, inc) != 0) {
        free(inc);
        return -1;
    }
    const char *hints[] = {inc1, inc2, system ? inc : NULL};
    for (size_t i = 0; i < 3; i++)
        if (hints[i] && !cc_strv_contains(&l->incs, hints[i]) &&
            cc_strv_push(&l->incs, hints[i]) != 0) {
            free(inc);
            return -1;
        }
    free(inc);
    if (dist_dir && !(l->dist_dir = cc_strdup(dist_dir)))
        return -1;
    return 0;
}

static int add_sub(cc_detect_run *run, dir_list *d, const char *base, const char *sub,
                   const char *origin, const char *inc, const char *dist)
{
    char *p = cc_path_join(base, sub);
    int rc = p ? add_dir(run, d, p, origin, inc, NULL, dist) : -1;
    free(p);
    return rc;
}

static int add_toolkit_dirs(cc_detect_run *run, dir_list *d)
{
    for (size_t i = 0; i < run->r->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &run->r->toolkits[i];
        if (strcmp(t->origin, "wheel") == 0)
            continue; /* nvidia/cu13: the cuDNN wheel has its own nvidia/cudnn */
        const char *origin = strcmp(t->origin, "conda") == 0 ? "conda" : "cuda-tree";
        char *inc = cc_path_join(t->path, "include");
        char *dist = cc_path_join(t->path, "dist-info");
        int rc = (inc && dist) ? 0 : -1;
        if (rc == 0 && t->lib_dir)
            rc = add_dir(run, d, t->lib_dir, origin, inc, t->include_dir, dist);
        if (rc == 0)
            rc = add_sub(run, d, t->path, "lib64", origin, inc, dist);
        if (rc == 0)
            rc = add_sub(run, d, t->path, "lib", origin, inc, dist);
        for (size_t k = 0; rc == 0 && k < run->arch_targets.n; k++) {
            char *sub = cc_asprintf("targets/%s/lib", run->arch_targets.v[k]);
            rc = sub ? add_sub(run, d, t->path, sub, origin, NULL, dist) : -1;
            free(sub);
        }
        free(inc);
        free(dist);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* /opt/cudnn*: a prefix itself (cudnn-<ver>-cuda<M>/lib) or a dir of prefixes */
static int add_prefix_dirs(cc_detect_run *run, dir_list *d)
{
    cc_strv ents;
    if (cc_detect_list(run->ctx, "/opt", "cudnn", &ents) != 0)
        return 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < ents.n; i++) {
        if (!cc_str_starts(ents.v[i], "cudnn"))
            continue;
        char *e = cc_path_join("/opt", ents.v[i]);
        if (!e) {
            rc = -1;
            break;
        }
        rc = add_sub(run, d, e, "lib", "prefix", NULL, NULL);
        if (rc == 0)
            rc = add_sub(run, d, e, "lib64", "prefix", NULL, NULL);
        cc_strv kids;
        if (rc == 0 && cc_detect_list(run->ctx, e, NULL, &kids) == 0) {
            for (size_t k = 0; rc == 0 && k < kids.n; k++) {
                if (strcmp(kids.v[k], "lib") == 0 || strcmp(kids.v[k], "lib64") == 0 ||
                    strcmp(kids.v[k], "include") == 0)
                    continue;
                char *c = cc_path_join(e, kids.v[k]);
                rc = c ? add_sub(run, d, c, "lib", "prefix", NULL, NULL) : -1;
                if (rc == 0 && c)
                    rc = add_sub(run, d, c, "lib64", "prefix", NULL, NULL);
                free(c);
            }
            cc_strv_free(&kids);
        }
        free(e);
    }
    cc_strv_free(&ents);
    return rc;
}

/* The installs cudnnctl's receipts know, wherever they are (detect_receipts.c). */
static int add_receipt_dirs(cc_detect_run *run, dir_list *d)
{
    cc_strv libs = {0}, incs = {0}, modes = {0};
    int rc = cc_detect_receipt_dirs(run->ctx, &libs, &incs, &modes);
    for (size_t i = 0; rc == 0 && i < libs.n; i++)
        rc = add_dir(run, d, libs.v[i], strcmp(modes.v[i], "prefix") == 0 ? "prefix" : "cuda-tree",
                     incs.v[i][0] ? incs.v[i] : NULL, NULL, NULL);
    cc_strv_free(&libs);
    cc_strv_free(&incs);
    cc_strv_free(&modes);
    return rc;
}

static int add_conda_dirs(cc_detect_run *run, dir_list *d, const char *base)
{
    if (!base)
        return 0;
    char *inc = cc_path_join(base, "include");
    int rc = inc ? add_sub(run, d, base, "lib", "conda", inc, NULL) : -1;
    free(inc);
    char *envs = rc == 0 ? cc_path_join(base, "envs") : NULL;
    cc_strv ents;
    if (envs && cc_detect_list(run->ctx, envs, NULL, &ents) == 0) {
        for (size_t i = 0; rc == 0 && i < ents.n; i++) {
            char *b = cc_path_join(envs, ents.v[i]);
            char *bi = b ? cc_path_join(b, "include") : NULL;
            rc = bi ? add_sub(run, d, b, "lib", "conda", bi, NULL) : -1;
            free(b);
            free(bi);
        }
        cc_strv_free(&ents);
    }
    free(envs);
    return rc;
}

static int add_all_dirs(cc_detect_run *run, dir_list *d)
{
    if (add_toolkit_dirs(run, d) != 0 || add_prefix_dirs(run, d) != 0 ||
        add_receipt_dirs(run, d) != 0)
        return -1;
    for (size_t i = 0; i < run->sites.n; i++) {
        const char *s = run->sites.v[i];
        char *lib = cc_path_join(s, "nvidia/cudnn/lib");
        char *inc = cc_path_join(s, "nvidia/cudnn/include");
        int rc = (lib && inc) ? add_dir(run, d, lib, "wheel", inc, NULL, s) : -1;
        free(lib);
        free(inc);
        if (rc != 0)
            return -1;
    }
    char *conda = cc_detect_env_path(run->ctx, cc_pf_getenv("CONDA_PREFIX"));
    int rc = add_conda_dirs(run, d, conda);
    free(conda);
    if (rc != 0 || add_conda_dirs(run, d, "/opt/conda") != 0)
        return -1;
    for (size_t i = 0; i < run->multiarch.n; i++) {
        const char *ma = run->multiarch.v[i];
        char *inc = cc_path_join("/usr/include", ma);
        char *lib = cc_path_join("/usr/lib", ma);
        char *lib2 = cc_path_join("/lib", ma);
        rc = (inc && lib && lib2) ? add_dir(run, d, lib, "system", inc, "/usr/include", NULL) : -1;
        if (rc == 0)
            rc = add_dir(run, d, lib2, "system", inc, "/usr/include", NULL);
        free(inc);
        free(lib);
        free(lib2);
        if (rc != 0)
            return -1;
    }
    if (add_dir(run, d, "/usr/lib64", "system", "/usr/include", NULL, NULL) != 0 ||
        add_dir(run, d, "/usr/lib", "system", "/usr/include", NULL, NULL) != 0 ||
        add_dir(run, d, "/usr/local/lib", "system", "/usr/local/include", NULL, NULL) != 0)
        return -1;
    for (size_t i = 0; i < run->ld_library_path.n; i++)
        if (add_dir(run, d, run->ld_library_path.v[i], "ld-path", NULL, NULL, NULL) != 0)
            return -1;
    for (size_t i = 0; i < run->loader.n; i++)
        if (add_dir(run, d, run->loader.v[i], "ld-path", NULL, NULL, NULL) != 0)
            return -1;
    return 0;
}

/* ---- one directory -------------------------------------------------------------------------- */

static void files_free(lib_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].name);
        free(f[i].stem);
        free(f[i].soname);
    }
    free(f);
}

/* Real libcudnn*.so* files of a dir (links are skipped: their targets are listed themselves). */
static int list_lib_files(cc_detect_run *run, const char *dir, lib_file **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    cc_strv ents;
    if (cc_detect_list(run->ctx, dir, "libcudnn", &ents) != 0)
        return 0;
    lib_file *f = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < ents.n; i++) {
        const char *e = ents.v[i];
        char *stem = NULL;
        cc_version v;
        if (!cc_str_cudnn_lib(e) || cc_detect_parse_libname(e, &stem, &v) != 0)
            continue;
        char *p = cc_path_join(dir, e);
        char *host = p ? cc_rooted(run->ctx, p) : NULL;
        cc_pf_stat_t st;
        int real_file = host && cc_pf_lstat(host, &st) == 0 && st.exists && st.is_reg;
        free(p);
        if (!real_file) {
            free(host);
            free(stem);
            continue;
        }
        if (cc_grow(&f, NULL, n + 1, sizeof(*f)) != 0) {
            free(host);
            free(stem);
            rc = -1;
            break;
        }
        lib_file *x = &f[n++];
        memset(x, 0, sizeof(*x));
        x->name = cc_strdup(e);
        x->stem = stem;
        x->v = v;
        cc_elf_info info;
        if (cc_elf_read(host, &info) == 0) {
            x->soname = info.soname;
            info.soname = NULL;
            x->machine = info.machine;
            cc_elf_info_free(&info);
        } else {
            /* 2: it exists but may not be read (a permission, not a broken file) */
            x->not_elf = cc_pf_last_error() == CUDNNCTL_E_PERMISSION ? 2 : 1;
        }
        free(host);
        x->major = v.n >= 1 ? v.part[0] : -1;
        if (x->major < 0 && x->soname) {
            char *ss = NULL;
            cc_version sv;
            if (cc_detect_parse_libname(x->soname, &ss, &sv) == 0 && sv.n >= 1)
                x->major = sv.part[0];
            free(ss);
        }
        if (!x->name) {
            rc = -1;
            break;
        }
    }
    cc_strv_free(&ents);
    if (rc != 0) {
        files_free(f, n);
        return -1;
    }
    *out = f;
    *nout = n;
    return 0;
}

static unsigned host_machine(void)
{
    const char *m = cc_pf_machine();
    if (strcmp(m, "x86_64") == 0)
        return CC_ELF_EM_X86_64;
    if (strcmp(m, "aarch64") == 0)
        return CC_ELF_EM_AARCH64;
    return 0;
}

static int add_problem(cudnnctl_cudnn_copy *c, char *msg)
{
    return cc_strs_push(&c->problems, &c->n_problems, msg);
}

typedef struct {
    char *file; /* resolved header file (for the claimed list) */
    char *inc;  /* include dir as listed */
    cc_detect_ver v;
} header_info;

/* The first cudnn_version.h (or a 7.x cudnn.h) in the dir's include hints; want_major >= 0
 * prefers a header of that major. 0 found. */
static int find_header(cc_detect_run *run, const lib_dir *l, int want_major, header_info *h)
{
    memset(h, 0, sizeof(*h));
    header_info first = {0};
    int have_first = 0;
    for (size_t i = 0; i < l->incs.n; i++) {
        static const char *const names[] = {"cudnn_version.h", "cudnn.h"};
        for (size_t k = 0; k < 2; k++) {
            char *p = cc_path_join(l->incs.v[i], names[k]);
            char *text = NULL;
            cc_detect_ver v;
            if (p && cc_detect_read(run->ctx, p, HEADER_MAX, &text) == 0 &&
                cc_detect_parse_cudnn_header(text, &v) == 0) {
                int missing = 0;
                header_info cur = {cc_detect_resolve(run->ctx, p, &missing),
                                   cc_strdup(l->incs.v[i]), v};
                free(text);
                free(p);
                if (want_major < 0 || v.major == want_major) {
                    free(first.file);
                    free(first.inc);
                    *h = cur;
                    return 0;
                }
                if (!have_first) {
                    first = cur;
                    have_first = 1;
                } else {
                    free(cur.file);
                    free(cur.inc);
                }
                break;
            }
            free(text);
            free(p);
        }
    }
    if (have_first) {
        *h = first;
        return 0;
    }
    return -1;
}

static char *dist_version(cc_detect_run *run, const char *dir, int major, cc_version *pv)
{
    cc_strv ents;
    if (!dir || cc_detect_list(run->ctx, dir, "nvidia_cudnn", &ents) != 0)
        return NULL;
    char *out = NULL;
    for (size_t i = 0; i < ents.n && !out; i++)
        if (cc_detect_parse_dist_info(ents.v[i], "nvidia_cudnn", pv) == 0 && pv->part[0] == major)
            out = cc_version_str(pv);
    cc_strv_free(&ents);
    return out;
}

static int set_version(cudnnctl_cudnn_copy *c, int ma, int mi, int pa, const char *src)
{
    c->major = ma;
    c->minor = mi;
    c->patch = pa;
    free(c->version);
    free(c->version_source);
    if (mi < 0)
        c->version = cc_asprintf("%d", ma);
    else
        c->version = cc_asprintf("%d.%d.%d", ma, mi, pa < 0 ? 0 : pa);
    c->version_source = cc_strdup(src);
    return c->version && c->version_source ? 0 : -1;
}

/* Build the copy of one major from its files; fills version, libs, problems, headers. */
/* The problems one library file of a copy shows: unreadable, not ELF, a SONAME that does not
 * match its name, another architecture. */
static void check_lib_file(cudnnctl_cudnn_copy *c, const lib_dir *l, const lib_file *f, int major,
                           unsigned hm)
{
    if (f->not_elf == 2)
        add_problem(c, cc_asprintf("%s/%s cannot be read: permission denied", l->real, f->name));
    else if (f->not_elf)
        add_problem(c, cc_asprintf("%s/%s is not an ELF shared library", l->real, f->name));
    else if (!f->soname)
        add_problem(c, cc_asprintf("%s/%s has no SONAME", l->real, f->name));
    else {
        char *ss = NULL;
        cc_version sv;
        if (cc_detect_parse_libname(f->soname, &ss, &sv) != 0 || strcmp(ss, f->stem) != 0 ||
            (sv.n >= 1 && sv.part[0] != major))
            add_problem(c, cc_asprintf("%s/%s has SONAME %s, which does not match its name",
                                       l->real, f->name, f->soname));
        free(ss);
    }
    if (hm && f->machine && f->machine != hm)
        add_problem(c, cc_asprintf("%s/%s is built for another architecture (ELF machine %u)",
                                   l->real, f->name, f->machine));
}

/* Sub-libraries of several releases: the files grouped by version ("9.14.0: libcudnn.so.9.14.0,
 * ...; 9.19.0: libcudnn_ops...") in one problem. */
static void report_mixed(cudnnctl_cudnn_copy *c, const lib_dir *l, const lib_file *f, size_t n,
                         int major)
{
    cc_buf mixed = {0};
    cc_strv seen = {0};
    for (size_t i = 0; i < n; i++) {
        if (f[i].major != major || f[i].v.n < 3)
            continue;
        char *vs = cc_version_str(&f[i].v);
        if (!vs || cc_strv_contains(&seen, vs)) {
            free(vs);
            continue;
        }
        cc_buf_printf(&mixed, "%s%s:", mixed.len ? "; " : "", vs);
        for (size_t k = 0; k < n; k++)
            if (f[k].major == major && f[k].v.n >= 3 && cc_version_cmp(&f[k].v, &f[i].v) == 0)
                cc_buf_printf(&mixed, " %s", f[k].name);
        cc_strv_push_own(&seen, vs);
    }
    cc_strv_free(&seen);
    add_problem(c, cc_asprintf("sub-libraries in %s disagree in version (%s); a cuDNN copy "
                               "must be one release: reinstall it whole",
                               l->real, mixed.data ? mixed.data : ""));
    cc_buf_free(&mixed);
}

/* Lists the copy's libraries of this major and sets its version from their file names
 * (3-part on NVIDIA tarballs and debs; wheels have .so.9 only). */
static int version_from_files(cudnnctl_cudnn_copy *c, const lib_dir *l, const lib_file *f, size_t n,
                              int major)
{
    unsigned hm = host_machine();
    cc_version best = {{-1, -1, -1, -1}, 0};
    const lib_file *shim = NULL;
    int distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i].major != major)
            continue;
        if (cc_strs_push(&c->libs, &c->n_libs, cc_strdup(f[i].name)) != 0)
            return -1;
        check_lib_file(c, l, &f[i], major, hm);
        if (f[i].v.n >= 3) {
            if (strcmp(f[i].stem, "libcudnn") == 0)
                shim = &f[i];
            if (best.n == 0) {
                best = f[i].v;
                distinct = 1;
            } else if (cc_version_cmp(&best, &f[i].v) != 0) {
                distinct++;
            }
        }
    }
    if (distinct > 1) {
        report_mixed(c, l, f, n, major);
        if (shim)
            best = shim->v;
    }
    if (best.n >= 3)
        return set_version(c, best.part[0], best.part[1], best.part[2], "file-name");
    return set_version(c, major, -1, -1, "soname");
}

/* Headers beside the libraries: the include dir, and the version where the names had none. */
static int apply_header(cc_detect_run *run, dir_list *d, const lib_dir *l, int major,
                        int majors_in_dir, cudnnctl_cudnn_copy *c)
{
    header_info h;
    int rc = 0;
    if (find_header(run, l, major, &h) != 0)
        return 0;
    char hv[64];
    snprintf(hv, sizeof(hv), "%d.%d.%d", h.v.major, h.v.minor, h.v.patch);
    if (h.v.major == major) {
        c->include_dir = h.inc;
        h.inc = NULL;
        c->header_version = cc_strdup(hv);
        if (h.file && !cc_strv_contains(&d->claimed_headers, h.file))
            cc_strv_push(&d->claimed_headers, h.file);
        if (c->minor < 0) {
            rc = set_version(c, h.v.major, h.v.minor, h.v.patch, "header");
        } else if (h.v.minor != c->minor || h.v.patch != c->patch) {
            add_problem(c, cc_asprintf("headers in %s say cuDNN %s but the libraries in %s "
                                       "are %s: builds and runtime will disagree",
                                       c->include_dir, hv, l->real, c->version));
        }
    } else if (majors_in_dir == 1) {
        add_problem(c, cc_asprintf("headers in %s are cuDNN %s but the libraries in %s are "
                                   "cuDNN %d",
                                   h.inc, hv, l->real, major));
    }
    free(h.file);
    free(h.inc);
    return rc;
}

/* Wheel metadata: the package version, and the version where nothing else gave one. */
static int apply_dist_info(cc_detect_run *run, const lib_dir *l, int major, cudnnctl_cudnn_copy *c)
{
    cc_version pv;
    c->package_version = dist_version(run, l->dist_dir, major, &pv);
    if (!c->package_version)
        return 0;
    if (c->minor < 0)
        return set_version(c, pv.part[0], pv.part[1], pv.n >= 3 ? pv.part[2] : 0, "dist-info");
    if (pv.part[1] != c->minor || (pv.n >= 3 && pv.part[2] != c->patch))
        add_problem(c, cc_asprintf("dist-info in %s says cuDNN %s but the copy in %s is %s",
                                   l->dist_dir, c->package_version, l->real, c->version));
    return 0;
}

/* Wheel-style names (.so.9 only): the release tag the core library carries in its bytes
 * (cudnn_release.c) says what the names do not; headers and dist-info are then checked
 * against the files instead of standing in for them. */
static int apply_tag(cc_detect_run *run, const lib_dir *l, int major, cudnnctl_cudnn_copy *c)
{
    char *host = cc_rooted(run->ctx, l->real);
    char tag[32];
    cc_version v;
    int rc = 0;
    if (host && cc_cudnn_dir_release(host, major, tag, sizeof(tag)) == 0 &&
        cc_version_parse(tag, &v) == 0 && v.n >= 3 && v.part[0] == major)
        rc = set_version(c, v.part[0], v.part[1], v.part[2], "library tag");
    free(host);
    return rc;
}

static int build_copy(cc_detect_run *run, dir_list *d, const lib_dir *l, lib_file *f, size_t n,
                      int major, int majors_in_dir, cudnnctl_cudnn_copy *c)
{
    c->path = cc_strdup(l->real);
    c->origin = cc_strdup(l->origin);
    c->minor = c->patch = -1;
    if (!c->path || !c->origin)
        return -1;
    if (version_from_files(c, l, f, n, major) != 0 ||
        (c->minor < 0 && apply_tag(run, l, major, c) != 0) ||
        apply_header(run, d, l, major, majors_in_dir, c) != 0 ||
        apply_dist_info(run, l, major, c) != 0)
        return -1;
    if (c->minor < 0)
        add_problem(c, cc_asprintf("only the major version of %s is known (no versioned file "
                                   "names, headers or dist-info)",
                                   l->real));
    if (major >= 9) {
        int has_shim = 0, has_graph = 0;
        for (size_t i = 0; i < c->n_libs; i++) {
            has_shim |= cc_str_starts(c->libs[i], "libcudnn.so");
            has_graph |= cc_str_starts(c->libs[i], "libcudnn_graph.so");
        }
        if (!has_shim || !has_graph)
            add_problem(c, cc_asprintf("%s lacks %s: the copy is incomplete", l->real,
                                       !has_shim ? "libcudnn.so.*" : "libcudnn_graph.so.*"));
    }
    return 0;
}

static int scan_dir(cc_detect_run *run, dir_list *d, const lib_dir *l)
{
    lib_file *f = NULL;
    size_t n = 0;
    if (list_lib_files(run, l->real, &f, &n) != 0)
        return -1;
    int majors[16], nm = 0, rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i].major < 0) {
            cc_detect_note(run, "%s/%s: no version in its name or SONAME: ignored", l->real,
                           f[i].name);
            continue;
        }
        int seen = 0;
        for (int k = 0; k < nm; k++)
            seen |= majors[k] == f[i].major;
        if (!seen && nm < 16)
            majors[nm++] = f[i].major;
    }
    for (int k = 0; k < nm && rc == 0; k++) {
        cudnnctl_cudnn_copy *c = cc_detect_cudnn_slot(run);
        if (!c) {
            rc = -1;
            break;
        }
        c->in_loader_path = cc_strv_contains(&run->loader, l->real) ||
                            cc_strv_contains(&run->ld_library_path, l->real);
        c->in_ld_library_path = cc_strv_contains(&run->ld_library_path, l->real);
        rc = build_copy(run, d, l, f, n, majors[k], nm, c);
    }
    files_free(f, n);
    return rc;
}

/* Headers nobody claimed: cuDNN headers without libraries beside them. */
static int header_only(cc_detect_run *run, dir_list *d)
{
    cc_strv incs = {0};
    int rc = 0;
    const char *fixed[] = {"/usr/include", "/usr/local/include"};
    for (size_t i = 0; i < 2; i++)
        rc |= cc_strv_push(&incs, fixed[i]);
    for (size_t i = 0; i < run->multiarch.n; i++)
        rc |= cc_strv_push_own(&incs, cc_path_join("/usr/include", run->multiarch.v[i]));
    for (size_t i = 0; i < run->r->n_toolkits; i++)
        if (run->r->toolkits[i].include_dir &&
            !cc_strv_contains(&incs, run->r->toolkits[i].include_dir))
            rc |= cc_strv_push(&incs, run->r->toolkits[i].include_dir);
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->v[i].incs.n; k++)
            if (!cc_strv_contains(&incs, d->v[i].incs.v[k]))
                rc |= cc_strv_push(&incs, d->v[i].incs.v[k]);
    for (size_t i = 0; rc == 0 && i < incs.n; i++) {
        char *p = cc_path_join(incs.v[i], "cudnn_version.h");
        int missing = 0;
        char *real = p ? cc_detect_resolve(run->ctx, p, &missing) : NULL;
        char *text = NULL;
        cc_detect_ver v;
        if (real && !missing && !cc_strv_contains(&d->claimed_headers, real) &&
            cc_detect_read(run->ctx, real, HEADER_MAX, &text) == 0) {
            if (cc_detect_parse_cudnn_header(text, &v) != 0) {
                cc_detect_note(run, "%s has no readable CUDNN_MAJOR/MINOR/PATCHLEVEL: ignored", p);
            } else {
                cc_strv_push(&d->claimed_headers, real);
                cudnnctl_cudnn_copy *c = cc_detect_cudnn_slot(run);
                const char *origin = "system";
                for (size_t t = 0; t < run->r->n_toolkits; t++)
                    if (cc_str_starts(incs.v[i], run->r->toolkits[t].path))
                        origin = "cuda-tree";
                if (strstr(incs.v[i], "/nvidia/cudnn/"))
                    origin = "wheel";
                else if (cc_str_starts(incs.v[i], "/opt/cudnn"))
                    origin = "prefix";
                if (!c || !(c->path = cc_strdup(incs.v[i])) ||
                    !(c->include_dir = cc_strdup(incs.v[i])) || !(c->origin = cc_strdup(origin)) ||
                    set_version(c, v.major, v.minor, v.patch, "header") != 0 ||
                    !(c->header_version = cc_strdup(c->version)) ||
                    add_problem(c, cc_asprintf("cuDNN %s headers in %s have no libcudnn libraries "
                                               "beside them",
                                               c->version, incs.v[i])) != 0)
                    rc = -1;
            }
        }
        free(text);
        free(real);
        free(p);
    }
    cc_strv_free(&incs);
    return rc;
}

cudnnctl_err cc_detect_find_cudnn(cc_detect_run *run)
{
    dir_list d = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (add_all_dirs(run, &d) != 0)
        goto oom;
    for (size_t i = 0; i < d.n; i++)
        if (scan_dir(run, &d, &d.v[i]) != 0)
            goto oom;
    if (header_only(run, &d) != 0)
        goto oom;
    goto out;
oom:
    e = CC_ERR(run->ctx, CUDNNCTL_E_NOMEM, "out of memory while looking for cuDNN");
out:
    dirs_free(&d);
    return e;
}
