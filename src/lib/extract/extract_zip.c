/* extract_zip.c: a verified zip file (NVIDIA's Windows archives, NVIDIA's wheels) unpacked on
 * every core. One pass over libarchive's seekable zip reader judges every entry (extract_check.c,
 * the content policy, the bomb limits; zip_entries.c) before a byte is written; then worker
 * threads, each with its own libarchive handle reading the one verified file at its own offsets
 * (cc_pf_pread), inflate one entry at a time, the largest first, through their own writer
 * (zip_write.c); an entry big enough to outlast the others is hashed and written by a thread of
 * its own. Nothing of the zip format is read here: entries are found by libarchive, by their
 * number. A download still arriving is unpacked by extract_zip_stream.c instead. */
#include "extract_zip.h"

#include <stdlib.h>
#include <string.h>

#include "zip_int.h"

typedef struct {
    cc_zrun z;
    size_t *order; /* the file jobs to write, largest first */
    size_t n_order;
    size_t next; /* under z.mu */
} zfile;

/* ---- reading one open file from several threads (each its own cc_xfile at_pos) ------------ */
struct archive *cc_zip_open_seekable(cc_xfile *r)
{
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    r->pos = 0;
    archive_read_support_format_zip_seekable(a);
    archive_read_set_read_callback(a, cc_xfile_read);
    archive_read_set_seek_callback(a, cc_xfile_seek);
    archive_read_set_callback_data(a, r);
    if (archive_read_open1(a) != ARCHIVE_OK)
        return a; /* the caller reads the error, then frees */
    return a;
}

/* ---- pass 1: every header, every check, before anything is written ---------------------- */
static cudnnctl_err read_headers(cc_zrun *z, cc_xfile *r)
{
    struct archive_entry *ae;
    struct archive *a = cc_zip_open_seekable(r);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int h;
    if (!a)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    while ((h = archive_read_next_header(a, &ae)) == ARCHIVE_OK || h == ARCHIVE_WARN)
        if (!cc_zip_add_job(z, ae)) {
            rc = cudnnctl_last_error(z->ctx)->code;
            goto out;
        }
    if (h != ARCHIVE_EOF)
        rc = cc_zip_bad(z, a, z->n ? "reading the next entry" : "at its start");
out:
    archive_read_free(a);
    return rc;
}

cudnnctl_err cc_zip_read_directory(cc_zrun *z, cc_pf_fd fd, uint64_t size)
{
    cc_xfile r = {.fd = fd, .size = size, .buf = malloc(CC_XFILE_BLOCK), .at_pos = 1};
    cudnnctl_err rc =
        r.buf ? read_headers(z, &r) : CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(r.buf);
    return rc;
}

static int by_size_desc(const cc_zjob *x, const cc_zjob *y)
{
    return x->size < y->size ? 1 : x->size > y->size ? -1 : (x->index > y->index) - (x->index < y->index);
}

static cudnnctl_err judge_all(zfile *f, cc_layout *layout)
{
    cc_zrun *z = &f->z;
    cc_xcheck *x = cc_xcheck_new(z->expected);
    cc_xlimits lim;
    cudnnctl_err rc = x ? CUDNNCTL_E_OK : CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_xlimits_init(&lim, z->o->archive_size ? z->o->archive_size : z->fsize, z->o->max_unpacked,
                    z->root);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < z->n; i++)
        rc = cc_zip_judge(z, x, &lim, z->jobs[i]);
    char *detail = NULL;
    if (rc == CUDNNCTL_E_OK && (rc = cc_xcheck_finish(x, z->windows, layout, &detail)))
        CC_ERR(z->ctx, rc, "%s", detail ? detail : "out of memory");
    free(detail);
    cc_xcheck_free(x);
    if (rc == CUDNNCTL_E_OK && z->wheel)
        *layout = CC_LAYOUT_WHEEL;
    if (rc == CUDNNCTL_E_OK && !(f->order = calloc(z->n ? z->n : 1, sizeof(size_t))))
        rc = CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < z->n; i++)
        if (z->jobs[i]->write && z->jobs[i]->type == CC_XE_FILE)
            f->order[f->n_order++] = i;
    /* largest first: the big libraries start at once, the small ones fill in behind them */
    for (size_t i = 1; i < f->n_order; i++) /* insertion sort: qsort_r is not portable */
        for (size_t k = i;
             k > 0 && by_size_desc(z->jobs[f->order[k - 1]], z->jobs[f->order[k]]) > 0; k--) {
            size_t t = f->order[k];
            f->order[k] = f->order[k - 1];
            f->order[k - 1] = t;
        }
    return rc;
}

/* ---- the workers -------------------------------------------------------------------------- */
typedef struct {
    cc_zwriters out;
    zfile *f;
    cc_xfile r;
    struct archive_entry *ae;
    long cur;
    cc_pf_thread *thread;
} zworker;

/* Position the worker's own handle on entry j (forward by headers; backward by reopening). */
static int seek_entry(zworker *w, const cc_zjob *j)
{
    cc_zrun *z = &w->f->z;
    if (!w->out.a || w->cur > j->index) {
        if (w->out.a)
            archive_read_free(w->out.a);
        w->cur = -1;
        if (!(w->out.a = cc_zip_open_seekable(&w->r))) {
            cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory opening the archive"));
            return -1;
        }
    }
    while (w->cur < j->index) {
        int h = archive_read_next_header(w->out.a, &w->ae);
        if (h != ARCHIVE_OK && h != ARCHIVE_WARN) {
            const char *e = archive_error_string(w->out.a);
            cc_zip_fail(z, CUDNNCTL_E_BAD_ARCHIVE,
                        cc_asprintf("malformed archive at entry %ld: %s; the file is truncated "
                                    "or corrupt: delete it (or the cached copy) and download it "
                                    "again",
                                    w->cur + 1, e ? e : "read error"));
            return -1;
        }
        w->cur++;
    }
    const char *n = archive_entry_pathname_utf8(w->ae);
    if (!n || strcmp(n, j->stored) != 0) {
        cc_zip_fail(z, CUDNNCTL_E_BAD_ARCHIVE,
                    cc_asprintf("the archive changed while it was unpacked (entry %ld is '%s', "
                                "was '%s'); nothing was installed: run the install again",
                                j->index, n ? n : "?", j->stored));
        return -1;
    }
    return 0;
}

static void worker_main(void *arg)
{
    zworker *w = arg;
    zfile *f = w->f;
    for (;;) {
        cc_pf_mutex_lock(f->z.mu);
        size_t k = f->z.failed ? f->n_order : f->next++;
        cc_pf_mutex_unlock(f->z.mu);
        if (k >= f->n_order)
            break;
        cc_zjob *j = f->z.jobs[f->order[k]];
        if (seek_entry(w, j) != 0 || cc_zip_copy_entry(&w->out, j) != 0)
            break;
    }
    if (w->out.a)
        archive_read_free(w->out.a);
    w->out.a = NULL;
}

/* Start the workers (the caller's thread is one of them), wait for them all, close each
 * writer. A worker that cannot be started leaves its share to the others. */
static void run_workers(zfile *f, zworker *ws, unsigned nt)
{
    cc_zrun *z = &f->z;
    for (unsigned i = 0; i < nt; i++) {
        ws[i] = (zworker){
            .out = {.z = z, .is_main = i == 0, .w = cc_zip_writer_new(z)},
            .f = f,
            .r = {.fd = z->fd, .size = z->fsize, .buf = malloc(CC_XFILE_BLOCK), .at_pos = 1},
            .cur = -1};
        if (!ws[i].r.buf || !ws[i].out.w) {
            cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory starting the unzip workers"));
            nt = i + 1;
            break;
        }
    }
    for (unsigned i = 1; i < nt; i++)
        if (cc_pf_thread_start(&ws[i].thread, worker_main, &ws[i]) != 0)
            ws[i].thread = NULL;
    if (!cc_zip_failed(z))
        worker_main(&ws[0]);
    for (unsigned i = 1; i < nt; i++)
        if (ws[i].thread)
            cc_pf_thread_join(ws[i].thread);
    for (unsigned i = 0; i < nt; i++) {
        cc_zip_finish_writer(z, ws[i].out.big);
        cc_zip_finish_writer(z, ws[i].out.w);
        free(ws[i].r.buf);
    }
}

/* Write what pass 1 judged: dirs, the files in parallel, then links; one error for all. */
static cudnnctl_err write_all(zfile *f)
{
    cc_zrun *z = &f->z;
    z->syncer = cc_syncer_new(); /* NULL: the commit syncs everything itself */
    cc_xwriter *mw = cc_xwriter_new(z->root, 0);
    unsigned nt = cc_zip_threads(z->o, f->n_order);
    zworker *ws = calloc(nt, sizeof(*ws));
    cc_strv made = {0};
    if (!mw || !ws)
        cc_zip_fail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    for (size_t i = 0; mw && !cc_zip_failed(z) && i < z->n; i++)
        if (cc_zip_make_dirs_of(z, mw, &made, z->jobs[i]) != 0)
            cc_zip_writer_failed(z, mw);
    cc_strv_free(&made);
    cc_event(z->ctx, CUDNNCTL_EV_STEP, "extract", NULL);
    if (!cc_zip_failed(z)) {
        uint64_t total = 0;
        for (size_t k = 0; k < f->n_order; k++)
            total += (uint64_t)z->jobs[f->order[k]]->size;
        z->big = cc_zip_big_entry_size(z, nt, total);
        cc_log(z->ctx, CUDNNCTL_LOG_DEBUG, "extract: %zu files on %u thread(s)", f->n_order, nt);
        run_workers(f, ws, nt);
    }
    cc_zip_end_writing(z, mw);
    cc_syncer_free(z->syncer);
    z->syncer = NULL;
    free(ws);
    return cc_zip_result(z);
}

/* A wheel: its names are mapped (zip_entries.c); a wheel with a .dll is a Windows one. */
void cc_zip_set_kind(cc_zrun *z)
{
    z->windows = 1;
    if ((z->wheel = cc_zip_is_wheel(z))) {
        z->expected = CC_ZIP_WHEEL_TOP;
        z->ver3 = cc_zip_wheel_ver3(z);
        z->windows = 0;
        for (size_t i = 0; i < z->n; i++)
            z->windows |= cc_str_ends(z->jobs[i]->stored, ".dll");
    }
}

cudnnctl_err cc_extract_zip(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_pf_fd fd,
                            const char *root, const char *expected, cc_staging *out)
{
    zfile f = {.z = {.ctx = ctx, .o = o, .root = root, .expected = expected, .fd = fd}};
    cc_zrun *z = &f.z;
    cc_pf_stat_t st;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_layout layout = CC_LAYOUT_UNKNOWN;
    if (cc_pf_fstat(fd, &st) != 0) {
        rc = CC_ERR_PF(ctx, "cannot read the archive", o->path ? o->path : "(the verified file)");
        goto out;
    }
    z->fsize = st.size;
    if (!(z->mu = cc_pf_mutex_new())) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = cc_zip_read_directory(z, fd, z->fsize)) != CUDNNCTL_E_OK)
        goto out;
    cc_zip_set_kind(z);
    if ((rc = judge_all(&f, &layout)) != CUDNNCTL_E_OK || (rc = write_all(&f)) != CUDNNCTL_E_OK ||
        (rc = cc_zip_record_hashes(z, fd)) != CUDNNCTL_E_OK)
        goto out;
    rc = cc_zip_fill_out(z, layout, out);
    if (rc == CUDNNCTL_E_OK) {
        cc_progress(ctx, "extract", z->bytes, z->bytes);
        cc_log(ctx, CUDNNCTL_LOG_INFO, "extract: %zu entries, %llu bytes, layout %s", out->n_files,
               (unsigned long long)out->bytes, cc_layout_name(layout));
    }
out:
    cc_zip_free_jobs(z);
    free(z->ver3);
    free(z->msg);
    free(f.order);
    cc_pf_mutex_free(z->mu);
    return rc;
}
