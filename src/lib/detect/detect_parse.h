/* detect_parse.h: detect's pure parsers (detect_parse.c): version files and headers, nvcc and
 * driver output, library and dist-info names, the loader cache, the manifests' platform key. No
 * I/O; unit-tested on their own. Shared with the stages that read the same files (diagnose). */
#ifndef CC_DETECT_PARSE_H
#define CC_DETECT_PARSE_H

#include "internal.h"

/* A version as read from one source: -1 = unknown part. */
typedef struct {
    int major, minor, patch;
} cc_detect_ver;

/* version.json: the "cuda" component's version. *date_patch = 1 when the patch is a build date
 * (12.1.20230222): patch is then -1. 0 ok, -1 no cuda.version, -2 not JSON. */
int cc_detect_parse_version_json(const char *text, cc_detect_ver *v, int *date_patch);
/* version.txt: "CUDA Version 10.2.89". */
int cc_detect_parse_version_txt(const char *text, cc_detect_ver *v);
/* nvcc --version: "release 13.0, V13.0.88". */
int cc_detect_parse_nvcc(const char *text, cc_detect_ver *v);
/* "#define NAME <integer>" anywhere in text; 0 found. Expressions are not values. */
int cc_detect_parse_define(const char *text, const char *name, long *value);
/* CUDA_VERSION / CUDART_VERSION encoding: major*1000 + minor*10. */
int cc_detect_cuda_encoded(long value, cc_detect_ver *v);
/* cudnn_version.h (or cudnn.h of 7.x): CUDNN_MAJOR/MINOR/PATCHLEVEL, else CUDNN_VERSION in the
 * 8.x (M*1000+m*100+p) or 9.x (M*10000+m*100+p) encoding. */
int cc_detect_parse_cudnn_header(const char *text, cc_detect_ver *v);
/* libcudart SONAME: libcudart.so.13 -> 13.x; libcudart.so.11.0 -> 11.x (every 11.x);
 * libcudart.so.10.2 -> 10.2. */
int cc_detect_parse_cudart_soname(const char *soname, cc_detect_ver *v);
/* /proc/driver/nvidia/version: the driver version of the "NVRM version:" line (malloc'd). */
int cc_detect_parse_proc_driver(const char *text, char **version);
/* First non-empty line of nvidia-smi --query-gpu=driver_version output (malloc'd). */
int cc_detect_parse_smi(const char *text, char **version);
/* Lower bound of the CUDA version a driver supports (cuDriverGetVersion encoding), from the
 * toolkit -> bundled driver table (cudnn-distribution.md 4.2). 0 when below every entry. */
int cc_detect_driver_cuda_floor(const char *driver_version);
/* "libcudnn_ops.so.9.14.0" -> stem "libcudnn_ops", version 9.14.0 (n parts; 0 for bare .so).
 * -1 when the name is not "<stem>.so[.<digits>...]". */
int cc_detect_parse_libname(const char *name, char **stem, cc_version *v);
/* "nvidia_cudnn_cu13-9.19.0.56.dist-info" with pkg "nvidia_cudnn" -> 9.19.0.56. Accepts
 * "<pkg>-<ver>.dist-info" and "<pkg>_cu<N>-<ver>.dist-info" only. */
int cc_detect_parse_dist_info(const char *name, const char *pkg, cc_version *v);
/* /etc/ld.so.cache: the paths of the entries whose name starts with prefix (NULL: all), appended
 * to paths without duplicates. 0 ok, -1 not a cache (or OOM). */
int cc_detect_parse_ld_cache(const char *data, size_t len, const char *prefix, cc_strv *paths);
/* The platform key of NVIDIA's manifests. */
char *cc_detect_platform_key(const char *os, const char *machine, int tegra);
/* Simple glob: '*' and '?' only (ld.so.conf include lines, python3* dirs). */
int cc_detect_glob(const char *pattern, const char *name);

#endif
