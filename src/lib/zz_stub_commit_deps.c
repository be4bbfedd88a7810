/* zz_stub_commit_deps.c: TEMPORARY stubs so the commit branch links before the extract work is
 * merged. Every function fails with UNSUPPORTED. Delete this file as soon as main provides the
 * real cc_extract / cc_staging_free (src/lib/extract.c). */
#include <stdlib.h>

#include "extract.h"
#include "internal.h"

cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out)
{
    (void)src;
    (void)name_hint;
    (void)staging_dir;
    (void)out;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSUPPORTED, "extract not in this build yet (stub)");
}

void cc_staging_free(cc_staging *st)
{
    (void)st;
}
