/* shim.c: built into a framework's extension dir with that extension's own DT_RPATH, so that a
 * dlopen() issued from this object follows the same rules as one issued by the extension. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static char found[4096];
static const char *want;

static int show(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name ? info->dlpi_name : "";
    const char *b = strrchr(n, '/');
    if (strcmp(b ? b + 1 : n, want) == 0 && !found[0])
        snprintf(found, sizeof(found), "%s", n);
    return 0;
}

const char *shim_load(const char *soname)
{
    found[0] = '\0';
    want = soname;
    if (!dlopen(soname, RTLD_LAZY)) {
        snprintf(found, sizeof(found), "error %s", dlerror());
        return found;
    }
    dl_iterate_phdr(show, NULL);
    return found;
}

/* After shim_load: make libcudnn.so.9 load its graph sub-library (cudnnGraphVersionCheck needs
 * no GPU), then name the file mapped for sub. */
const char *shim_sub(const char *sub)
{
    void *h = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD);
    int (*check)(void) = h ? (int (*)(void))dlsym(h, "cudnnGraphVersionCheck") : NULL;
    if (check)
        check();
    found[0] = '\0';
    want = sub;
    dl_iterate_phdr(show, NULL);
    return found[0] ? found : "not-mapped";
}
