/* components.c: the two value types that say what of a cuDNN release an install holds — the
 * flavour (full or the Graph JIT library) and the component selection (runtime, dev, static, a
 * bitmask) — and which component a staged path belongs to. Pure: no I/O, no context. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *cudnnctl_flavor_name(cudnnctl_flavor f)
{
    return f == CUDNNCTL_FLAVOR_JIT ? "jit" : "full";
}

int cudnnctl_flavor_parse(const char *s, cudnnctl_flavor *out)
{
    if (s && strcmp(s, "full") == 0)
        *out = CUDNNCTL_FLAVOR_FULL;
    else if (s && strcmp(s, "jit") == 0)
        *out = CUDNNCTL_FLAVOR_JIT;
    else
        return -1;
    return 0;
}

static const struct {
    const char *name;
    cudnnctl_components bit;
} words[] = {{"runtime", CUDNNCTL_COMPONENT_RUNTIME},
             {"dev", CUDNNCTL_COMPONENT_DEV},
             {"static", CUDNNCTL_COMPONENT_STATIC}};

int cudnnctl_components_parse(const char *list, cudnnctl_components *out)
{
    cudnnctl_components c = 0;
    const char *p = list;
    if (!p)
        return -1;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m > 0 && (p[m - 1] == ' ' || p[m - 1] == '\t'))
            m--;
        cudnnctl_components bit = 0;
        if (m == 3 && strncmp(p, "all", 3) == 0)
            bit = CUDNNCTL_COMPONENTS_ALL;
        for (size_t i = 0; !bit && i < sizeof(words) / sizeof(words[0]); i++)
            if (strlen(words[i].name) == m && strncmp(p, words[i].name, m) == 0)
                bit = words[i].bit;
        if (!bit)
            return -1; /* an unknown word, or an empty one ("runtime,,dev", "") */
        c |= bit;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = c;
    return 0;
}

const char *cudnnctl_components_text(cudnnctl_components c, char *buf, size_t n)
{
    if (!buf || !n)
        return buf;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!(c & words[i].bit))
            continue;
        int w = snprintf(buf + used, n - used, "%s%s", used ? "," : "", words[i].name);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(buf, n, "none");
    return buf;
}

static int ends(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Build metadata (issue 19's cudnn.pc, CUDNNConfig.cmake) is dev by convention, wherever the
 * install puts it. */
static int build_metadata(const char *p, const char *base)
{
    return strncmp(p, "lib/pkgconfig/", 14) == 0 || strncmp(p, "lib/cmake/", 10) == 0 ||
           strncmp(p, "share/", 6) == 0 || ends(base, ".pc") || ends(base, ".cmake");
}

cudnnctl_components cudnnctl_component_of(const char *p)
{
    if (!p || !strchr(p, '/'))
        return CUDNNCTL_COMPONENT_RUNTIME; /* LICENSE and other top-level texts */
    const char *base = strrchr(p, '/') + 1;
    if (strncmp(p, "include/", 8) == 0 || build_metadata(p, base))
        return CUDNNCTL_COMPONENT_DEV;
    if (ends(base, ".a"))
        return CUDNNCTL_COMPONENT_STATIC;
    if (ends(base, ".lib") || ends(base, ".LIB"))
        return CUDNNCTL_COMPONENT_DEV; /* Windows import libraries: for linking */
    const char *so = strstr(base, ".so");
    if (so && so[3] == '\0')
        return CUDNNCTL_COMPONENT_DEV; /* libX.so: the link a linker's -lX finds */
    return CUDNNCTL_COMPONENT_RUNTIME; /* libX.so.N[.m.p], *.dll, anything else */
}
