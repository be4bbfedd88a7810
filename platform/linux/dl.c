/* dl.c (linux): dynamic loading by path and the list of mapped modules (dl_iterate_phdr). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

void *cc_pf_dlopen(const char *path)
{
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
    if (m->n + 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 16;
        char **nv = realloc(m->v, nc * sizeof(char *));
        if (!nv)
            return 1;
        m->v = nv;
        m->cap = nc;
    }
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
