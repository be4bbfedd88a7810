/* source.c: cc_source — open a local file, a cache blob or a download; the consumer side of the
 * ring (reads, progress, events); verification, cache commit and quarantine at the end. What the
 * producer threads call to hand over bytes, events and failures: source_feed.c. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_ranges.h"

#define RING_BYTES (4u * 1024u * 1024u)
/* stays in L2 between read, hash and copy: 256 KiB+ is ~1.5x slower */
#define CHUNK (64u * 1024u)

/* Local file or cache blob: read, hash, hand over. */
static void file_thread(void *arg)
{
    cc_source *s = arg;
    char *why = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    unsigned char *buf = malloc(CHUNK);
    /* a private copy is open already (source_keep.c) */
    cc_pf_fd fd = s->file_fd >= 0 ? s->file_fd : cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
    s->file_fd = -1;
    if (!buf || fd < 0) {
        rc = buf ? cc_pf_last_error() : CUDNNCTL_E_NOMEM;
        why = cc_asprintf("cannot read %s: %s", s->path,
                          buf ? cc_pf_last_error_text() : "out of memory");
        goto out;
    }
    for (;;) {
        long long n = cc_sys_read(s->ctx, fd, buf, CHUNK);
        if (n < 0) {
            rc = cc_pf_last_error();
            why = cc_asprintf("cannot read %s: %s", s->path, cc_pf_last_error_text());
            goto out;
        }
        if (n == 0)
            break;
        if (cc_source_deliver(s, buf, (size_t)n) != 0) {
            rc = CUDNNCTL_E_INTERRUPTED;
            why = cc_strdup("reading cancelled");
            goto out;
        }
    }
    if (cc_sha256_final_hex(s->sha, s->hex) != 0) {
        rc = CUDNNCTL_E_GENERIC;
        why = cc_strdup("SHA-256 finalisation failed");
    }
out:
    if (rc == CUDNNCTL_E_OK && s->keep_file)
        s->file_fd = fd; /* the consumer takes it after the join (cc_source_take_file) */
    else if (fd >= 0)
        cc_sys_close(s->ctx, fd);
    free(buf);
    if (rc != CUDNNCTL_E_OK) {
        cc_source_fail(s, rc, why);
        return;
    }
    cc_ring_close(s->ring, 0);
    cc_source_mark_ready(s, CC_READY_END);
}

/* ---- URLs and paths ------------------------------------------------------------------------- */

static int has_scheme(const char *url, const char *scheme)
{
    size_t n = strlen(scheme);
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)url[i]) != scheme[i])
            return 0;
    return 1;
}

int cc_source_is_local(const char *url)
{
    return !strstr(url, "://") || has_scheme(url, "file://");
}

/* file:///abs/path or file://localhost/abs/path → the path, %XX decoded (malloc'd). */
static char *file_url_path(const char *url)
{
    if (!has_scheme(url, "file://"))
        return cc_strdup(url);
    const char *p = url + 7;
    if (has_scheme(p, "localhost/"))
        p += 9;
    else if (*p != '/')
        return NULL; /* file://otherhost/... */
    char *out = malloc(strlen(p) + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    for (; *p; p++) {
        if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hx[3] = {p[1], p[2], 0};
            out[k++] = (char)strtol(hx, NULL, 16);
            p += 2;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    /* file:///C:/x names the drive path C:/x */
    if (out[0] == '/' && isalpha((unsigned char)out[1]) && out[2] == ':')
        memmove(out, out + 1, k);
    return out;
}

char *cc_source_join(const char *base, const char *relative_path)
{
    while (*relative_path == '/')
        relative_path++;
    if (strstr(base, "://")) {
        size_t n = strlen(base);
        while (n > 0 && base[n - 1] == '/')
            n--;
        return cc_asprintf("%.*s/%s", (int)n, base, relative_path);
    }
    return cc_path_join(base, relative_path);
}

/* ---- consumer side -------------------------------------------------------------------------- */

/* Emit queued events on the caller's thread; callbacks never run on the producer thread. */
static void emit_pending(cc_source *s)
{
    cc_pf_mutex_lock(s->mu);
    cc_source_event *ev = s->events;
    size_t n = s->n_events;
    s->events = NULL;
    s->n_events = s->cap_events = 0;
    cc_pf_mutex_unlock(s->mu);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind == CUDNNCTL_EV_RETRY)
            cc_log(s->ctx, CUDNNCTL_LOG_WARN, "%s", ev[i].text);
        else
            cc_log(s->ctx, CUDNNCTL_LOG_INFO, "%s", ev[i].text);
        cc_event(s->ctx, ev[i].kind, ev[i].text, NULL);
        free(ev[i].text);
    }
    free(ev);
}

static void report_progress(cc_source *s, int force)
{
    uint64_t now = cc_pf_now_ms();
    if (!force && now - s->last_progress_ms < 100)
        return;
    s->last_progress_ms = now;
    cc_pf_mutex_lock(s->mu);
    uint64_t got = s->received;
    cc_pf_mutex_unlock(s->mu);
    uint64_t done = got > s->consumed ? got : s->consumed;
    if (s->expected_size && done > s->expected_size)
        done = s->expected_size;
    cc_progress(s->ctx, s->kind == CC_SRC_DOWNLOAD ? "download" : "read", done, s->expected_size);
}

/* Move the producer's failure into the context. */
static cudnnctl_err take_failure(cc_source *s)
{
    cc_pf_mutex_lock(s->mu);
    cudnnctl_err e = s->perr;
    char *d = s->pdetail;
    s->pdetail = NULL;
    cc_pf_mutex_unlock(s->mu);
    s->failed = 1;
    if (e == CUDNNCTL_E_OK)
        e = CUDNNCTL_E_GENERIC;
    cc_set_error(s->ctx, e, "cc_source_read", __FILE__, __LINE__, "%s",
                 d ? d : cudnnctl_strerror(e));
    free(d);
    return e;
}

/* Spill mode: the decoder fell more than the ring behind the download; the next bytes are read
 * back from the part the download thread wrote them to (page cache, most likely). */
static long long read_spilled(cc_source *s, void *buf, size_t len, uint64_t off, uint64_t avail)
{
    if (s->spill_fd < 0) {
        s->spill_fd = cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
        s->spill_pos = 0;
    }
    long long n = -1;
    if (s->spill_fd >= 0 && (s->spill_pos == off || cc_pf_seek(s->spill_fd, off) == 0))
        n = cc_sys_read(s->ctx, s->spill_fd, buf, avail < len ? (size_t)avail : len);
    if (n <= 0) {
        s->failed = 1;
        s->perr = n < 0 ? cc_pf_last_error() : CUDNNCTL_E_IO;
        if (s->perr == CUDNNCTL_E_OK)
            s->perr = CUDNNCTL_E_IO;
        cc_set_error(s->ctx, s->perr, __func__, __FILE__, __LINE__,
                     "cannot read the download back from %s at byte %llu: %s; check the cache "
                     "dir's disk (or use --cache-dir DIR)",
                     s->path, (unsigned long long)off,
                     n < 0 ? cc_pf_last_error_text() : "the file is shorter than what was written");
        return -1;
    }
    s->spill_pos = off + (uint64_t)n;
    cc_ring_read_from_file(s->ring, (uint64_t)n);
    return n;
}

static void close_spill(cc_source *s)
{
    if (s->spill_fd >= 0)
        cc_sys_close(s->ctx, s->spill_fd);
    s->spill_fd = -1;
}

/* discard: the caller only wants the stream to end (cc_source_finish); bytes that are only in
 * the part need not be read back. */
static long long source_read(cc_source *s, void *buf, size_t len, int discard)
{
    if (s->failed) {
        cudnnctl_err e = s->perr ? s->perr : CUDNNCTL_E_GENERIC;
        if (s->ctx->err.code != e)
            CC_ERR(s->ctx, e, "the archive source failed earlier");
        return -1;
    }
    if (len == 0)
        return 0;
    for (;;) {
        if (cc_cancel_requested(s->ctx)) {
            s->failed = 1;
            s->perr = cc_cancel_check(s->ctx, "the download");
            return -1;
        }
        uint64_t off = 0, avail = 0;
        long long n = cc_ring_read_ex(s->ring, buf, len, &off, &avail);
        emit_pending(s);
        if (n == -2) {
            report_progress(s, 0); /* woken: bytes arrived out of order, or events */
            continue;
        }
        if (n == CC_RING_IN_FILE && discard) {
            uint64_t k = avail < len ? avail : len;
            cc_ring_read_from_file(s->ring, k);
            n = k > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)k;
        } else if (n == CC_RING_IN_FILE && (n = read_spilled(s, buf, len, off, avail)) < 0) {
            return -1;
        }
        if (n < 0) {
            take_failure(s);
            return -1;
        }
        if (n == 0)
            close_spill(s); /* before the part is renamed into the cache (Windows) */
        s->consumed += (uint64_t)n;
        report_progress(s, n == 0);
        return n;
    }
}

long long cc_source_read(cc_source *s, void *buf, size_t len)
{
    return source_read(s, buf, len, 0);
}

long long cc_source_skip(cc_source *s, void *scratch, size_t len)
{
    return source_read(s, scratch, len, 1);
}

int cc_source_has_sha256(const cc_source *s)
{
    return s->have_expected;
}

cudnnctl_err cc_source_status(const cc_source *s)
{
    return s->failed ? (s->perr ? s->perr : CUDNNCTL_E_GENERIC) : CUDNNCTL_E_OK;
}

const char *cc_source_part(const cc_source *s)
{
    return s->kind == CC_SRC_DOWNLOAD && !s->finished && !s->failed ? s->path : NULL;
}

int cc_source_part_is(cc_source *s, cc_pf_fd fd)
{
    cc_pf_stat_t st;
    if (s->kind != CC_SRC_DOWNLOAD || cc_pf_fstat(fd, &st) != 0)
        return 0;
    cc_pf_mutex_lock(s->mu);
    int same = s->part_known && s->part_dev == st.dev && s->part_ino == st.ino;
    cc_pf_mutex_unlock(s->mu);
    return same;
}

const char *cc_source_path(const cc_source *s)
{
    return s->finished ? s->final_path : NULL;
}

/* ---- open ----------------------------------------------------------------------------------- */

static cudnnctl_err start_thread(cc_source *s, void (*fn)(void *))
{
    if (cc_pf_thread_start(&s->thread, fn, s) != 0)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_GENERIC, "cannot start the reader thread: %s",
                   cc_pf_last_error_text());
    /* wait for the first bytes (or the failure), reporting events meanwhile */
    cc_pf_mutex_lock(s->mu);
    while (!s->ready) {
        if (s->n_events) {
            cc_pf_mutex_unlock(s->mu);
            emit_pending(s);
            cc_pf_mutex_lock(s->mu);
            continue;
        }
        cc_pf_cond_wait(s->changed, s->mu, 0);
    }
    int failed_early = s->ready == CC_READY_FAILED;
    cc_pf_mutex_unlock(s->mu);
    emit_pending(s);
    if (failed_early) {
        /* nothing was delivered when the failure came first: report it from open */
        cc_pf_thread_join(s->thread);
        s->thread = NULL;
        return take_failure(s);
    }
    return CUDNNCTL_E_OK;
}

/* A cached blob of the right size → read it (it is still re-hashed); a wrong size → quarantine
 * it and download again. 1 = hit. */
static int try_cache(cc_source *s)
{
    char *blob = cc_cache_blob_path(s->ctx, s->expected);
    cc_pf_stat_t st;
    if (!blob || cc_pf_stat(blob, &st) != 0 || !st.exists || !st.is_reg) {
        free(blob);
        return 0;
    }
    if (s->expected_size && st.size != s->expected_size) {
        char *q = NULL;
        cc_cache_quarantine(s->ctx, blob, "wrong-size", cc_path_base(s->url), &q);
        char *t = cc_asprintf("the cached copy %s has %llu bytes instead of %llu; moved to %s, "
                              "downloading again",
                              blob, (unsigned long long)st.size,
                              (unsigned long long)s->expected_size, q ? q : "(not moved)");
        cc_event(s->ctx, CUDNNCTL_EV_WARNING, t, q);
        free(t);
        free(q);
        free(blob);
        cc_clear_error(s->ctx);
        return 0;
    }
    s->path = blob;
    cc_event(s->ctx, CUDNNCTL_EV_CACHE_HIT, s->expected, blob);
    return 1;
}

static cudnnctl_err open_local(cc_source *s)
{
    char *p = file_url_path(s->url);
    if (!p)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_USAGE,
                   "cannot use %s: only file:///absolute/path file URLs are understood", s->url);
    s->path = p;
    cc_pf_stat_t st;
    if (cc_pf_stat(p, &st) != 0 || !st.exists)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_NOT_FOUND,
                   "archive %s not found; check the path (or the --mirror directory)", p);
    if (!st.is_reg)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_USAGE, "archive %s is not a regular file", p);
    if (s->expected_size && st.size != s->expected_size)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_SIZE_MISMATCH,
                   "%s has %llu bytes but the manifest says %llu; it is a different file (an "
                   "incomplete copy, or another build): fetch it again or refresh the manifest",
                   p, (unsigned long long)st.size, (unsigned long long)s->expected_size);
    s->kind = CC_SRC_FILE;
    /* another user could change it while (or after) it is hashed: read a private copy */
    if (cc_pf_trust_check(p, CC_PF_TRUST_OBJECT) != 0) {
        char *why = cc_strdup(cc_pf_last_error_text());
        cudnnctl_err rc = why ? cc_source_private_copy(s, why)
                              : CC_ERR(s->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(why);
        if (rc != CUDNNCTL_E_OK)
            return rc;
    }
    return start_thread(s, file_thread);
}

static unsigned dflt(unsigned v, unsigned d)
{
    return v ? v : d;
}

/* s from the options: what to fetch and check, the transport and its limits (defaults for the
 * zeros), the ring and the hash. 0, or -1 when out of memory (s is then closed by the caller). */
static int source_init(cc_source *s, cudnnctl_ctx *ctx, const cc_source_opts *o)
{
    s->ctx = ctx;
    s->cache.lock_fd = -1;
    s->spill_fd = -1;
    s->file_fd = -1;
    s->keep_file = o->keep_file;
    s->url = cc_strdup(o->url);
    /* the context's CA bundle serves every download without its own (manifests too) */
    const char *cacert = o->cacert ? o->cacert : ctx->cacert;
    s->cacert = cacert ? cc_strdup(cacert) : NULL;
    s->expected_size = o->expected_size;
    if (o->expected_sha256) {
        s->have_expected = 1;
        for (int i = 0; i < 64; i++)
            s->expected[i] = (char)tolower((unsigned char)o->expected_sha256[i]);
    }
    s->low_speed_bytes = dflt(o->low_speed_bytes, 1024);
    s->low_speed_secs = dflt(o->low_speed_secs, 30);
    s->connect_timeout_secs = dflt(o->connect_timeout_secs, 30);
    s->max_tries = dflt(o->max_tries, 4);
    s->retry_delay_ms = dflt(o->retry_delay_ms, 1000);
    s->tops = o->transport ? o->transport : cc_transport_curl();
    s->connections = o->connections > 16 ? 16 : o->connections;
    s->piece_bytes = o->piece_bytes;
    s->what = o->what;
    s->accept = o->accept;
    s->via_mirror = o->via_mirror;
    s->sha256_from_user = o->sha256_from_user;
    s->wheel = o->wheel;
    s->ring = cc_ring_new(o->ring_bytes ? o->ring_bytes : RING_BYTES);
    s->sha = cc_sha256_new();
    s->mu = cc_pf_mutex_new();
    s->changed = cc_pf_cond_new();
    return !s->url || (cacert && !s->cacert) || !s->ring || !s->sha || !s->mu || !s->changed
               ? -1
               : 0;
}

cudnnctl_err cc_source_open(cudnnctl_ctx *ctx, const cc_source_opts *o, cc_source **out)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    *out = NULL;
    if (!o || !o->url || !*o->url)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "no archive URL or path given");
    if (o->expected_sha256 && !cc_sha256_is_hex(o->expected_sha256))
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "'%s' is not a SHA-256 (64 hex digits)",
                   o->expected_sha256);
    if (!o->expected_sha256 && !o->insecure_skip_verify)
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_HASH,
                   "no SHA-256 is known for %s; pass --sha256 HEX (from NVIDIA's manifest or "
                   "the mirror's), or --insecure-skip-verify to take the file unverified",
                   o->url);
    cc_source *s = calloc(1, sizeof(*s));
    if (!s)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (source_init(s, ctx, o) != 0) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (cc_source_is_local(s->url)) {
        rc = open_local(s);
        goto out;
    }
    if (!has_scheme(s->url, "http://") && !has_scheme(s->url, "https://")) {
        rc = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                    "cannot download %s: only http://, https://, file:// and local paths work",
                    s->url);
        goto out;
    }
    if (o->use_cache && s->have_expected && try_cache(s)) {
        s->kind = CC_SRC_CACHE;
        rc = start_thread(s, file_thread);
        goto out;
    }
    s->kind = CC_SRC_DOWNLOAD;
    /* every downloaded byte lands in the part before it is handed over: the network never
     * waits for the decoder (a local file or cache blob keeps the blocking ring, so that the
     * bytes decoded are the very bytes hashed) */
    if (o->read_from_part) { /* a ring of one byte: every write spills */
        cc_ring_free(s->ring);
        if (!(s->ring = cc_ring_new(1))) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    }
    cc_ring_enable_spill(s->ring);
    if (o->read_from_part) /* the zip scanner runs ahead of the bytes: woken per MiB */
        cc_ring_set_batch(s->ring, 1u << 20);
    /* without the cache a download still lands in the cache dir (zip extraction needs the file)
     * but under a private name, and it is removed again at close */
    rc = cc_cache_entry_open(ctx, o->use_cache && s->have_expected ? s->expected : NULL, &s->cache);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    s->path = cc_strdup(s->cache.part);
    if (!s->path) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    rc = start_thread(s, cc_fetch_thread);
out:
    if (rc != CUDNNCTL_E_OK) {
        cc_source_close(s);
        return rc;
    }
    *out = s;
    return CUDNNCTL_E_OK;
}

/* ---- finish / close ------------------------------------------------------------------------- */

/* The bytes did not match: move them aside (ours only) and say what to do. */
static cudnnctl_err mismatch(cc_source *s, int hash_bad)
{
    char *q = NULL, *fate = NULL;
    if (s->kind == CC_SRC_FILE)
        fate = cc_asprintf("the file %s was left where it is", s->path);
    else if (cc_cache_quarantine(s->ctx, s->path, s->hex, cc_path_base(s->url), &q) ==
             CUDNNCTL_E_OK)
        fate = cc_asprintf("the bytes were moved to the quarantine: %s", q);
    else
        fate = cc_asprintf("moving the bytes to the quarantine failed too; they are still in %s",
                           s->path);
    char *own = NULL; /* the user's --sha256 was wrong: "pass --sha256" is no fix then */
    if (s->sha256_from_user && hash_bad && s->kind != CC_SRC_CACHE)
        own = cc_asprintf("Nothing was installed. The --sha256 given is not this file's: check "
                          "the value (copy it from NVIDIA's manifest, or `sha256sum` the file); "
                          "if this is the file you meant, its SHA-256 is %s (--sha256 %s).",
                          s->hex, s->hex);
    const char *advice =
        own ? own
        : s->kind == CC_SRC_CACHE
            ? "The cached copy was corrupt: run again to download a fresh one."
        : s->wheel
            ? "Nothing was installed. The index serves other bytes under the name of NVIDIA's "
              "wheel: check the index (--index-url, or pip's: python3 -m pip config list), "
              "refresh the wheel catalog (cudnnctl update), or use --source archive."
            : "Nothing was installed. Refresh the manifest and fetch again, check that the "
              "mirror serves the same file as NVIDIA, or, if you know this file is the right "
              "one, pass --sha256 with the hash it has.";
    cudnnctl_err code = hash_bad ? CUDNNCTL_E_HASH_MISMATCH : CUDNNCTL_E_SIZE_MISMATCH;
    cc_set_error(s->ctx, code, __func__, __FILE__, __LINE__,
                 "%s of %s does not match: expected SHA-256 %s (%llu bytes), got %s (%llu "
                 "bytes); %s. %s",
                 hash_bad ? "SHA-256" : "size", s->url, s->have_expected ? s->expected : "-",
                 (unsigned long long)s->expected_size, s->hex, (unsigned long long)s->produced,
                 fate ? fate : "", advice);
    free(q);
    free(fate);
    free(own);
    s->failed = 1;
    s->perr = code;
    return code;
}

cudnnctl_err cc_source_finish(cc_source *s, char sha256_hex[65], uint64_t *size)
{
    if (s->finished) {
        if (sha256_hex)
            memcpy(sha256_hex, s->hex, 65);
        if (size)
            *size = s->produced;
        return CUDNNCTL_E_OK;
    }
    if (s->failed)
        return cc_source_status(s);
    unsigned char *scratch = malloc(CHUNK);
    if (!scratch)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    long long n;
    while ((n = source_read(s, scratch, CHUNK, 1)) > 0) {
    }
    free(scratch);
    if (n < 0)
        return s->ctx->err.code;
    cc_pf_thread_join(s->thread);
    s->thread = NULL;
    report_progress(s, 1);

    int hash_bad = s->have_expected && strcmp(s->hex, s->expected) != 0;
    int size_bad = s->expected_size && s->produced != s->expected_size;
    if (hash_bad || size_bad)
        return mismatch(s, hash_bad);

    if (s->kind == CC_SRC_DOWNLOAD) {
        if (s->cache.resumable) {
            cudnnctl_err rc = cc_cache_commit(s->ctx, &s->cache, s->hex, &s->final_path);
            if (rc != CUDNNCTL_E_OK) {
                s->failed = 1;
                s->perr = rc;
                return rc;
            }
        } else {
            s->final_path = cc_strdup(s->path); /* private part, removed at close */
        }
    } else {
        s->final_path = cc_strdup(s->path); /* a local file as given (even when a private copy
                                             * was read: that one goes at close) */
    }
    if (!s->final_path)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (s->kind == CC_SRC_DOWNLOAD && s->keep_file) {
        cudnnctl_err rc = cc_source_keep_download(s);
        if (rc != CUDNNCTL_E_OK) {
            s->failed = 1;
            s->perr = rc;
            return rc;
        }
    }
    s->finished = 1;
    if (sha256_hex)
        memcpy(sha256_hex, s->hex, 65);
    if (size)
        *size = s->produced;
    return CUDNNCTL_E_OK;
}

void cc_source_close(cc_source *s)
{
    if (!s)
        return;
    if (s->ring)
        cc_ring_cancel(s->ring);
    cc_pf_thread_join(s->thread);
    close_spill(s);
    if (s->file_fd >= 0)
        cc_sys_close(s->ctx, s->file_fd);
    if (s->copy)
        cc_sys_unlink(s->ctx, s->copy); /* the private copy of a local archive */
    free(s->copy);
    /* a private (unverifiable, unkeyed) download is never reused */
    if (s->kind == CC_SRC_DOWNLOAD && !s->cache.resumable && s->path) {
        cc_sys_unlink(s->ctx, s->path);
        char *side = cc_ranges_side_path(s->path);
        if (side)
            cc_sys_unlink(s->ctx, side); /* a missing one is fine */
        free(side);
    }
    cc_cache_entry_close(s->ctx, &s->cache);
    for (size_t i = 0; i < s->n_events; i++)
        free(s->events[i].text);
    free(s->events);
    cc_ring_free(s->ring);
    cc_sha256_free(s->sha);
    cc_pf_mutex_free(s->mu);
    cc_pf_cond_free(s->changed);
    free(s->url);
    free(s->path);
    free(s->cacert);
    free(s->pdetail);
    free(s->final_path);
    free(s);
}
