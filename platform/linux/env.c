/* env.c (linux): this process's environment (get, set), UTF-8 arguments (argv already is), the
 * console, clocks, the home dir, elevation — the same concept as platform/windows/env.c. */
#define _GNU_SOURCE
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

const char *cc_pf_getenv(const char *name)
{
    return getenv(name);
}

int cc_pf_isatty(int fd)
{
    return isatty(fd);
}

uint64_t cc_pf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int64_t cc_pf_time(void)
{
    return (int64_t)time(NULL);
}

char *cc_pf_home_dir(void)
{
    /* a relative HOME is ignored like a relative XDG_* (it would name the working directory) */
    const char *h = getenv("HOME");
    if (h && h[0] == '/')
        return strdup(h);
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir ? strdup(pw->pw_dir) : strdup("/");
}

int cc_pf_is_root(void)
{
    return geteuid() == 0;
}

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
