/* doctor_finding.c: the bottom of doctor: the code table, adding a finding (with its cause, fix
 * and the command that applies the fix), and the path helpers every check group shares. The
 * check groups (doctor_*.c) and the run (doctor.c) build on this file; it calls none of them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "grow.h"
#include "detect_path.h"
#include "doctor_int.h"

static const cudnnctl_doctor_code codes[] = {
#define X(name, sev, summary) {#name, CUDNNCTL_SEV_##sev, summary},
    CC_DOCTOR_CODES(X)
#undef X
};

const cudnnctl_doctor_code *cudnnctl_doctor_codes(size_t *n)
{
    if (n)
        *n = CC_DC__COUNT;
    return codes;
}

const char *cudnnctl_severity_name(cudnnctl_severity s)
{
    switch (s) {
    case CUDNNCTL_SEV_ERROR:
        return "error";
    case CUDNNCTL_SEV_WARNING:
        return "warning";
    default:
        return "info";
    }
}

static void add_v(cc_doctor_run *run, cc_doctor_code code, const char *path, const char *fix,
                  const char *command, const char *fmt, va_list ap)
{
    cudnnctl_doctor_result *r = run->r;
    if (run->oom)
        return;
    if (cc_grow(&r->findings, &run->cap, r->n_findings + 1, sizeof(*r->findings)) != 0) {
        run->oom = 1;
        return;
    }
    char *msg = cc_vasprintf(fmt, ap);
    cudnnctl_finding f = {codes[code].code, codes[code].severity, msg, cc_strdup(fix ? fix : ""),
                          path ? cc_strdup(path) : NULL, command ? cc_strdup(command) : NULL};
    if (!f.message || !f.fix || (path && !f.path) || (command && !f.command)) {
        free(f.message);
        free(f.fix);
        free(f.path);
        free(f.command);
        run->oom = 1;
        return;
    }
    /* the same finding twice (two views of one dir) says nothing new */
    for (size_t i = 0; i < r->n_findings; i++) {
        const cudnnctl_finding *o = &r->findings[i];
        if (o->code == f.code && strcmp(o->message, f.message) == 0) {
            free(f.message);
            free(f.fix);
            free(f.path);
            free(f.command);
            return;
        }
    }
    r->findings[r->n_findings++] = f;
}

void cc_diag_add(cc_doctor_run *run, cc_doctor_code code, const char *path, const char *fix,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_v(run, code, path, fix, NULL, fmt, ap);
    va_end(ap);
}

void cc_diag_add_cmd(cc_doctor_run *run, cc_doctor_code code, const char *path, const char *fix,
                     const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_v(run, code, path, fix, command, fmt, ap);
    va_end(ap);
}

void cc_diag_add_own(cc_doctor_run *run, cc_doctor_code code, const char *path, char *fix,
                     char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_v(run, code, path, fix, command, fmt, ap);
    va_end(ap);
    free(fix);
    free(command);
}

int cc_diag_has(const cc_doctor_run *run, cc_doctor_code code, const char *path)
{
    for (size_t i = 0; i < run->r->n_findings; i++) {
        const cudnnctl_finding *f = &run->r->findings[i];
        if (f->code == codes[code].code && (!path || (f->path && strcmp(f->path, path) == 0)))
            return 1;
    }
    return 0;
}

/* ---- shell words ---------------------------------------------------------------------------- */

char *cc_diag_quote(const char *s)
{
    return cc_sh_quote(s);
}

char *cc_diag_qhost(cc_doctor_run *run, const char *path)
{
    char *h = cc_diag_host(run, path);
    char *q = h ? cc_diag_quote(h) : NULL;
    free(h);
    return q;
}

char *cc_diag_cli(cc_doctor_run *run, const char *args)
{
    if (!run->ctx->root)
        return cc_asprintf("cudnnctl %s", args);
    char *q = cc_diag_quote(run->ctx->root);
    char *out = q ? cc_asprintf("cudnnctl --root %s %s", q, args) : NULL;
    free(q);
    return out;
}

char *cc_diag_activation(cc_doctor_run *run, const char *lib_dir)
{
    char *prefix = cudnnctl_prefix_of(run->ctx, lib_dir);
    char *fix = prefix ? cudnnctl_activation_fix(run->ctx, lib_dir, "current", NULL) : NULL;
    free(prefix);
    if (!fix || !run->ctx->root)
        return fix;
    char *q = cc_diag_quote(run->ctx->root);
    const char *at = strstr(fix, "cudnnctl env");
    char *out = q && at ? cc_asprintf("%.*scudnnctl --root %s env%s", (int)(at - fix), fix, q,
                                      at + strlen("cudnnctl env"))
                        : NULL;
    free(q);
    free(fix);
    return out;
}

/* ---- path helpers --------------------------------------------------------------------------- */

char *cc_diag_host(cc_doctor_run *run, const char *path)
{
    return cc_rooted(run->ctx, path);
}

int cc_diag_lstat(cc_doctor_run *run, const char *path, cc_pf_stat_t *st)
{
    memset(st, 0, sizeof(*st));
    char *h = cc_diag_host(run, path);
    int rc = h ? cc_pf_lstat(h, st) : -1;
    free(h);
    if (rc != 0)
        st->exists = 0;
    return rc;
}

char *cc_diag_resolve(cc_doctor_run *run, const char *path, int *dangling)
{
    return cc_detect_resolve(run->ctx, path, dangling);
}

int cc_diag_list(cc_doctor_run *run, const char *dir, const char *prefix, cc_strv *out)
{
    return cc_detect_list(run->ctx, dir, prefix, out);
}

const cudnnctl_toolkit *cc_diag_toolkit_of(const cudnnctl_detect_result *det, const char *dir)
{
    const cudnnctl_toolkit *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        const char *cands[] = {t->path, t->lib_dir};
        for (size_t k = 0; k < 2; k++) {
            const char *p = cands[k];
            size_t n = p ? strlen(p) : 0;
            if (n && strncmp(dir, p, n) == 0 && (dir[n] == '/' || dir[n] == '\0') && n > best_len) {
                best = t;
                best_len = n;
            }
        }
    }
    return best;
}

/* ---- facts several check groups share --------------------------------------------------- */

int cc_diag_loader(cc_doctor_run *run)
{
    if (run->loader_done)
        return 0;
    run->loader_done = 1;
    return cc_detect_loader_dirs(run->ctx, &run->loader_dirs, &run->llp_dirs);
}

/* 1 when the copy is only cuDNN 8 sub-libraries (no libcudnn.so.8) in a dir that holds a cuDNN 9:
 * what an in-place upgrade from 8 leaves. */
int cc_diag_stale8(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    if (c->major != 8 || c->n_libs == 0)
        return 0;
    for (size_t i = 0; i < c->n_libs; i++)
        if (strncmp(c->libs[i], "libcudnn.so", 11) == 0)
            return 0;
    for (size_t i = 0; i < run->det->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *o = &run->det->cudnn[i];
        if (o->major >= 9 && o->n_libs && strcmp(o->path, c->path) == 0)
            return 1;
    }
    char *p = cc_path_join(c->path, "libcudnn.so.9");
    cc_pf_stat_t st;
    int nine = p && cc_diag_lstat(run, p, &st) == 0 && st.exists;
    free(p);
    return nine;
}

void cc_diag_jit_finding(cc_doctor_run *run, const char *lib_dir, const char *version, int major)
{
    if (cc_diag_has(run, CC_DC_CUDNN_JIT_NO_LEGACY_API, lib_dir))
        return;
    char *which = cc_asprintf("which %s/libcudnn.so.%d", lib_dir, major);
    char *cmd = which ? cc_diag_cli(run, which) : NULL;
    char *fix = cc_asprintf("use only the graph API (cudnn-frontend, the backend API) with it, keep "
                            "other cuDNN %d copies out of its programs' loader path "
                            "(LD_LIBRARY_PATH, ld.so.conf.d), or install the full flavour there "
                            "(cudnnctl install --flavor full --force); `%s` says where the "
                            "loader would take each missing sub-library from",
                            major, cmd ? cmd : "cudnnctl which");
    cc_diag_add(run, CC_DC_CUDNN_JIT_NO_LEGACY_API, lib_dir, fix,
                "cuDNN %s in %s is the JIT flavour (libcudnn, libcudnn_graph, "
                "libcudnn_engines_runtime_compiled): a program that calls the legacy API "
                "(cudnnConvolutionForward and the rest of libcudnn_ops/_cnn/_adv) makes "
                "libcudnn.so.%d load libcudnn_ops, _cnn and _adv from wherever the loader finds "
                "them: another cuDNN's (a mixed cuDNN, SUBLIBRARY_VERSION_MISMATCH) or none "
                "(SUBLIBRARY_UNAVAILABLE)",
                version ? version : "?", lib_dir, major);
    free(fix);
    free(cmd);
    free(which);
}

/* ---- releases and what the loader picks --------------------------------------------------- */

int cc_diag_release_cmp(const cudnnctl_cudnn_copy *a, const cudnnctl_cudnn_copy *b)
{
    cc_version va, vb;
    if (!a->version || !b->version || cc_version_parse(a->version, &va) != 0 ||
        cc_version_parse(b->version, &vb) != 0 || va.n < 3 || vb.n < 3)
        return -2;
    for (int i = 0; i < 3; i++)
        if (va.part[i] != vb.part[i])
            return va.part[i] < vb.part[i] ? -1 : 1;
    return 0;
}

const cudnnctl_cudnn_copy *cc_diag_env_winner(cc_doctor_run *run, int major)
{
    char soname[32];
    snprintf(soname, sizeof(soname), "libcudnn.so.%d", major);
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    cudnnctl_loader_env env = {llp && *llp ? llp : NULL, NULL, NULL};
    cudnnctl_load_result *r = NULL;
    const cudnnctl_cudnn_copy *out = NULL;
    if (cudnnctl_loader_resolve(run->ctx, &env, NULL, soname, &r) != CUDNNCTL_E_OK) {
        cc_clear_error(run->ctx);
        return NULL;
    }
    char *dir = r->path ? cc_path_dir(r->path) : NULL;
    int missing = 0;
    char *rd = dir ? cc_diag_resolve(run, dir, &missing) : NULL;
    for (size_t i = 0; rd && !missing && i < run->det->n_cudnn && !out; i++) {
        const cudnnctl_cudnn_copy *c = &run->det->cudnn[i];
        int m2 = 0;
        char *rc = c->major == major && c->n_libs ? cc_diag_resolve(run, c->path, &m2) : NULL;
        if (rc && !m2 && strcmp(rc, rd) == 0)
            out = c;
        free(rc);
    }
    free(rd);
    free(dir);
    cudnnctl_load_result_free(r);
    return out;
}

int cc_diag_is_install(const cc_doctor_run *run, const char *dir)
{
    for (size_t i = 0; i < run->n_installs; i++)
        if (run->installs[i].lib_dir && strcmp(run->installs[i].lib_dir, dir) == 0)
            return 1;
    return 0;
}
