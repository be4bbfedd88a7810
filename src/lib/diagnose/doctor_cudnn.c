/* doctor_cudnn.c: doctor's checks of the cuDNN copies detect found: mixed sub-library versions,
 * incomplete sets (with the reinstall their owner gives: doctor_owner.c), header/library disagreement,
 * the CUDA major of a copy (doctor_variant.c), several versions visible to the loader, and cuDNN dirs on LD_LIBRARY_PATH
 * (failure modes 4, 5 and 6 of cudnn-distribution.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "doctor_int.h"
#include "libnames.h"

/* ---- one copy ------------------------------------------------------------------------------- */

static const char *const subs9[] = {"libcudnn_ops",
                                    "libcudnn_cnn",
                                    "libcudnn_adv",
                                    "libcudnn_engines_precompiled",
                                    "libcudnn_engines_runtime_compiled",
                                    "libcudnn_heuristic",
                                    NULL};
static const char *const subs8[] = {"libcudnn_ops_infer",
                                    "libcudnn_ops_train",
                                    "libcudnn_cnn_infer",
                                    "libcudnn_cnn_train",
                                    "libcudnn_adv_infer",
                                    "libcudnn_adv_train",
                                    NULL};

/* Windows copies name their DLLs cudnn_ops64_9.dll for the stem libcudnn_ops (libnames.c). */
static int has_stem_win(const cudnnctl_cudnn_copy *c, const char *stem)
{
    for (size_t i = 0; i < c->n_libs; i++)
        if (cc_ln_major_for(1, c->libs[i], stem) >= 0)
            return 1;
    return 0;
}

static int has_stem(const cudnnctl_cudnn_copy *c, const char *stem)
{
    size_t n = strlen(stem);
    for (size_t i = 0; i < c->n_libs; i++)
        if (strncmp(c->libs[i], stem, n) == 0 && strncmp(c->libs[i] + n, ".so", 3) == 0)
            return 1;
    return 0;
}

static int has_stem(const cudnnctl_cudnn_copy *c, const char *stem);

/* "rm -f" of the real files of other releases than the copy's, when for each of them the copy's
 * release has a file of the same library (else removing it loses a library: no command). */
static char *mixed_cmd(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    cc_buf b = {0};
    int ok = c->version != NULL;
    cc_buf_printf(&b, "rm -f");
    for (size_t i = 0; i < c->n_libs && ok; i++) {
        char *stem = NULL, *vs = NULL;
        cc_version v;
        if (cc_detect_parse_libname(c->libs[i], &stem, &v) == 0 && v.n >= 3 &&
            (vs = cc_version_str(&v)) && strcmp(vs, c->version) != 0) {
            int twin = 0;
            for (size_t k = 0; k < c->n_libs && !twin; k++) {
                char *s2 = NULL, *v2s = NULL;
                cc_version v2;
                twin = k != i && cc_detect_parse_libname(c->libs[k], &s2, &v2) == 0 &&
                       strcmp(s2, stem) == 0 && (v2s = cc_version_str(&v2)) &&
                       strcmp(v2s, c->version) == 0;
                free(s2);
                free(v2s);
            }
            char *p = cc_path_join(c->path, c->libs[i]);
            char *q = p ? cc_diag_qhost(run, p) : NULL;
            ok = twin && q;
            if (ok)
                cc_buf_printf(&b, " %s", q);
            free(q);
            free(p);
        }
        free(vs);
        free(stem);
    }
    if (!ok || strcmp(b.data ? b.data : "", "rm -f") == 0) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static int mixed_check(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    cc_strv versions = {0};
    cc_buf groups = {0};
    int rc = 0;
    for (size_t i = 0; i < c->n_libs && rc == 0; i++) {
        char *stem = NULL;
        cc_version v;
        if (cc_detect_parse_libname(c->libs[i], &stem, &v) != 0 || v.n < 3) {
            free(stem);
            continue;
        }
        free(stem);
        char *vs = cc_version_str(&v);
        if (!vs)
            rc = -1;
        else if (cc_strv_contains(&versions, vs))
            free(vs);
        else
            rc = cc_strv_push_own(&versions, vs);
    }
    if (rc == 0 && versions.n > 1) {
        for (size_t k = 0; k < versions.n; k++) {
            cc_buf_printf(&groups, "%s%s:", k ? "; " : "", versions.v[k]);
            for (size_t i = 0; i < c->n_libs; i++) {
                char *stem = NULL;
                cc_version v;
                if (cc_detect_parse_libname(c->libs[i], &stem, &v) == 0 && v.n >= 3) {
                    char *vs = cc_version_str(&v);
                    if (vs && strcmp(vs, versions.v[k]) == 0)
                        cc_buf_printf(&groups, " %s", c->libs[i]);
                    free(vs);
                }
                free(stem);
            }
        }
        char *fix = cc_asprintf("reinstall one complete cuDNN release into %s (`cudnnctl install "
                                "--cudnn %s ...` or the package that owns the dir) and delete "
                                "the files of the other version(s); an in-place upgrade must "
                                "remove stale sub-libraries",
                                c->path, c->version);
        char *cmd = mixed_cmd(run, c);
        cc_diag_add_own(run, CC_DC_CUDNN_MIXED_SUBLIBS, c->path, fix, cmd,
                        "the cuDNN sub-libraries in %s are of different releases (%s): cuDNN fails "
                        "with CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH or "
                        "SUBLIBRARY_LOADING_FAILED at first use",
                        c->path, groups.data ? groups.data : "");
    }
    cc_buf_free(&groups);
    cc_strv_free(&versions);
    return rc;
}

/* detect's problems[] that the structured checks here do not already cover */
static void detect_problems(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    for (size_t i = 0; i < c->n_problems; i++) {
        const char *p = c->problems[i];
        if (strstr(p, "disagree in version") || strstr(p, " lacks ") ||
            strstr(p, "have no libcudnn libraries") ||
            (cc_str_starts(p, "headers in ") && strstr(p, " say cuDNN ")))
            continue; /* mixed / incomplete / headers-only / header mismatch: checked below */
        if (strstr(p, "another architecture"))
            cc_diag_foreign_arch(run, c, p);
        else if (strstr(p, "not an ELF") || strstr(p, "no SONAME") ||
                 strstr(p, "does not match its name"))
            cc_diag_add(run, CC_DC_CUDNN_BAD_LIBRARY, c->path,
                        "replace the file with the one from a complete cuDNN release (reinstall "
                        "the copy); never copy or rename cuDNN libraries by hand",
                        "%s (cuDNN %s): the loader refuses or mis-resolves it", p, c->version);
        else if (cc_str_starts(p, "headers in "))
            cc_diag_add(run, CC_DC_CUDNN_HEADER_MISMATCH, c->path,
                        "install headers and libraries of one release together, or remove the "
                        "stray headers",
                        "%s: programs built here compile against one cuDNN and load another", p);
        else if (strstr(p, "only the major version"))
            cc_diag_add(run, CC_DC_CUDNN_VERSION_UNKNOWN, c->path,
                        "add the headers (cudnn_version.h) of the release, or reinstall it with "
                        "cudnnctl so its receipt records the version",
                        "%s", p);
        else if (strstr(p, "dist-info"))
            cc_diag_add(run, CC_DC_CUDNN_DIST_INFO_MISMATCH, c->path,
                        "reinstall the wheel (`pip install --force-reinstall nvidia-cudnn-cuN`); "
                        "pip's record no longer matches the files",
                        "%s", p);
        else
            cc_diag_add(run, CC_DC_CUDNN_PROBLEM, c->path,
                        "see the message; reinstalling the copy usually repairs it",
                        "cuDNN %s in %s: %s", c->version ? c->version : "?", c->path, p);
    }
}

/* The JIT flavour: libcudnn, libcudnn_graph, the runtime-compiled engines, no legacy API. */
static int is_jit(const cudnnctl_cudnn_copy *c, int (*has)(const cudnnctl_cudnn_copy *, const char *))
{
    return has(c, "libcudnn_graph") && has(c, "libcudnn_engines_runtime_compiled") &&
           !has(c, "libcudnn_ops") && !has(c, "libcudnn_cnn") && !has(c, "libcudnn_adv");
}

static int check_copy(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    if (c->n_libs == 0) {
        cc_diag_add(run, CC_DC_CUDNN_HEADERS_ONLY, c->path,
                    "install the matching libraries beside them, or remove the stray headers",
                    "cuDNN %s headers in %s have no libcudnn libraries beside them: builds "
                    "compile against %s and link whatever other cuDNN they find",
                    c->version, c->include_dir ? c->include_dir : c->path, c->version);
        detect_problems(run, c);
        return 0;
    }
    if (mixed_check(run, c) != 0)
        return -1;
    int win = cc_host_is_windows(run->ctx);
    int (*has)(const cudnnctl_cudnn_copy *, const char *) = win ? has_stem_win : has_stem;
    const char *missing_core = !has(c, "libcudnn") ? "libcudnn"
                               : c->major >= 9 && !has(c, "libcudnn_graph") ? "libcudnn_graph"
                                                                             : NULL;
    if (cc_diag_stale8(run, c))
        return 0; /* cuDNN 8 remnants beside a 9: CUDNN8_STALE_SUBLIBS says to delete them */
    if (missing_core && c->major >= 8 && !win) {
        char *soname = cc_asprintf("%s/%s.so.%d", c->path, missing_core, c->major);
        int dangles = soname && cc_diag_has(run, CC_DC_CUDNN_SONAME_LINK_DANGLING, soname);
        free(soname);
        if (dangles)
            missing_core = NULL; /* CUDNN_SONAME_LINK_DANGLING names it */
    }
    const char *const *subs = c->major >= 9 ? subs9 : c->major == 8 ? subs8 : NULL;
    if (missing_core && c->major >= 8) {
        char *fix = cc_asprintf("reinstall the complete cuDNN %s into %s", c->version, c->path);
        char *name = cc_ln_name_for(win, missing_core, c->major);
        char *cmd = cc_diag_reinstall_cmd(run, c);
        cc_diag_add_cmd(run, CC_DC_CUDNN_INCOMPLETE, c->path, fix, cmd,
                        "cuDNN %s in %s has no %s: programs linked against cuDNN cannot load it",
                        c->version, c->path, name ? name : missing_core);
        free(cmd);
        free(name);
        free(fix);
    }
    if (!win && c->major >= 9 && is_jit(c, has)) {
        cc_diag_jit_finding(run, c->path, c->version, c->major);
        subs = NULL; /* what the JIT flavour lacks is by design: said above, not "incomplete" */
    }
    cc_buf miss = {0};
    for (size_t i = 0; subs && subs[i]; i++)
        if (!has(c, subs[i])) {
            char *name = cc_ln_name_for(win, subs[i], c->major);
            cc_buf_printf(&miss, "%s%s", miss.len ? ", " : "", name ? name : subs[i]);
            free(name);
        }
    if (miss.len) {
        char *fix = cc_asprintf("reinstall the complete cuDNN %s into %s (every sub-library of "
                                "one release)",
                                c->version, c->path);
        char *cmd = cc_diag_reinstall_cmd(run, c);
        cc_diag_add_own(
            run, CC_DC_CUDNN_SUBLIB_MISSING, c->path, fix, cmd,
            "cuDNN %s in %s lacks %s: cuDNN loads sub-libraries at first use, so "
            "operations needing them fail with SUBLIBRARY_LOADING_FAILED, or the loader "
            "finds them in another cuDNN copy (mixed versions)",
            c->version, c->path, miss.data);
    }
    cc_buf_free(&miss);
    if (c->header_version && c->version && strcmp(c->header_version, c->version) != 0) {
        char *fix = cc_asprintf("install headers and libraries of one release (reinstall cuDNN "
                                "%s, or remove the stale headers in %s)",
                                c->version, c->include_dir ? c->include_dir : "?");
        cc_diag_add(run, CC_DC_CUDNN_HEADER_MISMATCH, c->path, fix,
                    "the cuDNN headers in %s are %s but the libraries in %s are %s: programs "
                    "built here record one version and load another (\"Loaded runtime CuDNN "
                    "library: X but source was compiled with: Y\")",
                    c->include_dir ? c->include_dir : "?", c->header_version, c->path, c->version);
        free(fix);
    }
    detect_problems(run, c);
    cc_diag_variant_check(run, c);
    return run->oom ? -1 : 0;
}

/* ---- copies together ------------------------------------------------------------------------ */

/* A copy that frameworks reach through their own RPATH / RUNPATH (a wheel, a conda env). */
static int bundled(const cudnnctl_cudnn_copy *c)
{
    return strcmp(c->origin, "wheel") == 0 || strcmp(c->origin, "conda") == 0;
}

/* The loader picks one copy per major for programs without RPATH: a problem only when a copy of
 * that major visible to the loader is a newer release than the one picked (programs built
 * against it get an older runtime: "Loaded runtime CuDNN library: X but source was compiled
 * with: Y"). Releases compare by content (detect reads them from the files); several copies of
 * one release, or an unknown release, are no conflict. */
static int conflict_check(cc_doctor_run *run, int major)
{
    const cudnnctl_detect_result *d = run->det;
    const cudnnctl_cudnn_copy *w = cc_diag_env_winner(run, major);
    cc_buf newer = {0}, all = {0};
    int differ = 0;
    for (size_t k = 0; k < d->n_cudnn; k++) {
        const cudnnctl_cudnn_copy *o = &d->cudnn[k];
        if (o->major != major || !o->n_libs || !o->in_loader_path || cc_diag_stale8(run, o))
            continue;
        cc_buf_printf(&all, "%s%s in %s (%s)", all.len ? ", " : "", o->version, o->path, o->origin);
        if (w && o != w && cc_diag_release_cmp(o, w) == 1)
            cc_buf_printf(&newer, "%s%s in %s", newer.len ? ", " : "", o->version, o->path);
        for (size_t j = 0; !w && j < k && !differ; j++) /* the model names no winner */
            differ = d->cudnn[j].major == major && d->cudnn[j].n_libs &&
                     d->cudnn[j].in_loader_path && cc_diag_release_cmp(&d->cudnn[j], o) != 0 &&
                     strcmp(d->cudnn[j].version, o->version) != 0;
    }
    if (differ) /* which one a program gets is the loader's order, which the model cannot tell */
        cc_diag_add(run, CC_DC_CUDNN_LOADER_CONFLICT, NULL,
                    "keep one cuDNN per major where the loader looks: uninstall the others (or "
                    "take their dir out of /etc/ld.so.conf.d and LD_LIBRARY_PATH, then run "
                    "ldconfig); keep side-by-side versions in prefixes activated per shell "
                    "(`cudnnctl install --prefix DIR`, `cudnnctl env`)",
                    "several cuDNN %d versions are visible to the dynamic loader: %s; which one "
                    "a program gets depends on search order (none of them is what the loader "
                    "finds first for libcudnn.so.%d here)",
                    major, all.data, major);
    else if (newer.len && !cc_diag_has(run, CC_DC_CUDNN_LD_LIBRARY_PATH_OVERRIDE, w->path))
        cc_diag_add(run, CC_DC_CUDNN_LOADER_CONFLICT, w->path,
                    "keep one cuDNN per major where the loader looks, or make the newest win: "
                    "uninstall the older one (or take its dir out of /etc/ld.so.conf.d and "
                    "LD_LIBRARY_PATH, then run ldconfig); keep side-by-side versions in prefixes "
                    "activated per shell (`cudnnctl install --prefix DIR`, `cudnnctl env`)",
                    "several cuDNN %d versions are visible to the dynamic loader: %s; a program "
                    "without RPATH gets %s from %s, older than %s: programs built against the "
                    "newer one fail (\"Loaded runtime CuDNN library: %s but source was compiled "
                    "with: ...\")",
                    major, all.data, w->version, w->path, newer.data, w->version);
    cc_buf_free(&newer);
    cc_buf_free(&all);
    return run->oom ? -1 : 0;
}

/* An LD_LIBRARY_PATH copy c beats every RUNPATH: the copies it swaps out that matter are a
 * bundled copy of another release (the framework gets a mixed or foreign cuDNN) and any newer
 * release (programs built against it get an older one). Listed into b. */
static void swapped(const cudnnctl_detect_result *d, const cudnnctl_cudnn_copy *c, cc_buf *b)
{
    for (size_t k = 0; k < d->n_cudnn; k++) {
        const cudnnctl_cudnn_copy *o = &d->cudnn[k];
        if (o == c || o->major != c->major || !o->n_libs || strcmp(o->path, c->path) == 0)
            continue;
        int cmp = cc_diag_release_cmp(o, c);
        if (cmp == 1 || (bundled(o) && (cmp == -1)))
            cc_buf_printf(b, "%s%s in %s (%s)", b->len ? ", " : "", o->version, o->path,
                          o->origin);
    }
}

static int together(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (c->n_libs == 0 || !c->in_ld_library_path)
            continue;
        /* only the copy LD_LIBRARY_PATH makes win swaps anything: a later dir of the same major
         * is itself shadowed by the first (its sub-libraries too: cuDNN finds them by release) */
        const cudnnctl_cudnn_copy *w = cc_diag_env_winner(run, c->major);
        cc_buf b = {0};
        if (!w || w == c)
            swapped(d, c, &b);
        if (b.len) {
            char *fix = cc_asprintf("remove %s from LD_LIBRARY_PATH (look in ~/.bashrc, "
                                    "~/.profile, /etc/environment, /etc/profile.d and module "
                                    "files); activate a cuDNN per shell with `eval \"$(cudnnctl "
                                    "env)\"` or system-wide with an /etc/ld.so.conf.d entry "
                                    "instead",
                                    c->path);
            char *cmd = cc_diag_llp_cmd(run, c->path);
            cc_diag_add_cmd(run, CC_DC_CUDNN_LD_LIBRARY_PATH_OVERRIDE, c->path, fix, cmd,
                            "LD_LIBRARY_PATH lists %s (cuDNN %s), and LD_LIBRARY_PATH beats "
                            "ld.so.conf and the RUNPATH of programs that bundle their own cuDNN: "
                            "programs that would get %s load %s instead (a framework's own copy "
                            "swapped or mixed: \"undefined symbol\", \"LD_LIBRARY_PATH contains "
                            "incompatible version of cudnn\", \"compiled against ... but found "
                            "runtime version ...\")",
                            c->path, c->version, b.data, c->version);
            free(fix);
            free(cmd);
        } else if (!cc_diag_is_install(run, c->path)) {
            /* the activation `cudnnctl env` prints for its own installs says nothing new */
            cc_diag_add(
                run, CC_DC_CUDNN_IN_LD_LIBRARY_PATH, c->path,
                "nothing to fix: it swaps out nothing that breaks; to stop it, take the dir "
                "out of LD_LIBRARY_PATH where it is set",
                "LD_LIBRARY_PATH lists %s (cuDNN %s): every program started from this "
                "environment loads this cuDNN, even one that bundles another copy "
                "(LD_LIBRARY_PATH overrides RUNPATH); no framework's own copy of another "
                "release and no newer cuDNN %d is swapped out by it",
                c->path, c->version, c->major);
        }
        cc_buf_free(&b);
    }
    int done_major[64] = {0};
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (c->n_libs == 0 || !c->in_loader_path || c->major < 0 || c->major >= 64 ||
            done_major[c->major])
            continue;
        done_major[c->major] = 1;
        if (conflict_check(run, c->major) != 0)
            return -1;
    }
    return run->oom ? -1 : 0;
}

/* A CUDA runtime wheel and a cuDNN wheel in one site-packages: loaded together by RPATH. */
static int same_site(const cudnnctl_toolkit *t, const cudnnctl_cudnn_copy *c)
{
    const char *a = strstr(t->path, "/nvidia/"), *b = strstr(c->path, "/nvidia/");
    return strcmp(t->origin, "wheel") == 0 && strcmp(c->origin, "wheel") == 0 && a && b &&
           a - t->path == b - c->path && strncmp(t->path, c->path, (size_t)(a - t->path)) == 0;
}

int cc_diag_check_cudnn(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    if (d->n_cudnn == 0) {
        cc_diag_add(run, CC_DC_NO_CUDNN, NULL,
                    "`cudnnctl plan` shows what would be installed; `cudnnctl install` does it",
                    "no cuDNN found (CUDA trees, /opt/cudnn*, pip wheels, conda, system and "
                    "loader dirs)");
        return run->oom ? -1 : 0;
    }
    for (size_t i = 0; i < d->n_cudnn; i++)
        if (check_copy(run, &d->cudnn[i]) != 0)
            return -1;
    if (together(run) != 0)
        return -1;
    const cudnnctl_toolkit *t = cudnnctl_detect_active_toolkit(d);
    if (t) {
        int found = 0;
        for (size_t i = 0; i < d->n_cudnn && !found; i++) {
            const cudnnctl_cudnn_copy *c = &d->cudnn[i];
            found = c->n_libs &&
                    (c->in_loader_path || cc_diag_toolkit_of(d, c->path) == t || same_site(t, c));
        }
        if (!found) {
            char *args = cc_diag_install_args(run, 9, -1, t->major);
            char *fix = args ? cc_asprintf("`cudnnctl install %s` puts one into %s (or "
                                           "`--prefix DIR` beside it)",
                                           args, t->path)
                             : cc_asprintf("the catalog has no cuDNN for CUDA %d on %s: use a "
                                           "toolkit of a CUDA major cuDNN ships for",
                                           t->major, d->platform);
            free(args);
            cc_diag_add(run, CC_DC_CUDNN_NO_COPY_FOR_TOOLKIT, t->path, fix,
                        "the active CUDA toolkit %s (%s) has no cuDNN in its tree or on the "
                        "loader's path; only programs that bring their own (wheels, prefixes) "
                        "find one",
                        t->version, t->path);
            free(fix);
        }
    }
    return run->oom ? -1 : 0;
}
