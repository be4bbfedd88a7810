/* lock.c: the state-dir lock (advisory, released by the OS if the holder dies). */
#include <stdlib.h>
#include <string.h>

#include "lock.h"

/* "pid 1234 since 2025-01-01T00:00:00Z" from the lock file, or NULL. */
static char *holder(cudnnctl_ctx *ctx, const char *path)
{
    char *text = NULL;
    if (cc_sys_read_file(ctx, path, 4096, &text, NULL) != 0)
        return NULL;
    long pid = 0;
    char *p = strstr(text, "pid ");
    if (p)
        pid = strtol(p + 4, NULL, 10);
    char *r = NULL;
    if (pid > 0)
        r = cc_asprintf("%s%s", cc_str_trim(text),
                        cc_pf_pid_alive(pid) ? "" : " (that process is gone; retry)");
    free(text);
    return r;
}

cudnnctl_err cc_lock_acquire(cudnnctl_ctx *ctx, const char *state_dir, cc_lock *out)
{
    out->fd = -1;
    out->path = NULL;
    if (cc_sys_mkdir_p(ctx, state_dir, 0755) != 0) {
        cudnnctl_err e = cc_pf_last_error();
        return CC_ERR(ctx, e == CUDNNCTL_E_PERMISSION ? e : CUDNNCTL_E_IO,
                      "cannot create the state dir %s: %s. Run as root (sudo) for system "
                      "locations, or choose one you own with --state-dir DIR",
                      state_dir, cc_pf_last_error_text());
    }
    char *path = cc_path_join(state_dir, "lock");
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    int busy = 0;
    cc_pf_fd fd = -1;
    if (cc_pf_lock(path, &fd, &busy) != 0) {
        cudnnctl_err rc;
        if (busy) {
            char *who = holder(ctx, path);
            rc = CC_ERR(ctx, CUDNNCTL_E_LOCKED,
                        "another cudnnctl is installing or removing (%s holds %s); wait for it "
                        "to finish and run again",
                        who ? who : "a process", path);
            free(who);
        } else {
            cudnnctl_err e = cc_pf_last_error();
            rc = CC_ERR(ctx, e == CUDNNCTL_E_PERMISSION ? e : CUDNNCTL_E_IO,
                        "cannot lock %s: %s. Run as root (sudo) for system locations, or use "
                        "--state-dir DIR",
                        path, cc_pf_last_error_text());
        }
        free(path);
        return rc;
    }
    /* who holds it, for the message a second run prints (best effort) */
    char *when = cc_now_iso();
    char *me = cc_asprintf("pid %ld since %s\n", cc_pf_getpid(), when ? when : "?");
    if (me && cc_pf_truncate(fd, 0) == 0 && cc_pf_seek(fd, 0) == 0)
        (void)cc_sys_write_all(ctx, fd, me, strlen(me));
    free(me);
    free(when);
    out->fd = fd;
    out->path = path;
    return CUDNNCTL_E_OK;
}

void cc_lock_release(cudnnctl_ctx *ctx, cc_lock *l)
{
    (void)ctx;
    if (l->fd >= 0) {
        cc_pf_truncate(l->fd, 0);
        cc_pf_unlock(l->fd);
    }
    l->fd = -1;
    free(l->path);
    l->path = NULL;
}
