/* extract_write.c: write checked entries into staging through archive_write_disk (SECURE_*
 * flags as the second line of defence), hashing each file as it is written, optionally in a
 * writer thread fed through a bounded queue of large chunks. */
#include "extract_write.h"

#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "hash.h"
#include "platform.h"
#include "str.h"
#include "syncer.h"

/* 8 x 256 KiB in flight: enough to ride out a slow write, small against the 32 MiB RSS
 * budget (the xz decoder alone needs ~9 MiB). */
#define NSLOT 8
#define CHUNK (256u * 1024u)

/* Flags: without ARCHIVE_EXTRACT_OWNER nothing is chowned and setuid/setgid stay off; we pass
 * absolute paths under the staging root, so SECURE_NOABSOLUTEPATHS cannot be set — our own
 * check refuses absolute names and every name is prefixed with the root (docs/security.md). */
#define DISK_FLAGS                                                                                 \
    (ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |               \
     ARCHIVE_EXTRACT_SECURE_SYMLINKS)

enum { M_BEGIN = 1, M_DATA, M_END };

typedef struct {
    int kind;
    struct archive_entry *entry; /* M_BEGIN */
    cc_staged_file *rec;
    const cc_staged_file *src;
    int is_file;
    unsigned char *buf; /* M_DATA: CHUNK bytes, owned by the slot */
    size_t len;
} msg;

struct cc_xwriter {
    char *root;
    struct archive *disk;
    cc_sha256 *sha;
    /* state of the entry being written (writer side) */
    cc_staged_file *cur_rec;
    const cc_staged_file *cur_src;
    int cur_is_file;
    int no_hash; /* cc_xwriter_no_hashing */
    uint64_t cur_size;
    char *cur_path;    /* staging path of the file being written, for early writeback */
    cc_syncer *syncer; /* fsyncs each finished file in the background (threaded mode) */
    int syncer_shared; /* the syncer belongs to the caller (cc_xwriter_share_syncer) */
    void (*on_file)(void *user, const char *path);
    void *on_file_user;
    uint64_t unsynced; /* bytes written since writeback was last started */
    int failed;
    char *err;
    int err_errno; /* archive_errno() of the first failure, 0 when none: its cause (no space) */
    unsigned warnings;
    char *warn_text;
    /* queue (threaded mode) */
    int threaded;
    cc_pf_thread *thread;
    cc_pf_mutex *mu;
    cc_pf_cond *not_empty, *not_full;
    msg q[NSLOT];
    size_t head, count;
    int closing;
    msg *filling; /* producer's reserved, uncommitted data slot */
};

/* ---- the writer side ---------------------------------------------------------------------- */

/* Record the first failure. In threaded mode under the lock: the producer polls `failed`
 * while it waits for room, and must be woken. */
static void fail(cc_xwriter *w, const char *what, const char *detail)
{
    char *text = cc_asprintf("%s: %s", what, detail ? detail : "unknown error");
    int e = w->disk ? archive_errno(w->disk) : 0;
    if (w->mu)
        cc_pf_mutex_lock(w->mu);
    if (!w->failed) {
        w->failed = 1;
        w->err = text;
        w->err_errno = e;
        text = NULL;
    }
    if (w->mu) {
        cc_pf_cond_broadcast(w->not_full);
        cc_pf_mutex_unlock(w->mu);
    }
    free(text);
}

static void warn(cc_xwriter *w, const char *detail)
{
    if (w->warnings++ == 0)
        w->warn_text = cc_strdup(detail ? detail : "warning");
}

static void process(cc_xwriter *w, msg *m)
{
    int r;
    switch (m->kind) {
    case M_BEGIN:
        w->cur_rec = m->rec;
        w->cur_src = m->src;
        w->cur_is_file = m->is_file;
        w->cur_size = 0;
        free(w->cur_path);
        w->cur_path = m->is_file ? cc_strdup(archive_entry_pathname(m->entry)) : NULL;
        if (m->is_file && !w->no_hash && cc_sha256_reset(w->sha) != 0) {
            fail(w, "SHA-256", "cannot reset the digest");
            break;
        }
        cc_pf_umask_lock(); /* it reads the umask again, the same way (platform.h) */
        r = archive_write_header(w->disk, m->entry);
        cc_pf_umask_unlock();
        if (r < ARCHIVE_WARN)
            fail(w, archive_entry_pathname(m->entry), archive_error_string(w->disk));
        else if (r == ARCHIVE_WARN)
            warn(w, archive_error_string(w->disk));
        break;
    case M_DATA:
        if (w->cur_is_file && !w->no_hash && cc_sha256_update(w->sha, m->buf, m->len) != 0) {
            fail(w, "SHA-256", "digest update failed");
            break;
        }
        if (archive_write_data(w->disk, m->buf, m->len) != (la_ssize_t)m->len) {
            fail(w, "write", archive_error_string(w->disk));
            break;
        }
        w->cur_size += m->len;
        /* keep the disk busy while the decoder runs: start writeback every 16 MiB of a big file */
        w->unsynced += m->len;
        if (w->cur_path && w->unsynced >= ((uint64_t)16 << 20)) {
            cc_pf_start_writeback(w->cur_path);
            w->unsynced = 0;
        }
        break;
    case M_END:
        r = archive_write_finish_entry(w->disk);
        if (r < ARCHIVE_WARN) {
            fail(w, "finish entry", archive_error_string(w->disk));
            break;
        }
        if (r == ARCHIVE_WARN)
            warn(w, archive_error_string(w->disk));
        if (w->cur_is_file && w->cur_rec) {
            if (w->no_hash)
                w->cur_rec->sha256[0] = '\0';
            else if (cc_sha256_final_hex(w->sha, w->cur_rec->sha256) != 0) {
                fail(w, "SHA-256", "cannot finish the digest");
                break;
            }
            w->cur_rec->size = w->cur_size;
            /* Start the disk writeback now, behind the decoder, so that the commit's fsync of
             * every staged file finds little left to write (measured: bench/install_bench.sh). */
            if (w->cur_path)
                cc_pf_start_writeback(w->cur_path);
            w->unsynced = 0;
            /* and have it fsync'd while the next files are decoded: the commit's fsync of the
             * staged tree then waits for nothing but the last file */
            if (w->cur_path && w->syncer && cc_syncer_add(w->syncer, w->cur_path) != 0)
                fail(w, "queueing a staged file to be synced", "out of memory");
            if (w->cur_path && w->on_file)
                w->on_file(w->on_file_user, w->cur_path);
        } else if (w->cur_src && w->cur_rec) {
            memcpy(w->cur_rec->sha256, w->cur_src->sha256, sizeof(w->cur_rec->sha256));
            w->cur_rec->size = w->cur_src->size;
        }
        break;
    default:
        break;
    }
    if (m->entry) {
        archive_entry_free(m->entry);
        m->entry = NULL;
    }
}

static void writer_main(void *arg)
{
    cc_xwriter *w = arg;
    for (;;) {
        cc_pf_mutex_lock(w->mu);
        while (w->count == 0 && !w->closing)
            cc_pf_cond_wait(w->not_empty, w->mu, 0);
        if (w->count == 0) {
            cc_pf_mutex_unlock(w->mu);
            return;
        }
        msg *m = &w->q[w->head];
        int skip = w->failed;
        cc_pf_mutex_unlock(w->mu);
        if (skip) {
            if (m->entry) {
                archive_entry_free(m->entry);
                m->entry = NULL;
            }
        } else {
            process(w, m);
        }
        cc_pf_mutex_lock(w->mu);
        w->head = (w->head + 1) % NSLOT;
        w->count--;
        /* a producer waits only on a full queue: woken once half of it is free again, not per
         * slot (one wake-up per MiB, not per chunk) */
        if (w->count <= NSLOT / 2)
            cc_pf_cond_signal(w->not_full);
        cc_pf_mutex_unlock(w->mu);
    }
}

/* ---- the producer side -------------------------------------------------------------------- */

/* A free slot to fill (blocks while the queue is full); NULL once the writer failed. */
static msg *reserve(cc_xwriter *w)
{
    cc_pf_mutex_lock(w->mu);
    while (w->count == NSLOT && !w->failed)
        cc_pf_cond_wait(w->not_full, w->mu, 0);
    msg *m = w->failed ? NULL : &w->q[(w->head + w->count) % NSLOT];
    cc_pf_mutex_unlock(w->mu);
    return m;
}

/* The writer is woken for an entry's start and end at once, for its data once half the queue
 * is full: the data waits a little, the writer wakes a quarter as often. */
static void commit(cc_xwriter *w, int kind)
{
    cc_pf_mutex_lock(w->mu);
    w->count++;
    if (kind != M_DATA || w->count >= NSLOT / 2)
        cc_pf_cond_signal(w->not_empty);
    cc_pf_mutex_unlock(w->mu);
}

static int flush_filling(cc_xwriter *w)
{
    if (w->filling) {
        w->filling = NULL;
        commit(w, M_DATA);
    }
    return 0;
}

static int push(cc_xwriter *w, msg *tmpl)
{
    if (!w->threaded) {
        process(w, tmpl);
        return w->failed ? -1 : 0;
    }
    flush_filling(w);
    msg *m = reserve(w);
    if (!m) {
        if (tmpl->entry)
            archive_entry_free(tmpl->entry);
        return -1;
    }
    unsigned char *buf = m->buf;
    *m = *tmpl;
    m->buf = buf;
    commit(w, m->kind);
    return 0;
}

cc_xwriter *cc_xwriter_new(const char *root, int threaded)
{
    cc_xwriter *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->threaded = threaded;
    w->root = cc_strdup(root);
    cc_pf_umask_lock(); /* it reads the umask by setting it: one thread at a time (platform.h) */
    w->disk = archive_write_disk_new();
    cc_pf_umask_unlock();
    w->sha = cc_sha256_new();
    if (!w->root || !w->disk || !w->sha || archive_write_disk_set_options(w->disk, DISK_FLAGS))
        goto bad;
    if (threaded) {
        w->mu = cc_pf_mutex_new();
        w->not_empty = cc_pf_cond_new();
        w->not_full = cc_pf_cond_new();
        if (!w->mu || !w->not_empty || !w->not_full)
            goto bad;
        for (size_t i = 0; i < NSLOT; i++)
            if (!(w->q[i].buf = malloc(CHUNK)))
                goto bad;
        if (cc_pf_thread_start(&w->thread, writer_main, w) != 0) {
            w->thread = NULL;
            goto bad;
        }
        w->syncer = cc_syncer_new(); /* NULL: the commit syncs everything itself */
    }
    return w;
bad:
    cc_xwriter_free(w);
    return NULL;
}

void cc_xwriter_on_file(cc_xwriter *w, void (*fn)(void *user, const char *path), void *user)
{
    w->on_file = fn;
    w->on_file_user = user;
}

int cc_xwriter_begin(cc_xwriter *w, const cc_xentry *e, int64_t mtime, int64_t size,
                     cc_staged_file *rec, const cc_staged_file *link_src)
{
    struct archive_entry *ae = archive_entry_new();
    char *path = cc_path_join(w->root, e->mapped);
    char *hl = NULL;
    int ok = ae && path && archive_entry_update_pathname_utf8(ae, path);
    msg m = {.kind = M_BEGIN, .entry = ae, .rec = rec};
    switch (e->type) {
    case CC_XE_DIR:
        archive_entry_set_filetype(ae, AE_IFDIR);
        archive_entry_set_perm(ae, e->out_mode);
        break;
    case CC_XE_FILE:
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, e->out_mode);
        if (size >= 0)
            archive_entry_set_size(ae, (la_int64_t)size);
        archive_entry_set_mtime(ae, (time_t)mtime, 0);
        m.is_file = 1;
        break;
    case CC_XE_SYMLINK:
        archive_entry_set_filetype(ae, AE_IFLNK);
        archive_entry_set_perm(ae, 0777);
        ok = ok && archive_entry_update_symlink_utf8(ae, e->link_text);
        break;
    case CC_XE_HARDLINK:
        hl = cc_path_join(w->root, e->link_text);
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, e->out_mode);
        archive_entry_set_size(ae, 0);
        ok = ok && hl && archive_entry_update_hardlink_utf8(ae, hl);
        m.src = link_src;
        break;
    default:
        ok = 0;
    }
    free(path);
    free(hl);
    if (!ok) {
        if (ae)
            archive_entry_free(ae);
        fail(w, e->mapped, "out of memory preparing the entry");
        return -1;
    }
    return push(w, &m);
}

int cc_xwriter_data(cc_xwriter *w, const void *buf, size_t len)
{
    if (!w->threaded) {
        msg m = {.kind = M_DATA, .buf = (unsigned char *)(uintptr_t)buf, .len = len};
        process(w, &m);
        return w->failed ? -1 : 0;
    }
    const unsigned char *p = buf;
    while (len > 0) {
        if (!w->filling) {
            msg *m = reserve(w);
            if (!m)
                return -1;
            m->kind = M_DATA;
            m->entry = NULL;
            m->len = 0;
            w->filling = m;
        }
        msg *m = w->filling;
        size_t n = CHUNK - m->len;
        if (n > len)
            n = len;
        memcpy(m->buf + m->len, p, n);
        m->len += n;
        p += n;
        len -= n;
        if (m->len == CHUNK)
            flush_filling(w);
    }
    return 0;
}

int cc_xwriter_end(cc_xwriter *w)
{
    msg m = {.kind = M_END};
    return push(w, &m);
}

static void stop_thread(cc_xwriter *w)
{
    if (!w->thread)
        return;
    flush_filling(w);
    cc_pf_mutex_lock(w->mu);
    w->closing = 1;
    cc_pf_cond_broadcast(w->not_empty);
    cc_pf_mutex_unlock(w->mu);
    cc_pf_thread_join(w->thread);
    w->thread = NULL;
}

int cc_xwriter_finish(cc_xwriter *w, char **err, unsigned *warnings, char **warn_text)
{
    *err = NULL;
    stop_thread(w);
    if (w->syncer && !w->syncer_shared) {
        char *serr = NULL;
        if (cc_syncer_finish(w->syncer, &serr) != 0)
            fail(w, "flushing to disk", serr);
        free(serr);
        cc_syncer_free(w->syncer);
        w->syncer = NULL;
    }
    /* directory permissions and times are applied here (libarchive defers them) */
    if (!w->failed && archive_write_close(w->disk) != ARCHIVE_OK)
        fail(w, "finishing directories", archive_error_string(w->disk));
    if (warnings)
        *warnings = w->warnings;
    if (warn_text) {
        *warn_text = w->warn_text;
        w->warn_text = NULL;
    }
    if (w->failed) {
        *err = w->err;
        w->err = NULL;
        if (!*err)
            *err = cc_strdup("write failed");
        return -1;
    }
    return 0;
}

void cc_xwriter_no_hashing(cc_xwriter *w)
{
    w->no_hash = 1;
}

void cc_xwriter_share_syncer(cc_xwriter *w, cc_syncer *s)
{
    if (!w->syncer_shared)
        cc_syncer_free(w->syncer);
    w->syncer = s;
    w->syncer_shared = 1;
}

int cc_xwriter_errno(const cc_xwriter *w)
{
    return w ? w->err_errno : 0;
}

void cc_xwriter_free(cc_xwriter *w)
{
    if (!w)
        return;
    if (w->thread) {
        cc_pf_mutex_lock(w->mu);
        w->failed = 1; /* drain without writing */
        cc_pf_mutex_unlock(w->mu);
        stop_thread(w);
    }
    if (!w->syncer_shared)
        cc_syncer_free(w->syncer);
    for (size_t i = 0; i < NSLOT; i++) {
        if (w->q[i].entry)
            archive_entry_free(w->q[i].entry);
        free(w->q[i].buf);
    }
    if (w->disk)
        archive_write_free(w->disk);
    cc_sha256_free(w->sha);
    free(w->cur_path);
    cc_pf_cond_free(w->not_empty);
    cc_pf_cond_free(w->not_full);
    cc_pf_mutex_free(w->mu);
    free(w->root);
    free(w->err);
    free(w->warn_text);
    free(w);
}
