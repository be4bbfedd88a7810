/* fetch.c: the download producer thread: check a resumable .part against its prefix record and
 * re-hash it, then GET the rest through the transport with bounded retries and exponential
 * back-off, checking the announced size before the body, hashing and writing the cache part,
 * and handing bytes to the consumer. A download refused for its content discards its part. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_ranges.h"

#define MIB (1024u * 1024u)
#define RECORD_EVERY (8u * MIB) /* the prefix record is rewritten after this many new bytes */

typedef struct {
    cc_source *s;
    cc_pf_fd fd;   /* the part, open for writing at offset `have` */
    uint64_t have; /* bytes hashed, written and delivered */
    uint64_t skip; /* body bytes to drop (server ignored our Range) */
    const char *url;
    int discard;          /* refused for its content: the part must not be resumed */
    uint64_t recorded_at; /* `have` when the prefix record was last written */
} dl;

/* ---- the part's prefix record: PART.prefix = "<length> <SHA-256 of the first length bytes>".
 * A part is resumed only up to a length whose digest its bytes still have; without a record
 * (a crash before the first one, an old cache) or with a wrong one it starts again. */

static char *record_path(const cc_source *s)
{
    return cc_asprintf("%s.prefix", s->path);
}

static void write_record(dl *d)
{
    cc_source *s = d->s;
    char hex[65], *path = record_path(s), *text = NULL;
    if (path && cc_sha256_peek_hex(s->sha, hex) == 0 &&
        (text = cc_asprintf("%llu %s\n", (unsigned long long)d->have, hex)) != NULL) {
        /* not synced: a torn record fails to parse and the part starts again, never worse */
        cc_pf_fd fd = cc_sys_open(s->ctx, path, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
        if (fd >= 0) {
            if (cc_pf_truncate(fd, 0) == 0)
                (void)cc_sys_write_all(s->ctx, fd, text, strlen(text));
            cc_sys_close(s->ctx, fd);
        }
        d->recorded_at = d->have;
    }
    free(text);
    free(path);
}

/* The length of the part's prefix that matches its record (0: none can be trusted). */
static uint64_t trusted_prefix(cc_source *s, uint64_t part_size)
{
    char *path = record_path(s), *text = NULL, hex[65];
    unsigned long long len = 0;
    char want[65] = {0};
    uint64_t ok = 0;
    if (path && cc_sys_read_trusted(s->ctx, path, 256, &text, NULL) == 0 &&
        sscanf(text, "%llu %64s", &len, want) == 2 && len > 0 && len <= part_size &&
        cc_sha256_is_hex(want)) {
        cc_sha256 *h = cc_sha256_new();
        unsigned char *buf = malloc(64 * 1024);
        cc_pf_fd in = cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
        uint64_t got = 0;
        long long n = 0;
        while (h && buf && in >= 0 && got < len &&
               (n = cc_sys_read(s->ctx, in, buf,
                                len - got < 65536 ? (size_t)(len - got) : 65536)) > 0) {
            cc_sha256_update(h, buf, (size_t)n);
            got += (uint64_t)n;
        }
        if (got == len && h && cc_sha256_final_hex(h, hex) == 0 && strcmp(hex, want) == 0)
            ok = len;
        if (in >= 0)
            cc_sys_close(s->ctx, in);
        free(buf);
        cc_sha256_free(h);
    }
    cc_clear_error(s->ctx);
    free(text);
    free(path);
    return ok;
}

/* Drop the part and its record (a download refused for its content). */
static void discard_part(dl *d)
{
    cc_source *s = d->s;
    char *rec = record_path(s);
    if (d->fd >= 0) {
        cc_sys_close(s->ctx, d->fd);
        d->fd = -1;
    }
    if (s->cache.resumable) {
        char *side = cc_ranges_side_path(s->path); /* what a ranged download kept, too */
        cc_sys_unlink(s->ctx, s->path);
        if (rec)
            cc_sys_unlink(s->ctx, rec);
        if (side)
            cc_sys_unlink(s->ctx, side);
        free(side);
    }
    free(rec);
}

static cudnnctl_err on_head(void *user, const cc_transport_head *h, char **why)
{
    dl *d = user;
    cc_source *s = d->s;
    uint64_t start = h->status == 206 ? (uint64_t)h->range_start : 0;
    if (start > d->have) {
        *why = cc_asprintf("%s answered with bytes from offset %llu, but %llu was asked for; the "
                           "server mishandles ranges — delete %s and run again",
                           h->final_url, (unsigned long long)start, (unsigned long long)d->have,
                           s->path);
        d->discard = 1;
        return CUDNNCTL_E_NETWORK;
    }
    d->skip = d->have - start;
    int64_t full = h->status == 206 ? h->total_size : h->content_length;
    if (s->expected_size && full >= 0 && (uint64_t)full != s->expected_size) {
        *why = cc_source_size_refused(s, h->final_url, full);
        d->discard = 1;
        return CUDNNCTL_E_SIZE_MISMATCH;
    }
    return CUDNNCTL_E_OK;
}

static cudnnctl_err on_data(void *user, const void *data, size_t len, char **why)
{
    dl *d = user;
    cc_source *s = d->s;
    const char *p = data;
    if (d->skip) {
        size_t k = len < d->skip ? len : (size_t)d->skip;
        d->skip -= k;
        p += k;
        len -= k;
        if (len == 0)
            return CUDNNCTL_E_OK;
    }
    if (s->expected_size && d->have + len > s->expected_size) {
        *why = cc_asprintf("%s sent more than the %llu bytes the manifest announces; the mirror "
                           "may hold a different build: check it, or refresh the manifest",
                           d->url, (unsigned long long)s->expected_size);
        d->discard = 1;
        return CUDNNCTL_E_SIZE_MISMATCH;
    }
    if (cc_sys_write_all(s->ctx, d->fd, p, len) != 0) {
        *why = cc_asprintf("cannot write the download to %s: %s", s->path, cc_pf_last_error_text());
        return cc_pf_last_error();
    }
    if (cc_source_deliver(s, p, len) != 0) {
        *why = cc_strdup("download cancelled");
        return CUDNNCTL_E_INTERRUPTED;
    }
    d->have += len;
    cc_source_received(s, d->have);
    if (s->cache.resumable && d->have - d->recorded_at >= RECORD_EVERY)
        write_record(d);
    return CUDNNCTL_E_OK;
}

static int is_cancelled(void *user)
{
    dl *d = user;
    return cc_ring_cancelled(d->s->ring);
}

/* Feed the bytes an earlier run left in the part through the hash and to the consumer. */
static cudnnctl_err replay_part(dl *d, uint64_t len, char **why)
{
    cc_source *s = d->s;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    size_t cap = 64 * 1024;
    unsigned char *buf = malloc(cap);
    cc_pf_fd in = cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
    if (!buf || in < 0) {
        *why = cc_asprintf("cannot read the partial download %s: %s", s->path,
                           buf ? cc_pf_last_error_text() : "out of memory");
        rc = buf ? cc_pf_last_error() : CUDNNCTL_E_NOMEM;
        goto out;
    }
    while (d->have < len) {
        size_t want = len - d->have < cap ? (size_t)(len - d->have) : cap;
        long long n = cc_sys_read(s->ctx, in, buf, want);
        if (n <= 0) {
            *why = cc_asprintf("cannot read the partial download %s: %s", s->path,
                               n < 0 ? cc_pf_last_error_text() : "shorter than expected");
            rc = n < 0 ? cc_pf_last_error() : CUDNNCTL_E_IO;
            goto out;
        }
        if (cc_source_deliver(s, buf, (size_t)n) != 0) {
            *why = cc_strdup("download cancelled");
            rc = CUDNNCTL_E_INTERRUPTED;
            goto out;
        }
        d->have += (uint64_t)n;
        cc_source_received(s, d->have);
    }
out:
    if (in >= 0)
        cc_sys_close(s->ctx, in);
    free(buf);
    return rc;
}

/* Open the part for writing; returns how many bytes of it are reusable. */
static cudnnctl_err open_part(dl *d, uint64_t *reuse, char **why)
{
    cc_source *s = d->s;
    cc_pf_stat_t st;
    *reuse = 0;
    /* without a known size a complete part could not be told from a partial one (the server
     * would answer 416), so only sized downloads resume across runs */
    if (s->cache.resumable && s->expected_size && cc_pf_stat(s->path, &st) == 0 && st.exists &&
        st.is_reg && st.size <= s->expected_size) {
        *reuse = trusted_prefix(s, st.size);
        if (*reuse < st.size)
            cc_source_push_event(s, CUDNNCTL_EV_STEP,
                                 cc_asprintf("the partial download %s: %llu of its %llu bytes "
                                             "match its prefix record; the rest is downloaded "
                                             "again",
                                             s->path, (unsigned long long)*reuse,
                                             (unsigned long long)st.size));
    }
    d->fd = cc_sys_open(s->ctx, s->path, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
    /* truncate only a part that has bytes we cannot use: on ext4 a truncated-then-rewritten
     * file is flushed at close (auto_da_alloc), which cost 0.7 s for 300 MB */
    int must_cut = cc_pf_stat(s->path, &st) == 0 && st.exists && st.size > *reuse;
    if (d->fd < 0 || (must_cut && cc_pf_truncate(d->fd, *reuse) != 0) ||
        cc_pf_seek(d->fd, *reuse) != 0) {
        *why = cc_asprintf("cannot write the download to %s: %s; free some space or use "
                           "--cache-dir DIR",
                           s->path, cc_pf_last_error_text());
        return cc_pf_last_error();
    }
    if (cc_source_note_part(s, d->fd, why) != 0)
        return CUDNNCTL_E_UNTRUSTED;
    return CUDNNCTL_E_OK;
}

/* GET until the whole file is there, the failure is permanent, or the tries are used up. */
static cudnnctl_err transfer(dl *d, char **why)
{
    cc_source *s = d->s;
    cc_transport *t = s->tops->open();
    if (!t) {
        *why = cc_asprintf("cannot start the %s transport", s->tops->name);
        return CUDNNCTL_E_NETWORK;
    }
    cudnnctl_err rc = CUDNNCTL_E_OK;
    unsigned failures = 0, attempts = 0;
    for (;;) {
        cc_transport_req req = {d->url,
                                d->have,
                                s->cacert,
                                s->low_speed_bytes,
                                s->low_speed_secs,
                                s->connect_timeout_secs,
                                5,
                                on_head,
                                on_data,
                                is_cancelled,
                                d,
                                0,
                                s->ctx->proxy,
                                s->what,
                                s->via_mirror,
                                s->accept};
        cc_transport_res res;
        uint64_t before = d->have;
        d->skip = 0;
        attempts++;
        s->tops->get(t, &req, &res);
        if (res.code == CUDNNCTL_E_OK && s->expected_size && d->have < s->expected_size) {
            /* a clean end that is still short: the connection was cut without telling us */
            res.code = CUDNNCTL_E_NETWORK;
            res.retryable = 1;
            res.detail =
                cc_asprintf("%s ended after %llu of %llu bytes", d->url,
                            (unsigned long long)d->have, (unsigned long long)s->expected_size);
        }
        if (res.code == CUDNNCTL_E_OK) {
            free(res.detail);
            break;
        }
        /* consecutive failures count; an attempt that moved a MiB or more starts the count
         * again (a flaky link still finishes), bounded overall by attempts */
        if (d->have - before >= MIB)
            failures = 0;
        failures++;
        if (!res.retryable || failures >= s->max_tries || attempts >= 8 * s->max_tries ||
            cc_ring_cancelled(s->ring)) {
            rc = res.code;
            if (res.retryable && failures >= s->max_tries)
                *why = cc_asprintf("%s (gave up after %u tries)", res.detail ? res.detail : "",
                                   attempts);
            else
                *why = res.detail ? cc_strdup(res.detail) : NULL;
            free(res.detail);
            break;
        }
        unsigned ms = cc_source_backoff_ms(s, failures);
        cc_source_push_event(s, CUDNNCTL_EV_RETRY,
                             cc_asprintf("%s; retrying in %.1f s (try %u of %u), resuming at byte "
                                         "%llu",
                                         res.detail ? res.detail : "transfer failed", ms / 1000.0,
                                         failures + 1, s->max_tries, (unsigned long long)d->have));
        free(res.detail);
        if (cc_ring_sleep(s->ring, ms)) {
            rc = CUDNNCTL_E_INTERRUPTED;
            *why = cc_strdup("download cancelled");
            break;
        }
    }
    s->tops->close(t);
    return rc;
}

static void finish(cc_source *s, dl *dd, cudnnctl_err rc, char *why);

void cc_fetch_thread(void *arg)
{
    cc_source *s = arg;
    dl d = {s, -1, 0, 0, s->url, 0, 0};
    char *why = NULL;
    uint64_t reuse = 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int fallback = 0;
    if (cc_ranges_eligible(s)) {
        rc = cc_fetch_ranges(s, &d.have, &fallback, &why);
        if (!fallback) {
            /* refused for its content (the size the server gives is not the manifest's), as
             * on_head does for one stream */
            d.discard = rc == CUDNNCTL_E_SIZE_MISMATCH;
            finish(s, &d, rc, why);
            return;
        }
        free(why); /* one stream from the in-order prefix, which was handed over already */
        why = NULL;
    } else {
        cc_ranges_settle(s, s->expected_size);
    }
    if (fallback) {
        /* the part is cut to d.have, and those bytes went out through the ranges already */
        d.fd = cc_sys_open(s->ctx, s->path, CC_PF_O_WRONLY | CC_PF_O_CREAT, 0644);
        if (d.fd < 0 || cc_pf_seek(d.fd, d.have) != 0) {
            why = cc_asprintf("cannot write the download to %s: %s", s->path,
                              cc_pf_last_error_text());
            rc = cc_pf_last_error();
        } else if (cc_source_note_part(s, d.fd, &why) != 0)
            rc = CUDNNCTL_E_UNTRUSTED;
    } else {
        rc = open_part(&d, &reuse, &why);
    }
    if (rc == CUDNNCTL_E_OK && reuse > 0) {
        cc_source_push_event(s, CUDNNCTL_EV_STEP,
                             cc_asprintf("resuming the download of %s after %llu bytes", s->url,
                                         (unsigned long long)reuse));
        rc = replay_part(&d, reuse, &why);
        d.recorded_at = reuse;
    }
    if (rc == CUDNNCTL_E_OK && !(s->expected_size && d.have == s->expected_size))
        rc = transfer(&d, &why);
    finish(s, &d, rc, why);
}

/* Close the part, finalise the digest, and tell the consumer how it ended. */
static void finish(cc_source *s, dl *dd, cudnnctl_err rc, char *why)
{
    dl d = *dd;
    /* No fsync of the cache file: a blob is re-hashed on every hit, so one torn by a crash is
     * caught and quarantined, and syncing 300+ MB would cost seconds on every download. */
    if (d.discard)
        discard_part(&d); /* refused for its content: nothing of it may be resumed */
    else if (s->cache.resumable && d.have > d.recorded_at)
        write_record(&d);
    if (d.fd >= 0)
        cc_sys_close(s->ctx, d.fd);
    if (rc == CUDNNCTL_E_OK && cc_sha256_final_hex(s->sha, s->hex) != 0) {
        rc = CUDNNCTL_E_GENERIC;
        why = cc_strdup("SHA-256 finalisation failed");
    }
    if (rc == CUDNNCTL_E_NO_SPACE) {
        /* a rerun would only fill the disk again: say what makes room */
        char *dir = cc_cache_dir(s->ctx);
        char *t = cc_asprintf("%s; the download cache %s has no room left: `cudnnctl cache "
                              "clean` removes the downloads it keeps (`cudnnctl cache list` "
                              "shows them), or use --cache-dir DIR on a disk with room",
                              why ? why : cudnnctl_strerror(rc), dir ? dir : "");
        free(dir);
        if (t) {
            free(why);
            why = t;
        }
    } else if (rc != CUDNNCTL_E_OK) {
        if (d.have > 0 && s->cache.resumable && !d.discard) {
            char *t =
                cc_asprintf("%s; the %llu bytes already downloaded are kept in %s and the "
                            "next run resumes from there",
                            why ? why : cudnnctl_strerror(rc), (unsigned long long)d.have, s->path);
            if (t) {
                free(why);
                why = t;
            }
        }
    }
    if (rc != CUDNNCTL_E_OK) {
        cc_source_fail(s, rc, why);
        return;
    }
    free(why);
    cc_ring_close(s->ring, 0);
    cc_source_mark_ready(s, CC_READY_END);
}
