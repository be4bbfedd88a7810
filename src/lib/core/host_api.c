/* host_api.c: the public host services of host.h, over the platform layer (a front end includes
 * only public headers, never platform.h). */
#include <stdlib.h>

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

int cudnnctl_host_path_kind(const cudnnctl_ctx *ctx, const char *path, int how)
{
    if (!path || !*path)
        return 0;
    char *abs = NULL;
    if (how == CUDNNCTL_PATH_ROOTED_CWD && !cc_pf_is_abs(path)) {
        char *cwd = cc_pf_realpath(".");
        abs = cwd ? cc_path_join(cwd, path) : NULL;
        free(cwd);
    }
    char *real = how == CUDNNCTL_PATH_AS_IS ? cc_strdup(path) : cc_rooted(ctx, abs ? abs : path);
    free(abs);
    cc_pf_stat_t st;
    int kind = -1;
    if (real && cc_pf_stat(real, &st) == 0)
        kind = !st.exists ? 0 : st.is_dir ? 2 : 1;
    else if (real && cc_pf_last_error() == CUDNNCTL_E_NOT_FOUND)
        kind = 0;
    free(real);
    return kind;
}
