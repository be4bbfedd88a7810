/* install_wheel.h: the wheel source's download through pip (install_wheel.c). */
#ifndef CC_INSTALL_WHEEL_H
#define CC_INSTALL_WHEEL_H

#include "install_internal.h"

struct cc_wheel_row_s;

/* pip download of the wheel into a new private dir of the cache (*dir_out, removed by
 * cc_wheel_fetch_done), *file_out the wheel in it. Errors name the fix: HASH_MISMATCH when pip's
 * --require-hashes refused the index's file, NETWORK with pip's own words, NOT_FOUND without a
 * Python that has pip, UNTRUSTED as root for an interpreter another user could change. */
cudnnctl_err cc_wheel_fetch(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                            const struct cc_wheel_row_s *w, char **dir_out, char **file_out);
/* --index-url given and the wheel not cached: when the index's PEP 691 page of the wheel's
 * project lists its file, ch is pointed at that URL (via_pip 0: cudnnctl's own download, unpacked
 * as it lands, verified against the catalog's SHA-256 as every archive) and 1 is returned; else
 * (a PEP 503 HTML index, the file not listed, the page unreadable: logged) 0, and pip fetches it.
 */
int cc_wheel_direct(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o, cc_source_choice *ch);
/* After the install used it: keep (1: it was verified and unpacked) the file as the cache's blob
 * of its SHA-256, then remove the private dir. */
void cc_wheel_fetch_done(cudnnctl_ctx *ctx, const struct cc_wheel_row_s *w, const char *dir,
                         const char *file, int keep);

#endif
