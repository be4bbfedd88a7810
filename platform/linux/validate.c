/* validate.c (linux): what the validation child needs from the OS beyond dl.c: loads with
 * flags, mapped module names as the loader saw them, and crash notes for the parent. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

int cc_pf_dl_guard_(const char *path); /* dl.c: the trust rule for loads as root */

void *cc_pf_dlopen_ex(const char *path, unsigned flags)
{
    if (cc_pf_dl_guard_(path) != 0)
        return NULL;
    int f = (flags & CC_PF_DL_LAZY) ? RTLD_LAZY : RTLD_NOW;
    f |= (flags & CC_PF_DL_GLOBAL) ? RTLD_GLOBAL : RTLD_LOCAL;
    return dlopen(path, f);
}

/* Lines are built before any crash: the handler only calls write(2) and raise(3). */
static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static const char *const crash_names[] = {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"};
#define N_CRASH ((int)(sizeof(crash_sigs) / sizeof(crash_sigs[0])))
static char *crash_lines[N_CRASH];

static void on_crash(int sig)
{
    for (int i = 0; i < N_CRASH; i++)
        if (crash_sigs[i] == sig && crash_lines[i]) {
            const char *p = crash_lines[i];
            size_t n = strlen(p);
            while (n > 0) {
                ssize_t w = write(1, p, n);
                if (w <= 0)
                    break;
                p += w;
                n -= (size_t)w;
            }
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

void cc_pf_crash_notify(const char *before, const char *after)
{
    for (int i = 0; i < N_CRASH; i++) {
        size_t n = strlen(before) + strlen(crash_names[i]) + strlen(after) + 1;
        char *line = malloc(n);
        if (!line)
            continue;
        snprintf(line, n, "%s%s%s", before, crash_names[i], after);
        free(crash_lines[i]);
        crash_lines[i] = line;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_crash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(crash_sigs[i], &sa, NULL);
    }
}

char cc_pf_path_list_sep(void)
{
    return ':';
}
