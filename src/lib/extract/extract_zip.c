/* extract_zip.c: a zip (NVIDIA's Windows archives, NVIDIA's wheels) unpacked on every core.
 * One pass over libarchive's seekable zip reader judges every entry (extract_check.c, the
 * content policy, the bomb limits) before a byte is written; then worker threads, each with its
 * own libarchive handle reading the one verified file at its own offsets (cc_pf_pread), inflate
 * one entry at a time, the largest first, through their own writer (extract_write.c); an entry
 * big enough to outlast the others is hashed and written by a thread of its own. Nothing of
 * the zip format is read here: entries are found by libarchive, by their number. A wheel's names
 * are mapped first (nvidia/cudnn/X -> X, the licence -> LICENSE, lib/libX.so.M -> libX.so.M.m.p as
 * NVIDIA's archives name it; the Python metadata is not installed): docs/archive-layouts.md. */
#include "extract_zip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "content_policy.h"
#include "extract_limits.h"
#include "grow.h"
#include "extract_write.h"
#include "syncer.h"
#include "xfile.h"

#define ZMAX_THREADS 8u
#define WHEEL_TOP "cudnn-wheel"

typedef struct {
    long index;     /* entry number in the archive */
    char *stored;   /* the name as stored, to find the entry again */
    char *name;     /* the name judged (a wheel's mapped into WHEEL_TOP/) */
    cc_xentry_type type;
    uint32_t mode;
    char *link;
    int64_t size, mtime;
    cc_xentry e;         /* the check's result */
    int write;           /* selected and mapped */
    cc_staged_file *rec; /* non-directories with a place; rec->skipped when not selected */
} zjob;

typedef struct zrun zrun;

struct zrun {
    cudnnctl_ctx *ctx;
    const cc_extract_opts *o;
    const char *root, *expected;
    cc_pf_fd fd;
    uint64_t fsize;
    zjob *jobs;
    size_t n, cap;
    size_t *order; /* the file jobs to write, largest first */
    size_t n_order;
    int wheel, windows;
    char *ver3; /* a wheel's cuDNN version, 3 parts, for the libX.so.M.m.p names */
    cc_syncer *syncer;
    uint64_t big; /* entries this large or larger go through a threaded writer (0: none) */
    cc_pf_mutex *mu; /* guards the rest */
    size_t next;
    uint64_t bytes;
    int failed;
    cudnnctl_err code;
    char *msg; /* NULL with failed: the error is already on ctx (cancel) */
};

/* ---- reading one open file from several threads (each its own cc_xfile at_pos) ------------ */
static struct archive *zr_open(cc_xfile *r)
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

/* ---- failures ----------------------------------------------------------------------------- */
static void zfail(zrun *z, cudnnctl_err code, char *msg)
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

static cudnnctl_err zbad(zrun *z, struct archive *a, const char *where)
{
    const char *e = a ? archive_error_string(a) : NULL;
    return CC_ERR(z->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                  "malformed archive %s: %s; the file is truncated or corrupt: delete it (or the "
                  "cached copy) and download it again",
                  where, e ? e : "read error");
}

/* ---- a wheel's names ---------------------------------------------------------------------- */
static int is_wheel(const zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        const char *s = strchr(z->jobs[i].stored, '/');
        if (s && s > z->jobs[i].stored && strcmp(s, "/WHEEL") == 0 &&
            (size_t)(s - z->jobs[i].stored) > 10 && strncmp(s - 10, ".dist-info", 10) == 0)
            return 1;
    }
    return 0;
}

/* "<name>-<version>.dist-info/WHEEL" -> the version's first three parts ("9.19.0"). */
static char *wheel_ver3(const zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        const char *n = z->jobs[i].stored, *d = strstr(n, ".dist-info/");
        const char *dash = NULL;
        for (const char *c = n; d && c < d; c++)
            if (*c == '-')
                dash = c;
        if (!d || !dash)
            continue;
        size_t len = 0;
        int dots = 0;
        while (dash + 1 + len < d && dots < 3) {
            char c = dash[1 + len];
            if (c == '.' && ++dots == 3)
                break;
            if (c != '.' && (c < '0' || c > '9'))
                return NULL;
            len++;
        }
        return dots >= 2 ? cc_strndup(dash + 1, len) : NULL;
    }
    return NULL;
}

/* lib/libX.so.M with M the version's major -> lib/libX.so.<ver3>; else a copy. */
static char *wheel_lib_name(const char *rest, const char *ver3)
{
    const char *b = strrchr(rest, '/'), *so = NULL;
    b = b ? b + 1 : rest;
    so = strstr(b, ".so.");
    size_t major = ver3 ? strcspn(ver3, ".") : 0;
    if (cc_str_starts(rest, "lib/") && so && cc_str_starts(b, "lib") && major &&
        strlen(so + 4) == major && strncmp(so + 4, ver3, major) == 0)
        return cc_asprintf("%.*s%s", (int)(so + 4 - rest), rest, ver3);
    return cc_strdup(rest);
}

/* The name to judge for a wheel entry, or NULL (set *skip) when the entry is not installed. */
static char *wheel_name(const zrun *z, const char *n, int *skip)
{
    const char *d = strstr(n, ".dist-info/");
    *skip = 0;
    if (d && (size_t)(strchr(n, '/') - n) == (size_t)(d - n) + 10) {
        const char *r = d + 11, *b = strrchr(r, '/');
        b = b ? b + 1 : r;
        if ((cc_str_starts(r, "licenses/") || !strchr(r, '/')) &&
            (strcmp(b, "License.txt") == 0 || strcmp(b, "LICENSE") == 0 ||
             strcmp(b, "LICENSE.txt") == 0))
            return cc_strdup(WHEEL_TOP "/LICENSE");
        *skip = 1;
        return NULL;
    }
    if (strcmp(n, "nvidia/cudnn") == 0 || strcmp(n, "nvidia/cudnn/") == 0)
        return cc_strdup(WHEEL_TOP "/");
    if (!cc_str_starts(n, "nvidia/cudnn/") || cc_str_ends(n, "__init__.py") ||
        strstr(n, "__pycache__") || cc_str_ends(n, ".pyc")) {
        *skip = 1;
        return NULL;
    }
    char *rest = wheel_lib_name(n + strlen("nvidia/cudnn/"), z->ver3);
    char *out = rest ? cc_asprintf(WHEEL_TOP "/%s", rest) : NULL;
    free(rest);
    return out;
}

/* ---- pass 1: every header, every check, before anything is written ---------------------- */
/* A zip holds files, dirs and links; any other type of entry is one the checks refuse. */
static cc_xentry_type zentry_type(struct archive_entry *ae)
{
    cc_xentry_type t = cc_xentry_type_of(ae);
    return t == CC_XE_HARDLINK || t == CC_XE_FILE || t == CC_XE_DIR || t == CC_XE_SYMLINK
               ? t
               : CC_XE_OTHER;
}

static cudnnctl_err read_headers(zrun *z, cc_xfile *r)
{
    struct archive_entry *ae;
    struct archive *a = zr_open(r);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int h;
    if (!a)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    while ((h = archive_read_next_header(a, &ae)) == ARCHIVE_OK || h == ARCHIVE_WARN) {
        if (z->n >= CC_EXTRACT_MAX_ENTRIES) {
            rc = CC_ERR(z->ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
                        "unsafe archive: more than %d entries; this is not a cuDNN archive",
                        CC_EXTRACT_MAX_ENTRIES);
            goto out;
        }
        if (cc_grow(&z->jobs, &z->cap, z->n + 1, sizeof(*z->jobs)) != 0) {
            rc = CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        zjob *j = &z->jobs[z->n];
        memset(j, 0, sizeof(*j));
        const char *name = archive_entry_pathname_utf8(ae), *link = NULL;
        j->index = (long)z->n;
        j->type = zentry_type(ae);
        j->mode = (uint32_t)archive_entry_perm(ae);
        j->size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1;
        j->mtime = archive_entry_mtime(ae);
        if (j->type == CC_XE_SYMLINK)
            link = archive_entry_symlink_utf8(ae);
        else if (j->type == CC_XE_HARDLINK)
            link = archive_entry_hardlink_utf8(ae);
        z->n++;
        j->stored = cc_strdup(name ? name : "");
        if (!j->stored || (link && !(j->link = cc_strdup(link)))) {
            rc = CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        if (!name)
            j->stored[0] = '\0'; /* not representable: the check refuses it */
    }
    if (h != ARCHIVE_EOF)
        rc = zbad(z, a, z->n ? "reading the next entry" : "at its start");
out:
    archive_read_free(a);
    return rc;
}

static int keeps_everything(const zrun *z)
{
    cudnnctl_components c = z->o->components & CUDNNCTL_COMPONENTS_ALL;
    return !c || c == CUDNNCTL_COMPONENTS_ALL;
}

static cudnnctl_err judge_one(zrun *z, cc_xcheck *x, cc_xlimits *lim, zjob *j)
{
    int skip = 0;
    j->name = z->wheel ? wheel_name(z, j->stored, &skip) : cc_strdup(j->stored);
    if (skip)
        return CUDNNCTL_E_OK;
    if (!j->name)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    j->e = (cc_xentry){.name = j->stored[0] ? j->name : NULL,
                       .type = j->type,
                       .mode = j->mode,
                       .link = j->link,
                       .rec_index = j->index};
    char *detail = NULL;
    cudnnctl_err c = cc_xcheck_entry(x, &j->e, &detail);
    if (c) {
        CC_ERR(z->ctx, c, "%s", detail ? detail : "out of memory");
        free(detail);
        return c;
    }
    const char *why = NULL;
    if (z->o->content == CC_CONTENT_CUDA_TREE && j->e.mapped &&
        cc_content_allowed(j->e.mapped, j->type,
                           j->type == CC_XE_SYMLINK ? j->e.link_text : NULL, z->windows,
                           &why) != 0)
        CC_RET_ERR(z->ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
                   "refused archive entry '%s' (it would land as %s in the CUDA tree): %s. Into a "
                   "CUDA tree a cuDNN archive may only bring %s; nothing was installed. An "
                   "archive with other files is not NVIDIA's cuDNN archive: use NVIDIA's, or "
                   "install it into a prefix of its own with --prefix DIR",
                   j->stored, j->e.mapped, why, cc_content_allowlist_text(z->windows));
    if (j->type == CC_XE_HARDLINK)
        CC_RET_ERR(z->ctx, CUDNNCTL_E_UNSUPPORTED,
                   "the zip archive hard-links '%s': NVIDIA's zips carry none; use NVIDIA's "
                   "archive",
                   j->stored);
    if (j->type == CC_XE_FILE) {
        cudnnctl_err rc = cc_xlimits_entry(z->ctx, lim, j->stored, j->size, 0);
        if (rc)
            return rc;
        if (j->size < 0)
            CC_RET_ERR(z->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                       "bad archive: the zip does not declare the size of '%s'; the file is "
                       "damaged: delete it (or the cached copy) and download it again",
                       j->stored);
    }
    if (j->e.mapped && j->type != CC_XE_DIR) {
        if (!(j->rec = calloc(1, sizeof(*j->rec))) || !(j->rec->path = cc_strdup(j->e.mapped)))
            return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        j->write = keeps_everything(z) ||
                   (cudnnctl_component_of(j->e.mapped) & z->o->components) != 0;
        j->rec->skipped = !j->write;
        j->rec->mode = j->type == CC_XE_SYMLINK ? 0777 : j->e.out_mode;
        j->rec->is_link = j->type == CC_XE_SYMLINK;
        if (j->rec->is_link && !(j->rec->link_target = cc_strdup(j->e.link_text)))
            return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (j->e.mapped) {
        j->write = keeps_everything(z);
    }
    return CUDNNCTL_E_OK;
}

static int by_size_desc(const void *a, const void *b, void *jobs)
{
    const zjob *x = &((const zjob *)jobs)[*(const size_t *)a];
    const zjob *y = &((const zjob *)jobs)[*(const size_t *)b];
    return x->size < y->size ? 1 : x->size > y->size ? -1 : (x->index > y->index) - (x->index < y->index);
}

static cudnnctl_err judge_all(zrun *z, cc_layout *layout)
{
    cc_xcheck *x = cc_xcheck_new(z->expected);
    cc_xlimits lim;
    cudnnctl_err rc = x ? CUDNNCTL_E_OK : CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_xlimits_init(&lim, z->o->archive_size ? z->o->archive_size : z->fsize, z->o->max_unpacked,
                    z->root);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < z->n; i++)
        rc = judge_one(z, x, &lim, &z->jobs[i]);
    char *detail = NULL;
    if (rc == CUDNNCTL_E_OK && (rc = cc_xcheck_finish(x, z->windows, layout, &detail)))
        CC_ERR(z->ctx, rc, "%s", detail ? detail : "out of memory");
    free(detail);
    cc_xcheck_free(x);
    if (rc == CUDNNCTL_E_OK && z->wheel)
        *layout = CC_LAYOUT_WHEEL;
    if (rc == CUDNNCTL_E_OK && !(z->order = calloc(z->n ? z->n : 1, sizeof(size_t))))
        rc = CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < z->n; i++)
        if (z->jobs[i].write && z->jobs[i].type == CC_XE_FILE)
            z->order[z->n_order++] = i;
    /* largest first: the big libraries start at once, the small ones fill in behind them */
    for (size_t i = 1; i < z->n_order; i++) /* insertion sort: qsort_r is not portable */
        for (size_t k = i; k > 0 && by_size_desc(&z->order[k - 1], &z->order[k], z->jobs) > 0;
             k--) {
            size_t t = z->order[k];
            z->order[k] = z->order[k - 1];
            z->order[k - 1] = t;
        }
    return rc;
}

/* ---- directories, then links: in the caller's thread ------------------------------------- */
static uint32_t dir_mode(const zrun *z, const char *mapped, int64_t *mtime)
{
    for (size_t i = 0; i < z->n; i++)
        if (z->jobs[i].type == CC_XE_DIR && z->jobs[i].e.mapped &&
            strcmp(z->jobs[i].e.mapped, mapped) == 0) {
            *mtime = z->jobs[i].mtime;
            return z->jobs[i].e.out_mode;
        }
    return 0755;
}

static int make_dir(zrun *z, cc_xwriter *w, cc_strv *made, const char *mapped, int64_t mtime)
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
static int make_dirs(zrun *z, cc_xwriter *w)
{
    cc_strv made = {0};
    int r = 0;
    for (size_t i = 0; r == 0 && i < z->n; i++) {
        zjob *j = &z->jobs[i];
        if (!j->write || !j->e.mapped)
            continue;
        char *p = cc_strdup(j->e.mapped);
        for (char *s = p ? strchr(p, '/') : NULL; r == 0 && s; s = strchr(s + 1, '/')) {
            *s = '\0';
            r = make_dir(z, w, &made, p, j->mtime);
            *s = '/';
        }
        if (!p)
            r = -1;
        else if (r == 0 && j->type == CC_XE_DIR)
            r = make_dir(z, w, &made, p, j->mtime);
        free(p);
    }
    cc_strv_free(&made);
    return r;
}

static int make_links(zrun *z, cc_xwriter *w)
{
    for (size_t i = 0; i < z->n; i++) {
        zjob *j = &z->jobs[i];
        if (j->write && j->type == CC_XE_SYMLINK &&
            (cc_xwriter_begin(w, &j->e, j->mtime, -1, j->rec, NULL) != 0 ||
             cc_xwriter_end(w) != 0))
            return -1;
    }
    return 0;
}

/* The writer's failure (err: what its finish said, freed here) as a message; its errno decides
 * the code (no space, permission). */
static void writer_error(zrun *z, cc_xwriter *w, char *err)
{
    int e = cc_xwriter_errno(w);
    if (e)
        cc_pf_set_errno(e);
    cudnnctl_err code = e ? cc_pf_last_error() : CUDNNCTL_E_IO;
    if (code != CUDNNCTL_E_NO_SPACE && code != CUDNNCTL_E_PERMISSION)
        code = CUDNNCTL_E_IO;
    zfail(z, code,
          cc_asprintf("writing into the staging directory %s failed: %s%s%s%s; nothing was "
                      "installed: check its free space (or install elsewhere with --prefix DIR) "
                      "and permissions",
                      z->root, err ? err : "?", e ? " (" : "", e ? cc_pf_last_error_text() : "",
                      e ? ")" : ""));
    free(err);
}

static void writer_failed(zrun *z, cc_xwriter *w)
{
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    cc_xwriter_finish(w, &err, &nwarn, &warn);
    free(warn);
    writer_error(z, w, err);
}

/* ---- the workers -------------------------------------------------------------------------- */
typedef struct {
    zrun *z;
    cc_xfile r;
    struct archive *a;
    struct archive_entry *ae;
    long cur;
    cc_xwriter *w;   /* writes in this thread */
    cc_xwriter *big; /* writes in a thread of its own: for the entries on the critical path */
    int is_main; /* the caller's thread: it alone reports progress and sees a cancel */
    cc_pf_thread *thread;
} zworker;

static int failed_now(zrun *z)
{
    cc_pf_mutex_lock(z->mu);
    int f = z->failed;
    cc_pf_mutex_unlock(z->mu);
    return f;
}

/* Position the worker's own handle on entry j (forward by headers; backward by reopening). */
static int seek_entry(zworker *w, const zjob *j)
{
    zrun *z = w->z;
    if (!w->a || w->cur > j->index) {
        if (w->a)
            archive_read_free(w->a);
        w->cur = -1;
        if (!(w->a = zr_open(&w->r))) {
            zfail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory opening the archive"));
            return -1;
        }
    }
    while (w->cur < j->index) {
        int h = archive_read_next_header(w->a, &w->ae);
        if (h != ARCHIVE_OK && h != ARCHIVE_WARN) {
            const char *e = archive_error_string(w->a);
            zfail(z, CUDNNCTL_E_BAD_ARCHIVE,
                  cc_asprintf("malformed archive at entry %ld: %s; the file is truncated or "
                              "corrupt: delete it (or the cached copy) and download it again",
                              w->cur + 1, e ? e : "read error"));
            return -1;
        }
        w->cur++;
    }
    const char *n = archive_entry_pathname_utf8(w->ae);
    if (!n || strcmp(n, j->stored) != 0) {
        zfail(z, CUDNNCTL_E_BAD_ARCHIVE,
              cc_asprintf("the archive changed while it was unpacked (entry %ld is '%s', was "
                          "'%s'); nothing was installed: run the install again",
                          j->index, n ? n : "?", j->stored));
        return -1;
    }
    return 0;
}

static int add_bytes(zworker *w, size_t len)
{
    zrun *z = w->z;
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
            zfail(z, rc, NULL);
            return -1;
        }
        cc_progress(z->ctx, "extract", total, 0);
    }
    return 0;
}

/* The writer for entry j. An entry as big as z->big would keep its worker busy long after the
 * others are done: hashing and writing its bytes go to a thread of their own, so that the worker
 * only inflates it (a core freed by the small entries takes that thread). */
static cc_xwriter *writer_for(zworker *w, const zjob *j)
{
    zrun *z = w->z;
    if (!z->big || (uint64_t)j->size < z->big)
        return w->w;
    if (!w->big && (w->big = cc_xwriter_new(z->root, 1)) != NULL) {
        cc_xwriter_share_syncer(w->big, z->syncer);
        if (z->o->on_file)
            cc_xwriter_on_file(w->big, z->o->on_file, z->o->on_file_user);
    }
    return w->big ? w->big : w->w;
}

static int write_one(zworker *w, zjob *j)
{
    zrun *z = w->z;
    if (seek_entry(w, j) != 0)
        return -1;
    cc_xwriter *out = writer_for(w, j);
    if (cc_xwriter_begin(out, &j->e, j->mtime, j->size, j->rec, NULL) != 0) {
        writer_failed(z, out);
        return -1;
    }
    uint64_t pos = 0;
    for (;;) {
        const void *buf;
        size_t len;
        la_int64_t off;
        int r = archive_read_data_block(w->a, &buf, &len, &off);
        if (r == ARCHIVE_EOF)
            break;
        /* a warning here is a damaged entry (libarchive's "ZIP bad CRC"): refused */
        const char *e = r != ARCHIVE_OK ? archive_error_string(w->a) : NULL;
        if (r != ARCHIVE_OK || (uint64_t)off != pos || pos + len > (uint64_t)j->size) {
            zfail(z, r != ARCHIVE_OK ? CUDNNCTL_E_BAD_ARCHIVE : CUDNNCTL_E_UNSAFE_ARCHIVE,
                  r != ARCHIVE_OK
                      ? cc_asprintf("malformed archive in the data of '%s': %s; the file is "
                                    "truncated or corrupt: delete it (or the cached copy) and "
                                    "download it again",
                                    j->stored, e ? e : "read error")
                      : cc_asprintf("unsafe archive entry '%s': its data goes past the %lld "
                                    "bytes its header declares; nothing was installed: use "
                                    "NVIDIA's archive",
                                    j->stored, (long long)j->size));
            return -1;
        }
        if (len && cc_xwriter_data(out, buf, len) != 0) {
            writer_failed(z, out);
            return -1;
        }
        pos += len;
        if (add_bytes(w, len) != 0)
            return -1;
    }
    if (pos != (uint64_t)j->size) {
        zfail(z, CUDNNCTL_E_BAD_ARCHIVE,
              cc_asprintf("bad archive: the data of '%s' is truncated (%llu of the %lld bytes "
                          "its header declares); delete it (or the cached copy) and download it "
                          "again",
                          j->stored, (unsigned long long)pos, (long long)j->size));
        return -1;
    }
    if (cc_xwriter_end(out) != 0) {
        writer_failed(z, out);
        return -1;
    }
    return 0;
}

static void worker_main(void *arg)
{
    zworker *w = arg;
    zrun *z = w->z;
    for (;;) {
        cc_pf_mutex_lock(z->mu);
        size_t k = z->failed ? z->n_order : z->next++;
        cc_pf_mutex_unlock(z->mu);
        if (k >= z->n_order || write_one(w, &z->jobs[z->order[k]]) != 0)
            break;
    }
    if (w->a)
        archive_read_free(w->a);
    w->a = NULL;
}

static unsigned thread_count(const zrun *z)
{
    unsigned t = z->o->threads ? z->o->threads : cc_pf_ncpu();
    if (t > ZMAX_THREADS)
        t = ZMAX_THREADS;
    if (t > z->n_order)
        t = (unsigned)z->n_order;
    return t ? t : 1;
}

/* Wait for what w still has queued (unless the run already failed), then free it. */
static void finish_writer(zrun *z, cc_xwriter *w)
{
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    if (w && !failed_now(z) && cc_xwriter_finish(w, &err, &nwarn, &warn) != 0)
        writer_error(z, w, err);
    else
        free(err);
    free(warn);
    cc_xwriter_free(w);
}

/* With two workers or more, an entry larger than half a worker's share of the bytes gets a
 * writer thread (none under 16 MiB: a thread would cost more than it saves). */
static uint64_t big_entry_size(const zrun *z, unsigned nt)
{
    if (nt < 2 || z->o->no_writer_thread)
        return 0;
    if (z->o->writer_thread_from)
        return z->o->writer_thread_from;
    uint64_t total = 0;
    for (size_t k = 0; k < z->n_order; k++)
        total += (uint64_t)z->jobs[z->order[k]].size;
    uint64_t big = total / (2u * nt);
    return big < (16u << 20) ? (16u << 20) : big;
}

/* Start the workers (the caller's thread is one of them), wait for them all, close each
 * writer. A worker that cannot be started leaves its share to the others. */
static void run_workers(zrun *z, zworker *ws, unsigned nt)
{
    for (unsigned i = 0; i < nt; i++) {
        ws[i] = (zworker){.z = z,
                          .r = {.fd = z->fd,
                                .size = z->fsize,
                                .buf = malloc(CC_XFILE_BLOCK),
                                .at_pos = 1},
                          .cur = -1,
                          .is_main = i == 0,
                          .w = cc_xwriter_new(z->root, 0)};
        if (!ws[i].r.buf || !ws[i].w) {
            zfail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory starting the unzip workers"));
            nt = i + 1;
            break;
        }
        cc_xwriter_share_syncer(ws[i].w, z->syncer);
        if (z->o->on_file) /* the unpacked store copies each file as it is closed */
            cc_xwriter_on_file(ws[i].w, z->o->on_file, z->o->on_file_user);
    }
    for (unsigned i = 1; i < nt; i++)
        if (cc_pf_thread_start(&ws[i].thread, worker_main, &ws[i]) != 0)
            ws[i].thread = NULL;
    if (!failed_now(z))
        worker_main(&ws[0]);
    for (unsigned i = 1; i < nt; i++)
        if (ws[i].thread)
            cc_pf_thread_join(ws[i].thread);
    for (unsigned i = 0; i < nt; i++) {
        finish_writer(z, ws[i].big);
        finish_writer(z, ws[i].w);
        free(ws[i].r.buf);
    }
}

static cudnnctl_err fill_out(zrun *z, cc_layout layout, cc_staging *out)
{
    out->layout = layout;
    out->top_dir = cc_strdup(z->wheel ? WHEEL_TOP : z->expected ? z->expected : "");
    out->files = calloc(z->n ? z->n : 1, sizeof(*out->files));
    if (!out->top_dir || !out->files)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < z->n; i++) {
        cc_staged_file *r = z->jobs[i].rec;
        if (!r || r->skipped)
            continue;
        out->files[out->n_files++] = *r;
        out->bytes += r->is_link ? 0 : r->size;
        free(r);
        z->jobs[i].rec = NULL;
    }
    return CUDNNCTL_E_OK;
}

static void zrun_free(zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        zjob *j = &z->jobs[i];
        free(j->stored);
        free(j->name);
        free(j->link);
        cc_xentry_clear(&j->e);
        if (j->rec) {
            free(j->rec->path);
            free(j->rec->link_target);
            free(j->rec);
        }
    }
    free(z->jobs);
    free(z->order);
    free(z->ver3);
    free(z->msg);
    cc_pf_mutex_free(z->mu);
}

/* Write what pass 1 judged: dirs, the files in parallel, then links; one error for all. */
static cudnnctl_err write_all(zrun *z)
{
    cc_xwriter *mw = cc_xwriter_new(z->root, 0);
    unsigned nt = thread_count(z);
    zworker *ws = calloc(nt, sizeof(*ws));
    z->syncer = cc_syncer_new(); /* NULL: the commit syncs everything itself */
    if (!mw || !ws)
        zfail(z, CUDNNCTL_E_NOMEM, cc_strdup("out of memory"));
    else if (make_dirs(z, mw) != 0)
        writer_failed(z, mw);
    cc_event(z->ctx, CUDNNCTL_EV_STEP, "extract", NULL);
    if (!failed_now(z)) {
        z->big = big_entry_size(z, nt);
        cc_log(z->ctx, CUDNNCTL_LOG_DEBUG, "extract: %zu files on %u thread(s)", z->n_order, nt);
        run_workers(z, ws, nt);
    }
    if (!failed_now(z) && make_links(z, mw) != 0)
        writer_failed(z, mw);
    char *err = NULL, *warn = NULL;
    unsigned nwarn = 0;
    if (mw && !failed_now(z) && cc_xwriter_finish(mw, &err, &nwarn, &warn) != 0)
        writer_failed(z, mw);
    free(err);
    free(warn);
    if (z->syncer && !failed_now(z) && cc_syncer_finish(z->syncer, &err) != 0)
        zfail(z, CUDNNCTL_E_IO, cc_asprintf("flushing the staged files to disk failed: %s; check "
                                            "the disk",
                                            err ? err : "?"));
    free(err);
    cc_syncer_free(z->syncer);
    cc_xwriter_free(mw);
    free(ws);
    if (!z->failed)
        return CUDNNCTL_E_OK;
    if (z->msg)
        return CC_ERR(z->ctx, z->code, "%s", z->msg);
    return z->code;
}

cudnnctl_err cc_extract_zip(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_pf_fd fd,
                            const char *root, const char *expected, cc_staging *out)
{
    zrun z = {.ctx = ctx, .o = o, .root = root, .expected = expected, .fd = fd};
    cc_pf_stat_t st;
    cc_xfile r = {.fd = fd, .buf = malloc(CC_XFILE_BLOCK), .at_pos = 1};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_layout layout = CC_LAYOUT_UNKNOWN;
    if (cc_pf_fstat(fd, &st) != 0) {
        rc = CC_ERR_PF(ctx, "cannot read the archive", o->path ? o->path : "(the verified file)");
        goto out;
    }
    z.fsize = r.size = st.size;
    if (!r.buf || !(z.mu = cc_pf_mutex_new())) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = read_headers(&z, &r)) != CUDNNCTL_E_OK)
        goto out;
    free(r.buf);
    r.buf = NULL;
    z.windows = 1;
    if ((z.wheel = is_wheel(&z))) {
        z.expected = WHEEL_TOP;
        z.ver3 = wheel_ver3(&z);
        z.windows = 0;
        for (size_t i = 0; i < z.n; i++)
            z.windows |= cc_str_ends(z.jobs[i].stored, ".dll");
    }
    if ((rc = judge_all(&z, &layout)) != CUDNNCTL_E_OK || (rc = write_all(&z)) != CUDNNCTL_E_OK)
        goto out;
    rc = fill_out(&z, layout, out);
    if (rc == CUDNNCTL_E_OK) {
        cc_progress(ctx, "extract", z.bytes, z.bytes);
        cc_log(ctx, CUDNNCTL_LOG_INFO, "extract: %zu entries, %llu bytes, layout %s", out->n_files,
               (unsigned long long)out->bytes, cc_layout_name(layout));
    }
out:
    free(r.buf);
    zrun_free(&z);
    return rc;
}
