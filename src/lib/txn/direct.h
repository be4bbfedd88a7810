/* direct.h: prefix installs without PREFIX/current, for a prefix on a filesystem that cannot hold
 * a directory link (on Windows a junction: FAT32, exFAT, many network shares, wine). The
 * environment (the registry Path) then names the version dir itself (PREFIX\cudnn-<ver>-cuda<M>\bin),
 * the receipt says so ("direct": true), and which install of such a prefix is the selected one is
 * recorded in STATE/direct.json, so that list, env, use --prefix and uninstall agree on it
 * (docs/windows.md, docs/formats.md). Used by txn/, commit/ and env/. */
#ifndef CC_DIRECT_H
#define CC_DIRECT_H

#include <cjson/cJSON.h>

#include "internal.h"
#include "receipt.h"

/* Can @p dir (real path, on the prefix's filesystem) hold a directory link? Probed with a link
 * made and removed inside it. *direct = 1 when it cannot (CUDNNCTL_E_UNSUPPORTED); only with a
 * Windows host profile (a Linux prefix always links: *direct = 0, nothing probed). Other
 * failures are returned. */
cudnnctl_err cc_direct_probe(cudnnctl_ctx *ctx, const char *dir, int *direct);

/* The install dir name ("cudnn-9.1.0.70-cuda12") STATE/direct.json records as selected in
 * @p prefix (as the user sees it; compared as the host compares paths); NULL when none. */
char *cc_direct_recorded(cudnnctl_ctx *ctx, const char *state, const char *prefix);
/* Record @p name as the selected install of @p prefix (NULL: forget the prefix). */
cudnnctl_err cc_direct_record(cudnnctl_ctx *ctx, const char *state, const char *prefix,
                              const char *name);

/* The selected install of a direct prefix among @p rs: the recorded one when it is a live direct
 * install there, else the newest (by receipt) live direct install there; NULL when none. */
const cc_receipt *cc_direct_current(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                                    const char *prefix);

/* The registry Path for @p install_dir of @p prefix (both as shown): its bin first, the bin of
 * every other cudnn-*-cuda* dir of the prefix (there, or named on Path) and PREFIX\current\bin
 * dropped; @p install_dir NULL: only dropped. Changes appended to @p changes; dry: computed only. */
cudnnctl_err cc_direct_wire(cudnnctl_ctx *ctx, const char *prefix, const char *install_dir,
                            int system, int dry, cJSON *changes, int *n_changed);

/* Make receipt @p r (a direct install) the selected one of its prefix: the Path (when its
 * install set one; same key) and the record. *switched = 0 when it was selected already. */
cudnnctl_err cc_direct_switch(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                              const cc_receipt *r, int *switched, cc_strv *steps);

/* After the undo of direct receipt @p r (its registry values already restored): when it was the
 * selected install, the newest remaining live install of the prefix becomes the selected one
 * (Path and record), or, none left, the prefix's entries leave Path and the prefix is forgotten.
 * @p rs still holds r. Failures are warnings. */
void cc_direct_after_undo(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs,
                          const cc_receipt *r, cc_strv *warnings);

#endif
