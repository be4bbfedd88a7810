/* use_result.c: freeing a `use` result — the bottom of the use stage, shared by use.c (Linux
 * links) and use_windows.c (registry), so neither calls into the other. */
#include <stdlib.h>

#include "internal.h"

void cudnnctl_use_result_free(cudnnctl_use_result *r)
{
    if (!r)
        return;
    free(r->toolkit_path);
    free(r->toolkit_version);
    free(r->previous);
    free(r->cudnn_path);
    cudnnctl_changes_free(&r->changes);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r);
}
