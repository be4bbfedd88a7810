/* extract.h: archive bytes → staging tree, with our own check of every entry first and
 * libarchive's ARCHIVE_EXTRACT_SECURE_* flags as the second line. Owned by the extract work
 * (extract.c, extract_check.c, extract_write.c, pathcheck.c, layout.c);
 * consumed by install.c. Formats: docs/archive-layouts.md; checks: docs/security.md. */
#ifndef CC_EXTRACT_H
#define CC_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"
#include "platform.h"
#include "source.h"
#include "str.h"

/* Normalised staging layout, whatever the archive era:
 *   STAGING/include/   headers
 *   STAGING/lib/       Linux: libcudnn*.so* (real files + the links the archive had);
 *                      Windows: *.lib import libraries
 *   STAGING/bin/       Windows: *.dll
 *   STAGING/LICENSE    licence text, under whatever name the archive used, kept as LICENSE */
typedef enum {
    CC_LAYOUT_UNKNOWN = 0,
    CC_LAYOUT_TAR_9X,     /* cudnn-<plat>-<ver>_cudaN-archive/{include,lib} (8.3+ too) */
    CC_LAYOUT_TGZ_LEGACY, /* cuda/{include,lib64 | targets/<arch>/lib} (<= 8.2) */
    CC_LAYOUT_ZIP_BIN,    /* <top>/{bin,include,lib}            (8.3-8.6 Windows) */
    CC_LAYOUT_ZIP_LIBX64, /* <top>/{bin,include,lib/x64}        (8.8-9.17 Windows) */
    CC_LAYOUT_ZIP_BINX64, /* <top>/{bin/x64,include,lib/x64}    (9.18+ CUDA 13 Windows) */
    CC_LAYOUT_ZIP_LEGACY, /* cuda/{bin,include,lib/x64}         (<= 8.2 Windows) */
    CC_LAYOUT_WHEEL       /* NVIDIA's wheel: nvidia/cudnn/{include,lib,bin} + *.dist-info */
} cc_layout;

typedef struct {
    char *path;        /* relative to the staging root, '/'-separated ("lib/libcudnn.so.9.19.0") */
    int is_link;       /* symbolic link (hard links are staged and recorded as regular files) */
    char *link_target; /* for links: the target as written, relative ("libcudnn.so.9") */
    uint32_t mode;     /* permission bits as staged (setuid/setgid/sticky, g+w, o+w dropped) */
    uint64_t size;
    char sha256[65]; /* of regular files, computed while writing (or a pinned wheel's RECORD) */
    int skipped;     /* extraction only: an entry of a component left out (never staged) */
} cc_staged_file;

typedef struct {
    cc_layout layout;
    char *top_dir; /* the archive's top directory */
    cc_staged_file *files;
    size_t n_files;
    uint64_t bytes; /* total regular-file bytes */
    /* how staging was filled, for the install's result (static strings, set by install.c):
     * store NULL (not used), "hit", "filled", "rebuilt" (a bad entry quarantined, then filled
     * again), "skipped"; store_link for a hit: "copy", "reflink", "hardlink", ... */
    const char *store, *store_link;
} cc_staging;

/* Extract everything the source yields into staging_dir (which must exist and be empty).
 * name_hint: the archive's file name, to tell tar.xz / tgz / zip apart when needed.
 * Unsafe entry → CUDNNCTL_E_UNSAFE_ARCHIVE naming the entry; nothing outside staging_dir.
 * Streams carry tar formats only (.tar.xz, .tgz): a zip needs its central directory, so it is
 * extracted from the verified file with cc_extract_file (a zip here: CUDNNCTL_E_UNSUPPORTED).
 * On any failure staging_dir is left empty again (as it was given) and *out is zeroed.
 * Staged files are hashed while written and not fsync'd (the commit step syncs what it keeps).
 * Progress: cc_progress("extract", bytes staged, 0). */
cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out);
void cc_staging_free(cc_staging *st);

/* A pull reader: up to len bytes into buf; 0 at the end; -1 on failure, with the failure
 * already recorded on the ctx passed to cc_extract_* (as cc_source_read does). */
typedef long long (*cc_read_fn)(void *user, void *buf, size_t len);

/* A cc_read_fn over a cc_source (user = the cc_source *), for cc_extract_opts.read_fn. */
long long cc_extract_source_read(void *user, void *buf, size_t len);

/* The same from any reader (cc_extract is this over cc_source_read). */
cudnnctl_err cc_extract_reader(cudnnctl_ctx *ctx, cc_read_fn read_fn, void *user,
                               const char *name_hint, const char *staging_dir, cc_staging *out);

/* The same from an archive file on disk: every format (.tar.xz, .tgz, .zip). A zip is checked
 * entry by entry completely before its first byte is written. name_hint NULL: path's name. The
 * file is opened once: every pass reads that one open file, whatever the path names meanwhile. */
cudnnctl_err cc_extract_file(cudnnctl_ctx *ctx, const char *path, const char *name_hint,
                             const char *staging_dir, cc_staging *out);

/* Everything, for callers that need more control (tests, the benchmark). */
typedef struct {
    cc_read_fn read_fn; /* stream mode: bytes come from here ... */
    void *user;
    const char *path;         /* ... or file mode: the archive on disk (exactly one of them) */
    /* ... or file mode over an open file the caller holds (and closes): has_fd 1 and fd, each pass
     * reading it from offset 0 — the very file whose bytes were verified (cc_source_take_file);
     * path, when given too, only names it in messages */
    int has_fd;
    cc_pf_fd fd;
    const char *name_hint;    /* archive file name; NULL: path's base name / unknown */
    const char *expected_top; /* NULL: NVIDIA's top dir for name_hint (the file stem for 8.3+,
                               * "cuda" for <= 8.2), or any such-looking dir when unknown */
    int no_writer_thread;     /* 1: write in the caller's thread (no overlap with decoding) */
    int content;              /* cc_content_mode: CC_CONTENT_CUDA_TREE = only cuDNN's own files
                               * (content_policy.h); 0 = any (a prefix keeps the archive's tree) */
    uint64_t archive_size;    /* compressed size for the bomb cap (0: the file's size, or unknown) */
    uint64_t max_unpacked;    /* cap on the declared unpacked total (0: derived, extract_limits.h) */
    cudnnctl_components components; /* stage only these (0 or ALL: everything); every entry is
                               * still read (hashed by the source), checked and counted against
                               * the limits, whether it is written or not */
    unsigned threads;         /* a zip's entries are inflated by this many threads at once
                               * (0: one per processor, at most 8; 1: serially) */
    uint64_t writer_thread_from; /* with 2 threads or more, a zip entry this large or larger is
                               * hashed and written by a thread of its own while its worker
                               * inflates (0: half a worker's share of the bytes, at least 16 MiB;
                               * none with no_writer_thread) */
    /* called (from the writer thread) with the staged path of each regular file once it is
     * written and closed: the unpacked store copies it behind the decoder (store.h) */
    void (*on_file)(void *user, const char *staged_path);
    void *on_file_user;
    /* a wheel whose SHA-256 is the wheel catalog's (NVIDIA's, from the index: install.c): its own
     * RECORD gives the SHA-256 of the files it unpacks, which are then not hashed again as they
     * are written (zip_record.c); a file it does not list with that size is hashed from staging */
    int wheel_record;
} cc_extract_opts;

/* A zip still downloading (src: a download opened with keep_file; cc_source_part names the
 * part it lands in), unpacked as its bytes land: each entry is judged from its local header as
 * it arrives (the same checks, policy, limits and selection as cc_extract_file) and inflated on
 * every core from the part, never past what the stream has delivered; then src is finished (its
 * SHA-256 and size checked: a mismatch fails the whole, staging emptied) and the verified file's
 * central directory is held against the entries unpacked. A zip that cannot be read as a stream
 * (entry sizes after the data, links, bytes before the first entry, a directory that disagrees,
 * a wheel whose file name is not a wheel's) or whose part another user could write is unpacked
 * from the verified file as cc_extract_file does instead: the same result, later. o: name_hint
 * and the limits, selection, content and threads of cc_extract_opts (no reader, path, fd or
 * on_file). */
cudnnctl_err cc_extract_zip_download(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_source *src,
                                     const char *staging_dir, cc_staging *out);

cudnnctl_err cc_extract_ex(cudnnctl_ctx *ctx, const cc_extract_opts *opts, const char *staging_dir,
                           cc_staging *out);

/* "lib/libcudnn.so.9" -> its record, or NULL. */
const cc_staged_file *cc_staging_find(const cc_staging *st, const char *path);

#endif
