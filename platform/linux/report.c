/* report.c (linux): what the environment report asks of the OS: host name and kernel release. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

char *cc_pf_hostname(void)
{
    char buf[256];
    if (gethostname(buf, sizeof(buf)) != 0) {
        cc_pf_errno_();
        return NULL;
    }
    buf[sizeof(buf) - 1] = '\0';
    return strdup(buf);
}

char *cc_pf_kernel_release(void)
{
    struct utsname u;
    if (uname(&u) != 0) {
        cc_pf_errno_();
        return NULL;
    }
    return strdup(u.release);
}
