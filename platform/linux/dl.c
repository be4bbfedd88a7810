/* dl.c (linux): dynamic loading by path and the list of mapped modules (dl_iterate_phdr). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "grow.h"

/* Why the last load of this thread was refused before dlopen ran ("" when it was not). */
static _Thread_local char refused[1400];

/* As root, a file is loaded by path only when it passes the trust rule (docs/security.md,
 * "Running as root"): its constructors would run as root, so nobody but root may have been able
 * to write it or any directory on the way. 0 when it may be loaded. By name (no '/') the loader
 * searches: the caller predicts that with the loader model (effective.c). */
int cc_pf_dl_guard_(const char *path)
{
    refused[0] = '\0';
    if (geteuid() != 0 || !path || !strchr(path, '/'))
        return 0;
    if (cc_pf_trust_check(path, CC_PF_TRUST_OBJECT) == 0)
        return 0;
    snprintf(refused, sizeof(refused), "not loaded as root: %s", cc_pf_last_error_text());
    return -1;
}

void *cc_pf_dlopen(const char *path)
{
    if (cc_pf_dl_guard_(path) != 0)
        return NULL;
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

void *cc_pf_dlsym(void *handle, const char *name)
{
    return dlsym(handle, name);
}

void cc_pf_dlclose(void *handle)
{
    if (handle)
        dlclose(handle);
}

const char *cc_pf_dlerror(void)
{
    if (refused[0])
        return refused;
    const char *e = dlerror();
    return e ? e : "unknown dynamic loader error";
}

struct mods {
    const char *prefix;
    int resolve; /* 1: realpath of each module; 0: the name as the loader mapped it */
    char **v;
    size_t n, cap;
};

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct mods *m = data;
    const char *name = info->dlpi_name;
    if (!name || !*name)
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, m->prefix, strlen(m->prefix)) != 0)
        return 0;
    if (cc_grow(&m->v, &m->cap, m->n + 2, sizeof(char *)) != 0)
        return 1;
    char *copy = m->resolve ? realpath(name, NULL) : NULL;
    if (!copy)
        copy = strdup(name);
    if (!copy)
        return 1;
    m->v[m->n++] = copy;
    m->v[m->n] = NULL;
    return 0;
}

static char **modules(const char *prefix, int resolve)
{
    struct mods m = {prefix, resolve, NULL, 0, 0};
    dl_iterate_phdr(collect, &m);
    if (!m.v)
        m.v = calloc(1, sizeof(char *));
    return m.v;
}

char **cc_pf_loaded_modules(const char *prefix)
{
    return modules(prefix, 1);
}

char **cc_pf_loaded_module_paths(const char *prefix)
{
    return modules(prefix, 0);
}
