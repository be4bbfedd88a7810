/* extract_zip_stream.c: a zip still downloading (NVIDIA's wheels, its Windows zips) unpacked as
 * its bytes land, so that the inflating overlaps the download. The caller's thread reads the
 * stream in order (cc_source_read: the bytes hashed) through libarchive's streamable zip
 * reader, which sees each entry's local header as it arrives; each entry is judged there (the
 * same checks as extract_zip.c, zip_entries.c) and queued. Worker threads inflate the queued
 * entries, each through a libarchive reader of its own over the download's cache part, starting
 * at the entry's local header and never reading past what the stream has delivered (those bytes
 * are in the part already, hashed). At the end the SHA-256 is checked, and the central directory
 * of the verified file is read and held against the entries streamed: names, types, sizes in the
 * same order (a mode it sets otherwise is applied). A zip that does not read as a stream (sizes
 * after the data, links, an SFX stub, a directory that disagrees, a wheel that is not what its
 * name says) is unpacked again from the verified file by extract_zip.c, staging emptied first:
 * the result is the same as without streaming, only later. Nothing of the zip format is read
 * here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "extract_zip.h"
#include "source.h"
#include "zip_int.h"

/* A worker ahead of the download waits for this many bytes more before it reads again: one
 * wake-up per batch, not one per network read. */
#define VIEW_BATCH (512u * 1024u)

typedef struct {
    cc_zrun z;
    cc_source *src;
    cc_pf_cond *moved; /* mark, eof, the queue or a failure changed (under z.mu) */
    uint64_t mark;     /* bytes of the stream read: [0, mark) lie in the part, hashed */
    uint64_t want;     /* the least mark a waiting worker waits for (UINT64_MAX: none) */
    int eof;           /* the stream is read to its end */
    cc_zjob **queue;   /* files to write, in the order they arrive */
    size_t qn, qcap, qnext;
    int closed;             /* no more jobs will come */
    unsigned char *buf;     /* the caller's read buffer */
    int src_failed;         /* the download failed: its error is on ctx */
    const char *not_stream; /* why this zip is unpacked from the verified file instead */
    size_t n_isal;          /* entries inflated by ISA-L (zip_inflate.c; under z.mu) */
} zstream;

/* ---- the stream, read by the caller's thread ------------------------------------------------ */
/* The stream moved on by n bytes: a worker is woken only once what it waits for is there. */
static void publish(zstream *s, uint64_t n, int eof)
{
    cc_pf_mutex_lock(s->z.mu);
    s->mark += n;
    s->eof |= eof;
    if (s->eof || s->z.failed || s->mark >= s->want) {
        s->want = UINT64_MAX; /* the woken ones say again what they wait for */
        cc_pf_cond_broadcast(s->moved);
    }
    cc_pf_mutex_unlock(s->z.mu);
}

static la_ssize_t scan_read(struct archive *a, void *user, const void **out)
{
    zstream *s = user;
    long long n = cc_source_read(s->src, s->buf, CC_XFILE_BLOCK);
    if (n < 0) {
        s->src_failed = 1;
        archive_set_error(a, EIO, "the download failed");
        return -1;
    }
    publish(s, (uint64_t)n, n == 0);
    *out = s->buf;
    return (la_ssize_t)n;
}

/* Entry data the scan does not need: gone past without reading it back from the part. */
static la_int64_t scan_skip(struct archive *a, void *user, la_int64_t request)
{
    zstream *s = user;
    size_t ask = request < (la_int64_t)CC_XFILE_BLOCK ? (size_t)request : CC_XFILE_BLOCK;
    long long n = request > 0 ? cc_source_skip(s->src, s->buf, ask) : 0;
    if (n < 0) {
        s->src_failed = 1;
        archive_set_error(a, EIO, "the download failed");
        return ARCHIVE_FATAL;
    }
    publish(s, (uint64_t)n, n == 0 && request > 0);
    return n;
}

/* The rest of the stream (after the last entry: the central directory), for the workers' view
 * to reach its end. */
static void drain(zstream *s)
{
    long long n;
    while (!s->eof && (n = cc_source_skip(s->src, s->buf, CC_XFILE_BLOCK)) >= 0)
        publish(s, (uint64_t)n, n == 0);
    if (!s->eof)
        s->src_failed = 1;
}

static void close_queue(zstream *s)
{
    cc_pf_mutex_lock(s->z.mu);
    s->closed = 1;
    cc_pf_cond_broadcast(s->moved);
    cc_pf_mutex_unlock(s->z.mu);
}

static int enqueue(zstream *s, cc_zjob *j)
{
    cc_pf_mutex_lock(s->z.mu);
    int r = cc_grow(&s->queue, &s->qcap, s->qn + 1, sizeof(*s->queue));
    if (r == 0)
        s->queue[s->qn++] = j;
    cc_pf_cond_broadcast(s->moved);
    cc_pf_mutex_unlock(s->z.mu);
    if (r != 0)
        cc_zip_fail(&s->z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    return r;
}

/* One header read: the job added, judged, its dirs made, queued. 1: go on; 0: stop (failed, or
 * not a zip to stream). */
static int take_header(zstream *s, struct archive *a, struct archive_entry *ae, cc_xcheck *x,
                       cc_xlimits *lim, cc_xwriter *mw, cc_strv *made)
{
    cc_zrun *z = &s->z;
    cc_zjob *j = cc_zip_add_job(z, ae);
    if (!j) {
        cc_zip_fail(z, cudnnctl_last_error(z->ctx)->code, NULL);
        return 0;
    }
    j->offset = (uint64_t)archive_read_header_position(a);
    if (j->type == CC_XE_FILE && j->size < 0)
        s->not_stream = "an entry's sizes come after its data";
    else if (j->type != CC_XE_FILE && j->type != CC_XE_DIR)
        s->not_stream = "it holds links";
    if (s->not_stream)
        return 0;
    cudnnctl_err rc = cc_zip_judge(z, x, lim, j);
    if (rc != CUDNNCTL_E_OK) {
        cc_zip_fail(z, rc, NULL);
        return 0;
    }
    if (cc_zip_make_dirs_of(z, mw, made, j) != 0) {
        cc_zip_writer_failed(z, mw);
        return 0;
    }
    if (j->write && j->type == CC_XE_FILE && enqueue(s, j) != 0)
        return 0;
    return !cc_zip_failed(z);
}

/* Every header as it arrives; then the rest of the stream. */
static void scan(zstream *s, cc_xcheck *x, cc_xlimits *lim, cc_xwriter *mw)
{
    cc_zrun *z = &s->z;
    cc_strv made = {0};
    struct archive_entry *ae;
    struct archive *a = archive_read_new();
    int h = ARCHIVE_FATAL, go = 1;
    if (!a) {
        cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
        go = 0;
    } else {
        archive_read_support_format_zip_streamable(a);
        archive_read_set_read_callback(a, scan_read);
        archive_read_set_skip_callback(a, scan_skip);
        archive_read_set_callback_data(a, s);
        if (archive_read_open1(a) != ARCHIVE_OK && !s->src_failed) {
            s->not_stream = "it does not start with an entry";
            go = 0;
        }
    }
    while (go && ((h = archive_read_next_header(a, &ae)) == ARCHIVE_OK || h == ARCHIVE_WARN))
        go = take_header(s, a, ae, x, lim, mw, &made);
    if (go && h != ARCHIVE_EOF && !s->src_failed && z->n == 0) {
        s->not_stream = "it does not start with an entry";
    } else if (go && h != ARCHIVE_EOF && !s->src_failed) {
        const char *e = archive_error_string(a);
        cc_zip_fail(z, CUDNNCTL_E_BAD_ARCHIVE,
                    cc_asprintf("malformed archive after entry %zu: %s; the file is truncated "
                                "or corrupt: delete it (or the cached copy) and download it "
                                "again",
                                z->n, e ? e : "read error"));
    }
    if (a)
        archive_read_free(a);
    cc_strv_free(&made);
    if (s->not_stream)
        cc_zip_fail(z, CUDNNCTL_E_UNSUPPORTED, NULL); /* stop the workers; the caller falls back */
    close_queue(s);
    drain(s);
    if (s->src_failed)
        cc_zip_fail(z, cudnnctl_last_error(z->ctx)->code, NULL);
}

/* ---- the workers: each entry from the part, up to what the stream has delivered ------------ */
typedef struct {
    cc_zwriters out;
    zstream *s;
    cc_pf_fd fd;        /* the part, read-only */
    uint64_t base, pos; /* the entry's local header (its data: inflated by zin); bytes read */
    unsigned char *buf; /* CC_XFILE_BLOCK */
    cc_zinflate *zin;   /* NULL: libarchive inflates every entry (built without ISA-L) */
    cc_pf_thread *thread;
} zworker;

/* The next bytes of the part from w->base + w->pos, once the stream has delivered enough of them
 * (or all there will be): > 0 bytes in w->buf, 0 none left, -1 failed (*err: why; NULL when the
 * unpacking failed elsewhere). */
static long long view_fill(zworker *w, char **err)
{
    zstream *s = w->s;
    uint64_t at = w->base + w->pos, enough = at + VIEW_BATCH;
    *err = NULL;
    cc_pf_mutex_lock(s->z.mu);
    while (s->mark < enough && !s->eof && !s->z.failed) {
        if (enough < s->want)
            s->want = enough;
        cc_pf_cond_wait(s->moved, s->z.mu, 0);
    }
    uint64_t avail = s->mark > at ? s->mark - at : 0;
    int failed = s->z.failed;
    cc_pf_mutex_unlock(s->z.mu);
    if (failed)
        return -1;
    if (!avail)
        return 0;
    long long n = cc_pf_pread(w->fd, w->buf, avail < CC_XFILE_BLOCK ? avail : CC_XFILE_BLOCK, at);
    if (n <= 0) {
        *err = cc_asprintf("cannot read the download back at byte %llu: %s", (unsigned long long)at,
                           n < 0 ? cc_pf_last_error_text() : "it is shorter than what was written");
        return -1;
    }
    w->pos += (uint64_t)n;
    return n;
}

static la_ssize_t view_read(struct archive *a, void *user, const void **out)
{
    zworker *w = user;
    char *err = NULL;
    long long n = view_fill(w, &err);
    if (n < 0) {
        if (err)
            archive_set_error(a, EIO, "%s", err);
        else
            archive_set_error(a, ECANCELED, "stopped: the unpacking failed elsewhere");
        free(err);
        return -1;
    }
    *out = w->buf;
    return (la_ssize_t)n;
}

/* The inflater's reader (zip_inflate.c): the same view, its failure made the run's. */
static long long view_raw(void *user, const unsigned char **out)
{
    zworker *w = user;
    char *err = NULL;
    long long n = view_fill(w, &err);
    if (n < 0 && err)
        cc_zip_fail(&w->s->z, CUDNNCTL_E_IO, err);
    *out = w->buf;
    return n;
}

/* A deflated, unencrypted entry of a pinned download goes to the inflater from where libarchive
 * says its data starts (the bytes it consumed of the view: the local header, name and extra
 * fields); everything else is libarchive's to inflate. */
static void take_inflater(zworker *w, struct archive *a, struct archive_entry *ae)
{
    const char *fmt = archive_format_name(a);
    la_int64_t data = archive_filter_bytes(a, 0);
    if (!w->zin || !cc_source_has_sha256(w->s->src) || !fmt || !strstr(fmt, "(deflation)") ||
        archive_entry_is_encrypted(ae) || data <= 0 || (uint64_t)data > w->pos)
        return;
    w->base += (uint64_t)data;
    w->pos = 0;
    cc_zinflate_begin(w->zin, view_raw, w);
    w->out.inflate = w->zin;
    cc_pf_mutex_lock(w->s->z.mu);
    w->s->n_isal++;
    cc_pf_mutex_unlock(w->s->z.mu);
}

static int write_streamed(zworker *w, cc_zjob *j)
{
    cc_zrun *z = &w->s->z;
    struct archive_entry *ae = NULL;
    struct archive *a = archive_read_new();
    if (!a) {
        cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
        return -1;
    }
    w->base = j->offset;
    w->pos = 0;
    w->out.a = a;
    archive_read_support_format_zip_streamable(a);
    /* the whole download is checked against its SHA-256 before anything goes live: each
     * entry's CRC-32 would check the same bytes a second time */
    if (cc_source_has_sha256(w->s->src))
        (void)archive_read_set_options(a, "zip:ignorecrc32");
    archive_read_set_read_callback(a, view_read);
    archive_read_set_callback_data(a, w);
    int h = archive_read_open1(a) == ARCHIVE_OK ? archive_read_next_header(a, &ae) : ARCHIVE_FATAL;
    const char *n =
        ae && (h == ARCHIVE_OK || h == ARCHIVE_WARN) ? archive_entry_pathname_utf8(ae) : NULL;
    int r = -1;
    if (!n || strcmp(n, j->stored) != 0 || !archive_entry_size_is_set(ae) ||
        archive_entry_size(ae) != j->size) {
        const char *e = archive_error_string(a);
        cc_zip_fail(z, CUDNNCTL_E_BAD_ARCHIVE,
                    cc_asprintf("malformed archive at '%s' (byte %llu): %s; the file is "
                                "truncated or corrupt: delete it (or the cached copy) and "
                                "download it again",
                                j->stored, (unsigned long long)j->offset,
                                e ? e : "its header reads differently the second time"));
    } else {
        take_inflater(w, a, ae);
        r = cc_zip_copy_entry(&w->out, j);
    }
    archive_read_free(a);
    w->out.a = NULL;
    w->out.inflate = NULL;
    return r;
}

static void worker_main(void *arg)
{
    zworker *w = arg;
    zstream *s = w->s;
    for (;;) {
        cc_pf_mutex_lock(s->z.mu);
        while (s->qnext >= s->qn && !s->closed && !s->z.failed)
            cc_pf_cond_wait(s->moved, s->z.mu, 0);
        cc_zjob *j = !s->z.failed && s->qnext < s->qn ? s->queue[s->qnext++] : NULL;
        cc_pf_mutex_unlock(s->z.mu);
        if (!j || write_streamed(w, j) != 0)
            break;
    }
}

/* ---- the end: the central directory against what was streamed ------------------------------ */
/* 0: the directory lists the same entries (its modes applied to what was staged); 1: it does not
 * (the zip is unpacked from the verified file instead); -1: it cannot be read (error on ctx). */
static int hold_directory(zstream *s, cc_pf_fd fd)
{
    cc_zrun *z = &s->z, cd = {.ctx = z->ctx, .o = z->o, .root = z->root};
    cc_pf_stat_t st;
    if (cc_pf_fstat(fd, &st) != 0) {
        CC_ERR_PF(z->ctx, "cannot read the archive", "(the verified file)");
        return -1;
    }
    if (cc_zip_read_directory(&cd, fd, st.size) != CUDNNCTL_E_OK) {
        cc_zip_free_jobs(&cd);
        return -1;
    }
    cc_zip_set_kind(&cd);
    int same = cd.n == z->n && cd.wheel == z->wheel && cd.windows == z->windows &&
               (!z->wheel || (cd.ver3 && strcmp(cd.ver3, z->ver3) == 0));
    for (size_t i = 0; same && i < z->n; i++) {
        const cc_zjob *a = z->jobs[i], *b = cd.jobs[i];
        same = strcmp(a->stored, b->stored) == 0 && a->type == b->type && a->size == b->size;
    }
    for (size_t i = 0; same && i < z->n; i++) {
        cc_zjob *a = z->jobs[i];
        uint32_t want = cc_xcheck_out_mode(a->type, cd.jobs[i]->mode);
        if (a->type != CC_XE_FILE || !a->e.mapped || want == a->e.out_mode)
            continue;
        char *p = a->write ? cc_path_join(z->root, a->e.mapped) : NULL;
        if (a->write && (!p || cc_pf_chmod(p, want) != 0)) {
            CC_ERR_PF(z->ctx, "cannot set the mode of the staged file", p ? p : a->e.mapped);
            free(p);
            same = -1;
            break;
        }
        free(p);
        a->e.out_mode = want;
        if (a->rec)
            a->rec->mode = want;
    }
    cc_zip_free_jobs(&cd);
    free(cd.ver3);
    return same < 0 ? -1 : !same;
}

/* The file at the download's path is not the one the download writes (or the verified file is
 * not the one that was written). */
static char *replaced(const char *what)
{
    return cc_asprintf("%s is not the file the download was written into: it was replaced while "
                       "cudnnctl installed from it, so someone else writes the cache dir; "
                       "nothing was installed. Fix: use a cache dir only you can write "
                       "(--cache-dir DIR)",
                       what);
}

/* The source finished (its SHA-256 and size checked) and its verified file in *fd (kept when
 * already taken), which must be the very file the download wrote. */
static cudnnctl_err take_verified(cudnnctl_ctx *ctx, cc_source *src, cc_pf_fd *fd)
{
    cudnnctl_err rc = cc_source_finish(src, NULL, NULL);
    if (rc == CUDNNCTL_E_OK && *fd < 0 && (*fd = cc_source_take_file(src)) < 0)
        rc = cudnnctl_last_error(ctx)->code;
    if (rc == CUDNNCTL_E_OK && !cc_source_part_is(src, *fd)) {
        char *m = replaced(cc_source_path(src));
        rc = CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED, "%s", m ? m : "out of memory");
        free(m);
    }
    return rc;
}

/* Start the workers, scan the stream in this thread, wait for them, close their writers. */
static void run_stream(zstream *s, const char *part, cc_xcheck *x, cc_xlimits *lim, cc_xwriter *mw)
{
    cc_zrun *z = &s->z;
    unsigned nt = cc_zip_threads(z->o, SIZE_MAX);
    zworker *ws = calloc(nt, sizeof(*ws));
    unsigned n_set = 0; /* ws[0..n_set) set up (fd opened or -1); calloc's zeros after them */
    z->big = cc_zip_big_entry_size(z, nt, z->o->archive_size);
    for (unsigned i = 0; ws && i < nt; i++) {
        ws[i] = (zworker){.out = {.z = z, .w = cc_zip_writer_new(z)},
                          .s = s,
                          .fd = cc_pf_open(part, CC_PF_O_RDONLY, 0),
                          .buf = malloc(CC_XFILE_BLOCK),
                          .zin = cc_zinflate_new()};
        n_set = i + 1;
        if (ws[i].fd >= 0 && !cc_source_part_is(s->src, ws[i].fd)) {
            cc_zip_fail(z, CUDNNCTL_E_UNTRUSTED, replaced(part));
            break;
        }
        if (!ws[i].out.w || ws[i].fd < 0 || !ws[i].buf ||
            cc_pf_thread_start(&ws[i].thread, worker_main, &ws[i]) != 0) {
            cc_zip_fail(z, CUDNNCTL_E_NOMEM,
                        cc_asprintf("cannot start the unzip workers on %s: %s", part,
                                    cc_pf_last_error_text()));
            ws[i].thread = NULL;
            break;
        }
    }
    if (!ws)
        cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    cc_event(z->ctx, CUDNNCTL_EV_STEP, "extract", NULL);
    cc_log(z->ctx, CUDNNCTL_LOG_DEBUG, "extract: a zip unpacked as it downloads, %u thread(s)", nt);
    if (cc_zip_failed(z))
        close_queue(s);
    scan(s, x, lim, mw);
    for (unsigned i = 0; i < n_set; i++) {
        if (ws[i].thread)
            cc_pf_thread_join(ws[i].thread);
        cc_zip_finish_writer(z, ws[i].out.big);
        cc_zip_finish_writer(z, ws[i].out.w);
        if (ws[i].fd >= 0)
            cc_pf_close(ws[i].fd);
        free(ws[i].buf);
        cc_zinflate_free(ws[i].zin);
    }
    free(ws);
    cc_log(z->ctx, CUDNNCTL_LOG_DEBUG, "extract: %zu of %zu entries inflated by ISA-L", s->n_isal,
           z->n);
}

/* After the workers: the digest, the directory, the links, the layout, the records. */
static cudnnctl_err finish_stream(zstream *s, cc_xcheck *x, cc_xwriter **mw, cc_pf_fd *fd,
                                  cc_staging *out)
{
    cc_zrun *z = &s->z;
    cudnnctl_err rc = cc_zip_result(z);
    if (s->not_stream)
        return CUDNNCTL_E_UNSUPPORTED;
    if (rc != CUDNNCTL_E_OK) {
        /* a damaged or tampered download shows first as a bad archive: the digest says which */
        cc_saved_err saved;
        cc_err_save(z->ctx, &saved);
        cudnnctl_err frc = s->src_failed || z->code == CUDNNCTL_E_UNTRUSTED
                               ? CUDNNCTL_E_OK /* a replaced part is not committed to the cache */
                               : cc_source_finish(s->src, NULL, NULL);
        if (frc == CUDNNCTL_E_HASH_MISMATCH || frc == CUDNNCTL_E_SIZE_MISMATCH) {
            free(saved.detail);
            return frc;
        }
        cc_err_restore(z->ctx, &saved, NULL);
        return rc;
    }
    if ((rc = take_verified(z->ctx, s->src, fd)) != CUDNNCTL_E_OK)
        return rc;
    int held = hold_directory(s, *fd);
    if (held != 0) {
        s->not_stream = held > 0 ? "its central directory does not list what it streamed" : NULL;
        return held > 0 ? CUDNNCTL_E_UNSUPPORTED : cudnnctl_last_error(z->ctx)->code;
    }
    cc_zip_end_writing(z, *mw);
    *mw = NULL;
    cc_layout layout = CC_LAYOUT_UNKNOWN;
    char *detail = NULL;
    if ((rc = cc_zip_result(z)) == CUDNNCTL_E_OK &&
        (rc = cc_xcheck_finish(x, z->windows, &layout, &detail)) != CUDNNCTL_E_OK)
        CC_ERR(z->ctx, rc, "%s", detail ? detail : "out of memory");
    free(detail);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_zip_record_hashes(z, *fd);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_zip_fill_out(z, z->wheel ? CC_LAYOUT_WHEEL : layout, out);
    if (rc == CUDNNCTL_E_OK)
        cc_log(z->ctx, CUDNNCTL_LOG_INFO, "extract: %zu entries, %llu bytes, layout %s (streamed)",
               out->n_files, (unsigned long long)out->bytes,
               cc_layout_name(z->wheel ? CC_LAYOUT_WHEEL : layout));
    return rc;
}

/* Judged and written as it streams; rc, or UNSUPPORTED with s->not_stream set to fall back. */
static cudnnctl_err stream_zip(zstream *s, const char *part, cc_pf_fd *fd, cc_staging *out)
{
    cc_zrun *z = &s->z;
    if (!(z->mu = cc_pf_mutex_new()) || !(s->moved = cc_pf_cond_new()) ||
        !(s->buf = malloc(CC_XFILE_BLOCK)))
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_xcheck *x = cc_xcheck_new(z->expected);
    cc_xwriter *mw = cc_xwriter_new(z->root, 0);
    cc_xlimits lim;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    z->syncer = cc_syncer_new(); /* NULL: the commit syncs everything itself */
    if (!x || !mw) {
        rc = CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else {
        cc_xlimits_init(&lim, z->o->archive_size, z->o->max_unpacked, z->root);
        run_stream(s, part, x, &lim, mw);
        rc = finish_stream(s, x, &mw, fd, out);
    }
    if (rc == CUDNNCTL_E_OK)
        cc_progress(z->ctx, "extract", z->bytes, z->bytes);
    cc_xwriter_free(mw);
    cc_syncer_free(z->syncer);
    z->syncer = NULL;
    cc_xcheck_free(x);
    return s->not_stream ? CUDNNCTL_E_UNSUPPORTED : rc;
}

cudnnctl_err cc_extract_zip_stream(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_source *src,
                                   const char *part, const char *root, const char *expected,
                                   cc_staging *out)
{
    zstream s = {.z = {.ctx = ctx, .o = o, .root = root, .expected = expected, .fd = -1},
                 .src = src,
                 .want = UINT64_MAX};
    cc_zrun *z = &s.z;
    const char *hint = o->name_hint ? o->name_hint : "";
    cc_pf_fd fd = -1;
    cudnnctl_err rc = CUDNNCTL_E_UNSUPPORTED;
    z->wheel = cc_str_ends(hint, ".whl");
    z->windows = !z->wheel || strstr(hint, "win") != NULL;
    if (z->wheel) {
        z->expected = CC_ZIP_WHEEL_TOP;
        z->ver3 = cc_zip_wheel_ver3_of_name(hint);
    }
    if (z->wheel && !z->ver3)
        s.not_stream = "its file name is not a wheel's";
    else if (cc_pf_trust_check(part, CC_PF_TRUST_OBJECT) != 0)
        s.not_stream = "another user could write the file it downloads into";
    else
        rc = stream_zip(&s, part, &fd, out);
    if (rc == CUDNNCTL_E_UNSUPPORTED && s.not_stream) {
        /* the way every zip went before: verified whole, then unpacked from that file */
        cc_log(ctx, CUDNNCTL_LOG_INFO,
               "extract: the zip is not unpacked as it downloads (%s): "
               "from the verified file instead",
               s.not_stream);
        cc_staging_free(out);
        cc_extract_empty_staging(ctx, root);
        rc = take_verified(ctx, src, &fd);
        if (rc == CUDNNCTL_E_OK)
            rc = cc_extract_zip(ctx, o, fd, root, expected, out);
    }
    if (fd >= 0)
        cc_pf_close(fd);
    cc_zip_free_jobs(z);
    free(z->ver3);
    free(z->msg);
    free(s.queue);
    free(s.buf);
    cc_pf_cond_free(s.moved);
    cc_pf_mutex_free(z->mu);
    return rc;
}
