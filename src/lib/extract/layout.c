/* layout.c: recognise NVIDIA's archive layouts (≤ 8.2 cuda/, 8.3+ <stem>/, the three Windows zip
 * generations) and map each entry onto the normalised staging layout (include/, lib/, bin/,
 * LICENSE). The mapping is per path, so a streamed tar needs no look-ahead. */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

#include "str.h"

static const char *base_name(const char *p)
{
    const char *s = p;
    for (const char *c = p; *c; c++)
        if (*c == '/' || *c == '\\')
            s = c + 1;
    return s;
}

char *cc_layout_expected_top(const char *name_hint)
{
    if (!name_hint)
        return NULL;
    const char *b = base_name(name_hint);
    static const char *const modern_ext[] = {"-archive.tar.xz", "-archive.zip"};
    /* the full library's archives and the Graph JIT library's (cudnn_jit-<platform>-...) */
    size_t pre = cc_str_starts(b, "cudnn-") ? 6 : cc_str_starts(b, "cudnn_jit-") ? 10 : 0;
    for (size_t i = 0; pre && i < 2; i++) {
        size_t n = strlen(b), e = strlen(modern_ext[i]);
        /* something between "cudnn-" and "-archive" (fuzz_platform: "cudnn-archive.zip") */
        if (n > e + pre && cc_str_ends(b, modern_ext[i]))
            return cc_strndup(b, n - e + strlen("-archive"));
    }
    /* ≤ 8.2: cudnn-<cuda X.Y>-<platform>-v<ver>.tgz / .zip, always packed under cuda/ */
    if (cc_str_starts(b, "cudnn-") && strstr(b, "-v") &&
        (cc_str_ends(b, ".tgz") || cc_str_ends(b, ".tar.gz") || cc_str_ends(b, ".zip")))
        return cc_strdup("cuda");
    return NULL;
}

int cc_layout_top_plausible(const char *top)
{
    if (!top)
        return 0;
    if (strcmp(top, "cuda") == 0)
        return 1;
    if (cc_str_starts(top, "cudnn_jit-"))
        return cc_str_ends(top, "-archive") && strlen(top) > 18;
    return cc_str_starts(top, "cudnn-") && cc_str_ends(top, "-archive") && strlen(top) > 14;
}

/* rel starts with the component c (followed by '/' or the end)? Returns the rest after it
 * ("" when rel is exactly c) or NULL. */
static const char *after(const char *rel, const char *c)
{
    size_t n = strlen(c);
    if (strncmp(rel, c, n) != 0)
        return NULL;
    if (rel[n] == '\0')
        return rel + n;
    if (rel[n] == '/')
        return rel + n + 1;
    return NULL;
}

static int put(char **out, const char *dir, const char *rest)
{
    *out = *rest ? cc_path_join(dir, rest) : cc_strdup(dir);
    return *out ? 0 : -1;
}

/* DIR's rest r, one Windows x64 level dropped (DIR/x64/... -> DIR/...); notes which it was. */
static int put_x64(char **out, const char *dir, const char *r, int file, int *seen_x64,
                   int *seen_plain)
{
    const char *x = after(r, "x64");
    if (x) {
        *seen_x64 |= file;
        return put(out, dir, x);
    }
    *seen_plain |= file;
    return put(out, dir, r);
}

/* What both layouts share: the license file (named lic) and include/. 1 when rel is one of
 * them, with *rc put's result. */
static int map_common(const char *rel, const char *lic, int file, cc_layout_seen *seen, char **out,
                      int *rc)
{
    const char *r;
    if (strcmp(rel, lic) == 0 && file) {
        seen->seen_license = 1;
        *rc = put(out, "LICENSE", "");
        return 1;
    }
    if ((r = after(rel, "include"))) {
        seen->seen_include |= file;
        *rc = put(out, "include", r);
        return 1;
    }
    return 0;
}

static int map_legacy(const char *rel, int is_dir, cc_layout_seen *seen, char **out)
{
    const char *r;
    int file = !is_dir, rc;
    if (map_common(rel, "NVIDIA_SLA_cuDNN_Support.txt", file, seen, out, &rc))
        return rc;
    if ((r = after(rel, "lib64"))) {
        seen->seen_lib64 |= file;
        return put(out, "lib", r);
    }
    if ((r = after(rel, "lib")))
        return put_x64(out, "lib", r, file, &seen->seen_lib_x64, &seen->seen_lib);
    if ((r = after(rel, "bin"))) {
        seen->seen_bin |= file;
        return put(out, "bin", r);
    }
    if ((r = after(rel, "targets"))) {
        /* targets/<arch>/{lib,lib64,include}: the arch dir is a container */
        seen->seen_targets = 1;
        const char *slash = strchr(r, '/');
        if (!*r || !slash)
            return 0;
        const char *in = slash + 1;
        if ((r = after(in, "lib")) || (r = after(in, "lib64")))
            return put(out, "lib", r);
        if ((r = after(in, "include")))
            return put(out, "include", r);
    }
    return put(out, rel, "");
}

static int map_modern(const char *rel, int is_dir, cc_layout_seen *seen, char **out)
{
    const char *r;
    int file = !is_dir, rc;
    if (map_common(rel, "LICENSE", file, seen, out, &rc))
        return rc;
    if ((r = after(rel, "bin")))
        return put_x64(out, "bin", r, file, &seen->seen_bin_x64, &seen->seen_bin);
    if ((r = after(rel, "lib")))
        return put_x64(out, "lib", r, file, &seen->seen_lib_x64, &seen->seen_lib);
    return put(out, rel, "");
}

int cc_layout_map(const char *rel, int is_dir, cc_layout_seen *seen, char **out)
{
    *out = NULL;
    if (!*rel)
        return 0;
    int rc = seen->legacy ? map_legacy(rel, is_dir, seen, out) : map_modern(rel, is_dir, seen, out);
    if (rc == 0 && *out && !is_dir &&
        (cc_str_starts(*out, "include/") || cc_str_starts(*out, "lib/") ||
         cc_str_starts(*out, "bin/")))
        seen->files_placed++;
    return rc;
}

cc_layout cc_layout_detect(const cc_layout_seen *seen, int is_zip)
{
    if (!seen->files_placed)
        return CC_LAYOUT_UNKNOWN;
    if (seen->legacy)
        return is_zip ? CC_LAYOUT_ZIP_LEGACY : CC_LAYOUT_TGZ_LEGACY;
    if (!is_zip)
        return CC_LAYOUT_TAR_9X;
    if (seen->seen_bin_x64)
        return CC_LAYOUT_ZIP_BINX64;
    if (seen->seen_lib_x64)
        return CC_LAYOUT_ZIP_LIBX64;
    return CC_LAYOUT_ZIP_BIN;
}

const char *cc_layout_name(cc_layout l)
{
    switch (l) {
    case CC_LAYOUT_TAR_9X:
        return "tar (8.3+: <stem>/{include,lib})";
    case CC_LAYOUT_TGZ_LEGACY:
        return "tgz (<= 8.2: cuda/{include,lib64})";
    case CC_LAYOUT_ZIP_BIN:
        return "zip (8.3-8.6: bin, lib)";
    case CC_LAYOUT_ZIP_LIBX64:
        return "zip (8.8-9.17: bin, lib/x64)";
    case CC_LAYOUT_ZIP_BINX64:
        return "zip (9.18+: bin/x64, lib/x64)";
    case CC_LAYOUT_ZIP_LEGACY:
        return "zip (<= 8.2: cuda/{bin,lib/x64})";
    case CC_LAYOUT_WHEEL:
        return "wheel (nvidia/cudnn/{include,lib,bin})";
    default:
        return "unknown";
    }
}
