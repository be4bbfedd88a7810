/**
 * @file host.h
 * @brief Small host services for front ends: a program on libcudnnctl (the cudnnctl CLI among
 * them) needs no platform layer of its own for its environment, terminal, clock and arguments.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_HOST_H
#define CUDNNCTL_HOST_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/host.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** An environment variable (UTF-8 on Windows); NULL when unset. */
CUDNNCTL_API const char *cudnnctl_host_getenv(const char *name);
/** 1 when @p fd (0, 1, 2) is a terminal. */
CUDNNCTL_API int cudnnctl_host_isatty(int fd);
/** A monotonic clock in milliseconds. */
CUDNNCTL_API uint64_t cudnnctl_host_now_ms(void);
/** Sleep ms milliseconds. */
CUDNNCTL_API void cudnnctl_host_sleep_ms(unsigned ms);
/** Columns of the terminal on fd, 0 when it is none (or unknown). */
CUDNNCTL_API int cudnnctl_host_term_cols(int fd);
/** On SIGINT/SIGTERM/SIGHUP (Ctrl-C/Ctrl-Break on Windows): when *pending is set, write "\n"
 *  to stderr (end an open progress line) before the default action. */
CUDNNCTL_API void cudnnctl_host_interrupt_newline(volatile int *pending);
/** The command-line arguments as UTF-8 (Windows: from the wide command line, and the console
 *  switched to UTF-8 output; elsewhere argv itself). Call first in main(); the vector lives
 *  until exit. */
CUDNNCTL_API char **cudnnctl_host_args_utf8(int argc, char **argv);

/** How cudnnctl_host_path_kind() finds a path, as the library reads that kind of path. */
enum {
    CUDNNCTL_PATH_AS_IS = 0,   /**< as the process sees it (--cacert, --python, --env-of) */
    CUDNNCTL_PATH_ROOTED = 1,  /**< an absolute path under the context's root (--cuda-home,
                                    --manifest FILE, validate TARGET); a relative one as is */
    CUDNNCTL_PATH_ROOTED_CWD = 2 /**< a relative path made absolute from the working dir first,
                                      then under the root (--archive FILE, --mirror DIR) */
};
/** What is at @p path (links followed): 0 nothing, 1 a file, 2 a directory, -1 it cannot be
 *  told (no permission to look). For front ends that check a path option before using it. */
CUDNNCTL_API int cudnnctl_host_path_kind(const cudnnctl_ctx *ctx, const char *path, int how);

#ifdef __cplusplus
}
#endif
#endif
