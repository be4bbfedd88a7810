/* win_envuse.c: test helper of the Windows build (run under wine by tests/windows/*.sh): the
 * registry side of `cudnnctl use X.Y` on Windows (cc_winenv_use in src/lib/winenv.c) until the
 * CLI's `use` calls it:
 *   win_envuse TOOLKIT_DIR VERSION  -> CUDA_PATH, CUDA_PATH_Vx_y and PATH of HKCU\Environment
 *                                      repointed at TOOLKIT_DIR (other detected toolkits' bin dirs
 *                                      dropped from PATH); prints the changes as JSON.
 * Exit status 0 on success, 1 with the error on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"
#include "winenv.h"

int main(int argc, char **argv)
{
    argv = cc_pf_args_utf8(argc, argv);
    if (argc != 3) {
        fprintf(stderr, "usage: win_envuse TOOLKIT_DIR VERSION\n");
        return 2;
    }
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_detect_result *det = NULL;
    cJSON *changes = cJSON_CreateArray();
    int n = 0;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || !changes)
        return 1;
    cudnnctl_err rc = cudnnctl_detect(ctx, &det);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_winenv_use(ctx, det, argv[1], argv[2], 0, changes, &n);
    if (rc != CUDNNCTL_E_OK) {
        fprintf(stderr, "win_envuse: %s\n", cudnnctl_last_error(ctx)->detail);
        return 1;
    }
    char *j = cJSON_PrintUnformatted(changes);
    printf("%s\n", j ? j : "[]");
    free(j);
    cJSON_Delete(changes);
    cudnnctl_detect_result_free(det);
    cudnnctl_ctx_free(ctx);
    return 0;
}
