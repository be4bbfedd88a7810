/* links.h: the .so link chain of cuDNN libraries (their names: libnames.h). Linux: libX.so ->
 * libX.so.M -> libX.so.M.m.p for every sub-library whose real file carries a 3-part version; wheel-style
 * libX.so.M regular files stay as they are (plus libX.so -> libX.so.M). The ELF SONAME of every
 * real file must equal its libX.so.M name. Windows DLLs / import libraries need no links. */
#ifndef CC_LINKS_H
#define CC_LINKS_H

#include "internal.h"
#include "libnames.h"

/* Make the link chain right inside a staged lib dir (not live: no journal needed) and check
 * every real file's SONAME. made: "name -> target" of links created or fixed (may be NULL).
 * SONAME mismatch → CUDNNCTL_E_SONAME; two versions of one sub-library → BAD_LAYOUT. */
cudnnctl_err cc_links_fix(cudnnctl_ctx *ctx, const char *lib_dir, cc_strv *made);
/* The same; dev_links 0 (no dev component selected): the unversioned libX.so links are not made
 * (the libX.so.M links, which the loader needs, are). */
cudnnctl_err cc_links_fix_ex(cudnnctl_ctx *ctx, const char *lib_dir, cc_strv *made, int dev_links);

/* The cuDNN major the staged libraries carry (-1 when none). */
int cc_links_major(const char *lib_dir, const char *bin_dir);

#endif
