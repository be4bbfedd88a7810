/* thread.c (linux): threads, mutexes, condition variables and an atomic counter over pthreads. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
    int e = pthread_create(&t->tid, NULL, trampoline, t);
    if (e != 0) {
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

static pthread_mutex_t umask_mu = PTHREAD_MUTEX_INITIALIZER;

void cc_pf_umask_lock(void)
{
    pthread_mutex_lock(&umask_mu);
}

void cc_pf_umask_unlock(void)
{
    pthread_mutex_unlock(&umask_mu);
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
    if (!c)
        return NULL;
    /* timed waits measure on the monotonic clock, immune to wall-clock jumps */
    pthread_condattr_t a;
    int ok = pthread_condattr_init(&a) == 0;
    if (ok) {
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        ok = pthread_cond_init(&c->c, &a) == 0;
        pthread_condattr_destroy(&a);
    }
    if (!ok) {
        free(c);
        return NULL;
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
    if (timeout_ms == 0) {
        pthread_cond_wait(&c->c, &m->m);
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(&c->c, &m->m, &ts) == ETIMEDOUT ? 1 : 0;
}

void cc_pf_cond_signal(cc_pf_cond *c)
{
    pthread_cond_signal(&c->c);
}

void cc_pf_cond_broadcast(cc_pf_cond *c)
{
    pthread_cond_broadcast(&c->c);
}

unsigned long cc_pf_atomic_inc(volatile unsigned long *p)
{
    return __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
}

unsigned cc_pf_ncpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

