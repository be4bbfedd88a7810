/* probe_guard.c: what the effective-load probe may dlopen as root (docs/security.md, "Running
 * as root"). dlopen runs the constructors of the file it maps and of everything that file needs,
 * as root. So before the probe loads a soname by name, the loader model (ELF and ld.so.cache
 * read, nothing loaded) predicts which files the real loader would map in this environment, and
 * the probe loads only when each of them, and every LD_LIBRARY_PATH dir the search passes, is
 * out of reach of other users; otherwise it reports the model's answer instead. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ldmodel.h"
#include "platform.h"
#include "pathtrust.h"

int cc_ld_trusted_or_why(const char *path, const char *role, char **why)
{
    if (cc_trust_path(path, 0) == 0)
        return 0;
    char *t = cc_trust_reason();
    *why = cc_asprintf("%s: %s", role, t ? t : path);
    free(t);
    return -1;
}

/* Every LD_LIBRARY_PATH entry ("" and a trailing ':' are the working directory). */
static int check_llp(const char *llp, char **why)
{
    const char *p = llp;
    while (p) {
        const char *e = strchr(p, ':');
        char *dir = e ? cc_strndup(p, (size_t)(e - p)) : cc_strdup(p);
        int rc = dir ? cc_ld_trusted_or_why(*dir ? dir : ".", "a dir of LD_LIBRARY_PATH", why) : -1;
        if (!dir)
            *why = cc_strdup("out of memory");
        free(dir);
        if (rc != 0)
            return -1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* The predicted file and everything it needs at start-up, as the model resolves them. */
static int check_tree(cudnnctl_ctx *ctx, const cudnnctl_loader_env *env, const char *file,
                      char **why)
{
    if (cc_ld_trusted_or_why(file, "the file the loader would map", why) != 0)
        return -1;
    cudnnctl_load_tree *t = NULL;
    if (cudnnctl_loader_tree(ctx, env, file, &t) != CUDNNCTL_E_OK)
        return 0; /* not an ELF the model reads: dlopen will refuse it the same way */
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++)
        if (t->v[i].path)
            rc = cc_ld_trusted_or_why(t->v[i].path, "a library it needs", why);
    cudnnctl_load_tree_free(t);
    return rc;
}

int cc_ld_probe_may_load(cudnnctl_ctx *ctx, const char *soname, char **predicted, char **why)
{
    *predicted = NULL;
    *why = NULL;
    if (!cc_pf_is_root())
        return 1;
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    cudnnctl_loader_env env = {llp, NULL, NULL};
    cudnnctl_load_result *r = NULL;
    if (cudnnctl_loader_resolve(ctx, &env, NULL, soname, &r) == CUDNNCTL_E_OK && r->path)
        *predicted = cc_strdup(r->path);
    int ok = (!llp || check_llp(llp, why) == 0) &&
             (!*predicted || check_tree(ctx, &env, *predicted, why) == 0);
    cudnnctl_load_result_free(r);
    return ok;
}

/* What `bash -l` runs: /etc/profile (and what it sources: /etc/bash.bashrc, /etc/profile.d/),
 * the first of ~/.bash_profile, ~/.bash_login, ~/.profile (which distributions make source
 * ~/.bashrc); the dirs too, where a file could be added. "" = the dir itself. */
static const char *const etc_startup[] = {"/etc/profile", "/etc/bash.bashrc", "/etc/bashrc",
                                          "/etc/profile.d", NULL};
static const char *const home_startup[] = {"",         ".bash_profile", ".bash_login",
                                           ".profile", ".bashrc",       NULL};

static int dir_entries_trusted(const char *dir, char **why)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *name;
    int rc = 0;
    while (d && rc == 0 && (name = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(dir, name);
        rc = p ? cc_ld_trusted_or_why(p, "a login shell's start-up file", why) : -1;
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    return rc;
}

char *cc_ld_login_startup_why(const char *home)
{
    char *why = NULL;
    for (size_t i = 0; etc_startup[i]; i++)
        if (cc_ld_trusted_or_why(etc_startup[i], "a login shell's start-up file", &why) != 0)
            return why;
    if (dir_entries_trusted("/etc/profile.d", &why) != 0)
        return why ? why : cc_strdup("out of memory");
    for (size_t i = 0; home_startup[i]; i++) {
        char *p = *home_startup[i] ? cc_path_join(home, home_startup[i]) : cc_strdup(home);
        int rc =
            p ? cc_ld_trusted_or_why(
                    p, *home_startup[i] ? "a login shell's start-up file" : "the home dir", &why)
              : -1;
        free(p);
        if (rc != 0)
            return why ? why : cc_strdup("out of memory");
    }
    return NULL;
}
