/* archive_name.h: what an archive's file name says, for the install's choice of an archive that
 * the catalog may not know (archive.c). Not archive.h: that name is libarchive's. */
#ifndef CC_ARCHIVE_NAME_H
#define CC_ARCHIVE_NAME_H

#include <stdint.h>

/* "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" / "cudnn-11.3-linux-x64-v8.2.0.53.tgz"
 * → version, platform key, CUDA variant. 0 on success. */
int cc_archive_name_parse(const char *file_name, char **version, char **platform, char **cuda);

/* A one-entry manifest in NVIDIA's shape, so the planner can place an archive the embedded
 * catalog does not know (a newer release, a renamed file): rel, sha and size as given, the
 * component cudnn_jit when jit. malloc'd JSON, NULL on out of memory. */
char *cc_archive_synthetic_manifest(const char *version, const char *platform, const char *cuda,
                                    const char *rel, const char *sha, uint64_t size, int jit);

#endif
