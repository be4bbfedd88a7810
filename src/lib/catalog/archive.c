/* archive.c: one archive entry of the catalog (the stage's bottom file: manifest.c, catalog.c,
 * compat.c, plan.c and mirror.c call down into it, it calls none of them): its lifetime (copy,
 * clear, a growable vector) and what its file name and relative path say (the CUDA variant, the
 * cuDNN version, whether the path is safe to join to a base; the whole name parsed, and the
 * one-entry manifest that describes an archive the catalog does not know). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "archive_name.h"
#include "catalog_model.h"
#include "grow.h"

void cc_archive_clear(cudnnctl_archive *a)
{
    free(a->cudnn_version);
    free(a->platform);
    free(a->cuda_variant);
    free(a->relative_path);
    free(a->sha256);
    free(a->md5);
    free(a->release_date);
    free(a->manifest);
    free(a->manifest_sha256);
    memset(a, 0, sizeof(*a));
}

int cc_archive_copy(cudnnctl_archive *dst, const cudnnctl_archive *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->size = src->size;
    dst->cuda_major = src->cuda_major;
    dst->cuda_minor = src->cuda_minor;
    dst->flavor = src->flavor;
#define DUP(f)                                                                                     \
    do {                                                                                           \
        if (src->f && !(dst->f = cc_strdup(src->f)))                                               \
            goto oom;                                                                              \
    } while (0)
    DUP(cudnn_version);
    DUP(platform);
    DUP(cuda_variant);
    DUP(relative_path);
    DUP(sha256);
    DUP(md5);
    DUP(release_date);
    DUP(manifest);
    DUP(manifest_sha256);
#undef DUP
    return 0;
oom:
    cc_archive_clear(dst);
    return -1;
}

int cc_archive_vec_push_move(cc_archive_vec *vec, cudnnctl_archive *a)
{
    if (cc_grow(&vec->v, &vec->cap, vec->n + 1, sizeof(*vec->v)) != 0)
        return -1;
    vec->v[vec->n++] = *a;
    memset(a, 0, sizeof(*a));
    return 0;
}

void cc_archive_vec_free(cc_archive_vec *vec)
{
    for (size_t i = 0; i < vec->n; i++)
        cc_archive_clear(&vec->v[i]);
    free(vec->v);
    memset(vec, 0, sizeof(*vec));
}

/* ---- what a file name says ------------------------------------------------------------------ */

int cc_cuda_variant_parse(const char *s, int *major, int *minor)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end = NULL;
    long M = strtol(s, &end, 10);
    long m = -1;
    if (*end == '.') {
        if (!isdigit((unsigned char)end[1]))
            return -1;
        m = strtol(end + 1, &end, 10);
    }
    if (*end != '\0' || M <= 0 || M > 99 || m > 99)
        return -1;
    *major = (int)M;
    *minor = (int)m;
    return 0;
}

/* The last "_cuda" in a file name's base (…-9.1.0.70_cuda12-archive), NULL when none. */
static const char *last_cuda(const char *base)
{
    const char *hit = NULL;
    for (const char *p = strstr(base, "_cuda"); p; p = strstr(p + 1, "_cuda"))
        hit = p;
    return hit;
}

char *cc_cuda_variant_from_name(const char *file_name)
{
    const char *hit = last_cuda(cc_path_base(file_name));
    if (!hit)
        return NULL;
    const char *p = hit + 5, *start = p;
    if (!isdigit((unsigned char)*p))
        return NULL;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        p++;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p != '-' && *p != '.')
        return NULL;
    return cc_strndup(start, (size_t)(p - start));
}

char *cc_cudnn_version_from_name(const char *file_name)
{
    const char *base = cc_path_base(file_name);
    const char *cu = last_cuda(base);
    if (!cu)
        return NULL;
    const char *start = cu;
    while (start > base && start[-1] != '-')
        start--;
    char *v = cc_strndup(start, (size_t)(cu - start));
    cc_version pv;
    if (v && (cc_version_parse(v, &pv) != 0 || pv.n < 3)) {
        free(v);
        v = NULL;
    }
    return v;
}

int cc_relative_path_check(const char *p, const char **why)
{
    if (!p || !*p) {
        *why = "is empty";
        return -1;
    }
    if (p[0] == '/') {
        *why = "is absolute (starts with '/')";
        return -1;
    }
    for (const char *c = p; *c; c++) {
        if (*c == '\\') {
            *why = "contains a backslash";
            return -1;
        }
        if (*c == ':') {
            *why = "contains ':' (a drive letter or URL scheme)";
            return -1;
        }
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            *why = "contains a control character";
            return -1;
        }
    }
    const char *seg = p;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        if (n == 0) {
            *why = "has an empty path segment";
            return -1;
        }
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            *why = "contains a '..' segment";
            return -1;
        }
        if (n == 1 && seg[0] == '.') {
            *why = "contains a '.' segment";
            return -1;
        }
        if (!slash)
            break;
        seg = slash + 1;
    }
    return 0;
}

static int valid_version(const char *v)
{
    cc_version x;
    return cc_version_parse(v, &x) == 0 && x.n >= 3;
}

static char *legacy_platform(const char *tag)
{
    if (strcmp(tag, "linux-x64") == 0)
        return cc_strdup("linux-x86_64");
    if (strcmp(tag, "linux-ppc64le") == 0)
        return cc_strdup("linux-ppc64le");
    if (strcmp(tag, "linux-aarch64sbsa") == 0)
        return cc_strdup("linux-sbsa");
    if (cc_str_starts(tag, "windows") && cc_str_ends(tag, "-x64"))
        return cc_strdup("windows-x86_64");
    return NULL;
}

int cc_archive_name_parse(const char *name, char **version, char **platform, char **cuda)
{
    *version = *platform = *cuda = NULL;
    /* the Graph JIT library's archives: cudnn_jit-<platform>-<ver4>_cuda<M>-archive.tar.xz */
    size_t pre = cc_str_starts(name, "cudnn-") ? 6 : cc_str_starts(name, "cudnn_jit-") ? 10 : 0;
    if (!pre)
        return -1;
    /* after "cudnn-": in "cudnn-archive.x" the '-' of the prefix is not the stem's end (found
     * by fuzz_platform: a length of -1 copied) */
    const char *arch = strstr(name + pre, "-archive.");
    if (arch) { /* cudnn-<platform>-<ver4>_cuda<M>-archive.<ext> (8.3 and later) */
        char *core = cc_strndup(name + pre, (size_t)(arch - name - pre));
        char *u = core ? strstr(core, "_cuda") : NULL;
        char *dash = NULL;
        if (u) {
            *u = '\0';
            dash = strrchr(core, '-');
        }
        /* the CUDA variant ends at a '-': a repack may tag its name ("_cuda13-local-repack") */
        size_t vl = u ? strspn(u + 5, "0123456789.") : 0;
        if (u && dash && dash != core && valid_version(dash + 1) && vl &&
            (u[5 + vl] == '\0' || u[5 + vl] == '-')) {
            *dash = '\0';
            *version = cc_strdup(dash + 1);
            *platform = cc_strdup(core);
            *cuda = cc_strndup(u + 5, vl);
        }
        free(core);
    } else if (pre == 6) { /* cudnn-<cuda X.Y>-<os>-<arch>-v<ver4>.tgz|.zip (8.2 and earlier) */
        const char *p = name + 6;
        const char *d = strchr(p, '-');
        const char *v = strstr(name, "-v");
        const char *ext = strrchr(name, '.');
        while (v && !isdigit((unsigned char)v[2]))
            v = strstr(v + 2, "-v");
        if (d && v && ext && v > d && ext > v) {
            char *ver = cc_strndup(v + 2, (size_t)(ext - v - 2));
            char *tag = cc_strndup(d + 1, (size_t)(v - d - 1));
            char *plat = tag ? legacy_platform(tag) : NULL;
            if (ver && plat && valid_version(ver)) {
                *version = ver;
                *platform = plat;
                *cuda = cc_strndup(p, (size_t)(d - p));
                ver = plat = NULL;
            }
            free(ver);
            free(tag);
            free(plat);
        }
    }
    if (!*version || !*platform || !*cuda) {
        free(*version);
        free(*platform);
        free(*cuda);
        *version = *platform = *cuda = NULL;
        return -1;
    }
    return 0;
}

char *cc_archive_synthetic_manifest(const char *version, const char *platform, const char *cuda,
                                    const char *rel, const char *sha, uint64_t size, int jit)
{
    char *entry = cc_asprintf("\"version\":\"%s\",\"%s\":{\"cuda%s\":{\"relative_path\":\"%s\","
                              "\"sha256\":\"%s\",\"md5\":\"\",\"size\":\"%llu\"}},"
                              "\"cuda_variant\":[\"%s\"]",
                              version, platform, cuda, rel, sha, (unsigned long long)size, cuda);
    if (!entry)
        return NULL;
    /* a JIT archive is described as NVIDIA does, in a cudnn_jit component (the cudnn one then has
     * no platform: plan finds the archive in the JIT flavour only) */
    char *m = jit ? cc_asprintf("{\"release_date\":\"\",\"release_label\":\"%s\","
                                "\"release_product\":\"cudnn\",\"cudnn\":{\"version\":\"%s\"},"
                                "\"cudnn_jit\":{\"name\":\"NVIDIA CUDA Deep Neural Network Graph "
                                "JIT library\",\"license\":\"cudnn\",%s}}",
                                version, version, entry)
                  : cc_asprintf("{\"release_date\":\"\",\"release_label\":\"%s\","
                                "\"release_product\":\"cudnn\",\"cudnn\":{\"name\":\"NVIDIA CUDA "
                                "Deep Neural Network library\",\"license\":\"cudnn\",%s}}",
                                version, entry);
    free(entry);
    return m;
}
