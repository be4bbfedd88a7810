/* zip_int.h: what the two zip extractors share — extract_zip.c (the verified file: every entry
 * judged from the central directory first, then inflated on every core) and extract_zip_stream.c
 * (a download still arriving: each entry judged from its local header and inflated once its
 * bytes are in; the central directory held against them at the end). zip_entries.c: an entry
 * read, a wheel's names, the judging, the records. zip_write.c: the writing side. */
#ifndef CC_ZIP_INT_H
#define CC_ZIP_INT_H

#include <stdint.h>

#include <archive.h>
#include <archive_entry.h>

#include "extract.h"
#include "extract_check.h"
#include "extract_limits.h"
#include "extract_write.h"
#include "internal.h"
#include "str.h"
#include "syncer.h"
#include "xfile.h"

#define CC_ZIP_MAX_THREADS 8u
#define CC_ZIP_WHEEL_TOP "cudnn-wheel"

typedef struct {
    long index;   /* entry number in the archive */
    char *stored; /* the name as stored, to find the entry again */
    char *name;   /* the name judged (a wheel's mapped into CC_ZIP_WHEEL_TOP/) */
    cc_xentry_type type;
    uint32_t mode;
    char *link;
    int64_t size, mtime;
    uint64_t offset;     /* where its local header starts (the streaming reader's) */
    cc_xentry e;         /* the check's result */
    int write;           /* selected and mapped */
    cc_staged_file *rec; /* non-directories with a place; rec->skipped when not selected */
} cc_zjob;

typedef struct {
    cudnnctl_ctx *ctx;
    const cc_extract_opts *o;
    const char *root, *expected;
    cc_pf_fd fd;
    uint64_t fsize;
    cc_zjob **jobs; /* each its own allocation: a streaming reader adds while workers write */
    size_t n, cap;
    int wheel, windows;
    char *ver3; /* a wheel's cuDNN version, 3 parts, for the libX.so.M.m.p names */
    cc_syncer *syncer;
    uint64_t big;    /* entries this large or larger go through a threaded writer (0: none) */
    cc_pf_mutex *mu; /* guards the rest */
    uint64_t bytes;
    int failed;
    cudnnctl_err code;
    char *msg; /* NULL with failed: the error is already on ctx (cancel) */
} cc_zrun;

/* ---- zip_inflate.c ---- */
/* The compressed bytes of one entry, in order: > 0 bytes in *buf, 0 no more, -1 failed (the
 * reader recorded why on the run). */
typedef long long (*cc_zin_read)(void *user, const unsigned char **buf);
typedef struct cc_zinflate cc_zinflate;
/* An inflater (ISA-L); NULL when built without it (or out of memory): libarchive inflates. */
cc_zinflate *cc_zinflate_new(void);
void cc_zinflate_free(cc_zinflate *f);
/* The next entry: its raw deflate data from rd(user). */
void cc_zinflate_begin(cc_zinflate *f, cc_zin_read rd, void *user);
/* The next piece of inflated data: 1 (*buf, *len), 0 the deflate stream's end, -1 failed: *why
 * says how the data is malformed, NULL when the reader failed. */
int cc_zinflate_next(cc_zinflate *f, const void **buf, size_t *len, const char **why);

typedef struct {
    cc_zrun *z;
    struct archive *a;
    cc_zinflate *inflate; /* non-NULL: the entry's data comes from it, not from a */
    cc_xwriter *w;   /* writes in this thread */
    cc_xwriter *big; /* writes in a thread of its own: for the entries on the critical path */
    int is_main;     /* the caller's thread: it alone reports progress and sees a cancel */
} cc_zwriters;

/* ---- zip_entries.c ---- */
/* The entry ae (the next header of a reader) as job number z->n; NULL with the error on ctx
 * (too many entries, out of memory). */
cc_zjob *cc_zip_add_job(cc_zrun *z, struct archive_entry *ae);
/* A wheel: some "<name>.dist-info/WHEEL" among the entries. */
int cc_zip_is_wheel(const cc_zrun *z);
/* "<name>-<version>.dist-info/..." among the entries -> the version's first three parts. */
char *cc_zip_wheel_ver3(const cc_zrun *z);
/* The same from a wheel's file name ("nvidia_cudnn_cu13-9.19.0.56-py3-...whl"); NULL: none. */
char *cc_zip_wheel_ver3_of_name(const char *file_name);
/* Judge job j (the checks, the content policy, the limits, the selection); its record made. */
cudnnctl_err cc_zip_judge(cc_zrun *z, cc_xcheck *x, cc_xlimits *lim, cc_zjob *j);
/* The judged jobs as the caller's staging records. */
cudnnctl_err cc_zip_fill_out(cc_zrun *z, cc_layout layout, cc_staging *out);
void cc_zip_free_jobs(cc_zrun *z);

/* ---- zip_write.c ---- */
/* The first failure wins (msg owned; NULL: already recorded on ctx). */
void cc_zip_fail(cc_zrun *z, cudnnctl_err code, char *msg);
int cc_zip_failed(cc_zrun *z);
/* The reader's error, recorded as a bad archive at `where`. */
cudnnctl_err cc_zip_bad(cc_zrun *z, struct archive *a, const char *where);
/* The dirs job j lives in (outer first; j itself when a dir), each once (made: those so far). */
int cc_zip_make_dirs_of(cc_zrun *z, cc_xwriter *w, cc_strv *made, const cc_zjob *j);
int cc_zip_make_links(cc_zrun *z, cc_xwriter *w);
/* After the files: the links (through mw, then finished and freed), every staged file flushed
 * (the syncer's finish); a failure becomes the run's. */
void cc_zip_end_writing(cc_zrun *z, cc_xwriter *mw);
/* A writer's failure as the run's. */
void cc_zip_writer_failed(cc_zrun *z, cc_xwriter *w);
/* Wait for what w still has queued (unless the run already failed), then free it. */
void cc_zip_finish_writer(cc_zrun *z, cc_xwriter *w);
/* A new in-thread writer with the run's syncer and file hook. */
cc_xwriter *cc_zip_writer_new(cc_zrun *z);
/* Write entry j from w->a, positioned on its header (or w->inflate, begun on its data): its
 * data, checked against its size. */
int cc_zip_copy_entry(cc_zwriters *w, cc_zjob *j);
/* The workers for `files` files: o->threads (0: one per processor), at most CC_ZIP_MAX_THREADS
 * and no more than the files, at least 1. */
unsigned cc_zip_threads(const cc_extract_opts *o, size_t files);
/* With two workers or more, the size from which an entry gets a writer thread: half a worker's
 * share of total bytes, at least 16 MiB (0: none). */
uint64_t cc_zip_big_entry_size(const cc_zrun *z, unsigned nt, uint64_t total);
/* The run's result: OK, or its failure recorded on ctx. */
cudnnctl_err cc_zip_result(cc_zrun *z);

/* ---- extract_zip.c (besides cc_extract_zip, extract_zip.h) ---- */
/* Every entry of the zip open in fd (size bytes), as the central directory lists them, appended
 * to z's jobs through libarchive's seekable reader. */
cudnnctl_err cc_zip_read_directory(cc_zrun *z, cc_pf_fd fd, uint64_t size);
/* libarchive's seekable zip reader over r (r->pos reset), opened; NULL only without memory (an
 * open that failed is the caller's to read: archive_error_string, then archive_read_free). */
struct archive *cc_zip_open_seekable(cc_xfile *r);
/* z->wheel, z->ver3 and z->windows from the entries read. */
void cc_zip_set_kind(cc_zrun *z);

/* ---- zip_record.c ---- */
/* 1: the files of this run are not hashed as written; cc_zip_record_hashes fills them in. */
int cc_zip_record_wanted(const cc_zrun *z);
/* After the files are written, from the verified zip open in fd: each written file's SHA-256
 * from the wheel's RECORD when it lists the file with that size, else hashed from staging. */
cudnnctl_err cc_zip_record_hashes(cc_zrun *z, cc_pf_fd fd);

#endif
