/* extract_tool.c: run cc_extract on one archive (bench/extract_bench.sh builds it against the
 * static library). Usage: extract_tool [--inline] [--stream] [--list] ARCHIVE STAGING_DIR
 *   --stream  feed the bytes through a pull reader (as a download does), else from the file
 *   --inline  write in the decoding thread (no writer thread, for a zip's big entries neither)
 *   --threads N  inflate a zip's entries on N threads (0: one per processor)
 *   --list    print every staged file: mode size sha256 path [-> target]
 * Exit status: cudnnctl's exit code of the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract.h"
#include "internal.h"

static long long rd(void *user, void *buf, size_t len)
{
    return cc_pf_read(*(cc_pf_fd *)user, buf, len);
}

int main(int argc, char **argv)
{
    int stream = 0, inl = 0, list = 0, i = 1;
    unsigned threads = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--stream"))
            stream = 1;
        else if (!strcmp(argv[i], "--inline"))
            inl = 1;
        else if (!strcmp(argv[i], "--list"))
            list = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: extract_tool [--inline] [--stream] [--list] [--threads N] ARCHIVE STAGING\n");
        return 2;
    }
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cc_pf_fd fd = -1;
    cc_extract_opts o = {.name_hint = cc_path_base(argv[i]), .no_writer_thread = inl};
    o.threads = threads;
    if (stream) {
        fd = cc_pf_open(argv[i], CC_PF_O_RDONLY, 0);
        o.read_fn = rd;
        o.user = &fd;
    } else {
        o.path = argv[i];
    }
    cc_staging st;
    cudnnctl_err rc = cc_extract_ex(ctx, &o, argv[i + 1], &st);
    if (rc) {
        fprintf(stderr, "%s: %s\n", cudnnctl_err_name(rc), cudnnctl_last_error(ctx)->detail);
    } else {
        printf("layout %d top %s files %zu bytes %llu\n", (int)st.layout, st.top_dir, st.n_files,
               (unsigned long long)st.bytes);
        for (size_t k = 0; list && k < st.n_files; k++)
            printf("%04o %10llu %s %s%s%s\n", st.files[k].mode,
                   (unsigned long long)st.files[k].size,
                   st.files[k].is_link ? "-" : st.files[k].sha256, st.files[k].path,
                   st.files[k].is_link ? " -> " : "",
                   st.files[k].is_link ? st.files[k].link_target : "");
        cc_staging_free(&st);
    }
    if (fd >= 0)
        cc_pf_close(fd);
    int code = cudnnctl_err_exit_code(rc);
    cudnnctl_ctx_free(ctx);
    return code;
}
