/* libnames.c: NVIDIA library file names per OS (libcudnn.so.9 / cudnn64_9.dll, ...). */
#include "libnames.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "str.h"

int cc_ln_windows(void)
{
    return strcmp(cc_pf_os(), "windows") == 0;
}

static const char *module_prefix_for(int windows, const char *stem)
{
    return windows && strncmp(stem, "lib", 3) == 0 ? stem + 3 : stem;
}

const char *cc_ln_module_prefix(const char *stem)
{
    return module_prefix_for(cc_ln_windows(), stem);
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int ieq_n(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return 0;
    return 1;
}

int cc_ln_major(const char *name, const char *stem)
{
    return cc_ln_major_for(cc_ln_windows(), name, stem);
}

int cc_ln_major_for(int windows, const char *name, const char *stem)
{
    if (!windows) {
        size_t ls = strlen(stem);
        if (strncmp(name, stem, ls) != 0 || strncmp(name + ls, ".so.", 4) != 0)
            return -1;
        const char *v = name + ls + 4;
        const char *dot = strchr(v, '.');
        if (dot) {
            if (!all_digits(v, (size_t)(dot - v)) || !all_digits(dot + 1, strlen(dot + 1)))
                return -1;
        } else if (!all_digits(v, strlen(v))) {
            return -1;
        }
        return atoi(v);
    }
    const char *s = module_prefix_for(1, stem);
    size_t ls = strlen(s), n = strlen(name);
    if (n < ls + 8 || !ieq_n(name, s, ls) || !ieq_n(name + ls, "64_", 3) ||
        !ieq_n(name + n - 4, ".dll", 4))
        return -1;
    const char *v = name + ls + 3;
    size_t nd = 0;
    while (isdigit((unsigned char)v[nd]))
        nd++;
    /* digits, then ".dll" or "_<digits>.dll" (nvrtc64_120_0.dll) */
    const char *rest = v + nd;
    if (!nd || !(rest == name + n - 4 ||
                 (rest[0] == '_' && all_digits(rest + 1, (size_t)(name + n - 4 - rest - 1)))))
        return -1;
    int m = atoi(v);
    return m >= 100 ? m / 10 : m; /* cudart64_110 -> 11, cudart64_102 -> 10, nvrtc64_120 -> 12 */
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
