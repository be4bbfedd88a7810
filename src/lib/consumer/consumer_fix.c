/* consumer_fix.c: the one fix for what a consumer loads, decided from the causes of its problems
 * (which.c, sublibs.c), in one place that which and doctor both render (issue 20). The rules, and
 * the bad fixes they replace:
 *   - a cuDNN that comes through LD_LIBRARY_PATH and does not fit: LD_LIBRARY_PATH without those
 *     dirs (the other entries kept);
 *   - a driver below the floor of the CUDA major in use: upgrade the driver (the host's, in a
 *     container); never a change of cuDNN;
 *   - the framework's own cuDNN requirement (METADATA Requires-Dist) not met by the wheel in its
 *     site dir: `pip install 'nvidia-cudnn-cuNN<spec>'` for the framework's own CUDA major; when
 *     the installed wheel already meets it (pip would answer "Requirement already satisfied"),
 *     not pip install again: a reinstall only when that wheel's files are missing, else what comes
 *     first is named and no command is guessed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "consumer_int.h"
#include "platform.h"

/* ---- requirement specs (PEP 440, the comparisons NVIDIA's and the frameworks' metadata use) --- */

static int clause_allows(const char *cl, const char *ver)
{
    static const char *const ops[] = {"===", "==", "!=", ">=", "<=", "~=", ">", "<"};
    while (*cl == ' ' || *cl == '(')
        cl++;
    const char *op = "==";
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (cc_str_starts(cl, ops[i])) {
            op = ops[i];
            cl += strlen(ops[i]);
            break;
        }
    while (*cl == ' ')
        cl++;
    char *want = cc_strndup(cl, strcspn(cl, " )"));
    if (!want || !*want) {
        free(want);
        return 1;
    }
    int ok = 1;
    size_t wl = strlen(want);
    if (wl > 2 && strcmp(want + wl - 2, ".*") == 0) { /* ==9.19.* */
        want[wl - 2] = '\0';
        int prefix = cc_str_starts(ver, want) && (ver[wl - 2] == '.' || !ver[wl - 2]);
        ok = strcmp(op, "!=") == 0 ? !prefix : prefix;
    } else {
        int cmp = cc_version_cmp_str(ver, want);
        if (strcmp(op, "==") == 0 || strcmp(op, "===") == 0)
            ok = cmp == 0;
        else if (strcmp(op, "!=") == 0)
            ok = cmp != 0;
        else if (strcmp(op, ">=") == 0)
            ok = cmp >= 0;
        else if (strcmp(op, "<=") == 0)
            ok = cmp <= 0;
        else if (strcmp(op, ">") == 0)
            ok = cmp > 0;
        else if (strcmp(op, "<") == 0)
            ok = cmp < 0;
        else { /* ~=M.m.p: >= M.m.p and == M.m.* */
            char *dot = strrchr(want, '.');
            int floor = cmp >= 0;
            if (dot)
                *dot = '\0';
            ok = floor && cc_str_starts(ver, want);
        }
    }
    free(want);
    return ok;
}

int cc_consumer_spec_allows(const char *spec, const char *version)
{
    char *copy = cc_strdup(spec);
    int ok = copy != NULL;
    for (char *p = copy, *next; ok && p && *p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        ok = clause_allows(p, version);
    }
    free(copy);
    return ok;
}

/* A requirement spec for pip from what the framework states ("==9.19.0.56", ">=9.12,<10" as
 * given; a bare "9.3.0" from a build-info file: ">=9.3.0,<10"). */
static char *pip_spec(const cudnnctl_consumer *c)
{
    const char *b = c->build_cudnn;
    if (b && strpbrk(b, "=<>~!"))
        return cc_strdup(b);
    if (b && *b && c->need_cudnn_major > 0)
        return cc_asprintf(">=%s,<%d", b, c->need_cudnn_major + 1);
    if (c->need_cudnn_major > 0)
        return cc_asprintf(">=%d,<%d", c->need_cudnn_major, c->need_cudnn_major + 1);
    return NULL;
}

/* ---- the wheel installed beside the framework ---------------------------------------------- */

/* The version of nvidia_cudnn_cuNN installed in the framework's site dir; NULL when none. */
static char *installed_wheel(const cudnnctl_ctx *ctx, const cudnnctl_consumer *c, int cuda,
                             char **site_out)
{
    char *site = c->location ? cc_path_dir(c->location) : NULL;
    char *host = site ? cc_rooted(ctx, site) : NULL;
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    char want[48];
    snprintf(want, sizeof(want), "nvidia_cudnn_cu%d-", cuda);
    char *out = NULL;
    const char *name;
    while (d && !out && (name = cc_pf_readdir(d)) != NULL)
        if (cc_str_starts(name, want) && cc_str_ends(name, ".dist-info"))
            out = cc_strndup(name + strlen(want),
                             strlen(name) - strlen(want) - strlen(".dist-info"));
    if (d)
        cc_pf_closedir(d);
    free(host);
    *site_out = site;
    return out;
}

/* 1 when SITE/nvidia/cudnn/lib/libcudnn.so.M (what the wheel's RECORD claims) exists. */
static int wheel_files_present(const cudnnctl_ctx *ctx, const char *site, int major)
{
    char name[48];
    snprintf(name, sizeof(name), "nvidia/cudnn/lib/libcudnn.so.%d", major > 0 ? major : 9);
    char *p = site ? cc_path_join(site, name) : NULL;
    char *h = p ? cc_rooted(ctx, p) : NULL;
    cc_pf_stat_t st;
    int yes = h && cc_pf_stat(h, &st) == 0 && st.exists;
    free(p);
    free(h);
    return yes;
}

/* ---- the fixes ------------------------------------------------------------------------------ */

/* The LD_LIBRARY_PATH dirs that deliver a cuDNN file that does not fit: the front when its own
 * version or CUDA major is the cause, and any sub-library listed because it does not fit. */
static int llp_culprits(const cudnnctl_consumer *c, cc_strv *dirs)
{
    unsigned front_causes = CUDNNCTL_CAUSE_MAJOR | CUDNNCTL_CAUSE_TOO_OLD |
                            CUDNNCTL_CAUSE_CUDA_MAJOR | CUDNNCTL_CAUSE_BAD_FILE;
    for (size_t i = 0; i < c->n_libs; i++) {
        const cudnnctl_load_result *r = &c->libs[i];
        int front = cc_ld_family(r->soname) == 0;
        int bad = front ? (c->causes & front_causes) != 0
                        : (c->causes & CUDNNCTL_CAUSE_MIXED) && cc_str_starts(r->soname, "libcudnn");
        if (bad && r->rule && r->dir && strcmp(r->rule, "ld_library_path") == 0 &&
            !cc_strv_contains(dirs, r->dir))
            cc_strv_push(dirs, r->dir);
        if (bad && r->rule && strcmp(r->rule, "error") == 0 && r->path) {
            char *d = cc_path_dir(r->path);
            if (d && !cc_strv_contains(dirs, d))
                cc_strv_push(dirs, d);
            free(d);
        }
    }
    return (int)dirs->n;
}

static char *llp_fix(const char *llp, const cc_strv *drop)
{
    cc_buf keep = {0};
    char *copy = cc_strdup(llp);
    for (char *p = copy, *next; p; p = next) {
        next = strpbrk(p, ":;");
        if (next)
            *next++ = '\0';
        if (*p && !cc_strv_contains(drop, p))
            cc_buf_printf(&keep, "%s%s", keep.len ? ":" : "", p);
    }
    free(copy);
    char *q = keep.data ? cc_sh_quote(keep.data) : NULL;
    char *out = q ? cc_asprintf("export LD_LIBRARY_PATH=%s", q) : cc_strdup("unset LD_LIBRARY_PATH");
    free(q);
    cc_buf_free(&keep);
    return out;
}

static void driver_fix(cudnnctl_ctx *ctx, const cudnnctl_consumer *c, cc_buf *text)
{
    int cuda = c->need_cuda_major > 0 ? c->need_cuda_major : c->loaded_cudnn_cuda_major;
    const char *floor = cc_ld_driver_floor(cuda);
    const char *box = cc_consumer_container(ctx);
    cc_buf_printf(text, "%supgrade the NVIDIA driver%s to %s or newer (CUDA %d's floor)%s",
                  text->len ? "; and " : "", box ? " of the host" : "", floor ? floor : "?", cuda,
                  box ? ": a container uses the host's kernel driver, so nothing inside it "
                        "changes this" : "");
}

static const cudnnctl_load_result *front_of(const cudnnctl_consumer *c)
{
    for (size_t i = 0; i < c->n_libs; i++)
        if (cc_ld_family(c->libs[i].soname) == 0)
            return &c->libs[i];
    return NULL;
}

/* A copy the framework's own code found through an earlier sys.path entry that PYTHONPATH
 * put there (SITE2/nvidia/cudnn/lib): PYTHONPATH without that entry. NULL otherwise. */
static char *pythonpath_fix(const cudnnctl_load_result *dnn)
{
    static const char tail[] = "/nvidia/cudnn/lib";
    const char *pp = cc_pf_getenv("PYTHONPATH");
    if (!dnn || !dnn->dir || !pp || !*pp || !dnn->rule || strcmp(dnn->rule, "path") != 0 ||
        !cc_str_ends(dnn->dir, tail))
        return NULL;
    char *entry = cc_strndup(dnn->dir, strlen(dnn->dir) - strlen(tail));
    cc_buf keep = {0};
    int hit = 0;
    char *copy = cc_strdup(pp);
    for (char *p = copy, *next; p; p = next) {
        next = strchr(p, ':');
        if (next)
            *next++ = '\0';
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        if (entry && strcmp(p, entry) == 0)
            hit = 1;
        else if (*p)
            cc_buf_printf(&keep, "%s%s", keep.len ? ":" : "", p);
    }
    char *q = keep.data ? cc_sh_quote(keep.data) : NULL;
    char *out = !hit ? NULL : q ? cc_asprintf("export PYTHONPATH=%s", q) : cc_strdup("unset PYTHONPATH");
    free(q);
    cc_buf_free(&keep);
    free(copy);
    free(entry);
    return out;
}

/* 1 when a cuDNN file that does not fit lies in the framework's own wheel dir. */
static int in_wheel_mix(const cudnnctl_consumer *c, const char *site)
{
    if (!(c->causes & CUDNNCTL_CAUSE_MIXED) || !site)
        return 0;
    char *lib = cc_path_join(site, "nvidia/cudnn/lib/");
    int hit = 0;
    for (size_t i = 1; lib && i < c->n_libs && !hit; i++) /* [0] is the front */
        hit = c->libs[i].path && cc_str_starts(c->libs[i].path, lib) &&
              cc_str_starts(c->libs[i].soname, "libcudnn");
    free(lib);
    return hit;
}

static void pip_fix(cudnnctl_ctx *ctx, const cudnnctl_which_report *rep, cudnnctl_consumer *c,
                    cc_buf *text, char **cmd)
{
    int cuda = c->need_cuda_major;
    char *spec = pip_spec(c);
    char *site = NULL;
    char *have = cuda > 0 ? installed_wheel(ctx, c, cuda, &site) : NULL;
    char *py = rep->python ? cc_sh_quote(rep->python) : cc_strdup("python3");
    if (cuda <= 0 || !spec) {
        cc_buf_printf(text, "%sinstall the cuDNN %s builds against, for the CUDA major of its "
                            "build (its metadata names neither)",
                      text->len ? "; and " : "", c->name);
    } else if (have && cc_consumer_spec_allows(spec, have) &&
               !wheel_files_present(ctx, site, c->need_cudnn_major)) {
        cc_buf_printf(text, "%snvidia-cudnn-cu%d %s is installed in %s but its files are not "
                            "there: reinstall it",
                      text->len ? "; and " : "", cuda, have, site);
        *cmd = cc_asprintf("%s -m pip install --force-reinstall --no-deps 'nvidia-cudnn-cu%d==%s'",
                           py, cuda, have);
    } else if (have && cc_consumer_spec_allows(spec, have)) {
        const cudnnctl_load_result *dnn = NULL;
        for (size_t i = 0; i < c->n_libs && !dnn; i++)
            if (cc_ld_family(c->libs[i].soname) == 0)
                dnn = &c->libs[i];
        *cmd = pythonpath_fix(dnn);
        if (!*cmd && in_wheel_mix(c, site)) { /* files replaced behind pip's back */
            cc_buf_printf(text, "%sthe files of nvidia-cudnn-cu%d %s in %s are of mixed "
                                "releases: reinstall it",
                          text->len ? "; and " : "", cuda, have, site);
            *cmd = cc_asprintf("%s -m pip install --force-reinstall --no-deps "
                               "'nvidia-cudnn-cu%d==%s'",
                               py, cuda, have);
            goto out;
        }
        if (dnn && !dnn->path) { /* installed, but its search never looks there (ORT) */
            char *lib = cc_path_join(site, "nvidia/cudnn/lib");
            char *q = lib ? cc_sh_quote(lib) : NULL;
            cc_buf_printf(text, "%snvidia-cudnn-cu%d %s is installed in %s but %s does not "
                                "search it: put its lib dir on LD_LIBRARY_PATH (or, for "
                                "onnxruntime, call onnxruntime.preload_dlls() first)",
                          text->len ? "; and " : "", cuda, have, site, c->name);
            *cmd = q ? cc_asprintf("export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
                                   q)
                     : NULL;
            free(q);
            free(lib);
            goto out;
        }
        cc_buf_printf(text, "%snvidia-cudnn-cu%d %s in %s already meets '%s' (pip would say "
                            "\"Requirement already satisfied\"), but %s comes first (%s): take "
                            "that copy out of its way",
                      text->len ? "; and " : "", cuda, have, site, spec,
                      dnn && dnn->path ? dnn->path : "another copy",
                      dnn && dnn->why ? dnn->why : "");
    } else {
        char *q = cc_asprintf("nvidia-cudnn-cu%d%s", cuda, spec);
        char *qq = q ? cc_sh_quote(q) : NULL;
        cc_buf_printf(text, "%sinstall the cuDNN wheel %s asks for, for its CUDA %d: %s%s",
                      text->len ? "; and " : "", c->name, cuda, q ? q : "",
                      have ? " (the installed one does not meet it)" : "");
        *cmd = qq ? cc_asprintf("%s -m pip install %s", py, qq) : NULL;
        free(qq);
        free(q);
    }
out:
    free(py);
    free(have);
    free(site);
    free(spec);
}

void cc_consumer_fix(cudnnctl_ctx *ctx, const cudnnctl_which_report *rep, cudnnctl_consumer *c)
{
    if (!c->causes || !c->verdict || strcmp(c->verdict, "ok") == 0)
        return;
    cc_buf text = {0};
    char *cmd = NULL;
    cc_strv drop = {0};
    unsigned rest = c->causes & ~CUDNNCTL_CAUSE_DRIVER;
    if (rest && rep->ld_library_path && llp_culprits(c, &drop)) {
        cmd = llp_fix(rep->ld_library_path, &drop);
        cc_buf_printf(&text, "take %s out of LD_LIBRARY_PATH (it comes before the copy %s brings "
                             "or finds otherwise): `%s`",
                      drop.v[0], c->name, cmd ? cmd : "");
    } else if (rest && (cmd = pythonpath_fix(front_of(c))) != NULL) {
        cc_buf_printf(&text, "the cuDNN %s's own code loads comes from an earlier sys.path entry "
                             "that PYTHONPATH puts there: take it out: `%s`",
                      c->name, cmd);
    } else if (rest && strcmp(c->kind, "framework") == 0) {
        pip_fix(ctx, rep, c, &text, &cmd);
    } else if (rest) {
        char cuda[16];
        snprintf(cuda, sizeof(cuda), "%d", c->need_cuda_major);
        cc_buf_printf(&text, "put a cuDNN %d (minor at least %d) built for CUDA %s where %s "
                             "finds it first (its RPATH, LD_LIBRARY_PATH or the loader's dirs)",
                      c->need_cudnn_major, c->need_cudnn_minor > 0 ? c->need_cudnn_minor : 0,
                      c->need_cuda_major > 0 ? cuda : "(the one it uses)", c->name);
    }
    if (c->causes & CUDNNCTL_CAUSE_DRIVER)
        driver_fix(ctx, c, &text);
    c->fix = text.data;
    c->fix_command = cmd;
    cc_strv_free(&drop);
}
