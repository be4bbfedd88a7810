/* doctor_paths.c: doctor's checks of the search paths: the nvcc on PATH against CUDA_HOME, a
 * toolkit or cuDNN lib dir that no loader path reaches (ld.so.conf, its cache, the default dirs,
 * LD_LIBRARY_PATH), and which copy of a cuDNN major LD_LIBRARY_PATH makes win (the first of its
 * dirs, in order, that holds libcudnn.so.M). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "detect_path.h"
#include "doctor_int.h"
#include "pathtrust.h"

/* The resolved form of a root-relative dir (malloc'd), NULL when it does not exist. */
static char *resolved(cc_doctor_run *run, const char *dir)
{
    int missing = 0;
    char *r = dir ? cc_diag_resolve(run, dir, &missing) : NULL;
    if (r && missing) {
        free(r);
        r = NULL;
    }
    return r;
}

static int in_loader(cc_doctor_run *run, const char *dir)
{
    char *r = resolved(run, dir);
    int in = r && (cc_strv_contains(&run->loader_dirs, r) || cc_strv_contains(&run->llp_dirs, r));
    free(r);
    return in;
}

/* ---- nvcc on PATH ----------------------------------------------------------------------------- */

static void nvcc_check(cc_doctor_run *run)
{
    const char *var = cc_pf_getenv("CUDA_HOME") ? "CUDA_HOME" : "CUDA_PATH";
    const char *home = cc_pf_getenv(var);
    char *hp = home ? cc_detect_env_path(run->ctx, home) : NULL;
    char *hr = resolved(run, hp);
    const cudnnctl_toolkit *ht = hr ? cc_diag_toolkit_of(run->det, hr) : NULL;
    if (!ht && hp)
        ht = cc_diag_toolkit_of(run->det, hp);
    const char *path = cc_pf_getenv("PATH");
    char *first = NULL;
    while (ht && path && *path && !first) {
        size_t n = strcspn(path, ":");
        char *e = cc_strndup(path, n);
        char *d = e ? cc_detect_env_path(run->ctx, e) : NULL;
        char *nv = d ? cc_path_join(d, "nvcc") : NULL;
        cc_pf_stat_t st;
        char *nr = nv ? resolved(run, nv) : NULL;
        if (nr && cc_diag_lstat(run, nr, &st) == 0 && st.is_reg)
            first = nv, nv = NULL;
        free(nr);
        free(nv);
        free(d);
        free(e);
        path += n;
        if (*path == ':')
            path++;
    }
    char *fr = first ? resolved(run, first) : NULL;
    const cudnnctl_toolkit *pt = fr ? cc_diag_toolkit_of(run->det, fr) : NULL;
    if (!pt && first)
        pt = cc_diag_toolkit_of(run->det, first);
    if (ht && pt && ht != pt && strcmp(ht->path, pt->path) != 0) {
        char *bin = cc_path_join(ht->path, "bin");
        char *qb = bin ? cc_diag_quote(bin) : NULL;
        char *cmd = qb ? cc_asprintf("export PATH=%s:\"$PATH\"", qb) : NULL;
        char *fix = cc_asprintf("put %s first on PATH (`export PATH=%s:$PATH`, in the shell's "
                                "startup file), or point %s at %s if that is the toolkit you mean",
                                bin ? bin : "?", bin ? bin : "?", var, pt->path);
        cc_diag_add_cmd(run, CC_DC_NVCC_NOT_CUDA_HOME, first, fix, cmd,
                        "%s=%s is CUDA %s, but the first nvcc on PATH (%s) is CUDA %s from %s: "
                        "builds driven by %s (CMake, PyTorch extensions) and builds that call "
                        "nvcc use two toolkits (\"The detected CUDA version mismatches the "
                        "version that was used to compile PyTorch\", unresolved symbols)",
                        var, home, ht->version, first, pt->version, pt->path, var);
        free(fix);
        free(cmd);
        free(qb);
        free(bin);
    }
    free(fr);
    free(first);
    free(hr);
    free(hp);
}

/* ---- dirs no loader path reaches ------------------------------------------------------------ */

static char *conf_cmd(cc_doctor_run *run, const char *dir, const char *name)
{
    char *file = cc_asprintf("/etc/ld.so.conf.d/%s.conf", name);
    char *qd = cc_diag_quote(dir);
    char *qconfd = cc_diag_qhost(run, "/etc/ld.so.conf.d");
    char *qfile = file ? cc_diag_qhost(run, file) : NULL;
    char *qroot = run->ctx->root ? cc_diag_quote(run->ctx->root) : NULL;
    char *cmd = NULL;
    if (qd && qconfd && qfile && (!run->ctx->root || qroot))
        cmd = cc_asprintf("mkdir -p %s && echo %s > %s && ldconfig -X%s%s", qconfd, qd, qfile,
                          qroot ? " -r " : "", qroot ? qroot : "");
    free(file);
    free(qd);
    free(qconfd);
    free(qfile);
    free(qroot);
    return cmd;
}

/* 1 when root may register dir for every user (docs/security.md, "Running as root"); otherwise
 * the fix must not say so: the user who can write there would put libraries in front of root. */
static int registrable(cc_doctor_run *run, const char *dir)
{
    char *h = cc_rooted(run->ctx, dir);
    int ok = h && cc_trust_tree(h, run->ctx->root ? 0u : (unsigned)CC_PF_TRUST_AS_ROOT, 1) == 0;
    free(h);
    return ok;
}

/* The fix for a dir that cannot be registered (malloc'd); instead: where to install it. */
static char *unregistrable_fix(const char *dir, const char *instead)
{
    return cc_asprintf("%s can be written by a user other than root, so it must not be registered "
                       "for every user (setuid programs and root would load what they put there): "
                       "%s, or activate it per shell: `eval \"$(cudnnctl env)\"`",
                       dir, instead);
}

/* The finding code for dir, a lib dir in no loader path (message: fmt). Where root may register
 * dir, the command writes /etc/ld.so.conf.d/<name>.conf and the fix says that echo between lead
 * and tail; elsewhere the fix is unregistrable_fix's with instead. */
#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
static void add_unreached(cc_doctor_run *run, cc_doctor_code code, const char *dir,
                          const char *name, const char *instead, const char *lead,
                          const char *tail, const char *fmt, ...)
{
    int reg = registrable(run, dir);
    char *cmd = reg ? conf_cmd(run, dir, name) : NULL;
    char *fix = !reg ? unregistrable_fix(dir, instead)
                     : cc_asprintf("%s`echo %s > /etc/ld.so.conf.d/%s.conf && ldconfig`%s", lead,
                                   dir, name, tail);
    va_list ap;
    va_start(ap, fmt);
    char *msg = cc_vasprintf(fmt, ap);
    va_end(ap);
    if (msg)
        cc_diag_add_cmd(run, code, dir, fix, cmd, "%s", msg);
    else
        run->oom = 1;
    free(msg);
    free(fix);
    free(cmd);
}

/* A cudnnctl prefix install in no loader path: the same fix install and validate print. With no
 * other copy of its major in reach, programs find no cuDNN (a warning); with another release
 * winning, they get that one (information: prefixes are activated per shell by design); the same
 * release winning is the same library (nothing). */
static void prefix_check(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *act,
                         int other)
{
    const cudnnctl_cudnn_copy *w = other ? cc_diag_env_winner(run, c->major) : NULL;
    if (other && (!w || cc_diag_release_cmp(w, c) == 0 || cc_diag_release_cmp(w, c) == -2))
        return;
    char *fix = cc_asprintf("activate it in the shell that should use it: `%s` (for every new "
                            "shell: `cudnnctl env --persist --system --prefix ...`, as root)",
                            act);
    if (!other)
        cc_diag_add_cmd(run, CC_DC_CUDNN_NOT_IN_LOADER_PATH, c->path, fix, act,
                        "cuDNN %s in the cudnnctl prefix %s is in no loader path and no other "
                        "cuDNN %d is: programs that load cuDNN through the loader fail with "
                        "\"libcudnn.so.%d: cannot open shared object file\" until it is "
                        "activated",
                        c->version, c->path, c->major, c->major);
    else
        cc_diag_add_cmd(run, CC_DC_CUDNN_PREFIX_NOT_ACTIVE, c->path, fix, act,
                        "cuDNN %s in the cudnnctl prefix %s is not active here: a program "
                        "without RPATH maps cuDNN %s from %s",
                        c->version, c->path, w->version, w->path);
    free(fix);
}

static void loader_path_check(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    const cudnnctl_toolkit *t = cudnnctl_detect_active_toolkit(d);
    char *tdir = NULL;
    char *tres = t && t->lib_dir ? resolved(run, t->lib_dir) : NULL;
    int tk_seen = 0; /* a cuDNN copy in its lib dir that detect saw in the loader path */
    for (size_t i = 0; tres && i < d->n_cudnn && !tk_seen; i++) {
        char *r = d->cudnn[i].in_loader_path ? resolved(run, d->cudnn[i].path) : NULL;
        tk_seen = r && strcmp(r, tres) == 0;
        free(r);
    }
    int t_exists = tres != NULL;
    free(tres);
    if (t_exists && !tk_seen && strcmp(t->origin, "conda") != 0 && strcmp(t->origin, "wheel") != 0 &&
        !in_loader(run, t->lib_dir)) {
        char name[32];
        snprintf(name, sizeof(name), "cuda-%d-%d", t->major, t->minor);
        add_unreached(run, CC_DC_TOOLKIT_NOT_IN_LOADER_PATH, t->lib_dir, name,
                      "install the toolkit where only root can write (/usr/local/cuda-X.Y) instead",
                      "register it with the loader: ",
                      " (or activate it per shell: `eval \"$(cudnnctl env)\"`)",
                      "the active CUDA toolkit %s's lib dir %s is in no loader path (not in "
                      "/etc/ld.so.conf*, its cache, the default dirs or LD_LIBRARY_PATH): "
                      "programs built with it fail with \"libcudart.so.%d: cannot open shared "
                      "object file\"",
                      t->version, t->lib_dir, t->major);
        tdir = resolved(run, t->lib_dir);
    }
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (!c->n_libs || c->in_loader_path || in_loader(run, c->path) ||
            strcmp(c->origin, "wheel") == 0 || strcmp(c->origin, "conda") == 0 ||
            cc_diag_stale8(run, c))
            continue;
        int other = 0;
        for (size_t k = 0; k < d->n_cudnn && !other; k++)
            other = d->cudnn[k].major == c->major && d->cudnn[k].n_libs &&
                    (d->cudnn[k].in_loader_path || in_loader(run, d->cudnn[k].path));
        char *cr = resolved(run, c->path);
        int same_tk = tdir && cr && strcmp(tdir, cr) == 0;
        free(cr);
        char *act = cc_diag_activation(run, c->path);
        if (act) { /* a cudnnctl prefix: activated per shell, as install and validate say */
            prefix_check(run, c, act, other);
            free(act);
            continue;
        }
        if (other || same_tk)
            continue;
        char name[48];
        snprintf(name, sizeof(name), "cudnn-%s", c->version ? c->version : "x");
        add_unreached(run, CC_DC_CUDNN_NOT_IN_LOADER_PATH, c->path, name,
                      "install cuDNN into a root-owned prefix instead (sudo cudnnctl install "
                      "--prefix /opt/cudnnctl)",
                      "register it: ",
                      ", or activate it per shell (`eval \"$(cudnnctl env)\"` puts it on "
                      "LD_LIBRARY_PATH)",
                      "cuDNN %s in %s is in no loader path and no other cuDNN %d is: programs "
                      "that load cuDNN through the loader (TensorFlow, C/C++ programs) fail "
                      "with \"libcudnn.so.%d: cannot open shared object file\"; only programs "
                      "with an RPATH to it find it",
                      c->version, c->path, c->major, c->major);
    }
    free(tdir);
}

/* ---- which copy LD_LIBRARY_PATH makes win --------------------------------------------------- */

/* LD_LIBRARY_PATH without the entries that resolve to dir, as the user wrote it (malloc'd). */
char *cc_diag_llp_without(cc_doctor_run *run, const char *dir)
{
    cc_buf b = {0};
    const char *s = cc_pf_getenv("LD_LIBRARY_PATH");
    cc_buf_printf(&b, "%s", "");
    while (s && *s) {
        size_t n = strcspn(s, ":");
        char *e = cc_strndup(s, n);
        char *p = e ? cc_detect_env_path(run->ctx, e) : NULL;
        char *r = p ? resolved(run, p) : NULL;
        if (e && *e && !(r && strcmp(r, dir) == 0))
            cc_buf_printf(&b, "%s%s", b.len ? ":" : "", e);
        free(r);
        free(p);
        free(e);
        s += n;
        if (*s == ':')
            s++;
    }
    return b.data;
}

char *cc_diag_llp_cmd(cc_doctor_run *run, const char *dir)
{
    char *r = resolved(run, dir);
    char *rest = cc_diag_llp_without(run, r ? r : dir);
    char *q = rest ? cc_diag_quote(rest) : NULL;
    char *cmd = q ? cc_asprintf("export LD_LIBRARY_PATH=%s", q) : NULL;
    free(q);
    free(rest);
    free(r);
    return cmd;
}

static const cudnnctl_cudnn_copy *copy_in(cc_doctor_run *run, const char *rdir, int major)
{
    for (size_t i = 0; i < run->det->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &run->det->cudnn[i];
        char *r = c->major == major ? resolved(run, c->path) : NULL;
        int same = r && strcmp(r, rdir) == 0;
        free(r);
        if (same)
            return c;
    }
    return NULL;
}

static void shadow_check(cc_doctor_run *run)
{
    int done[32] = {0};
    for (size_t i = 0; i < run->llp_dirs.n; i++) {
        const char *w = run->llp_dirs.v[i];
        for (int m = 7; m < 32; m++) {
            const cudnnctl_cudnn_copy *wc = done[m] ? NULL : copy_in(run, w, m);
            if (!wc)
                continue;
            done[m] = 1;
            cc_buf losers = {0};
            const char *lose_dir = NULL;
            for (size_t k = 0; k < run->det->n_cudnn; k++) {
                const cudnnctl_cudnn_copy *o = &run->det->cudnn[k];
                char *r = o->major == m && o->n_libs ? resolved(run, o->path) : NULL;
                /* only a newer release shadowed matters: the same release is the same
                 * library, an older one is what LD_LIBRARY_PATH is for (an activation) */
                if (r && strcmp(r, w) != 0 && cc_diag_release_cmp(o, wc) == 1 &&
                    (o->in_loader_path || cc_strv_contains(&run->llp_dirs, r))) {
                    cc_buf_printf(&losers, "%s%s in %s", losers.len ? ", " : "", o->version,
                                  o->path);
                    lose_dir = lose_dir ? lose_dir : o->path;
                }
                free(r);
            }
            if (losers.len && !cc_diag_has(run, CC_DC_CUDNN_LD_LIBRARY_PATH_OVERRIDE, wc->path)) {
                char *rest = cc_diag_llp_without(run, w);
                char *q = rest ? cc_diag_quote(rest) : NULL;
                char *cmd = q ? cc_asprintf("export LD_LIBRARY_PATH=%s", q) : NULL;
                char *fix = cc_asprintf("to load %s instead, take %s out of LD_LIBRARY_PATH "
                                        "(`export LD_LIBRARY_PATH=%s`, and where it is set: "
                                        "~/.bashrc, /etc/environment, module files)",
                                        lose_dir, wc->path, rest ? rest : "");
                cc_diag_add_cmd(run, CC_DC_CUDNN_SHADOWED, wc->path, fix, cmd,
                                "a program asking the loader for libcudnn.so.%d maps cuDNN %s "
                                "from %s: it is the first LD_LIBRARY_PATH dir that holds "
                                "libcudnn.so.%d, and LD_LIBRARY_PATH is searched before "
                                "ld.so.conf and every RUNPATH; it shadows the newer %s",
                                m, wc->version, wc->path, m, losers.data);
                free(fix);
                free(cmd);
                free(q);
                free(rest);
            }
            cc_buf_free(&losers);
        }
    }
}

int cc_diag_check_paths(cc_doctor_run *run)
{
    if (cc_diag_loader(run) != 0)
        return -1;
    nvcc_check(run);
    loader_path_check(run);
    shadow_check(run);
    return run->oom ? -1 : 0;
}
