/* content_policy.c: the allowlist of what a cuDNN archive may put into a CUDA tree (NVIDIA's
 * cuDNN archives of every era hold only cuDNN's headers, libraries and licence: docs/
 * archive-layouts.md, shared/reference/cudnn-distribution.md §2, the real manifests). */
#include "content_policy.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "str.h"

/* "libcudnn_ops.so", "libcudnn.so.9", "libcudnn_cnn.so.9.19.0", "libcudnn_ops_static_v9.a" */
static int linux_lib(const char *name)
{
    if (!cc_str_starts(name, "libcudnn"))
        return 0;
    if (cc_str_ends(name, ".a"))
        return 1;
    const char *so = strstr(name, ".so");
    if (!so)
        return 0;
    for (const char *c = so + 3; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '.')
            return 0;
    return so[3] == '\0' || so[3] == '.';
}

/* The file rule for one staged path without links. */
static int file_allowed(const char *staged, int is_zip)
{
    if (strcmp(staged, "LICENSE") == 0)
        return 1;
    const char *slash = strchr(staged, '/');
    if (!slash || strchr(slash + 1, '/') || !slash[1])
        return 0; /* only one level: include/X, lib/X, bin/X */
    const char *name = slash + 1;
    size_t dir = (size_t)(slash - staged);
    if (dir == 7 && strncmp(staged, "include", 7) == 0)
        return is_zip ? cc_str_istarts(name, "cudnn") && cc_str_iends(name, ".h")
                      : cc_str_starts(name, "cudnn") && cc_str_ends(name, ".h");
    if (dir == 3 && strncmp(staged, "lib", 3) == 0)
        return is_zip ? cc_str_istarts(name, "cudnn") && cc_str_iends(name, ".lib") : linux_lib(name);
    if (dir == 3 && strncmp(staged, "bin", 3) == 0)
        return is_zip && cc_str_istarts(name, "cudnn") && cc_str_iends(name, ".dll");
    return 0;
}

/* dir of staged + link text, lexically ("lib" + "libcudnn.so.9" -> "lib/libcudnn.so.9";
 * "lib" + "../include/x" -> "include/x"); NULL when it leaves the staging root. */
static char *resolve_link(const char *staged, const char *link_text)
{
    char *dir = cc_path_dir(staged);
    if (!dir)
        return NULL;
    if (strcmp(dir, ".") == 0 || strcmp(dir, staged) == 0)
        dir[0] = '\0';
    const char *t = link_text;
    while (cc_str_starts(t, "../")) {
        char *up = strrchr(dir, '/');
        if (!*dir) {
            free(dir);
            return NULL;
        }
        if (up)
            *up = '\0';
        else
            dir[0] = '\0';
        t += 3;
    }
    char *r = *dir ? cc_path_join(dir, t) : cc_strdup(t);
    free(dir);
    return r;
}

int cc_content_allowed(const char *staged, cc_xentry_type type, const char *link_text, int is_zip,
                       const char **why)
{
    *why = NULL;
    if (type == CC_XE_DIR) {
        /* the three dirs themselves (whatever the platform: what lands in them is judged by
         * name, so a bin/nvcc is refused as itself, not as its directory) */
        if (strcmp(staged, "include") == 0 || strcmp(staged, "lib") == 0 ||
            strcmp(staged, "bin") == 0)
            return 0;
        *why = "a directory that is not part of cuDNN's layout";
        return -1;
    }
    if (type != CC_XE_FILE && type != CC_XE_SYMLINK && type != CC_XE_HARDLINK) {
        *why = "not a file, link or directory";
        return -1;
    }
    if (!file_allowed(staged, is_zip)) {
        *why = "not one of cuDNN's own files";
        return -1;
    }
    if (type == CC_XE_SYMLINK) {
        char *to = link_text ? resolve_link(staged, link_text) : NULL;
        int ok = to && file_allowed(to, is_zip);
        free(to);
        if (!ok) {
            *why = "a link to something that is not one of cuDNN's own files";
            return -1;
        }
    }
    return 0;
}

const char *cc_content_allowlist_text(int is_zip)
{
    return is_zip ? "include/cudnn*.h, bin/cudnn*.dll (bin/x64 in 9.18+), lib/cudnn*.lib "
                    "(lib/x64) and LICENSE"
                  : "include/cudnn*.h, lib/libcudnn*.so* and lib/libcudnn*.a (lib64/ or "
                    "targets/<arch>/lib/ under cuda/ in <= 8.2) and LICENSE";
}

cudnnctl_err cc_content_check(cudnnctl_ctx *ctx, int mode, const char *name, const cc_xentry *e,
                              int is_zip)
{
    const char *why = NULL;
    if (mode != CC_CONTENT_CUDA_TREE || !e->mapped ||
        cc_content_allowed(e->mapped, e->type, e->type == CC_XE_SYMLINK ? e->link_text : NULL,
                           is_zip, &why) == 0)
        return CUDNNCTL_E_OK;
    CC_RET_ERR(ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
               "refused archive entry '%s' (it would land as %s in the CUDA tree): %s. Into a "
               "CUDA tree a cuDNN archive may only bring %s; nothing was installed. An archive "
               "with other files is not NVIDIA's cuDNN archive: use NVIDIA's, or install it "
               "into a prefix of its own with --prefix DIR",
               name, e->mapped, why, cc_content_allowlist_text(is_zip));
}
