/* source_feed.c: the producer side of a cc_source, called on the producer thread (fetch.c's
 * download, source.c's local file thread): hand over bytes (hashed on the way into the ring),
 * events and the failure, and wake the consumer. The bottom file of fetch/: fetch.c and source.c
 * call down into it; it calls only the ring and the hash. */
#include <stdlib.h>

#include "source_int.h"
#include "grow.h"

void cc_source_mark_ready(cc_source *s, int why)
{
    cc_pf_mutex_lock(s->mu);
    if (!s->ready)
        s->ready = why; /* the first reason wins: bytes before a failure are still delivered */
    cc_pf_cond_broadcast(s->changed);
    cc_pf_mutex_unlock(s->mu);
}

void cc_source_fail(cc_source *s, cudnnctl_err code, char *detail_owned)
{
    cc_pf_mutex_lock(s->mu);
    s->perr = code == CUDNNCTL_E_OK ? CUDNNCTL_E_GENERIC : code;
    free(s->pdetail);
    s->pdetail = detail_owned;
    cc_pf_mutex_unlock(s->mu);
    cc_ring_close(s->ring, 1); /* after perr is set: the consumer reads it on -1 */
    cc_source_mark_ready(s, CC_READY_FAILED);
}

void cc_source_push_event(cc_source *s, cudnnctl_event_kind kind, char *text_owned)
{
    if (!text_owned)
        return;
    cc_pf_mutex_lock(s->mu);
    if (cc_grow(&s->events, &s->cap_events, s->n_events + 1, sizeof(*s->events)) != 0) {
        cc_pf_mutex_unlock(s->mu);
        free(text_owned);
        return;
    }
    s->events[s->n_events].kind = kind;
    s->events[s->n_events].text = text_owned;
    s->n_events++;
    cc_pf_cond_broadcast(s->changed);
    cc_pf_mutex_unlock(s->mu);
    cc_ring_wake(s->ring); /* a consumer blocked in read reports it now */
}

void cc_source_received(cc_source *s, uint64_t total)
{
    cc_pf_mutex_lock(s->mu);
    s->received = total;
    cc_pf_mutex_unlock(s->mu);
    uint64_t now = cc_pf_now_ms();
    if (now - s->received_wake_ms >= 100) {
        s->received_wake_ms = now;
        cc_ring_wake(s->ring);
    }
}

int cc_source_note_part(cc_source *s, cc_pf_fd fd, char **why)
{
    cc_pf_stat_t st;
    if (cc_pf_fstat(fd, &st) != 0) {
        *why =
            cc_asprintf("cannot read the download's file %s: %s", s->path, cc_pf_last_error_text());
        return -1;
    }
    cc_pf_mutex_lock(s->mu);
    int same = !s->part_known || (s->part_dev == st.dev && s->part_ino == st.ino);
    if (!s->part_known) {
        s->part_known = 1;
        s->part_dev = st.dev;
        s->part_ino = st.ino;
    }
    cc_pf_mutex_unlock(s->mu);
    if (!same)
        *why = cc_asprintf("the download's file %s was replaced by another while it downloaded; "
                           "someone else writes the cache dir: nothing was installed. Fix: use "
                           "a cache dir only you can write (--cache-dir DIR)",
                           s->path);
    return same ? 0 : -1;
}

int cc_source_deliver(cc_source *s, const void *data, size_t len)
{
    if (cc_cancel_requested(s->ctx))
        return -1; /* the consumer sees the cancel too and stops */
    if (cc_sha256_update(s->sha, data, len) != 0)
        return -1;
    s->produced += len;
    if (!s->delivered) {
        s->delivered = 1;
        cc_source_mark_ready(s, CC_READY_DATA);
    }
    return cc_ring_write(s->ring, data, len);
}

unsigned cc_source_backoff_ms(const cc_source *s, unsigned failures)
{
    uint64_t ms = s->retry_delay_ms;
    for (unsigned i = 1; i < failures && ms < 30000; i++)
        ms *= 2;
    return ms > 30000 ? 30000 : (unsigned)ms;
}

char *cc_source_size_refused(const cc_source *s, const char *url, int64_t server_size)
{
    uint64_t manifest_size = s->expected_size;
    if (s->wheel)
        return cc_asprintf("%s is %lld bytes according to the server, but the wheel catalog "
                           "says %llu for this wheel; not downloading it. The index serves "
                           "another file under the name of NVIDIA's wheel: check the index "
                           "(--index-url), refresh the wheel catalog (cudnnctl update), or use "
                           "--source archive",
                           url, (long long)server_size, (unsigned long long)manifest_size);
    return cc_asprintf("%s is %lld bytes according to the server, but the manifest says %llu; "
                       "not downloading it. The mirror may hold a different build: check it, or "
                       "refresh the manifest (--manifest URL)",
                       url, (long long)server_size, (unsigned long long)manifest_size);
}
