/* install.c (linux): primitives the install/commit work needs: process ids (hard links: fs.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

long cc_pf_getpid(void)
{
    return (long)getpid();
}

int cc_pf_pid_alive(long pid)
{
    if (pid <= 0)
        return 0;
    if (kill((pid_t)pid, 0) == 0)
        return 1;
    return errno == EPERM; /* exists, owned by someone else */
}
