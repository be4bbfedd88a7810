/* thread_tmp_extract.c (linux): TEMPORARY pthread implementation of the platform "threads"
 * block for the extract branch, until the fetch branch's platform/linux/thread.c reaches main.
 * Same declarations (platform.h); delete this file when merging fetch (duplicate symbols then
 * fail the link, on purpose). Only what extract uses is here. */
#include <pthread.h>
#include <stdlib.h>

#include "platform.h"

struct cc_pf_thread {
    pthread_t tid;
    void (*fn)(void *);
    void *arg;
};

struct cc_pf_mutex {
    pthread_mutex_t m;
};

struct cc_pf_cond {
    pthread_cond_t c;
};

static void *trampoline(void *p)
{
    cc_pf_thread *t = p;
    t->fn(t->arg);
    return NULL;
}

int cc_pf_thread_start(cc_pf_thread **out, void (*fn)(void *), void *arg)
{
    cc_pf_thread *t = calloc(1, sizeof(*t));
    if (!t) {
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
        return -1;
    }
    t->fn = fn;
    t->arg = arg;
    if (pthread_create(&t->tid, NULL, trampoline, t) != 0) {
        free(t);
        cc_pf_set_error(CUDNNCTL_E_GENERIC, "cannot start a thread (pthread_create failed)");
        return -1;
    }
    *out = t;
    return 0;
}

void cc_pf_thread_join(cc_pf_thread *t)
{
    if (!t)
        return;
    pthread_join(t->tid, NULL);
    free(t);
}

cc_pf_mutex *cc_pf_mutex_new(void)
{
    cc_pf_mutex *m = calloc(1, sizeof(*m));
    if (m && pthread_mutex_init(&m->m, NULL) != 0) {
        free(m);
        m = NULL;
    }
    return m;
}

void cc_pf_mutex_free(cc_pf_mutex *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->m);
    free(m);
}

void cc_pf_mutex_lock(cc_pf_mutex *m)
{
    pthread_mutex_lock(&m->m);
}

void cc_pf_mutex_unlock(cc_pf_mutex *m)
{
    pthread_mutex_unlock(&m->m);
}

cc_pf_cond *cc_pf_cond_new(void)
{
    cc_pf_cond *c = calloc(1, sizeof(*c));
    if (c && pthread_cond_init(&c->c, NULL) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

void cc_pf_cond_free(cc_pf_cond *c)
{
    if (!c)
        return;
    pthread_cond_destroy(&c->c);
    free(c);
}

int cc_pf_cond_wait(cc_pf_cond *c, cc_pf_mutex *m, unsigned timeout_ms)
{
    (void)timeout_ms; /* extract only waits without a timeout */
    pthread_cond_wait(&c->c, &m->m);
    return 0;
}

void cc_pf_cond_signal(cc_pf_cond *c)
{
    pthread_cond_signal(&c->c);
}

void cc_pf_cond_broadcast(cc_pf_cond *c)
{
    pthread_cond_broadcast(&c->c);
}
