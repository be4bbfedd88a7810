/* trust.c: the trust rule for the directories whose contents cudnnctl believes — the state dir
 * (receipts, journal, cleanup list, lock), the download cache (blobs, records, cached manifests)
 * — checked before anything in them is read or written (docs/security.md, "Running as root"). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

cudnnctl_err cc_trust_dir(cudnnctl_ctx *ctx, const char *dir, const char *role,
                          const char *option)
{
    /* what does not exist yet will be created by us: its nearest existing ancestor decides */
    char *p = cc_strdup(dir);
    cc_pf_stat_t st;
    while (p && cc_pf_lstat(p, &st) == 0 && !st.exists) {
        char *up = cc_path_dir(p);
        if (!up || strcmp(up, p) == 0) {
            free(up);
            break;
        }
        free(p);
        p = up;
    }
    if (!p)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (cc_pf_trust_check(p, CC_PF_TRUST_OBJECT) != 0) {
        cudnnctl_err e = cc_pf_last_error();
        if (e == CUDNNCTL_E_UNTRUSTED)
            rc = CC_ERR(ctx, e, "the %s %s is not safe to use: %s%s%s", role, dir,
                        cc_pf_last_error_text(), option ? "; or choose another with " : "",
                        option ? option : "");
        else if (e != CUDNNCTL_E_NOT_FOUND)
            rc = CC_ERR(ctx, e, "cannot check the %s %s: %s", role, dir, cc_pf_last_error_text());
    }
    free(p);
    return rc;
}
