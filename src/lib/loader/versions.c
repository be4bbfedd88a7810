/* versions.c: versions of a found library: from its file name, and for cuDNN the release of the
 * copy it belongs to, read from the files (the core library's tag, cudnn_version.h beside it, the
 * wheel's dist-info, cudnnctl's prefix dir name), so copies are compared by release, not dir. */
#include <stdlib.h>
#include <string.h>

#include "cudnn_release.h"
#include "internal.h"
#include "ldmodel.h"
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

/* "nvidia_cudnn_cu13-9.19.0.56.dist-info" in the site dir of a wheel's nvidia/cudnn/lib. */
static char *wheel_release(const cudnnctl_ctx *ctx, const char *lib_dir, int major)
{
    static const char tail[] = "/nvidia/cudnn/lib";
    if (!cc_str_ends(lib_dir, tail))
        return NULL;
    char *site = cc_strndup(lib_dir, strlen(lib_dir) - strlen(tail));
    char *host = site ? cc_rooted(ctx, site) : NULL;
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    char *out = NULL;
    const char *name;
    while (d && !out && (name = cc_pf_readdir(d)) != NULL) {
        const char *dash = strchr(name, '-');
        cc_version v;
        char *ver = dash && cc_str_starts(name, "nvidia_cudnn_cu") && cc_str_ends(name, ".dist-info")
                        ? cc_strndup(dash + 1, strlen(dash + 1) - strlen(".dist-info"))
                        : NULL;
        if (ver && cc_version_parse(ver, &v) == 0 && v.part[0] == major && v.n >= 3)
            out = ver;
        else
            free(ver);
    }
    if (d)
        cc_pf_closedir(d);
    free(host);
    free(site);
    return out;
}

/* "cudnn-9.19.0.56-cuda13" (cudnnctl's prefix layout) in the path. */
static char *prefix_release(const char *path, int major)
{
    for (const char *s = path; (s = strstr(s, "/cudnn-")) != NULL; s++) {
        const char *v = s + strlen("/cudnn-");
        size_t n = strspn(v, "0123456789.");
        char *ver = n ? cc_strndup(v, n) : NULL;
        cc_version pv;
        if (ver && (v[n] == '-' || v[n] == '/' || !v[n]) && cc_version_parse(ver, &pv) == 0 &&
            pv.part[0] == major && pv.n >= 3)
            return ver;
        free(ver);
    }
    return NULL;
}

char *cc_ld_cudnn_release(const cudnnctl_ctx *ctx, const char *file, const char **how)
{
    const char *base = cc_path_base(file);
    const char *so = strstr(base, ".so.");
    cc_version nv;
    int have_name = so && cc_version_parse(so + 4, &nv) == 0;
    if (!have_name)
        return NULL;
    int major = nv.part[0];
    char *dir = cc_path_dir(file);
    char *hdir = dir ? cc_rooted(ctx, dir) : NULL;
    char tag[32];
    cc_version tv;
    int have_tag = hdir && cc_cudnn_dir_release(hdir, major, tag, sizeof(tag)) == 0 &&
                   cc_version_parse(tag, &tv) == 0 && tv.part[0] == major;
    free(hdir);
    char *out = NULL;
    if (nv.n >= 3) { /* its own name: a stale sub-library keeps its release beside others */
        int same = have_tag && tv.n >= 3 && tv.part[1] == nv.part[1] && tv.part[2] == nv.part[2];
        out = cc_strdup(same ? tag : so + 4);
        *how = same ? "its name and the release tag in its dir's core library" : "its file name";
    } else if (have_tag) {
        out = cc_strdup(tag);
        *how = "the release tag in its dir's core library";
    } else if (dir && (out = cc_ld_cudnn_header_version(ctx, dir)) != NULL) {
        *how = "cudnn_version.h beside it";
    } else if (dir && (out = wheel_release(ctx, dir, major)) != NULL) {
        *how = "the nvidia-cudnn wheel's dist-info";
    } else if ((out = prefix_release(file, major)) != NULL) {
        *how = "its cudnnctl prefix dir name";
    }
    free(dir);
    return out;
}

int cc_ld_same_release(const char *a, const char *b)
{
    cc_version va, vb;
    if (!a || !b || cc_version_parse(a, &va) != 0 || cc_version_parse(b, &vb) != 0 || va.n < 3 ||
        vb.n < 3)
        return -1;
    return va.part[0] == vb.part[0] && va.part[1] == vb.part[1] && va.part[2] == vb.part[2];
}
