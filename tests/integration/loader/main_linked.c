/* main_linked.c: a program linked against libmid.so (which needs libcudnn.so.9). It prints the
 * libcudnn the loader mapped at start-up. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>

extern int mid_version(void);

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

int main(void)
{
    dl_iterate_phdr(show, NULL);
    return mid_version() > 0 ? 0 : 1;
}
