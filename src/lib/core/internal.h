/* internal.h: the context structure and the helpers every library file uses
 * (self-locating errors, callbacks, root-relative paths). Not installed. */
#ifndef CC_INTERNAL_H
#define CC_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"
#include "cudnnctl/cudnnctl_test.h"
#include "host.h"
#include "platform.h"
#include "grow.h"
#include "str.h"
#include "sys.h"

struct cudnnctl_ctx {
    char *root;      /* NULL or an absolute dir every absolute path is resolved under */
    char *cache_dir; /* NULL = platform default */
    char *state_dir; /* NULL = platform default */
    char *proxy;     /* NULL = libcurl's own (the *_proxy variables) */
    char *cacert;    /* NULL = the system's CA bundle (an option's own cacert wins) */
    cudnnctl_log_cb log_cb;
    void *log_user;
    cudnnctl_progress_cb progress_cb;
    void *progress_user;
    cudnnctl_event_cb event_cb;
    void *event_user;
    cudnnctl_question_cb question_cb;
    void *question_user;
    cudnnctl_cancel_cb cancel_cb;
    void *cancel_user;
    int lock_wait_s; /* 0: fail at once; -1: forever */
    int read_only;   /* cudnnctl_set_read_only: a dry run keeps nothing (no manifest cache) */
    cc_sys_ops sys;  /* file work goes through here (fault-injectable) */
    unsigned long sys_calls;
    unsigned long fail_at;
    int fail_sticky; /* every call after fail_at fails too (crash simulation) */
    cudnnctl_archive_hook archive_hook; /* tests: between verification and extraction */
    void *archive_hook_user;
    cudnnctl_error_info err;
    char *err_detail;
    cc_host host;        /* OS rules, path style, environment and registry (host.h) */
    cc_memreg *own_reg;  /* the in-memory registry of a foreign host profile, owned */
};

/* Record an error with its origin; returns code so callers can `return CC_ERR(...)`. */
cudnnctl_err cc_set_error(cudnnctl_ctx *ctx, cudnnctl_err code, const char *func, const char *file,
                          int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define CC_ERR(ctx, code, ...) cc_set_error((ctx), (code), __func__, __FILE__, __LINE__, __VA_ARGS__)
/* Set the error and return it from the current function. */
#define CC_RET_ERR(ctx, code, ...)                                                                 \
    do {                                                                                           \
        return cc_set_error((ctx), (code), __func__, __FILE__, __LINE__, __VA_ARGS__);             \
    } while (0)
/* The last platform error, recorded with a prefix naming what was attempted. */
#define CC_ERR_PF(ctx, what, path)                                                                 \
    cc_set_error((ctx), cc_pf_last_error(), __func__, __FILE__, __LINE__, "%s %s: %s", (what),     \
                 (path), cc_pf_last_error_text())
void cc_clear_error(cudnnctl_ctx *ctx);
/* CUDNNCTL_E_USAGE (exit 2) when @p path has a control character, naming @p what (the option:
 * "--prefix") and the byte as \xNN; CUDNNCTL_E_OK otherwise (also for NULL). A target path is
 * refused rather than escaped: it would end up in shell activation text and loader files. */
cudnnctl_err cc_refuse_ctl_path(cudnnctl_ctx *ctx, const char *what, const char *path);
/* After a platform CUDNNCTL_E_UNTRUSTED (a program or file another user could change was not run
 * as root): record it as "<what>: <why>; fix: run it as OWNER, who owns it, not as root:
 * sudo -u OWNER <cmd> <path>" (path shell-quoted, may be NULL; cmd NULL, or a component root
 * owns: the platform's own fix, a chmod). Returns CUDNNCTL_E_UNTRUSTED (untrusted.c). */
cudnnctl_err cc_untrusted_refusal(cudnnctl_ctx *ctx, const char *what, const char *cmd,
                                  const char *path);
/* Keep the first error while cleanup code (which may record its own) runs. */
typedef struct {
    cudnnctl_err code;
    char *detail;
    const char *func, *file;
    int line;
} cc_saved_err;
void cc_err_save(cudnnctl_ctx *ctx, cc_saved_err *s);
/* Put the saved error back (with extra text appended); returns its code. */
cudnnctl_err cc_err_restore(cudnnctl_ctx *ctx, cc_saved_err *s, const char *extra);

void cc_log(cudnnctl_ctx *ctx, cudnnctl_log_level lvl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void cc_event(cudnnctl_ctx *ctx, cudnnctl_event_kind kind, const char *text, const char *path);
void cc_progress(cudnnctl_ctx *ctx, const char *stage, uint64_t done, uint64_t total);
/* The caller's answer to a question (the default without a callback or for a bad answer). */
int cc_ask(cudnnctl_ctx *ctx, cudnnctl_question_kind kind, int dflt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* 1 when the caller asked to stop (any thread; sets no error). */
int cc_cancel_requested(const cudnnctl_ctx *ctx);
/* Poll the cancel callback: CUDNNCTL_E_INTERRUPTED (error recorded, naming `where`) or OK. */
cudnnctl_err cc_cancel_check(cudnnctl_ctx *ctx, const char *where);

/* The real path of an absolute path under the context's root (malloc'd). Relative paths are
 * returned unchanged. With a Windows host profile a drive letter maps to a folder under the root:
 * "C:\\Program Files\\X" -> ROOT/c/Program Files/X. */
char *cc_rooted(const cudnnctl_ctx *ctx, const char *abs_path);
/* Strip the root prefix again for display / JSON (malloc'd); ROOT/c/x -> "C:/x" (Windows). */
char *cc_unrooted(const cudnnctl_ctx *ctx, const char *real_path);
/* The fix for a failure to write at real_path, fitting the situation: a file in the way, a
 * read-only file system, root refused, or "run as root (sudo)" to a user; choose is the option
 * that picks another place ("--state-dir DIR"). malloc'd (write_fix.c). */
char *cc_write_fix(const cudnnctl_ctx *ctx, const char *real_path, const char *choose);
/* The deepest part of path that exists (path itself or an ancestor), *st its stat; NULL when
 * none does. malloc'd (write_fix.c). */
char *cc_deepest_existing(const char *path, cc_pf_stat_t *st);
/* Effective cache / state dirs (malloc'd, already rooted). */
char *cc_cache_dir(const cudnnctl_ctx *ctx);
char *cc_state_dir(const cudnnctl_ctx *ctx);
/* The trust rule (platform.h, cc_pf_trust_check) for a directory whose contents are believed
 * (role: "state dir", "download cache"), or for its nearest existing ancestor when it does not
 * exist yet; CUDNNCTL_E_UNTRUSTED (exit 9) naming owner and mode, with the fix and `option`
 * ("--state-dir DIR") as the other way out. */
cudnnctl_err cc_trust_dir(cudnnctl_ctx *ctx, const char *dir, const char *role,
                          const char *option);

#endif
