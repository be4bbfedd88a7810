/* cancel.c: SIGINT / SIGTERM / SIGHUP during install, uninstall and rollback. The handler only
 * records the signal (the second one of a kind gets the default action back, so a stuck run can
 * still be killed); the library polls it through the cancel callback between steps and inside
 * its long loops, rolls back what it did and returns CUDNNCTL_E_INTERRUPTED, and cli_fail turns
 * that into the shell's code for the signal (130, 143, 129). */
#include <signal.h>

#include "cli.h"

static volatile sig_atomic_t g_sig;

static void on_signal(int s)
{
    if (!g_sig)
        g_sig = s;
    signal(s, SIG_DFL); /* a second one ends the process the usual way */
}

static int cancelled(void *user)
{
    (void)user;
    return g_sig != 0;
}

void cli_cancel_on_signals(cudnnctl_ctx *ctx)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
#ifdef SIGHUP
    signal(SIGHUP, on_signal);
#endif
    cudnnctl_set_cancel_cb(ctx, cancelled, NULL);
}

int cli_signal_caught(void)
{
    return (int)g_sig;
}
