/* cli_fault.h: the hidden fault-injection knobs of the install-area commands (tests only).
 * CUDNNCTL_FAULT_AT=N fails the N-th file operation of the command's library call;
 * CUDNNCTL_FAULT_STICKY=1 makes every later one fail too (the process "dies" there, leaving
 * the journal for the next run). CUDNNCTL_TEST_ARCHIVE_PAUSE=MS: once the archive is held open
 * (a zip verified), print "cudnnctl: test: archive held: PATH" and sleep MS before it is
 * unpacked, so that a test can swap PATH there. Read here, in the front end — never in the
 * library. */
#ifndef CLI_FAULT_H
#define CLI_FAULT_H

#include <stdlib.h>

#include "cli.h"
#include "cudnnctl/cudnnctl_test.h"

static inline void cli_archive_pause(void *user, const char *path)
{
    (void)user;
    fprintf(stderr, "cudnnctl: test: archive held: %s\n", path ? path : "?");
    fflush(stderr);
    cudnnctl_host_sleep_ms((unsigned)strtoul(cudnnctl_host_getenv("CUDNNCTL_TEST_ARCHIVE_PAUSE"),
                                             NULL, 10));
}

static inline void cli_fault_arm(cudnnctl_ctx *ctx)
{
    const char *pause = cudnnctl_host_getenv("CUDNNCTL_TEST_ARCHIVE_PAUSE");
    if (pause && *pause)
        cudnnctl_set_archive_hook(ctx, cli_archive_pause, NULL);
    const char *at = cudnnctl_host_getenv("CUDNNCTL_FAULT_AT");
    if (!at || !*at)
        return;
    const char *sticky = cudnnctl_host_getenv("CUDNNCTL_FAULT_STICKY");
    cudnnctl_set_fault_sticky(ctx, sticky && *sticky && *sticky != '0');
    cudnnctl_set_fault_injection(ctx, strtoul(at, NULL, 10));
}

static inline void cli_fault_disarm(cudnnctl_ctx *ctx)
{
    const char *calls = cudnnctl_host_getenv("CUDNNCTL_FAULT_REPORT");
    if (calls && *calls)
        fprintf(stderr, "cudnnctl: fault-injection: %lu file operations\n",
                cudnnctl_sys_calls(ctx));
    cudnnctl_set_fault_injection(ctx, 0);
    cudnnctl_set_fault_sticky(ctx, 0);
}

#endif
