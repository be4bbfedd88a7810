/* dirops.c: a sorted dir listing and the move into a quarantine dir (dirops.h). */
#include "dirops.h"

#include <stdlib.h>

#include "sys.h"

cudnnctl_err cc_dir_names_sorted(cudnnctl_ctx *ctx, const char *dir, cc_strv *names)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return CC_ERR_PF(ctx, "cannot list", dir);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    const char *nm;
    while ((nm = cc_pf_readdir(d)) != NULL)
        if (cc_strv_push(names, nm) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_closedir(d);
    cc_strv_sort(names);
    return rc;
}

cudnnctl_err cc_quarantine_move(cudnnctl_ctx *ctx, const char *root, const char *src,
                                const char *name, const char *what, const char *hint, int sync,
                                char **qpath)
{
    *qpath = NULL;
    char *qdir = root ? cc_path_join(root, "quarantine") : NULL;
    char *dst = qdir && name ? cc_asprintf("%s/%s", qdir, name) : NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!dst) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_sys_mkdir_p(ctx, qdir, 0755) != 0 || cc_sys_rename(ctx, src, dst) != 0) {
        rc = CC_ERR(ctx, cc_pf_last_error(), "cannot move %s%s into the quarantine %s: %s%s", what,
                    src, qdir, cc_pf_last_error_text(), hint);
    } else {
        if (sync)
            cc_pf_fsync_dir(qdir);
        *qpath = dst;
        dst = NULL;
    }
    free(qdir);
    free(dst);
    return rc;
}
