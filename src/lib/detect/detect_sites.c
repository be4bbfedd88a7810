/* detect_sites.c: where detect looks besides the CUDA trees: Python site-packages that hold
 * NVIDIA wheels (system, virtualenvs, conda, pyenv, ~/.local) and the dynamic loader's view
 * (ld.so.conf + includes, /etc/ld.so.cache, LD_LIBRARY_PATH, default dirs). */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

static int push_resolved(cc_detect_run *run, cc_strv *sv, const char *path)
{
    int missing = 0;
    char *r = cc_detect_resolve(run->ctx, path, &missing);
    if (!r)
        return 0;
    if (missing || cc_strv_contains(sv, r)) {
        free(r);
        return 0;
    }
    return cc_strv_push_own(sv, r);
}

/* base/{lib,lib64}/python3*\/{site,dist}-packages that contain an nvidia/ dir */
static int add_site_base(cc_detect_run *run, const char *base)
{
    static const char *const libs[] = {"lib", "lib64"};
    static const char *const kinds[] = {"site-packages", "dist-packages"};
    if (!base)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        char *ld = cc_path_join(base, libs[i]);
        cc_strv ents;
        if (!ld)
            return -1;
        if (cc_detect_list(run->ctx, ld, "python3", &ents) != 0) {
            free(ld);
            continue;
        }
        for (size_t k = 0; k < ents.n; k++) {
            if (!cc_detect_glob("python3*", ents.v[k]))
                continue;
            for (size_t j = 0; j < 2; j++) {
                char *sp = cc_path_join3(ld, ents.v[k], kinds[j]);
                char *nv = sp ? cc_path_join(sp, "nvidia") : NULL;
                cc_pf_stat_t st;
                if (nv)
                    cc_detect_stat(run->ctx, nv, &st);
                if (nv && st.is_dir && push_resolved(run, &run->sites, sp) != 0) {
                    free(sp);
                    free(nv);
                    cc_strv_free(&ents);
                    free(ld);
                    return -1;
                }
                free(sp);
                free(nv);
            }
        }
        cc_strv_free(&ents);
        free(ld);
    }
    return 0;
}

/* base and each conda env under base/envs (conda installs) */
static int add_conda_base(cc_detect_run *run, const char *base)
{
    if (!base)
        return 0;
    if (add_site_base(run, base) != 0)
        return -1;
    char *envs = cc_path_join(base, "envs");
    cc_strv ents;
    if (!envs)
        return -1;
    if (cc_detect_list(run->ctx, envs, NULL, &ents) == 0) {
        for (size_t i = 0; i < ents.n; i++) {
            char *b = cc_path_join(envs, ents.v[i]);
            int rc = b ? add_site_base(run, b) : -1;
            free(b);
            if (rc != 0) {
                cc_strv_free(&ents);
                free(envs);
                return -1;
            }
        }
        cc_strv_free(&ents);
    }
    free(envs);
    return 0;
}

static char *home_dir(cc_detect_run *run)
{
    char *h = cc_detect_env_path(run->ctx, cc_pf_getenv("HOME"));
    return h ? h : cc_strdup("/root");
}

/* Virtualenvs whose bin/ is on PATH (an activated venv, or an image that puts one there). */
static void venvs_on_path(cudnnctl_ctx *ctx, cc_strv *bases)
{
    const char *s = cc_pf_getenv("PATH");
    while (s && *s) {
        const char *e2 = strchr(s, ':');
        size_t n = e2 ? (size_t)(e2 - s) : strlen(s);
        char *dir = cc_strndup(s, n);
        char *p = dir ? cc_detect_env_path(ctx, dir) : NULL;
        free(dir);
        if (p && cc_str_ends(p, "/bin")) {
            char *base = cc_path_dir(p);
            char *cfg = base ? cc_path_join(base, "pyvenv.cfg") : NULL;
            cc_pf_stat_t st;
            if (cfg)
                cc_detect_stat(ctx, cfg, &st);
            if (cfg && st.is_reg && !cc_strv_contains(bases, base))
                cc_strv_push(bases, base);
            free(base);
            free(cfg);
        }
        free(p);
        s += n;
        if (*s == ':')
            s++;
    }
}

/* /opt/<name>, /opt/<name>/.venv, /opt/<name>/venv (e.g. /opt/torch/.venv), and the pyenv
 * interpreters. -1 on OOM. */
static int opt_and_pyenv_bases(cudnnctl_ctx *ctx, const char *home, cc_strv *bases)
{
    cc_strv ents = {0};
    int rc = 0;
    if (cc_detect_list(ctx, "/opt", NULL, &ents) == 0) {
        for (size_t i = 0; i < ents.n && rc == 0; i++) {
            char *b = cc_path_join("/opt", ents.v[i]);
            if (!b || cc_strv_push(bases, b) != 0 ||
                cc_strv_push_own(bases, cc_path_join(b, ".venv")) != 0 ||
                cc_strv_push_own(bases, cc_path_join(b, "venv")) != 0)
                rc = -1;
            free(b);
        }
        cc_strv_free(&ents);
    }
    char *pyenv = rc == 0 ? cc_path_join(home, ".pyenv/versions") : NULL;
    if (!pyenv)
        return -1;
    if (cc_detect_list(ctx, pyenv, NULL, &ents) == 0) {
        for (size_t i = 0; i < ents.n && rc == 0; i++)
            if (cc_strv_push_own(bases, cc_path_join(pyenv, ents.v[i])) != 0)
                rc = -1;
    }
    cc_strv_free(&ents);
    free(pyenv);
    return rc;
}

cudnnctl_err cc_detect_find_sites(cc_detect_run *run)
{
    cudnnctl_ctx *ctx = run->ctx;
    cudnnctl_err e = CUDNNCTL_E_OK;
    char *home = home_dir(run);
    char *venv = cc_detect_env_path(ctx, cc_pf_getenv("VIRTUAL_ENV"));
    char *conda = cc_detect_env_path(ctx, cc_pf_getenv("CONDA_PREFIX"));
    cc_strv bases = {0}, condas = {0};
    if (!home)
        goto oom;
    /* the active environments first, so their copies are listed first */
    if ((venv && cc_strv_push(&bases, venv) != 0) || cc_strv_push(&bases, "/usr/local") != 0 ||
        cc_strv_push(&bases, "/usr") != 0 || cc_strv_push(&bases, "/opt/venv") != 0 ||
        cc_strv_push(&bases, "/venv") != 0 ||
        cc_strv_push_own(&bases, cc_path_join(home, ".local")) != 0 ||
        cc_strv_push_own(&bases, cc_path_join(home, ".venv")) != 0 ||
        cc_strv_push_own(&bases, cc_path_join(home, "venv")) != 0)
        goto oom;
    if ((conda && cc_strv_push(&condas, conda) != 0) || cc_strv_push(&condas, "/opt/conda") != 0 ||
        cc_strv_push_own(&condas, cc_path_join(home, "miniconda3")) != 0 ||
        cc_strv_push_own(&condas, cc_path_join(home, "anaconda3")) != 0 ||
        cc_strv_push_own(&condas, cc_path_join(home, "miniforge3")) != 0)
        goto oom;
    venvs_on_path(ctx, &bases);
    if (opt_and_pyenv_bases(ctx, home, &bases) != 0)
        goto oom;
    for (size_t i = 0; i < bases.n; i++)
        if (add_site_base(run, bases.v[i]) != 0)
            goto oom;
    for (size_t i = 0; i < condas.n; i++)
        if (add_conda_base(run, condas.v[i]) != 0)
            goto oom;
    goto out;
oom:
    e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while listing Python site-packages");
out:
    cc_strv_free(&bases);
    cc_strv_free(&condas);
    free(home);
    free(venv);
    free(conda);
    return e;
}

/* ---- the loader's view ---------------------------------------------------------------------- */

static int parse_ld_conf(cc_detect_run *run, const char *file, int depth);

static int ld_conf_include(cc_detect_run *run, const char *pattern, int depth)
{
    char *pat = pattern[0] == '/' ? cc_strdup(pattern) : cc_path_join("/etc", pattern);
    if (!pat)
        return -1;
    char *dir = cc_path_dir(pat);
    const char *glob = cc_path_base(pat);
    cc_strv ents;
    int rc = 0;
    if (dir && cc_detect_list(run->ctx, dir, NULL, &ents) == 0) {
        for (size_t i = 0; i < ents.n && rc == 0; i++) {
            if (!cc_detect_glob(glob, ents.v[i]))
                continue;
            char *f = cc_path_join(dir, ents.v[i]);
            rc = f ? parse_ld_conf(run, f, depth + 1) : -1;
            free(f);
        }
        cc_strv_free(&ents);
    }
    free(dir);
    free(pat);
    return rc;
}

static int parse_ld_conf(cc_detect_run *run, const char *file, int depth)
{
    char *text = NULL;
    if (depth > 4 || cc_detect_read(run->ctx, file, 1 << 20, &text) != 0)
        return 0;
    int rc = 0;
    char *save = text;
    while (rc == 0 && save && *save) {
        char *line = save;
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line = cc_str_trim(line);
        if (!*line)
            continue;
        if (cc_str_starts(line, "include") && (line[7] == ' ' || line[7] == '\t')) {
            char *pats = cc_str_trim(line + 7);
            /* several patterns may follow one include */
            char *tok = pats;
            while (rc == 0 && *tok) {
                char *end = tok;
                while (*end && *end != ' ' && *end != '\t')
                    end++;
                char c = *end;
                *end = '\0';
                rc = ld_conf_include(run, tok, depth);
                if (!c)
                    break;
                tok = cc_str_trim(end + 1);
            }
            continue;
        }
        if (cc_str_starts(line, "hwcap"))
            continue;
        /* dirs separated by blanks, ':' or ',' (old "dir=type" forms keep the dir) */
        char *tok = line;
        while (rc == 0 && *tok) {
            size_t n = strcspn(tok, " \t:,");
            if (n > 0 && tok[0] == '/') {
                char *d = cc_strndup(tok, n);
                char *eq = d ? strchr(d, '=') : NULL;
                if (eq)
                    *eq = '\0';
                char *c = d ? cc_detect_clean(d) : NULL;
                rc = c ? push_resolved(run, &run->loader, c) : -1;
                free(c);
                free(d);
            }
            tok += n;
            while (*tok == ' ' || *tok == '\t' || *tok == ':' || *tok == ',')
                tok++;
        }
    }
    free(text);
    return rc;
}

/* The dirs of the libcudnn* entries of /etc/ld.so.cache: what the loader really resolves, also
 * when ld.so.conf was edited without running ldconfig. Read directly (no `ldconfig -p` child:
 * detect stays fast), and under --root from the root's cache. */
static int ld_cache_dirs(cc_detect_run *run)
{
    char *data = NULL;
    size_t len = 0;
    if (cc_detect_read_n(run->ctx, "/etc/ld.so.cache", 16u << 20, &data, &len) != 0)
        return 0;
    cc_strv paths = {0};
    int rc = 0;
    if (cc_detect_parse_ld_cache(data, len, "libcudnn", &paths) != 0)
        cc_detect_note(run, "/etc/ld.so.cache is not a glibc ld.so cache: ignored");
    for (size_t i = 0; rc == 0 && i < paths.n; i++) {
        char *dir = cc_path_dir(paths.v[i]);
        rc = dir ? push_resolved(run, &run->loader, dir) : -1;
        free(dir);
    }
    cc_strv_free(&paths);
    free(data);
    return rc;
}

cudnnctl_err cc_detect_find_loader(cc_detect_run *run)
{
    cudnnctl_ctx *ctx = run->ctx;
    if (parse_ld_conf(run, "/etc/ld.so.conf", 0) != 0)
        goto oom;
    /* the loader's built-in trusted dirs */
    static const char *const defaults[] = {"/lib", "/usr/lib", "/lib64", "/usr/lib64"};
    for (size_t i = 0; i < 4; i++)
        if (push_resolved(run, &run->loader, defaults[i]) != 0)
            goto oom;
    for (size_t i = 0; i < run->multiarch.n; i++) {
        char *a = cc_path_join("/lib", run->multiarch.v[i]);
        char *b = cc_path_join("/usr/lib", run->multiarch.v[i]);
        int rc = (a && b)
                     ? push_resolved(run, &run->loader, a) | push_resolved(run, &run->loader, b)
                     : -1;
        free(a);
        free(b);
        if (rc != 0)
            goto oom;
    }
    if (ld_cache_dirs(run) != 0)
        goto oom;
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    if (llp) {
        const char *s = llp;
        while (*s) {
            size_t n = strcspn(s, ":");
            char *d = cc_strndup(s, n);
            char *p = d ? cc_detect_env_path(ctx, d) : NULL;
            free(d);
            if (p && push_resolved(run, &run->ld_library_path, p) != 0) {
                free(p);
                goto oom;
            }
            free(p);
            s += n;
            if (*s == ':')
                s++;
        }
    }
    return CUDNNCTL_E_OK;
oom:
    return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while reading the loader configuration");
}

int cc_detect_loader_dirs(cudnnctl_ctx *ctx, cc_strv *loader, cc_strv *ld_library_path)
{
    cc_detect_run dr;
    memset(&dr, 0, sizeof(dr));
    dr.ctx = ctx;
    int rc = cc_strv_push(&dr.multiarch, "x86_64-linux-gnu") != 0 ||
                     cc_strv_push(&dr.multiarch, "aarch64-linux-gnu") != 0 ||
                     cc_detect_find_loader(&dr) != CUDNNCTL_E_OK
                 ? -1
                 : 0;
    cc_clear_error(ctx);
    *loader = dr.loader;
    *ld_library_path = dr.ld_library_path;
    cc_strv_free(&dr.notes);
    cc_strv_free(&dr.sites);
    cc_strv_free(&dr.multiarch);
    cc_strv_free(&dr.arch_targets);
    return rc;
}
