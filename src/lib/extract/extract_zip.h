/* extract_zip.h: a zip archive (NVIDIA's Windows zips, NVIDIA's wheels) unpacked on every core
 * (extract_zip.c), or as it downloads (extract_zip_stream.c). Used by cc_extract_ex for a file
 * that is a zip and by cc_extract_zip_download. */
#ifndef CC_EXTRACT_ZIP_H
#define CC_EXTRACT_ZIP_H

#include "extract.h"
#include "extract_check.h"
#include "internal.h"

/* fd: the verified file (read with cc_pf_pread: its position is not used); root: the staging
 * dir's real path, empty; expected: the top dir the name promises (NULL: any NVIDIA-like; a
 * wheel has its own). Every entry is judged before anything is written; on failure the caller
 * empties root. o->threads workers (0: one per processor, at most 8). */
cudnnctl_err cc_extract_zip(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_pf_fd fd,
                            const char *root, const char *expected, cc_staging *out);

/* A download src still arriving into its part `part` (a path of cc_source_part), unpacked as it
 * lands (extract_zip_stream.c; extract.h: cc_extract_zip_download, which calls it with root the
 * staging dir's real path, empty, and empties it on failure). */
cudnnctl_err cc_extract_zip_stream(cudnnctl_ctx *ctx, const cc_extract_opts *o, cc_source *src,
                                   const char *part, const char *root, const char *expected,
                                   cc_staging *out);

/* Leave the staging dir root empty again (after a failure, before a second try). */
void cc_extract_empty_staging(cudnnctl_ctx *ctx, const char *root);

#endif
