/* env_write.c: one wiring file written the way every persistent file is (env_persist.c's
 * profile and rc texts, env_modules.c's modulefiles): kept when it already holds the text, else
 * written atomically with its parents created, and recorded as a change. */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

cudnnctl_err cc_env_write_file(cudnnctl_ctx *ctx, const char *real, const char *path,
                               const char *shown_dir, const char *text, uint32_t mode,
                               cudnnctl_changes *ch)
{
    char *dir = cc_path_dir(real);
    char *old = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!dir) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_sys_read_file(ctx, real, 1 << 22, &old, NULL) == 0 && strcmp(old, text) == 0) {
        if (cc_changes_add(ch, "keep", path, "already up to date") != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_sys_mkdir_p(ctx, dir, 0755) != 0) {
        rc = CC_ERR_PF(ctx, "cannot create directory", shown_dir ? shown_dir : dir);
    } else if (cc_sys_write_file_atomic(ctx, real, text, strlen(text), mode) != 0) {
        rc = CC_ERR_PF(ctx, "cannot write", path);
    } else {
        cc_event(ctx, CUDNNCTL_EV_FILE_WRITTEN, "env", path);
        if (cc_changes_add(ch, "write", path, NULL) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    free(old);
    free(dir);
    return rc;
}
