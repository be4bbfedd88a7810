/* libnames.c: NVIDIA library file names: the one parser of a library file name (any OS), and
 * the names per OS (libcudnn.so.9 / cudnn64_9.dll, ...). */
#include "libnames.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "platform.h"
#include "str.h"

int cc_ln_windows(void)
{
    return cc_host_native_windows();
}

static const char *module_prefix_for(int windows, const char *stem)
{
    return windows && strncmp(stem, "lib", 3) == 0 ? stem + 3 : stem;
}

const char *cc_ln_module_prefix(const char *stem)
{
    return module_prefix_for(cc_ln_windows(), stem);
}

/* The n bytes at s end with suffix, ignoring case. */
static int ends_i(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && cc_str_ieqn(s + n - k, suffix, k);
}

static int set_stem(cc_libname *out, const char *s, size_t n)
{
    if (n == 0 || n >= sizeof(out->stem))
        return 0;
    memcpy(out->stem, s, n);
    out->stem[n] = '\0';
    return 1;
}

/* "M" or "M.m.p": the count of dot-separated numeric parts (0 when not all numeric). */
static int version_parts(const char *v, int *major)
{
    int parts = 0;
    const char *p = v;
    *major = -1;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!cc_all_digits(p, n))
            return 0;
        if (parts == 0)
            *major = atoi(p);
        parts++;
        if (!dot)
            break;
        p = dot + 1;
        if (!*p)
            return 0;
    }
    return parts;
}

/* "<stem>.so[.M[.m...]]" */
static int parse_so(const char *name, const char *so, cc_libname *out)
{
    if (!set_stem(out, name, (size_t)(so - name)))
        return 0;
    if (so[3] == '\0') {
        out->kind = CC_LIB_SO_DEV;
        return 1;
    }
    if (so[3] != '.' || (out->parts = version_parts(so + 4, &out->major)) == 0)
        return 0;
    out->kind = out->parts == 1 ? CC_LIB_SO_MAJOR : CC_LIB_SO_FULL;
    return 1;
}

/* "<stem>_static.a", "<stem>_static_vM.a" */
static int parse_static(const char *name, size_t n, cc_libname *out)
{
    n -= 2;
    const char *v = strstr(name, "_static_v");
    if (v && cc_all_digits(v + 9, (size_t)(name + n - (v + 9)))) {
        out->kind = CC_LIB_STATIC_V;
        out->major = atoi(v + 9);
        return set_stem(out, name, (size_t)(v - name));
    }
    if (n >= 7 && strncmp(name + n - 7, "_static", 7) == 0) {
        out->kind = CC_LIB_STATIC;
        return set_stem(out, name, n - 7);
    }
    return 0;
}

/* "<s>64_M.dll" / "<s>64_M.lib" (digits, then the end or "_<digits>": nvrtc64_120_0.dll), or a
 * plain "<s>.lib". Three digits carry major*10 + minor: cudart64_110 -> 11, nvrtc64_120 -> 12. */
static int parse_windows(const char *name, size_t n, cc_libname *out)
{
    int dll = ends_i(name, n, ".dll");
    const char *end = name + n - 4, *u = strstr(name, "64_");
    if (u && u + 3 < end) {
        const char *v = u + 3, *rest = v;
        while (rest < end && isdigit((unsigned char)*rest))
            rest++;
        if (rest > v &&
            (rest == end || (*rest == '_' && cc_all_digits(rest + 1, (size_t)(end - rest - 1))))) {
            int m = atoi(v);
            out->kind = dll ? CC_LIB_DLL : CC_LIB_IMPLIB_V;
            out->major = m >= 100 ? m / 10 : m;
            return set_stem(out, name, (size_t)(u - name));
        }
    }
    if (dll)
        return 0;
    out->kind = CC_LIB_IMPLIB;
    return set_stem(out, name, n - 4);
}

int cc_lib_parse(const char *name, cc_libname *out)
{
    memset(out, 0, sizeof(*out));
    out->major = -1;
    size_t n = strlen(name);
    const char *so = strstr(name, ".so");
    int ok = 0;
    if (so)
        ok = parse_so(name, so, out);
    else if (n > 2 && strcmp(name + n - 2, ".a") == 0)
        ok = parse_static(name, n, out);
    else if (ends_i(name, n, ".dll") || ends_i(name, n, ".lib"))
        ok = parse_windows(name, n, out);
    if (!ok) {
        memset(out, 0, sizeof(*out));
        out->major = -1;
    }
    return ok;
}

int cc_lib_classify(const char *name, cc_libname *out)
{
    if (!cc_lib_parse(name, out))
        return 0;
    int windows = out->kind == CC_LIB_DLL || out->kind == CC_LIB_IMPLIB ||
                  out->kind == CC_LIB_IMPLIB_V;
    /* libcudnn.so.9, libcudnn_ops...: but not libcudnnctl.so.0, cudnnctl's own library */
    if (windows ? cc_str_starts(out->stem, "cudnn")
                : strcmp(out->stem, "libcudnn") == 0 || cc_str_starts(out->stem, "libcudnn_"))
        return 1;
    memset(out, 0, sizeof(*out));
    out->major = -1;
    return 0;
}

int cc_ln_major(const char *name, const char *stem)
{
    return cc_ln_major_for(cc_ln_windows(), name, stem);
}

int cc_ln_major_for(int windows, const char *name, const char *stem)
{
    cc_libname ln;
    if (!cc_lib_parse(name, &ln))
        return -1;
    if (!windows) /* "<stem>.so.N" or "<stem>.so.N.n" (libcudart.so.11.0) */
        return (ln.kind == CC_LIB_SO_MAJOR || (ln.kind == CC_LIB_SO_FULL && ln.parts == 2)) &&
                       strcmp(ln.stem, stem) == 0
                   ? ln.major
                   : -1;
    const char *s = module_prefix_for(1, stem);
    size_t ls = strlen(s);
    return ln.kind == CC_LIB_DLL && strlen(ln.stem) == ls && cc_str_ieqn(ln.stem, s, ls) ? ln.major
                                                                                    : -1;
}

char *cc_ln_name(const char *stem, int major)
{
    return cc_ln_name_for(cc_ln_windows(), stem, major);
}

char *cc_ln_name_for(int windows, const char *stem, int major)
{
    if (!windows)
        return cc_asprintf("%s.so.%d", stem, major);
    const char *s = module_prefix_for(1, stem);
    if (strcmp(s, "nvrtc") == 0)
        return cc_asprintf("nvrtc64_%d0_0.dll", major);
    if (strcmp(s, "cudart") == 0 && major <= 11)
        return cc_asprintf("cudart64_%d0.dll", major);
    return cc_asprintf("%s64_%d.dll", s, major);
}

int cc_ln_is(const char *base, const char *stem)
{
    if (!cc_ln_windows()) {
        size_t ls = strlen(stem);
        return strncmp(base, stem, ls) == 0 && strncmp(base + ls, ".so", 3) == 0;
    }
    return cc_ln_major(base, stem) >= 0;
}

const char *cc_ln_driver(void)
{
    return cc_ln_windows() ? "nvcuda.dll" : "libcuda.so.1";
}
