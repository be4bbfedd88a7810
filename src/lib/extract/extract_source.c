/* extract_source.c: cc_extract over a cc_source (download, cache blob or local file): the
 * bytes are hashed by the source as libarchive pulls them. */
#include "extract.h"

long long cc_extract_source_read(void *user, void *buf, size_t len)
{
    return cc_source_read((cc_source *)user, buf, len);
}

cudnnctl_err cc_extract(cudnnctl_ctx *ctx, cc_source *src, const char *name_hint,
                        const char *staging_dir, cc_staging *out)
{
    return cc_extract_reader(ctx, cc_extract_source_read, src, name_hint, staging_dir, out);
}
