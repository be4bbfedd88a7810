/* source_int.h: the cc_source structure shared by source.c (consumer side, file producer,
 * verification), source_feed.c (the producer helpers) and fetch.c (the download producer: resume,
 * retries, back-off). */
#ifndef CC_SOURCE_INT_H
#define CC_SOURCE_INT_H

#include "cache.h"
#include "hash.h"
#include "internal.h"
#include "ring.h"
#include "source.h"
#include "transport.h"

typedef enum { CC_SRC_FILE, CC_SRC_CACHE, CC_SRC_DOWNLOAD } cc_source_kind;

typedef struct {
    cudnnctl_event_kind kind;
    char *text;
} cc_source_event;

struct cc_source {
    cudnnctl_ctx *ctx;
    cc_source_kind kind;
    char *url;  /* as given (for messages) */
    char *path; /* file read (local file / blob), or the download's part */
    int have_expected;
    char expected[65];
    uint64_t expected_size;
    /* network settings, defaults applied */
    char *cacert;
    unsigned low_speed_bytes, low_speed_secs, connect_timeout_secs, max_tries, retry_delay_ms;
    const cc_transport_ops *tops;
    unsigned connections; /* 0 = chosen from the first connection's rate, 1 = one stream */
    uint64_t piece_bytes; /* ranged downloads: bytes a request; 0 = 8 MiB */
    const char *what;     /* for messages: NULL (an archive) or "manifest" (a static string) */
    const char *accept;   /* cc_source_opts.accept (the caller's string, valid while open) */
    int via_mirror, sha256_from_user, wheel; /* cc_source_opts: the fixes messages name */
    cc_cache_entry cache;

    /* producer thread */
    cc_ring *ring;
    cc_pf_thread *thread;
    cc_sha256 *sha;    /* producer-owned until the thread ended */
    uint64_t produced; /* bytes hashed; producer-owned until the thread ended */
    int delivered;     /* producer-owned: the first bytes went out (ready signalled) */
    char hex[65];      /* final digest, set by the producer at a clean end */

    /* shared, under mu */
    cc_pf_mutex *mu;
    cc_pf_cond *changed; /* ready / events, for cc_source_open's wait */
    int ready;           /* CC_READY_*: why cc_source_open may return (0 = not yet) */
    cudnnctl_err perr;   /* producer failure */
    char *pdetail;
    cc_source_event *events;
    size_t n_events, cap_events;
    uint64_t received; /* bytes of the download on disk, in any order (ranges arrive out of
                          order): what the progress shows, not only the in-order part */
    uint64_t received_wake_ms; /* producer-owned: when the consumer was last woken for it */
    int part_known;            /* the file the download writes: set by cc_source_note_part */
    uint64_t part_dev, part_ino;

    /* consumer side */
    uint64_t consumed;
    cc_pf_fd spill_fd;  /* the part, read back where the ring overflowed (-1: not opened) */
    uint64_t spill_pos; /* spill_fd's offset */
    uint64_t last_progress_ms;
    int failed;
    int finished;
    char *final_path;

    /* the verified file (source_keep.c) */
    int keep_file;    /* opts.keep_file: hold it open for cc_source_take_file */
    cc_pf_fd file_fd; /* the private copy (before), or the file the bytes were hashed from
                       * (after the file thread ended / finish); -1: none */
    char *copy;       /* the private copy of an untrusted local archive, removed at close */
};

enum { CC_READY_DATA = 1, CC_READY_END = 2, CC_READY_FAILED = 3 };

/* Producer helpers (thread-safe; source_feed.c). */
void cc_source_mark_ready(cc_source *s, int why);
void cc_source_fail(cc_source *s, cudnnctl_err code, char *detail_owned);
void cc_source_push_event(cc_source *s, cudnnctl_event_kind kind, char *text_owned);
/* The download now holds `total` bytes on disk (any order); wakes a consumer blocked on the
 * in-order part at most every 100 ms so that it reports the progress. */
void cc_source_received(cc_source *s, uint64_t total);
/* The producer opened fd to write the download's part: the first such file is the part (its
 * identity kept for cc_source_part_is); 0, or -1 with *why when fd is another file than the first
 * (the part was replaced while it downloaded) or cannot be read. */
int cc_source_note_part(cc_source *s, cc_pf_fd fd, char **why);
/* Hash, count and hand bytes to the consumer; -1 when the consumer has gone. */
int cc_source_deliver(cc_source *s, const void *data, size_t len);

/* The wait before retry number `failures` of a download or one of its ranges: retry_delay_ms,
 * doubled per consecutive failure, capped at 30 s. */
unsigned cc_source_backoff_ms(const cc_source *s, unsigned failures);
/* Why a download whose announced size is not the manifest's is refused (malloc'd). */
char *cc_source_size_refused(const cc_source *s, const char *url, int64_t server_size);

/* source_keep.c: copy s->path (a local archive another user could change: why_untrusted) into a
 * private file of the cache, s->copy, open in s->file_fd at offset 0 for the file thread. */
cudnnctl_err cc_source_private_copy(cc_source *s, const char *why_untrusted);
/* After a verified download: s->final_path hashed again from a descriptor kept in s->file_fd
 * (HASH_MISMATCH when it changed since). */
cudnnctl_err cc_source_keep_download(cc_source *s);

/* The download producer (fetch.c), run on the source's thread. */
void cc_fetch_thread(void *arg);

#endif
