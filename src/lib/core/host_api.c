/* host_api.c: the public host services of host.h, over the platform layer (a front end includes
 * only public headers, never platform.h). */
#include "internal.h"

const char *cudnnctl_host_getenv(const char *name)
{
    return cc_pf_getenv(name);
}

int cudnnctl_host_isatty(int fd)
{
    return cc_pf_isatty(fd);
}

uint64_t cudnnctl_host_now_ms(void)
{
    return cc_pf_now_ms();
}

char **cudnnctl_host_args_utf8(int argc, char **argv)
{
    return cc_pf_args_utf8(argc, argv);
}

int cudnnctl_host_term_cols(int fd)
{
    return cc_pf_term_cols(fd);
}

void cudnnctl_host_interrupt_newline(volatile int *pending)
{
    cc_pf_interrupt_newline(pending);
}

void cudnnctl_host_sleep_ms(unsigned ms)
{
    cc_pf_sleep_ms(ms);
}
