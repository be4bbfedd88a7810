/* doctor_build.c: "built against X, runs with Y": the cudnn.h this environment's compilers
 * include and the libcudnn ld links (the build view, buildview.h) against the file the loader
 * maps for a program built here; one finding per header (or library) that is another release,
 * with a fix that makes the two one. Silent when they agree. Not under --root: the compilers
 * are this machine's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

/* The cudnnctl prefix install (PREFIX/cudnn-<v>-cuda<M>) a path lies in; NULL when none. */
static const cc_diag_install *prefix_install_of(cc_doctor_run *run, const char *path)
{
    for (size_t i = 0; path && i < run->n_installs; i++) {
        const char *d = run->installs[i].install_dir;
        size_t n = d ? strlen(d) : 0;
        const char *base = d ? cc_path_base(d) : "";
        if (n && strncmp(path, d, n) == 0 && path[n] == '/' && cc_str_starts(base, "cudnn-") &&
            strstr(base, "-cuda"))
            return &run->installs[i];
    }
    return NULL;
}

/* `eval "$(cudnnctl env ARGS)"` (malloc'd). */
static char *env_cmd(cc_doctor_run *run, const char *args)
{
    char *cli = cc_diag_cli(run, args);
    char *cmd = cli ? cc_asprintf("eval \"$(%s)\"", cli) : NULL;
    free(cli);
    return cmd;
}

/* The activation that makes builds and programs take one copy: the cudnnctl prefix the
 * run-time copy (else the header) is in, else the toolkit tree the run-time copy is in. */
static char *activation_for(cc_doctor_run *run, const char *runtime, const char *header)
{
    const cc_diag_install *in = prefix_install_of(run, runtime);
    if (!in)
        in = prefix_install_of(run, header);
    if (in) {
        char *prefix = cc_path_dir(in->install_dir);
        char *q = prefix ? cc_diag_quote(prefix) : NULL;
        char *args = q ? cc_asprintf("env --prefix %s", q) : NULL;
        char *cmd = args ? env_cmd(run, args) : NULL;
        free(prefix);
        free(q);
        free(args);
        return cmd;
    }
    char *dir = runtime ? cc_path_dir(runtime) : NULL;
    const cudnnctl_toolkit *t = dir ? cc_diag_toolkit_of(run->det, dir) : NULL;
    free(dir);
    if (!t || !t->version)
        return NULL;
    char *args = cc_asprintf("env %s", t->version);
    char *cmd = args ? env_cmd(run, args) : NULL;
    free(args);
    return cmd;
}

/* The include dir of the run-time copy (its ../include), when its headers are that release. */
static char *runtime_include(cudnnctl_ctx *ctx, const char *runtime, const char *version)
{
    char *dir = runtime ? cc_path_dir(runtime) : NULL;
    char *inc = dir ? cc_path_join(dir, "../include") : NULL;
    char *real = inc ? cc_pf_realpath(inc) : NULL;
    char *h = real ? cc_path_join(real, "cudnn_version.h") : NULL;
    char *text = NULL;
    int ok = 0;
    if (h && version && cc_sys_read_file(ctx, h, 1 << 20, &text, NULL) == 0) {
        cc_version v;
        char want[64];
        if (cc_version_parse(version, &v) == 0 && v.n >= 2) {
            snprintf(want, sizeof(want), "#define CUDNN_MINOR %d", v.part[1]);
            ok = strstr(text, want) != NULL;
        }
    }
    free(text);
    free(dir);
    free(inc);
    free(h);
    if (!ok) {
        free(real);
        return NULL;
    }
    return real;
}

/* nvcc puts its own toolkit's include dir in front of CPATH: only an -I of its own command line
 * (NVCC_PREPEND_FLAGS) comes before it. */
static char *nvcc_fix(const char *inc)
{
    char *q = cc_diag_quote(inc);
    char *cmd = q ? cc_asprintf("export NVCC_PREPEND_FLAGS=\"-I%s${NVCC_PREPEND_FLAGS:+ "
                                "$NVCC_PREPEND_FLAGS}\"",
                                q)
                  : NULL;
    free(q);
    return cmd;
}

/* One header (or the library) of release @p got at @p what, programs loading @p rv at @p rp. */
static void add_split(cc_doctor_run *run, const char *who, const char *what, const char *got,
                      const char *rv, const char *rp, int nvcc)
{
    char *cmd = NULL, *fix = NULL;
    char *inc = NULL;
    if (nvcc) {
        const cc_diag_install *in = prefix_install_of(run, rp);
        inc = in ? cc_path_join(in->install_dir, "include") : runtime_include(run->ctx, rp, rv);
        cmd = inc ? nvcc_fix(inc) : NULL;
    } else {
        cmd = activation_for(run, rp, what);
        inc = cmd ? NULL : runtime_include(run->ctx, rp, rv);
        if (!cmd && inc) {
            char *q = cc_diag_quote(inc);
            cmd = q ? cc_asprintf("export CPATH=%s${CPATH:+:$CPATH}", q) : NULL;
            free(q);
        }
    }
    if (cmd)
        fix = cc_asprintf("make the build take the copy programs load: %s%s", cmd,
                          nvcc ? " (nvcc puts its toolkit's include dir before CPATH; an -I "
                                 "of its command line comes first)"
                               : "");
    else
        fix = cc_asprintf("install the headers of cuDNN %s beside the copy programs load (e.g. "
                          "%s install --prefix DIR --cudnn %s, then eval \"$(cudnnctl env "
                          "--prefix DIR)\"), or make programs load the cuDNN you build against",
                          rv ? rv : "?", "cudnnctl", rv ? rv : "X");
    cc_diag_add_cmd(run, CC_DC_BUILD_CUDNN_MISMATCH, what, fix, cmd,
                    "built against cuDNN %s, runs with %s: %s takes %s, a program built here "
                    "loads %s",
                    got ? got : "?", rv ? rv : "none", who, what, rp ? rp : "no libcudnn at all");
    free(cmd);
    free(fix);
    free(inc);
}

static int release_differs(const char *a, const char *b)
{
    cc_version x, y;
    if (!a || !b || cc_version_parse(a, &x) != 0 || cc_version_parse(b, &y) != 0)
        return 0;
    for (int i = 0; i < 3; i++)
        if ((i < x.n ? x.part[i] : 0) != (i < y.n ? y.part[i] : 0))
            return 1;
    return 0;
}

int cc_diag_check_build(cc_doctor_run *run)
{
    if (run->ctx->root || run->opts->platform)
        return 0; /* another machine's tree: its compilers are not these */
    cudnnctl_build_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.inherit_ld_library_path = 1;
    cudnnctl_build_view *v = NULL;
    if (cudnnctl_build_view_make(run->ctx, &bo, &v) != CUDNNCTL_E_OK)
        return 0; /* no compilers to ask: nothing to say about builds */
    const cudnnctl_load_result *r = v->runtime;
    const char *rv = r && r->path ? r->version : NULL;
    const char *rp = r && r->path ? (r->real_path ? r->real_path : r->path) : NULL;
    for (size_t i = 0; i < v->n_compilers; i++) {
        const cudnnctl_build_compiler *c = &v->compilers[i];
        if (!c->header || !(release_differs(c->header_version, rv) || !rp) ||
            cc_diag_has(run, CC_DC_BUILD_CUDNN_MISMATCH, c->header))
            continue;
        add_split(run, c->name, c->header, c->header_version, rv, rp, strcmp(c->name, "nvcc") == 0);
    }
    if (v->library && (release_differs(v->library_version, rv) || !rp))
        add_split(run, "ld -lcudnn", v->library, v->library_version, rv, rp, 0);
    cudnnctl_build_view_free(v);
    return run->oom ? -1 : 0;
}
