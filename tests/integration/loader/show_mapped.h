/* show_mapped.h: the dl_iterate_phdr callback of the loader test consumers (probe.c,
 * main_linked.c): prints every loaded object whose base name starts with "libcudnn", as the
 * loader named it ("mapped PATH"). */
#ifndef SHOW_MAPPED_H
#define SHOW_MAPPED_H
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
#endif
