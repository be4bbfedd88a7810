/* ldconfig.c: refresh the dynamic loader's cache after a system-wide install on Linux (a CUDA
 * tree; never for a prefix, which is not in the loader's path: its cache stays as it was). */
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "txfs.h"

void cc_ldconfig(cudnnctl_ctx *ctx, cudnnctl_target_mode mode, int no_ldconfig, char **what)
{
    *what = NULL;
    if (cc_host_is_windows(ctx)) {
        *what = cc_strdup("skipped: not Linux");
        return;
    }
    if (mode != CUDNNCTL_TARGET_CUDA_TREE) {
        /* what plan says ("ldconfig none"): /etc/ld.so.cache is not rewritten for a prefix */
        *what = cc_strdup("none: a prefix is not in the loader's path (see `cudnnctl env`)");
        return;
    }
    if (no_ldconfig) {
        *what = cc_strdup("skipped: --no-ldconfig");
        return;
    }
    if (ctx->root) {
        *what = cc_strdup("skipped: --root (the image's cache is rebuilt when it boots)");
        return;
    }
    if (!cc_pf_is_root()) {
        *what = cc_strdup("skipped: not root (the loader cache is system-wide)");
        return;
    }
    const char *cands[] = {"/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"};
    const char *exe = "ldconfig";
    for (size_t i = 0; i < 2; i++)
        if (cc_txn_kind(cands[i]) != CC_OBJ_NONE) {
            exe = cands[i];
            break;
        }
    const char *argv[] = {exe, NULL};
    char *out = NULL;
    size_t len = 0;
    int status = 0;
    int ran = cc_pf_run(argv, NULL, NULL, 120000, 1, &out, &len, &status) == 0;
    if (!ran || status != 0) {
        *what = ran ? cc_asprintf("failed (status %d): %s", status,
                                  out && *out ? cc_str_trim(out) : "")
                    : cc_asprintf("not run: %s", cc_pf_last_error_text());
        char *w = cc_asprintf("ldconfig %s; run 'ldconfig' by hand", *what ? *what : "failed");
        cc_event(ctx, CUDNNCTL_EV_WARNING, w, NULL);
        free(w);
    } else {
        *what = cc_strdup("ran");
    }
    free(out);
}
