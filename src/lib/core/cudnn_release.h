/* cudnn_release.h: which cuDNN release a library file belongs to, read from the bytes. NVIDIA
 * builds a tag "cudnn_version_<M>_<m>_<p>_<build>_" into the read-only data of one library of
 * each release: libcudnn_graph.so.9 / cudnn_graph64_9.dll (9.x), libcudnn_ops_infer.so.8 /
 * cudnn_ops_infer64_8.dll (8.x). That library, found beside any file of the copy, names the
 * release of the whole copy: also wheel-style files whose names carry only the major (.so.9). */
#ifndef CC_CUDNN_RELEASE_H
#define CC_CUDNN_RELEASE_H

#include <stddef.h>

/* "9.19.0.56" from the tag in the .rodata (ELF) or .rdata (PE) section of the file at host path
 * `path`. 0 found; -1 not there (not a core library, unreadable, malformed). */
int cc_cudnn_tag_version(const char *path, char *out, size_t n);

/* The core library's name for a major on Linux or Windows ("libcudnn_graph.so.9",
 * "cudnn_graph64_9.dll") into buf; NULL for majors without a tag (7 and older). */
const char *cc_cudnn_core_name(int major, int windows, char *buf, size_t n);

/* The release of the copy in the host dir `dir` of cuDNN `major`: the tag of its core library
 * (the Linux name, else the Windows one). 0 found; -1 unknown. */
int cc_cudnn_dir_release(const char *dir, int major, char *out, size_t n);

#endif
