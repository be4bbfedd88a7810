/* startup.c (linux): UTF-8 arguments (argv already is) and changing this process's environment. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

#include "platform.h"

void cc_pf_errno_(void);

char **cc_pf_args_utf8(int argc, char **argv)
{
    (void)argc;
    return argv;
}

int cc_pf_setenv(const char *name, const char *value)
{
    if ((value ? setenv(name, value, 1) : unsetenv(name)) != 0) {
        cc_pf_errno_();
        return -1;
    }
    return 0;
}

void cc_pf_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}
