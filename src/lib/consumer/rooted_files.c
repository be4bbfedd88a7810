/* rooted_files.c: a file under --root, tested for existence or read as text (the driver stack
 * and the frameworks' loading code read the host the same way). */
#include <stdlib.h>

#include "internal.h"
#include "consumer_int.h"
#include "platform.h"

int cc_consumer_rooted_exists(const cudnnctl_ctx *ctx, const char *path, int follow)
{
    char *h = cc_rooted(ctx, path);
    cc_pf_stat_t st;
    int yes = h && (follow ? cc_pf_stat(h, &st) : cc_pf_lstat(h, &st)) == 0 && st.exists;
    free(h);
    return yes;
}

char *cc_consumer_rooted_text(const cudnnctl_ctx *ctx, const char *path, size_t max)
{
    char *h = path ? cc_rooted(ctx, path) : NULL;
    char *text = NULL;
    size_t len = 0;
    if (!h || cc_ld_read_file(h, max, &text, &len) != 0)
        text = NULL;
    free(h);
    return text;
}
