/* layout.h: NVIDIA's archive layouts (7.x-9.x, Linux and Windows) and how each maps onto the
 * normalised staging layout of extract.h (docs/archive-layouts.md). Pure functions, no I/O. */
#ifndef CC_LAYOUT_H
#define CC_LAYOUT_H

#include "extract.h"

/* The top directory NVIDIA puts in an archive of this file name (directory part ignored):
 * "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" -> that stem; legacy names
 * ("cudnn-11.3-linux-x64-v8.2.0.53.tgz", "cudnn-11.3-windows-x64-v8.2.1.32.zip") -> "cuda".
 * NULL (no error) when the name follows neither pattern (a renamed file, a cache blob): then
 * any top directory that looks like NVIDIA's is accepted (cc_layout_top_plausible). */
char *cc_layout_expected_top(const char *name_hint);

/* 1 for "cuda", "cudnn-<anything>-archive" or "cudnn_jit-<anything>-archive". */
int cc_layout_top_plausible(const char *top);

/* Observations made while mapping, used to name the layout at the end. */
typedef struct {
    int legacy;   /* top dir "cuda" */
    int seen_bin; /* bin/ (flat) */
    int seen_bin_x64;
    int seen_lib; /* lib/ flat (Windows .lib, or Linux .so) */
    int seen_lib_x64;
    int seen_lib64; /* legacy cuda/lib64 */
    int seen_targets;
    int seen_include;
    int seen_license;
    int files_placed; /* regular files / links that landed in include/, lib/ or bin/ */
} cc_layout_seen;

/* Map rel (a normalised archive path with the top directory stripped, "" for the top itself)
 * onto the staging layout. *out = the staging-relative path (malloc'd), or NULL when the entry
 * has no place of its own (the top directory, container directories such as targets/<arch>).
 * Returns 0, or -1 on allocation failure. */
int cc_layout_map(const char *rel, int is_dir, cc_layout_seen *seen, char **out);

/* The layout the observations describe; UNKNOWN when nothing landed in include/, lib/ or bin/. */
cc_layout cc_layout_detect(const cc_layout_seen *seen, int is_zip);

const char *cc_layout_name(cc_layout l);

#endif
