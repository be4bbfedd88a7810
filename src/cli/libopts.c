/* libopts.c: the library's option structs (cudnnctl_selection, cudnnctl_install_opts, ...) filled
 * from cli_opts by tables of corresponding fields (cli_copy rows, cli.h), not by hand per
 * command. */
#include <string.h>

#include "cli.h"

void cli_copy_opts(void *dst, const cli_opts *o, const cli_copy *map, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *to = (char *)dst + map[i].to;
        const char *from = (const char *)o + map[i].from;
        if (map[i].kind == CLI_COPY_SAME) {
            memcpy(to, from, map[i].size);
            continue;
        }
        unsigned v; /* an int flag (NOT) or unsigned seconds (MS), as the row's size checks */
        memcpy(&v, from, sizeof(v));
        v = map[i].kind == CLI_COPY_NOT ? !v : v * 1000u;
        memcpy(to, &v, sizeof(v));
    }
}

#define SEL(f) CLI_COPY(cudnnctl_selection, f, f, CLI_COPY_SAME)
static const cli_copy selection_copy[] = {
    SEL(cudnn),     SEL(cuda),   SEL(platform),       SEL(for_pkg), SEL(cuda_home),
    SEL(prefix),    SEL(mirror), SEL(driver_version), SEL(flavor),  SEL(components),
};

cudnnctl_selection cli_selection(const cli_opts *o)
{
    cudnnctl_selection sel;
    memset(&sel, 0, sizeof(sel));
    cli_copy_opts(&sel, o, selection_copy, sizeof(selection_copy) / sizeof(selection_copy[0]));
    sel.source = o->index_url && o->source == CUDNNCTL_SOURCE_ARCHIVE ? CUDNNCTL_SOURCE_WHEEL
                                                                       : o->source;
    return sel;
}

#define VAL(to, from, kind) CLI_COPY(cudnnctl_validate_opts, to, from, kind)
static const cli_copy validate_copy[] = {
    VAL(cuda_home, cuda_home, CLI_COPY_SAME),
    VAL(device, device, CLI_COPY_SAME),
    VAL(timeout_ms, timeout_s, CLI_COPY_MS),
};

cudnnctl_validate_opts cli_validate_opts(const cli_opts *o)
{
    cudnnctl_validate_opts vo;
    memset(&vo, 0, sizeof(vo));
    cli_copy_opts(&vo, o, validate_copy, sizeof(validate_copy) / sizeof(validate_copy[0]));
    vo.target = o->n_args ? o->args[0] : o->prefix;
    return vo;
}
