/* lock.c: the state-dir lock and the target lock (advisory, released by the OS if the holder
 * dies). The holder writes "pid N (cudnnctl WHAT) since T" into the file so a second run can
 * name it; with cudnnctl_set_lock_wait a run waits for the holder instead of failing. */
#include <stdlib.h>
#include <string.h>

#include "lock.h"

/* "pid 1234 (cudnnctl install) since 2025-01-01T00:00:00Z" from the lock file, or NULL. */
static char *holder(cudnnctl_ctx *ctx, const char *path)
{
    char *text = NULL;
    if (cc_sys_read_file(ctx, path, 4096, &text, NULL) != 0) {
        cc_clear_error(ctx);
        return NULL;
    }
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

static cudnnctl_err busy_error(cudnnctl_ctx *ctx, const char *path, const char *what_for)
{
    char *who = holder(ctx, path);
    int w = ctx->lock_wait_s;
    char *fix = w > 0 ? cc_asprintf("still held after the %d s the wait allowed; run again once "
                                    "it has finished, or wait longer (--wait SECONDS, or --wait "
                                    "alone for as long as it takes)",
                                    w)
                      : cc_strdup("wait for it to finish and run again, or pass --wait (--wait "
                                  "SECONDS to wait at most that long)");
    cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_LOCKED,
                             "another cudnnctl is installing or removing %s (%s holds %s); %s",
                             what_for, who ? who : "a process", path, fix ? fix : "");
    free(fix);
    free(who);
    return rc;
}

static void write_holder(cudnnctl_ctx *ctx, cc_pf_fd fd, const char *what)
{
    char *when = cc_now_iso();
    char *me = cc_asprintf("pid %ld (cudnnctl %s) since %s\n", cc_pf_getpid(),
                           what ? what : "run", when ? when : "?");
    if (me && cc_pf_truncate(fd, 0) == 0 && cc_pf_seek(fd, 0) == 0)
        (void)cc_sys_write_all(ctx, fd, me, strlen(me));
    free(me);
    free(when);
}

/* The path names the very file fd holds? (A releasing target lock unlinks its file; a run that
 * opened it just before must then lock the new one.) */
static int still_there(const char *path, cc_pf_fd fd)
{
    cc_pf_stat_t a, b;
    if (cc_pf_fstat(fd, &a) != 0 || cc_pf_stat(path, &b) != 0)
        return 1; /* cannot tell (an OS without file ids): the lock stands */
    return b.exists && a.dev == b.dev && a.ino == b.ino;
}

/* Lock path, waiting as the context says. verify: the file may be unlinked by its holder. */
static cudnnctl_err lock_file(cudnnctl_ctx *ctx, const char *path, const char *what,
                              const char *what_for, int verify, cc_pf_fd *out)
{
    uint64_t t0 = cc_pf_now_ms();
    for (;;) {
        int busy = 0;
        cc_pf_fd fd = -1;
        if (cc_pf_lock(path, &fd, &busy) == 0) {
            if (verify && !still_there(path, fd)) {
                cc_pf_unlock(fd);
                continue;
            }
            write_holder(ctx, fd, what);
            *out = fd;
            return CUDNNCTL_E_OK;
        }
        if (!busy) {
            cudnnctl_err e = cc_pf_last_error();
            if (e == CUDNNCTL_E_UNTRUSTED)
                CC_RET_ERR(ctx, e, "cannot lock %s: %s", path, cc_pf_last_error_text());
            char *why = cc_strdup(cc_pf_last_error_text());
            /* verify: the target lock (inside the target), else the state dir's */
            char *fix = cc_write_fix(ctx, path, verify ? "--prefix DIR" : "--state-dir DIR");
            cudnnctl_err rc = CC_ERR(ctx, e == CUDNNCTL_E_PERMISSION ? e : CUDNNCTL_E_IO,
                                     "cannot lock %s: %s; %s", path, why ? why : "",
                                     fix ? fix : "");
            free(why);
            free(fix);
            return rc;
        }
        int w = ctx->lock_wait_s;
        if (w == 0 || (w > 0 && cc_pf_now_ms() - t0 >= (uint64_t)w * 1000u))
            return busy_error(ctx, path, what_for);
        cudnnctl_err rc = cc_cancel_check(ctx, "the wait for the lock");
        if (rc != CUDNNCTL_E_OK)
            return rc;
        cc_pf_sleep_ms(50);
    }
}

/* The dir a lock lives in could not be made: why, and the fix that fits (write_fix.c). what:
 * "the state dir " or ""; flag: the option that names the dir ("--state-dir DIR"). */
static cudnnctl_err mkdir_error(cudnnctl_ctx *ctx, const char *what, const char *dir,
                                const char *flag)
{
    cudnnctl_err e = cc_pf_last_error();
    if (e == CUDNNCTL_E_UNTRUSTED)
        return CC_ERR(ctx, e, "cannot create %s%s: %s", what, dir, cc_pf_last_error_text());
    char *why = cc_strdup(cc_pf_last_error_text());
    char *fix = cc_write_fix(ctx, dir, flag);
    cudnnctl_err rc = CC_ERR(ctx, e == CUDNNCTL_E_PERMISSION ? e : CUDNNCTL_E_IO,
                             "cannot create %s%s: %s; %s", what, dir, why ? why : "",
                             fix ? fix : "");
    free(why);
    free(fix);
    return rc;
}

/* An empty lock: nothing held yet. unlink: a target lock (its file goes on release). */
static void lock_init(cc_lock *out, int unlink)
{
    out->fd = -1;
    out->path = NULL;
    out->dir = NULL;
    out->rmdir_if_empty = 0;
    out->unlink = unlink;
}

cudnnctl_err cc_lock_acquire(cudnnctl_ctx *ctx, const char *state_dir, const char *what,
                             cc_lock *out)
{
    lock_init(out, 0);
    cudnnctl_err trc = cc_trust_dir(ctx, state_dir, "state dir", "--state-dir DIR");
    if (trc != CUDNNCTL_E_OK)
        return trc;
    if (cc_sys_mkdir_p(ctx, state_dir, 0755) != 0)
        return mkdir_error(ctx, "the state dir ", state_dir, "--state-dir DIR");
    char *path = cc_path_join(state_dir, "lock");
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = lock_file(ctx, path, what, "with this state dir", 0, &out->fd);
    if (rc != CUDNNCTL_E_OK) {
        free(path);
        return rc;
    }
    out->path = path;
    return CUDNNCTL_E_OK;
}

char *cc_lock_target_path(const char *target_real)
{
    return cc_path_join(target_real, ".cudnnctl-lock");
}

/* The target lock lives inside the target (TREE/.cudnnctl-lock, PREFIX/.cudnnctl-lock), never
 * beside it: the target's parent may be a directory others share, where a planted link or file
 * would make the holder write or truncate something else; and an install writes nothing outside
 * its target, state dir and cache. A prefix that does not exist yet is created (as the install
 * would create it); the lock file goes again on release. */
cudnnctl_err cc_lock_target(cudnnctl_ctx *ctx, const char *target_real, const char *what,
                            cc_lock *out)
{
    lock_init(out, 1);
    char *path = cc_lock_target_path(target_real);
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_stat_t st;
    int existed = cc_pf_stat(target_real, &st) == 0 && st.is_dir;
    int mk = existed ? 0 : cc_sys_mkdir_p(ctx, target_real, 0755);
    char *shown = cc_unrooted(ctx, target_real);
    char *what_for = cc_asprintf("in %s", shown ? shown : target_real);
    cudnnctl_err rc = mk != 0 ? mkdir_error(ctx, "", target_real, "--prefix DIR")
                              : lock_file(ctx, path, what, what_for ? what_for : "", 1, &out->fd);
    free(shown);
    free(what_for);
    if (rc != CUDNNCTL_E_OK) {
        if (!existed && mk == 0)
            (void)cc_pf_rmdir(target_real);
        free(path);
        return rc;
    }
    out->path = path;
    out->dir = cc_strdup(target_real);
    out->rmdir_if_empty = !existed;
    return CUDNNCTL_E_OK;
}

void cc_lock_release(cudnnctl_ctx *ctx, cc_lock *l)
{
    (void)ctx;
    if (l->fd >= 0) {
        /* a target lock leaves nothing beside the target: unlinked while still held, so a run
         * waiting on the old file sees it gone (still_there) and locks a fresh one */
        if (l->unlink && l->path)
            (void)cc_pf_unlink(l->path); /* Windows refuses while others hold it open: fine */
        else
            cc_pf_truncate(l->fd, 0);
        cc_pf_unlock(l->fd);
    }
    if (l->dir && l->rmdir_if_empty)
        (void)cc_pf_rmdir(l->dir); /* fails, as it should, when anything is in it */
    l->fd = -1;
    free(l->path);
    l->path = NULL;
    free(l->dir);
    l->dir = NULL;
    l->rmdir_if_empty = 0;
}
