/* extract.c: read an archive with libarchive (tar + xz/gzip from a stream; tar or zip from a
 * file), judge every entry (extract_check.c) before a byte of it is written, and hand it to the
 * writer (extract_write.c) which stages it under the normalised layout. */
#include "extract.h"
#include "grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "content_policy.h"
#include "extract_check.h"
#include "extract_limits.h"
#include "extract_write.h"
#include "extract_zip.h"
#include "xfile.h"
#include "internal.h"
#include "layout.h"

#define PROGRESS_STEP (1ull << 20) /* the CLI redraws its line at most 10 times a second */

/* ---- reading: a pull stream or a seekable file --------------------------------------------- */
typedef struct {
    cc_read_fn fn;
    void *user;
    cc_xfile file; /* file mode: the open file (xfile.c reads it); its buf serves the stream too */
    int src_failed;
} reader;

static la_ssize_t rd_stream(struct archive *a, void *p, const void **out)
{
    reader *r = p;
    long long n = r->fn(r->user, r->file.buf, CC_XFILE_BLOCK);
    if (n < 0) {
        r->src_failed = 1;
        archive_set_error(a, EIO, "reading the archive's bytes failed");
        return -1;
    }
    *out = r->file.buf;
    return (la_ssize_t)n;
}

/* ---- results ---------------------------------------------------------------------------- */
typedef struct {
    cc_staged_file **v;
    size_t n, cap;
} recs;

/* Records come from the fault-injectable allocator: torture loops fail extraction mid-way
 * (libarchive's own disk writes cannot be reached) and check that staging is emptied. */
static cc_staged_file *rec_new(cudnnctl_ctx *ctx, recs *rs, const char *path)
{
    if (cc_grow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v)) != 0)
        return NULL;
    cc_staged_file *f = cc_sys_malloc(ctx, sizeof(*f));
    if (f)
        memset(f, 0, sizeof(*f));
    if (!f || !(f->path = cc_strdup(path))) {
        free(f);
        return NULL;
    }
    rs->v[rs->n++] = f;
    return f;
}

static void recs_free(recs *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->v[i]->path);
        free(rs->v[i]->link_target);
        free(rs->v[i]);
    }
    free(rs->v);
    memset(rs, 0, sizeof(*rs));
}

void cc_staging_free(cc_staging *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->n_files; i++) {
        free(st->files[i].path);
        free(st->files[i].link_target);
    }
    free(st->files);
    free(st->top_dir);
    memset(st, 0, sizeof(*st));
}

const cc_staged_file *cc_staging_find(const cc_staging *st, const char *path)
{
    for (size_t i = 0; i < st->n_files; i++)
        if (strcmp(st->files[i].path, path) == 0)
            return &st->files[i];
    return NULL;
}

/* ---- one pass over the archive ------------------------------------------------------------ */
typedef struct {
    cudnnctl_ctx *ctx;
    const cc_extract_opts *o;
    const char *root; /* real path of the staging dir */
    cc_xcheck *check;
    cc_xwriter *writer; /* NULL: check only (the zip pre-pass) */
    reader rd;
    recs rs;
    uint64_t bytes, next_progress;
    int is_zip;
    cc_xlimits limits; /* declared sizes against the caps and the free space */
    cc_strv pending;   /* a component selection: dirs not made yet, made when a kept entry needs
                        * them (so a runtime-only install has no empty include/) */
} pass;

static cudnnctl_err read_failed(pass *p, struct archive *a, const char *where)
{
    if (p->rd.src_failed) {
        /* the source recorded its own error (network, hash, ...) on the context */
        cudnnctl_err code = cudnnctl_last_error(p->ctx)->code;
        return code != CUDNNCTL_E_OK
                   ? code
                   : CC_ERR(p->ctx, CUDNNCTL_E_IO, "reading the archive failed %s", where);
    }
    return CC_ERR(p->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                  "malformed archive %s: %s; the file is truncated or corrupt: delete it (or "
                  "the cached copy) and download it again",
                  where, archive_error_string(a) ? archive_error_string(a) : "read error");
}

static cudnnctl_err writer_error(pass *p)
{
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    int r = cc_xwriter_finish(p->writer, &err, &nwarn, &warn);
    if (nwarn)
        cc_log(p->ctx, CUDNNCTL_LOG_WARN, "extract: %u warning(s) while writing, first: %s", nwarn,
               warn ? warn : "?");
    free(warn);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int e = r != 0 ? cc_xwriter_errno(p->writer) : 0;
    if (e)
        cc_pf_set_errno(e); /* the cause libarchive's "Write failed" hides */
    cudnnctl_err code = e ? cc_pf_last_error() : CUDNNCTL_E_IO;
    if (r != 0 && code == CUDNNCTL_E_NO_SPACE) {
        char *dir = cc_path_dir(p->root); /* the staging dir's place: the target's file system */
        char *shown = dir ? cc_unrooted(p->ctx, dir) : NULL;
        rc = CC_ERR(p->ctx, code,
                    "unpacking into %s failed: %s (%s); nothing was installed and the partly "
                    "unpacked files are removed: free some space on that file system, or install "
                    "elsewhere with --prefix DIR",
                    shown ? shown : p->root, cc_pf_last_error_text(), err ? err : "?");
        free(shown);
        free(dir);
    } else if (r != 0)
        rc = CC_ERR(p->ctx, code == CUDNNCTL_E_PERMISSION ? code : CUDNNCTL_E_IO,
                    "writing into the staging directory %s failed: %s%s%s%s; check its free "
                    "space and permissions",
                    p->root, err ? err : "?", e ? " (" : "", e ? cc_pf_last_error_text() : "",
                    e ? ")" : "");
    free(err);
    return rc;
}

static const unsigned char zeros[65536];

/* Copy the entry's data to the writer; holes of sparse entries become zeros. */
static cudnnctl_err copy_data(pass *p, struct archive *a, const char *name, int64_t size)
{
    uint64_t pos = 0;
    char *where = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (;;) {
        const void *buf;
        size_t len;
        la_int64_t off;
        int r = archive_read_data_block(a, &buf, &len, &off);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            where = cc_asprintf("in the data of '%s'", name);
            rc = read_failed(p, a, where ? where : "");
            goto out;
        }
        while (pos < (uint64_t)off) {
            size_t n = (uint64_t)off - pos > sizeof(zeros) ? sizeof(zeros) : (size_t)(off - pos);
            if (cc_xwriter_data(p->writer, zeros, n) != 0) {
                rc = writer_error(p);
                goto out;
            }
            pos += n;
        }
        if (len && cc_xwriter_data(p->writer, buf, len) != 0) {
            rc = writer_error(p);
            goto out;
        }
        pos += len;
        p->bytes += len;
        if ((rc = cc_cancel_check(p->ctx, "the extraction")) != CUDNNCTL_E_OK)
            goto out;
        if ((rc = cc_xlimits_produced(p->ctx, &p->limits, name, p->bytes)) != CUDNNCTL_E_OK)
            goto out;
        if (p->bytes >= p->next_progress) {
            /* once per PROGRESS_STEP crossed, then a final report with the total */
            cc_progress(p->ctx, "extract", p->bytes, 0);
            while (p->next_progress <= p->bytes)
                p->next_progress += PROGRESS_STEP;
        }
    }
    if (size > 0 && pos < (uint64_t)size) /* sparse entries are refused: no trailing hole */
        rc = CC_ERR(p->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                    "bad archive: the data of '%s' is truncated (%llu of the %lld bytes its "
                    "header declares); the file is damaged or incomplete: delete it (or the "
                    "cached copy) and download it again",
                    name, (unsigned long long)pos, (long long)size);
out:
    free(where);
    return rc;
}

/* ---- a component selection ------------------------------------------------------------- */

static int keeps_everything(const pass *p)
{
    cudnnctl_components c = p->o->components & CUDNNCTL_COMPONENTS_ALL;
    return !c || c == CUDNNCTL_COMPONENTS_ALL;
}

/* Written, or only read through? Directories wait until something kept lives in them. */
static int selected(const pass *p, const cc_xentry *e)
{
    if (keeps_everything(p))
        return 1;
    if (e->type == CC_XE_DIR)
        return 0;
    return (cudnnctl_component_of(e->mapped) & p->o->components) != 0;
}

/* The pending dirs that hold `mapped`, outer first, made now. */
static cudnnctl_err make_pending(pass *p, const char *mapped, int64_t mtime)
{
    for (size_t i = 0; i < p->pending.n;) {
        size_t n = strlen(p->pending.v[i]);
        if (strncmp(mapped, p->pending.v[i], n) != 0 || mapped[n] != '/') {
            i++;
            continue;
        }
        cc_xentry d = {.type = CC_XE_DIR, .mapped = p->pending.v[i], .out_mode = 0755};
        if (cc_xwriter_begin(p->writer, &d, mtime, -1, NULL, NULL) != 0 ||
            cc_xwriter_end(p->writer) != 0)
            return writer_error(p);
        free(p->pending.v[i]);
        memmove(&p->pending.v[i], &p->pending.v[i + 1], (p->pending.n - i - 1) * sizeof(char *));
        p->pending.n--;
    }
    return CUDNNCTL_E_OK;
}

/* An entry of a component left out: its bytes are read through (and hashed by the source) by
 * the next header; its dirs wait; a file keeps its record number (a hard link to it must not
 * find another file) as a skipped record. */
static cudnnctl_err skip_entry(pass *p, const cc_xentry *e)
{
    for (size_t i = 0; i < e->new_dirs.n; i++)
        if (cc_strv_push(&p->pending, e->new_dirs.v[i]) != 0)
            return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e->type == CC_XE_DIR && !cc_strv_contains(&p->pending, e->mapped) &&
        cc_strv_push(&p->pending, e->mapped) != 0)
        return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e->type != CC_XE_DIR) {
        cc_staged_file *rec = rec_new(p->ctx, &p->rs, e->mapped);
        if (!rec)
            return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        rec->skipped = 1;
    }
    cc_log(p->ctx, CUDNNCTL_LOG_DEBUG, "extract: %s not selected (%s)", e->name, e->mapped);
    return CUDNNCTL_E_OK;
}

/* Stage one entry that passed the checks. */
static cudnnctl_err stage_entry(pass *p, struct archive *a, struct archive_entry *ae, cc_xentry *e)
{
    cc_staged_file *rec = NULL;
    const cc_staged_file *src = NULL;
    cudnnctl_err prc = make_pending(p, e->mapped, archive_entry_mtime(ae));
    if (prc != CUDNNCTL_E_OK)
        return prc;
    for (size_t i = 0; i < e->new_dirs.n; i++) {
        /* parents the archive did not list: made explicitly, so they are 0755 whatever the
         * umask */
        cc_xentry d = {.type = CC_XE_DIR, .mapped = e->new_dirs.v[i], .out_mode = 0755};
        if (cc_xwriter_begin(p->writer, &d, archive_entry_mtime(ae), -1, NULL, NULL) != 0 ||
            cc_xwriter_end(p->writer) != 0)
            return writer_error(p);
    }
    if (e->type != CC_XE_DIR) {
        if (!(rec = rec_new(p->ctx, &p->rs, e->mapped)))
            return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        rec->mode = e->type == CC_XE_SYMLINK ? 0777 : e->out_mode;
        if (e->type == CC_XE_SYMLINK) {
            rec->is_link = 1;
            if (!(rec->link_target = cc_strdup(e->link_text)))
                return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        if (e->type == CC_XE_HARDLINK) {
            src = e->hardlink_rec >= 0 && (size_t)e->hardlink_rec < p->rs.n
                      ? p->rs.v[e->hardlink_rec]
                      : NULL;
            if (!src || src->skipped)
                CC_RET_ERR(p->ctx, CUDNNCTL_E_UNSUPPORTED,
                           "the archive hard-links %s to a file of a component --components "
                           "leaves out: select both components (or all)",
                           e->name);
        }
    }
    if (e->dropped && e->type != CC_XE_SYMLINK)
        cc_log(p->ctx, CUDNNCTL_LOG_INFO,
               "extract: '%s': dropped mode bits %04o (setuid/setgid/sticky/group-or-other write)",
               e->name, (unsigned)e->dropped);
    int64_t size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1;
    if (cc_xwriter_begin(p->writer, e, archive_entry_mtime(ae), size, rec, src) != 0)
        return writer_error(p);
    if (e->type == CC_XE_FILE) {
        cudnnctl_err rc = copy_data(p, a, e->name, size);
        if (rc)
            return rc;
    }
    if (cc_xwriter_end(p->writer) != 0)
        return writer_error(p);
    return CUDNNCTL_E_OK;
}

/* The file mode's one open file, every pass from its start (its size from the open file). */
static cudnnctl_err rewind_file(pass *p)
{
    cc_pf_stat_t st;
    if (cc_pf_seek(p->rd.file.fd, 0) != 0 || cc_pf_fstat(p->rd.file.fd, &st) != 0)
        return CC_ERR_PF(p->ctx, "cannot read the archive",
                         p->o->path ? p->o->path : "(the verified file)");
    p->rd.file.size = st.size;
    p->rd.file.pos = 0;
    return CUDNNCTL_E_OK;
}

static cudnnctl_err open_archive(pass *p, struct archive **out)
{
    struct archive *a = archive_read_new();
    if (!a)
        return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    archive_read_support_format_tar(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_gzip(a);
    int r;
    if (p->rd.file.fd >= 0) {
        archive_read_support_format_zip_seekable(a);
        cudnnctl_err rc = rewind_file(p);
        if (rc != CUDNNCTL_E_OK) {
            archive_read_free(a);
            return rc;
        }
        archive_read_set_read_callback(a, cc_xfile_read);
        archive_read_set_seek_callback(a, cc_xfile_seek);
        archive_read_set_callback_data(a, &p->rd.file);
    } else {
        archive_read_set_read_callback(a, rd_stream);
        archive_read_set_callback_data(a, &p->rd);
    }
    r = archive_read_open1(a);
    if (r != ARCHIVE_OK) {
        cudnnctl_err rc = read_failed(p, a, "at its start");
        archive_read_free(a);
        return rc;
    }
    *out = a;
    return CUDNNCTL_E_OK;
}

/* Content policy (CUDA tree) and bomb limits, judged on the header before any byte of the entry
 * is written. */
static cudnnctl_err entry_policy(pass *p, struct archive_entry *ae, const cc_xentry *e)
{
    cudnnctl_err rc = cc_content_check(p->ctx, p->o->content, e->name, e, p->is_zip);
    if (rc)
        return rc;
    if (e->type != CC_XE_FILE)
        return CUDNNCTL_E_OK;
    int64_t declared = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1;
    return cc_xlimits_entry(p->ctx, &p->limits, e->name, declared,
                            archive_entry_sparse_count(ae) > 0);
}

/* Read every header; check each entry; stage it unless this is a check-only pass. */
static cudnnctl_err run_pass(pass *p)
{
    struct archive *a = NULL;
    struct archive_entry *ae;
    int r;
    long index = 0;
    cudnnctl_err rc = open_archive(p, &a);
    if (rc)
        goto out;
    cc_xlimits_init(&p->limits, p->o->archive_size ? p->o->archive_size : p->rd.file.size,
                    p->o->max_unpacked, p->root);
    while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        if (r == ARCHIVE_WARN)
            cc_log(p->ctx, CUDNNCTL_LOG_WARN, "extract: %s", archive_error_string(a));
        if ((rc = cc_cancel_check(p->ctx, "the extraction")) != CUDNNCTL_E_OK)
            goto out;
        if (index == 0)
            p->is_zip = (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
        cc_xentry e = {
            .name = archive_entry_pathname_utf8(ae),
            .type = cc_xentry_type_of(ae),
            .mode = (uint32_t)archive_entry_perm(ae),
            .rec_index = (long)p->rs.n,
        };
        if (e.type == CC_XE_HARDLINK)
            e.link = archive_entry_hardlink_utf8(ae);
        else if (e.type == CC_XE_SYMLINK)
            e.link = archive_entry_symlink_utf8(ae);
        char *detail = NULL;
        cudnnctl_err c = cc_xcheck_entry(p->check, &e, &detail);
        if (c) {
            rc = CC_ERR(p->ctx, c, "%s", detail ? detail : "out of memory");
            free(detail);
            cc_xentry_clear(&e);
            goto out;
        }
        if ((rc = entry_policy(p, ae, &e)) != CUDNNCTL_E_OK) {
            cc_xentry_clear(&e);
            goto out;
        }
        if (e.mapped && p->writer && !selected(p, &e)) {
            rc = skip_entry(p, &e);
        } else if (e.mapped && p->writer) {
            cc_log(p->ctx, CUDNNCTL_LOG_DEBUG, "extract: %s -> %s", e.name, e.mapped);
            rc = stage_entry(p, a, ae, &e);
        }
        cc_xentry_clear(&e);
        if (rc)
            goto out;
        index++;
    }
    if (r != ARCHIVE_EOF)
        rc = read_failed(p, a, "reading the next entry");
out:
    if (a)
        archive_read_free(a);
    return rc;
}

/* A zip starts with a local file header (or, empty, with the end record). */
static int is_zip_file(cc_pf_fd fd)
{
    unsigned char m[4] = {0};
    long long n = cc_pf_seek(fd, 0) == 0 ? cc_pf_read(fd, m, sizeof(m)) : -1;
    return n == 4 && m[0] == 'P' && m[1] == 'K' &&
           ((m[2] == 3 && m[3] == 4) || (m[2] == 5 && m[3] == 6));
}

/* The staging directory must exist and be empty: everything in it afterwards is ours. */
static cudnnctl_err check_staging(cudnnctl_ctx *ctx, const char *dir, char **real)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return CC_ERR_PF(ctx, "cannot open the staging directory", dir);
    const char *n = cc_pf_readdir(d);
    char *name = n ? cc_strdup(n) : NULL; /* readdir's buffer goes with closedir (valgrind) */
    cc_pf_closedir(d);
    if (n) {
        cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_EXISTS,
                                 "staging directory %s is not empty (it holds '%s'); remove its "
                                 "contents or use a new one",
                                 dir, name ? name : "?");
        free(name);
        return rc;
    }
    if (!(*real = cc_pf_realpath(dir)))
        return CC_ERR_PF(ctx, "cannot resolve the staging directory", dir);
    return CUDNNCTL_E_OK;
}

/* Leave staging_dir empty again after a failure. */
void cc_extract_empty_staging(cudnnctl_ctx *ctx, const char *root)
{
    cc_pf_dir *d = cc_pf_opendir(root);
    if (!d)
        return;
    cc_strv names = {0};
    const char *n;
    while ((n = cc_pf_readdir(d)) != NULL)
        cc_strv_push(&names, n);
    cc_pf_closedir(d);
    for (size_t i = 0; i < names.n; i++) {
        char *child = cc_path_join(root, names.v[i]);
        if (!child || cc_sys_rm_rf(ctx, child) != 0)
            cc_log(ctx, CUDNNCTL_LOG_WARN, "extract: could not clean %s/%s after the failure", root,
                   names.v[i]);
        free(child);
    }
    cc_strv_free(&names);
}

static cudnnctl_err fill_out(pass *p, cc_layout layout, cc_staging *out)
{
    out->layout = layout;
    out->top_dir = cc_strdup(cc_xcheck_top(p->check));
    out->files = calloc(p->rs.n ? p->rs.n : 1, sizeof(*out->files));
    if (!out->top_dir || !out->files)
        return CC_ERR(p->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < p->rs.n; i++) {
        if (p->rs.v[i]->skipped) { /* a component left out: not in the staged tree */
            free(p->rs.v[i]->path);
            free(p->rs.v[i]->link_target);
        } else {
            out->files[k++] = *p->rs.v[i];
        }
        free(p->rs.v[i]);
    }
    out->n_files = k;
    free(p->rs.v);
    memset(&p->rs, 0, sizeof(p->rs));
    out->bytes = p->bytes;
    return CUDNNCTL_E_OK;
}

/* After the writing pass: the writer's error, the layout check, the staged tree into out. */
static cudnnctl_err finish_pass(pass *p, cc_staging *out)
{
    cudnnctl_ctx *ctx = p->ctx;
    cudnnctl_err rc = writer_error(p);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_layout layout;
    char *detail = NULL;
    rc = cc_xcheck_finish(p->check, p->is_zip, &layout, &detail);
    if (rc)
        CC_ERR(ctx, rc, "%s", detail ? detail : "out of memory");
    free(detail);
    if (rc == CUDNNCTL_E_OK) {
        rc = fill_out(p, layout, out);
        cc_progress(ctx, "extract", p->bytes, p->bytes);
        cc_log(ctx, CUDNNCTL_LOG_INFO, "extract: %zu entries, %llu bytes, layout %s", out->n_files,
               (unsigned long long)out->bytes, cc_layout_name(layout));
    }
    return rc;
}

cudnnctl_err cc_extract_ex(cudnnctl_ctx *ctx, const cc_extract_opts *o, const char *staging_dir,
                           cc_staging *out)
{
    memset(out, 0, sizeof(*out));
    if (!o || !staging_dir || (!o->read_fn) == (!o->path && !o->has_fd) ||
        (o->read_fn && o->has_fd))
        return CC_ERR(ctx, CUDNNCTL_E_USAGE,
                      "extract: give exactly one of a reader, a path or an open file");
    const char *hint = o->name_hint ? o->name_hint : o->path;
    if (o->read_fn && hint && (cc_str_ends(hint, ".zip") || cc_str_ends(hint, ".whl")))
        return CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                      "%s: a zip archive is extracted from the downloaded file (its central "
                      "directory is at the end), not from a stream: use cc_extract_file",
                      hint);
    char *root = NULL, *expected = NULL;
    pass p = {.ctx = ctx,
              .o = o,
              .rd = {.fn = o->read_fn, .user = o->user, .file = {.fd = -1}},
              .next_progress = PROGRESS_STEP};
    cudnnctl_err rc = check_staging(ctx, staging_dir, &root);
    if (rc)
        return rc;
    p.root = root;
    /* file mode: one open file for every pass (a path is opened here, once) */
    if (o->has_fd)
        p.rd.file.fd = o->fd;
    else if (o->path && (p.rd.file.fd = cc_pf_open(o->path, CC_PF_O_RDONLY, 0)) < 0) {
        rc = CC_ERR_PF(ctx, "cannot open the archive", o->path);
        goto out;
    }
    expected = o->expected_top ? cc_strdup(o->expected_top) : cc_layout_expected_top(hint);
    p.rd.file.buf = malloc(CC_XFILE_BLOCK);
    if (!p.rd.file.buf || (o->expected_top && !expected)) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (p.rd.file.fd >= 0 && is_zip_file(p.rd.file.fd)) {
        /* every entry judged first, then the entries inflated on every core (extract_zip.c) */
        rc = cc_extract_zip(ctx, o, p.rd.file.fd, root, expected, out);
        goto out;
    }
    p.check = cc_xcheck_new(expected);
    p.writer = cc_xwriter_new(root, !o->no_writer_thread);
    if (!p.writer && !o->no_writer_thread) {
        cc_log(ctx, CUDNNCTL_LOG_DEBUG, "extract: no writer thread (%s); writing inline",
               cc_pf_last_error_text());
        p.writer = cc_xwriter_new(root, 0);
    }
    if (!p.check || !p.writer) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "cannot start the archive writer (out of memory)");
        goto out;
    }
    if (o->on_file)
        cc_xwriter_on_file(p.writer, o->on_file, o->on_file_user);
    cc_event(ctx, CUDNNCTL_EV_STEP, "extract", NULL);
    rc = run_pass(&p);
    if (rc == CUDNNCTL_E_OK)
        rc = finish_pass(&p, out);
out:
    cc_xwriter_free(p.writer);
    cc_xcheck_free(p.check);
    recs_free(&p.rs);
    cc_strv_free(&p.pending);
    if (rc) {
        cc_staging_free(out);
        if (root) {
            /* keep the recorded error: cleanup must not overwrite it */
            cc_extract_empty_staging(ctx, root);
        }
    }
    if (!o->has_fd && p.rd.file.fd >= 0)
        cc_pf_close(p.rd.file.fd);
    free(p.rd.file.buf);
    free(expected);
    free(root);
    return rc;
}

cudnnctl_err cc_extract_zip_download(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_source *src,
                                     const char *staging_dir, cc_staging *out)
{
    memset(out, 0, sizeof(*out));
    const char *part = cc_source_part(src);
    if (!o || o->read_fn || o->path || o->has_fd || o->on_file || !part)
        return CC_ERR(ctx, CUDNNCTL_E_USAGE,
                      "extract: a zip is unpacked as it downloads only from a download still "
                      "arriving, with no reader, path, file or file hook of its own");
    char *root = NULL;
    cudnnctl_err rc = check_staging(ctx, staging_dir, &root);
    if (rc)
        return rc;
    char *expected =
        o->expected_top ? cc_strdup(o->expected_top) : cc_layout_expected_top(o->name_hint);
    if (o->expected_top && !expected)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else
        rc = cc_extract_zip_stream(ctx, o, src, part, root, expected, out);
    if (rc) {
        cc_staging_free(out);
        cc_extract_empty_staging(ctx, root);
    }
    free(expected);
    free(root);
    return rc;
}

cudnnctl_err cc_extract_reader(cudnnctl_ctx *ctx, cc_read_fn read_fn, void *user,
                               const char *name_hint, const char *staging_dir, cc_staging *out)
{
    cc_extract_opts o = {.read_fn = read_fn, .user = user, .name_hint = name_hint};
    return cc_extract_ex(ctx, &o, staging_dir, out);
}

cudnnctl_err cc_extract_file(cudnnctl_ctx *ctx, const char *path, const char *name_hint,
                             const char *staging_dir, cc_staging *out)
{
    cc_extract_opts o = {.path = path, .name_hint = name_hint};
    return cc_extract_ex(ctx, &o, staging_dir, out);
}

/* ---- over a cc_source (download, cache blob or local file): the source hashes the bytes as
 * libarchive pulls them ---------------------------------------------------------------------- */

long long cc_extract_source_read(void *user, void *buf, size_t len)
{
    return cc_source_read((cc_source *)user, buf, len);
}

cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out)
{
    return cc_extract_reader(ctx, cc_extract_source_read, src, name_hint, staging_dir, out);
}
