/* zip_write.c: the writing side of the zip extractors (zip_int.h): the first failure kept for
 * all threads, the directories and links in the caller's thread, one entry's data from a
 * libarchive reader into a writer (an entry on the critical path into a writer thread of its own),
 * the writers closed and their failures named. */
#include <stdlib.h>
#include <string.h>

#include "zip_int.h"

/* ---- failures ----------------------------------------------------------------------------- */
void cc_zip_fail(cc_zrun *z, cudnnctl_err code, char *msg)
{
    cc_pf_mutex_lock(z->mu);
    if (!z->failed) {
        z->failed = 1;
        z->code = code;
        z->msg = msg;
        msg = NULL;
    }
    cc_pf_mutex_unlock(z->mu);
    free(msg);
}

int cc_zip_failed(cc_zrun *z)
{
    cc_pf_mutex_lock(z->mu);
    int f = z->failed;
    cc_pf_mutex_unlock(z->mu);
    return f;
}

cudnnctl_err cc_zip_bad(cc_zrun *z, struct archive *a, const char *where)
{
    const char *e = a ? archive_error_string(a) : NULL;
    return CC_ERR(z->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                  "malformed archive %s: %s; the file is truncated or corrupt: delete it (or the "
                  "cached copy) and download it again",
                  where, e ? e : "read error");
}

cudnnctl_err cc_zip_result(cc_zrun *z)
{
    if (!z->failed)
        return CUDNNCTL_E_OK;
    if (z->msg)
        return CC_ERR(z->ctx, z->code, "%s", z->msg);
    return z->code;
}

/* The writer's failure (err: what its finish said, freed here) as a message; its errno decides
 * the code (no space, permission). */
static void writer_error(cc_zrun *z, cc_xwriter *w, char *err)
{
    int e = cc_xwriter_errno(w);
    if (e)
        cc_pf_set_errno(e);
    cudnnctl_err code = e ? cc_pf_last_error() : CUDNNCTL_E_IO;
    if (code != CUDNNCTL_E_NO_SPACE && code != CUDNNCTL_E_PERMISSION)
        code = CUDNNCTL_E_IO;
    cc_zip_fail(z, code,
                cc_asprintf("writing into the staging directory %s failed: %s%s%s%s; nothing was "
                            "installed: check its free space (or install elsewhere with --prefix "
                            "DIR) and permissions",
                            z->root, err ? err : "?", e ? " (" : "",
                            e ? cc_pf_last_error_text() : "", e ? ")" : ""));
    free(err);
}

void cc_zip_writer_failed(cc_zrun *z, cc_xwriter *w)
{
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    cc_xwriter_finish(w, &err, &nwarn, &warn);
    free(warn);
    writer_error(z, w, err);
}

void cc_zip_finish_writer(cc_zrun *z, cc_xwriter *w)
{
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    if (w && !cc_zip_failed(z) && cc_xwriter_finish(w, &err, &nwarn, &warn) != 0)
        writer_error(z, w, err);
    else
        free(err);
    free(warn);
    cc_xwriter_free(w);
}

static cc_xwriter *writer_new(cc_zrun *z, int threaded)
{
    cc_xwriter *w = cc_xwriter_new(z->root, threaded);
    if (!w)
        return NULL;
    cc_xwriter_share_syncer(w, z->syncer);
    if (cc_zip_record_wanted(z)) /* the wheel's RECORD gives the digests (zip_record.c) */
        cc_xwriter_no_hashing(w);
    if (z->o->on_file) /* the unpacked store copies each file as it is closed */
        cc_xwriter_on_file(w, z->o->on_file, z->o->on_file_user);
    return w;
}

cc_xwriter *cc_zip_writer_new(cc_zrun *z)
{
    return writer_new(z, 0);
}

/* ---- directories, then links: in the caller's thread ------------------------------------- */
static uint32_t dir_mode(const cc_zrun *z, const char *mapped, int64_t *mtime)
{
    for (size_t i = 0; i < z->n; i++)
        if (z->jobs[i]->type == CC_XE_DIR && z->jobs[i]->e.mapped &&
            strcmp(z->jobs[i]->e.mapped, mapped) == 0) {
            *mtime = z->jobs[i]->mtime;
            return z->jobs[i]->e.out_mode;
        }
    return 0755;
}

static int make_dir(cc_zrun *z, cc_xwriter *w, cc_strv *made, const char *mapped, int64_t mtime)
{
    if (cc_strv_contains(made, mapped))
        return 0;
    uint32_t mode = dir_mode(z, mapped, &mtime);
    cc_xentry d = {.type = CC_XE_DIR, .mapped = (char *)mapped, .out_mode = mode};
    if (cc_xwriter_begin(w, &d, mtime, -1, NULL, NULL) != 0 || cc_xwriter_end(w) != 0)
        return -1;
    return cc_strv_push(made, mapped);
}

/* Every directory a written entry lives in (outer first), and with nothing left out the
 * archive's own directories too: a component selection makes no empty include/. */
int cc_zip_make_dirs_of(cc_zrun *z, cc_xwriter *w, cc_strv *made, const cc_zjob *j)
{
    if (!j->write || !j->e.mapped)
        return 0;
    char *p = cc_strdup(j->e.mapped);
    int r = p ? 0 : -1;
    for (char *s = p ? strchr(p, '/') : NULL; r == 0 && s; s = strchr(s + 1, '/')) {
        *s = '\0';
        r = make_dir(z, w, made, p, j->mtime);
        *s = '/';
    }
    if (r == 0 && j->type == CC_XE_DIR)
        r = make_dir(z, w, made, p, j->mtime);
    free(p);
    return r;
}

int cc_zip_make_links(cc_zrun *z, cc_xwriter *w)
{
    for (size_t i = 0; i < z->n; i++) {
        cc_zjob *j = z->jobs[i];
        if (j->write && j->type == CC_XE_SYMLINK &&
            (cc_xwriter_begin(w, &j->e, j->mtime, -1, j->rec, NULL) != 0 || cc_xwriter_end(w) != 0))
            return -1;
    }
    return 0;
}

void cc_zip_end_writing(cc_zrun *z, cc_xwriter *mw)
{
    if (mw && !cc_zip_failed(z) && cc_zip_make_links(z, mw) != 0)
        cc_zip_writer_failed(z, mw);
    if (mw)
        cc_zip_finish_writer(z, mw);
    char *err = NULL;
    if (z->syncer && !cc_zip_failed(z) && cc_syncer_finish(z->syncer, &err) != 0)
        cc_zip_fail(z, CUDNNCTL_E_IO,
                    cc_asprintf("flushing the staged files to disk failed: %s; check the disk",
                                err ? err : "?"));
    free(err);
}

/* ---- one entry's data --------------------------------------------------------------------- */
static int add_bytes(cc_zwriters *w, size_t len)
{
    cc_zrun *z = w->z;
    cc_pf_mutex_lock(z->mu);
    z->bytes += len;
    uint64_t total = z->bytes;
    int f = z->failed;
    cc_pf_mutex_unlock(z->mu);
    if (f)
        return -1;
    if (w->is_main) {
        cudnnctl_err rc = cc_cancel_check(z->ctx, "the extraction");
        if (rc) {
            cc_zip_fail(z, rc, NULL);
            return -1;
        }
        cc_progress(z->ctx, "extract", total, 0);
    }
    return 0;
}

/* The writer for entry j. An entry as big as z->big would keep its worker busy long after the
 * others are done: hashing and writing its bytes go to a thread of their own, so that the worker
 * only inflates it (a core freed by the small entries takes that thread). */
static cc_xwriter *writer_for(cc_zwriters *w, const cc_zjob *j)
{
    cc_zrun *z = w->z;
    if (!z->big || (uint64_t)j->size < z->big)
        return w->w;
    if (!w->big)
        w->big = writer_new(z, 1);
    return w->big ? w->big : w->w;
}

/* The read of j's data returned r (a warning is a damaged entry: libarchive's "ZIP bad CRC"), or
 * the data went past where its header said it ends. */
static void data_error(cc_zwriters *w, const cc_zjob *j, int r)
{
    const char *e = r != ARCHIVE_OK ? archive_error_string(w->a) : NULL;
    cc_zip_fail(w->z, r != ARCHIVE_OK ? CUDNNCTL_E_BAD_ARCHIVE : CUDNNCTL_E_UNSAFE_ARCHIVE,
                r != ARCHIVE_OK
                    ? cc_asprintf("malformed archive in the data of '%s': %s; the file is "
                                  "truncated or corrupt: delete it (or the cached copy) and "
                                  "download it again",
                                  j->stored, e ? e : "read error")
                    : cc_asprintf("unsafe archive entry '%s': its data goes past the %lld "
                                  "bytes its header declares; nothing was installed: use "
                                  "NVIDIA's archive",
                                  j->stored, (long long)j->size));
}

/* The next piece of j's data, as archive_read_data_block answers (the inflater's error made
 * the run's here: data_error reads libarchive's). */
static int next_piece(cc_zwriters *w, const cc_zjob *j, uint64_t pos, const void **buf, size_t *len,
                      la_int64_t *off)
{
    if (!w->inflate)
        return archive_read_data_block(w->a, buf, len, off);
    const char *why = NULL;
    int r = cc_zinflate_next(w->inflate, buf, len, &why);
    *off = (la_int64_t)pos;
    if (r < 0 && why)
        cc_zip_fail(w->z, CUDNNCTL_E_BAD_ARCHIVE,
                    cc_asprintf("malformed archive in the data of '%s': %s; the file is "
                                "truncated or corrupt: delete it (or the cached copy) and "
                                "download it again",
                                j->stored, why));
    return r > 0 ? ARCHIVE_OK : r == 0 ? ARCHIVE_EOF : ARCHIVE_FATAL;
}

int cc_zip_copy_entry(cc_zwriters *w, cc_zjob *j)
{
    cc_zrun *z = w->z;
    cc_xwriter *out = writer_for(w, j);
    if (cc_xwriter_begin(out, &j->e, j->mtime, j->size, j->rec, NULL) != 0) {
        cc_zip_writer_failed(z, out);
        return -1;
    }
    uint64_t pos = 0;
    for (;;) {
        const void *buf;
        size_t len;
        la_int64_t off;
        int r = next_piece(w, j, pos, &buf, &len, &off);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && w->inflate)
            return -1; /* recorded (next_piece, or the reader) */
        if (r != ARCHIVE_OK || (uint64_t)off != pos || pos + len > (uint64_t)j->size) {
            data_error(w, j, r);
            return -1;
        }
        if (len && cc_xwriter_data(out, buf, len) != 0) {
            cc_zip_writer_failed(z, out);
            return -1;
        }
        pos += len;
        if (add_bytes(w, len) != 0)
            return -1;
    }
    if (pos != (uint64_t)j->size) {
        cc_zip_fail(z, CUDNNCTL_E_BAD_ARCHIVE,
                    cc_asprintf("bad archive: the data of '%s' is truncated (%llu of the %lld "
                                "bytes its header declares); delete it (or the cached copy) and "
                                "download it again",
                                j->stored, (unsigned long long)pos, (long long)j->size));
        return -1;
    }
    if (cc_xwriter_end(out) != 0) {
        cc_zip_writer_failed(z, out);
        return -1;
    }
    return 0;
}

unsigned cc_zip_threads(const cc_extract_opts *o, size_t files)
{
    unsigned t = o->threads ? o->threads : cc_pf_ncpu();
    if (t > CC_ZIP_MAX_THREADS)
        t = CC_ZIP_MAX_THREADS;
    if (t > files)
        t = (unsigned)files;
    return t ? t : 1;
}

uint64_t cc_zip_big_entry_size(const cc_zrun *z, unsigned nt, uint64_t total)
{
    if (nt < 2 || z->o->no_writer_thread)
        return 0;
    if (z->o->writer_thread_from)
        return z->o->writer_thread_from;
    uint64_t big = total / (2u * nt);
    return big < (16u << 20) ? (16u << 20) : big;
}
