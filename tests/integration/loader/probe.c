/* probe.c: a consumer for tests/integration/test_loader_model.sh. With an argument it dlopen()s
 * that name (from this object, so its own DT_RPATH / DT_RUNPATH apply); then it prints every
 * loaded object whose base name starts with "libcudnn" as the loader named it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "show_mapped.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !dlopen(argv[1], RTLD_LAZY)) {
        printf("error %s\n", dlerror());
        return 1;
    }
    dl_iterate_phdr(show, NULL);
    return 0;
}
