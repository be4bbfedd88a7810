/* main_linked.c: a program linked against libmid.so (which needs libcudnn.so.9). It prints the
 * libcudnn the loader mapped at start-up. */
#define _GNU_SOURCE
#include "show_mapped.h"

extern int mid_version(void);

int main(void)
{
    dl_iterate_phdr(show, NULL);
    return mid_version() > 0 ? 0 : 1;
}
