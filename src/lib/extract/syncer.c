/* syncer.c: a background thread that fsyncs the files handed to it, one by one, while the
 * extraction goes on — so that when the commit needs everything on disk, only the last file is
 * left to wait for (measured: bench/install_bench.sh, docs/performance.md). */
#include "syncer.h"

#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "str.h"

struct cc_syncer {
    cc_pf_thread *thread;
    cc_pf_mutex *mu;
    cc_pf_cond *changed;
    cc_strv queue; /* paths not yet synced, oldest first */
    size_t next;   /* index of the next one to sync */
    int closing;
    char *err; /* the first failure */
};

static int sync_one(const char *path, char **err)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY | CC_PF_O_FOR_SYNC, 0);
    int rc = fd < 0 ? -1 : cc_pf_fsync(fd);
    if (rc != 0)
        *err = cc_asprintf("cannot flush %s to disk: %s", path, cc_pf_last_error_text());
    if (fd >= 0)
        cc_pf_close(fd);
    return rc;
}

static void syncer_main(void *arg)
{
    cc_syncer *s = arg;
    cc_pf_mutex_lock(s->mu);
    for (;;) {
        while (s->next == s->queue.n && !s->closing)
            cc_pf_cond_wait(s->changed, s->mu, 0);
        if (s->next == s->queue.n)
            break;
        char *path = s->queue.v[s->next];
        s->queue.v[s->next++] = NULL;
        int skip = s->err != NULL;
        cc_pf_mutex_unlock(s->mu);
        char *err = NULL;
        if (!skip)
            sync_one(path, &err);
        free(path);
        cc_pf_mutex_lock(s->mu);
        if (err && !s->err)
            s->err = err;
        else
            free(err);
    }
    cc_pf_mutex_unlock(s->mu);
}

cc_syncer *cc_syncer_new(void)
{
    cc_syncer *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->mu = cc_pf_mutex_new();
    s->changed = cc_pf_cond_new();
    if (!s->mu || !s->changed || cc_pf_thread_start(&s->thread, syncer_main, s) != 0) {
        s->thread = NULL;
        cc_syncer_free(s);
        return NULL;
    }
    return s;
}

int cc_syncer_add(cc_syncer *s, const char *path)
{
    cc_pf_mutex_lock(s->mu);
    int rc = cc_strv_push(&s->queue, path);
    cc_pf_cond_signal(s->changed);
    cc_pf_mutex_unlock(s->mu);
    return rc;
}

static void stop(cc_syncer *s)
{
    if (!s->thread)
        return;
    cc_pf_mutex_lock(s->mu);
    s->closing = 1;
    cc_pf_cond_broadcast(s->changed);
    cc_pf_mutex_unlock(s->mu);
    cc_pf_thread_join(s->thread);
    s->thread = NULL;
}

int cc_syncer_finish(cc_syncer *s, char **err)
{
    *err = NULL;
    stop(s);
    if (s->err) {
        *err = s->err;
        s->err = NULL;
        return -1;
    }
    return 0;
}

void cc_syncer_free(cc_syncer *s)
{
    if (!s)
        return;
    if (s->thread) {
        /* abandoning: what is still queued is not worth waiting for */
        cc_pf_mutex_lock(s->mu);
        if (!s->err)
            s->err = cc_strdup("cancelled");
        cc_pf_mutex_unlock(s->mu);
        stop(s);
    }
    cc_strv_free(&s->queue);
    cc_pf_cond_free(s->changed);
    cc_pf_mutex_free(s->mu);
    free(s->err);
    free(s);
}
