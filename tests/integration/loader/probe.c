/* probe.c: a consumer for tests/integration/test_loader_model.sh. With an argument it dlopen()s
 * that name (from this object, so its own DT_RPATH / DT_RUNPATH apply); then it prints every
 * loaded object whose base name starts with "libcudnn" as the loader named it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static int show(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name ? info->dlpi_name : "";
    const char *b = strrchr(n, '/');
    b = b ? b + 1 : n;
    if (strncmp(b, "libcudnn", 8) == 0)
        printf("mapped %s\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !dlopen(argv[1], RTLD_LAZY)) {
        printf("error %s\n", dlerror());
        return 1;
    }
    dl_iterate_phdr(show, NULL);
    return 0;
}
