/* win_extract.c: test helper of the Windows build (run under wine by tests/windows/*.sh): extracts an
 * archive into an existing empty staging dir through the library's extraction (cc_extract_file),
 * as install does before committing. Prints
 *   layout <n> top <dir>            then   file <path> <size> <sha256>   per staged file
 * or   error <NAME> <detail>   and exits with the error's CLI exit group (4 = unsafe archive). */
#include <stdio.h>

#include "extract.h"
#include "internal.h"

int main(int argc, char **argv)
{
    argv = cc_pf_args_utf8(argc, argv);
    if (argc != 3) {
        fprintf(stderr, "usage: win_extract ARCHIVE STAGING_DIR\n");
        return 2;
    }
    cudnnctl_ctx *ctx = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK)
        return 1;
    cc_staging st;
    cudnnctl_err e = cc_extract_file(ctx, argv[1], NULL, argv[2], &st);
    int rc = 0;
    if (e != CUDNNCTL_E_OK) {
        printf("error %s %s\n", cudnnctl_err_name(e), cudnnctl_last_error(ctx)->detail);
        rc = cudnnctl_err_exit_code(e);
    } else {
        printf("layout %d top %s\n", (int)st.layout, st.top_dir ? st.top_dir : "");
        for (size_t i = 0; i < st.n_files; i++)
            printf("file %s %llu %s\n", st.files[i].path, (unsigned long long)st.files[i].size,
                   st.files[i].is_link ? "link" : st.files[i].sha256);
        cc_staging_free(&st);
    }
    fflush(stdout);
    cudnnctl_ctx_free(ctx);
    return rc;
}
