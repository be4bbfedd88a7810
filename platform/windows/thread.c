/* thread.c (windows): threads (_beginthreadex), mutexes (SRWLOCK), condition variables
 * (CONDITION_VARIABLE), an atomic counter and the process id. */
#include <process.h>
#include <stdlib.h>

#include "win.h"

struct cc_pf_thread {
    HANDLE h;
    void (*fn)(void *);
    void *arg;
};

struct cc_pf_mutex {
    SRWLOCK l;
};

struct cc_pf_cond {
    CONDITION_VARIABLE c;
};

static unsigned __stdcall trampoline(void *p)
{
    cc_pf_thread *t = p;
    t->fn(t->arg);
    return 0;
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
    t->h = (HANDLE)_beginthreadex(NULL, 0, trampoline, t, 0, NULL);
    if (!t->h) {
        free(t);
        cc_w_last_error("cannot start a thread (_beginthreadex)");
        return -1;
    }
    *out = t;
    return 0;
}

void cc_pf_thread_join(cc_pf_thread *t)
{
    if (!t)
        return;
    WaitForSingleObject(t->h, INFINITE);
    CloseHandle(t->h);
    free(t);
}

static SRWLOCK umask_mu = SRWLOCK_INIT;

void cc_pf_umask_lock(void)
{
    AcquireSRWLockExclusive(&umask_mu);
}

void cc_pf_umask_unlock(void)
{
    ReleaseSRWLockExclusive(&umask_mu);
}

cc_pf_mutex *cc_pf_mutex_new(void)
{
    cc_pf_mutex *m = calloc(1, sizeof(*m));
    if (m)
        InitializeSRWLock(&m->l);
    else
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
    return m;
}

void cc_pf_mutex_free(cc_pf_mutex *m)
{
    free(m); /* SRW locks need no destruction */
}

void cc_pf_mutex_lock(cc_pf_mutex *m)
{
    AcquireSRWLockExclusive(&m->l);
}

void cc_pf_mutex_unlock(cc_pf_mutex *m)
{
    ReleaseSRWLockExclusive(&m->l);
}

cc_pf_cond *cc_pf_cond_new(void)
{
    cc_pf_cond *c = calloc(1, sizeof(*c));
    if (c)
        InitializeConditionVariable(&c->c);
    else
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
    return c;
}

void cc_pf_cond_free(cc_pf_cond *c)
{
    free(c);
}

int cc_pf_cond_wait(cc_pf_cond *c, cc_pf_mutex *m, unsigned timeout_ms)
{
    if (!timeout_ms) {
        SleepConditionVariableSRW(&c->c, &m->l, INFINITE, 0);
        return 0;
    }
    /* Windows timers may fire up to a clock tick early: wait out the rest of the deadline */
    uint64_t deadline = cc_pf_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = cc_pf_now_ms();
        if (now >= deadline)
            return 1;
        if (SleepConditionVariableSRW(&c->c, &m->l, (DWORD)(deadline - now), 0))
            return 0;
        if (GetLastError() != ERROR_TIMEOUT)
            return 0;
    }
}

void cc_pf_cond_signal(cc_pf_cond *c)
{
    WakeConditionVariable(&c->c);
}

void cc_pf_cond_broadcast(cc_pf_cond *c)
{
    WakeAllConditionVariable(&c->c);
}

unsigned long cc_pf_atomic_inc(volatile unsigned long *p)
{
    /* unsigned long is 32 bits on Windows (LLP64): InterlockedIncrement's LONG */
    return (unsigned long)InterlockedIncrement((volatile LONG *)p);
}

unsigned cc_pf_ncpu(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (unsigned)n : 1u;
}

