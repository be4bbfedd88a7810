/* versions.c: versions of a found library, from its file name or the cudnn_version.h installed
 * beside it (tarball layout: ../include; wheel layout: nvidia/cudnn/include). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "loader_int.h"
#include "platform.h"

char *cc_ld_version_from_name(const char *real_path, const char *stem)
{
    const char *base = cc_path_base(real_path);
    size_t n = strlen(stem);
    if (strncmp(base, stem, n) != 0 || strncmp(base + n, ".so.", 4) != 0)
        return NULL;
    const char *v = base + n + 4;
    cc_version ver;
    if (cc_version_parse(v, &ver) != 0)
        return NULL;
    return cc_strdup(v);
}

static long define_value(const char *text, const char *name)
{
    const char *p = text;
    size_t n = strlen(name);
    while ((p = strstr(p, "#define")) != NULL) {
        p += 7;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == '\t'))
            return strtol(p + n, NULL, 10);
    }
    return -1;
}

char *cc_ld_cudnn_header_version(const cudnnctl_ctx *ctx, const char *lib_dir)
{
    static const char *const rel[] = {"../include/cudnn_version.h",
                                      "../../include/cudnn_version.h"};
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char *p = cc_path_join(lib_dir, rel[i]);
        char *h = p ? cc_rooted(ctx, p) : NULL;
        char *text = NULL;
        size_t len = 0;
        long maj = -1, min = -1, pat = -1;
        if (h && cc_ld_read_file(h, 1u << 20, &text, &len) == 0) {
            maj = define_value(text, "CUDNN_MAJOR");
            min = define_value(text, "CUDNN_MINOR");
            pat = define_value(text, "CUDNN_PATCHLEVEL");
        }
        free(text);
        free(p);
        free(h);
        if (maj >= 0 && min >= 0 && pat >= 0)
            return cc_asprintf("%ld.%ld.%ld", maj, min, pat);
    }
    return NULL;
}
