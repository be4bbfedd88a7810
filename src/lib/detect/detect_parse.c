/* detect_parse.c: pure parsers of the version records detect reads (version.json, version.txt,
 * nvcc output, header macros, SONAMEs, /proc driver text, library and dist-info names) and the
 * small tables (driver -> CUDA floor, platform keys). No I/O here. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "detect_int.h"

static void ver_unknown(cc_detect_ver *v)
{
    v->major = v->minor = v->patch = -1;
}

/* Parse "M.m[.p...]" at s; stops at the first char that is not a digit or a dot. */
static int parse_dotted(const char *s, long parts[4], int *n)
{
    *n = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (*n < 4 && isdigit((unsigned char)*s)) {
        long x = 0;
        int digits = 0;
        while (isdigit((unsigned char)*s)) {
            if (digits++ > 9)
                return -1;
            x = x * 10 + (*s - '0');
            s++;
        }
        parts[(*n)++] = x;
        if (*s == '.' && isdigit((unsigned char)s[1]))
            s++;
        else
            break;
    }
    return 0;
}

int cc_detect_parse_version_json(const char *text, cc_detect_ver *v, int *date_patch)
{
    ver_unknown(v);
    *date_patch = 0;
    cJSON *root = cJSON_Parse(text);
    if (!root)
        return -2;
    int rc = -1;
    const cJSON *cuda = cJSON_GetObjectItemCaseSensitive(root, "cuda");
    const cJSON *ver = cuda ? cJSON_GetObjectItemCaseSensitive(cuda, "version") : NULL;
    long p[4];
    int n;
    if (cJSON_IsString(ver) && parse_dotted(ver->valuestring, p, &n) == 0 && n >= 2 && p[0] > 0 &&
        p[0] < 100 && p[1] < 100) {
        v->major = (int)p[0];
        v->minor = (int)p[1];
        if (n >= 3) {
            /* a build date (12.1.20230222) is no patch level */
            if (p[2] >= 10000000L)
                *date_patch = 1;
            else
                v->patch = (int)p[2];
        }
        rc = 0;
    }
    cJSON_Delete(root);
    return rc;
}

/* "<marker> M.m[.p...]": v->major/minor from the dotted version after the marker (blanks
 * skipped), its parts in p[0..*n-1]; the text after the marker, or NULL when there is none. */
static const char *major_minor_after(const char *text, const char *marker, cc_detect_ver *v,
                                     long p[4], int *n)
{
    ver_unknown(v);
    const char *s = strstr(text, marker);
    if (!s)
        return NULL;
    s += strlen(marker);
    while (*s == ' ' || *s == '\t')
        s++;
    if (parse_dotted(s, p, n) != 0 || *n < 2 || p[0] <= 0 || p[0] >= 100 || p[1] >= 100)
        return NULL;
    v->major = (int)p[0];
    v->minor = (int)p[1];
    return s;
}

int cc_detect_parse_version_txt(const char *text, cc_detect_ver *v)
{
    long p[4];
    int n;
    if (!major_minor_after(text, "CUDA Version", v, p, &n))
        return -1;
    if (n >= 3 && p[2] < 10000000L)
        v->patch = (int)p[2];
    return 0;
}

int cc_detect_parse_nvcc(const char *text, cc_detect_ver *v)
{
    long p[4];
    int n;
    const char *s = major_minor_after(text, "release ", v, p, &n);
    if (!s)
        return -1;
    const char *vv = strstr(s, ", V");
    long q[4];
    int m;
    if (vv && parse_dotted(vv + 3, q, &m) == 0 && m >= 3 && q[0] == p[0] && q[1] == p[1])
        v->patch = (int)q[2];
    return 0;
}

int cc_detect_parse_define(const char *text, const char *name, long *value)
{
    size_t nl = strlen(name);
    const char *line = text;
    while (line && *line) {
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#') {
            s++;
            while (*s == ' ' || *s == '\t')
                s++;
            if (strncmp(s, "define", 6) == 0 && (s[6] == ' ' || s[6] == '\t')) {
                s += 6;
                while (*s == ' ' || *s == '\t')
                    s++;
                if (strncmp(s, name, nl) == 0 && (s[nl] == ' ' || s[nl] == '\t')) {
                    s += nl;
                    while (*s == ' ' || *s == '\t')
                        s++;
                    if (isdigit((unsigned char)*s)) {
                        char *end;
                        long x = strtol(s, &end, 10);
                        while (*end == 'L' || *end == 'l' || *end == 'U' || *end == 'u')
                            end++;
                        /* only a plain number, optionally followed by a comment */
                        while (*end == ' ' || *end == '\t' || *end == '\r')
                            end++;
                        if (*end == '\0' || *end == '\n' || *end == '/') {
                            *value = x;
                            return 0;
                        }
                    }
                }
            }
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

int cc_detect_cuda_encoded(long value, cc_detect_ver *v)
{
    ver_unknown(v);
    if (value < 1000 || value >= 100000)
        return -1;
    v->major = (int)(value / 1000);
    v->minor = (int)((value % 1000) / 10);
    return 0;
}

int cc_detect_parse_cudnn_header(const char *text, cc_detect_ver *v)
{
    ver_unknown(v);
    long ma, mi, pa;
    if (cc_detect_parse_define(text, "CUDNN_MAJOR", &ma) == 0 &&
        cc_detect_parse_define(text, "CUDNN_MINOR", &mi) == 0 &&
        cc_detect_parse_define(text, "CUDNN_PATCHLEVEL", &pa) == 0) {
        if (ma <= 0 || ma >= 100 || mi < 0 || mi >= 100 || pa < 0 || pa >= 1000)
            return -1;
        v->major = (int)ma;
        v->minor = (int)mi;
        v->patch = (int)pa;
        return 0;
    }
    long enc;
    if (cc_detect_parse_define(text, "CUDNN_VERSION", &enc) != 0 || enc <= 0)
        return -1;
    if (enc >= 90000) { /* 9.x: M*10000 + m*100 + p */
        v->major = (int)(enc / 10000);
        v->minor = (int)((enc / 100) % 100);
        v->patch = (int)(enc % 100);
    } else { /* 8.x and older: M*1000 + m*100 + p */
        v->major = (int)(enc / 1000);
        v->minor = (int)((enc / 100) % 10);
        v->patch = (int)(enc % 100);
    }
    return 0;
}

int cc_detect_parse_cudart_soname(const char *soname, cc_detect_ver *v)
{
    ver_unknown(v);
    const char *pre = "libcudart.so.";
    if (!cc_str_starts(soname, pre))
        return -1;
    long p[4];
    int n;
    if (parse_dotted(soname + strlen(pre), p, &n) != 0 || p[0] <= 0 || p[0] >= 100)
        return -1;
    v->major = (int)p[0];
    /* from 11 on the SONAME carries the major only (libcudart.so.11.0 for every 11.x) */
    if (p[0] <= 10 && n >= 2)
        v->minor = (int)p[1];
    return 0;
}

static int looks_like_driver_version(const char *tok, size_t len)
{
    int dots = 0;
    if (len == 0 || !isdigit((unsigned char)tok[0]))
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] == '.')
            dots++;
        else if (!isdigit((unsigned char)tok[i]))
            return 0;
    }
    return dots >= 1 && tok[len - 1] != '.';
}

int cc_detect_parse_proc_driver(const char *text, char **version)
{
    *version = NULL;
    const char *s = strstr(text, "NVRM version:");
    if (!s)
        return -1;
    s += strlen("NVRM version:");
    const char *eol = strchr(s, '\n');
    if (!eol)
        eol = s + strlen(s);
    /* "NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ..." or
     * "NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the first token
     * made of digits and dots is the version */
    while (s < eol) {
        while (s < eol && (*s == ' ' || *s == '\t'))
            s++;
        const char *e = s;
        while (e < eol && *e != ' ' && *e != '\t')
            e++;
        if (looks_like_driver_version(s, (size_t)(e - s))) {
            *version = cc_strndup(s, (size_t)(e - s));
            return *version ? 0 : -1;
        }
        s = e;
    }
    return -1;
}

int cc_detect_parse_smi(const char *text, char **version)
{
    *version = NULL;
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        const char *e = s;
        while (*e && *e != '\n' && *e != '\r' && *e != ' ')
            e++;
        if (looks_like_driver_version(s, (size_t)(e - s))) {
            *version = cc_strndup(s, (size_t)(e - s));
            return *version ? 0 : -1;
        }
        if (!*e)
            break;
        s = e;
        while (*s && *s != '\n')
            s++;
    }
    return -1;
}

/* Linux driver bundled with each toolkit's installer (cudnn-distribution.md 4.2). A driver at
 * least this new supports at least that CUDA version; newer minors of the same major may work
 * too (minor-version compatibility), so this is a lower bound. */
static const struct {
    const char *driver;
    int cuda;
} driver_floor[] = {
    {"595.45.04", 13020}, {"590.44.01", 13010}, {"580.65.06", 13000}, {"575.51.03", 12090},
    {"570.86.10", 12080}, {"560.28.03", 12060}, {"555.42.02", 12050}, {"550.54.14", 12040},
    {"545.23.06", 12030}, {"535.54.03", 12020}, {"530.30.02", 12010}, {"525.60.13", 12000},
    {"520.61.05", 11080}, {"515.43.04", 11070}, {"510.39.01", 11060}, {"495.29.05", 11050},
    {"470.42.01", 11040}, {"465.19.01", 11030}, {"460.27.04", 11020}, {"455.32.00", 11010},
    {"450.51.05", 11000}, {"440.33", 10020},    {"418.39", 10010},    {"410.48", 10000},
};

int cc_detect_driver_cuda_floor(const char *driver_version)
{
    cc_version d;
    if (!driver_version || cc_version_parse(driver_version, &d) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(driver_floor) / sizeof(driver_floor[0]); i++) {
        cc_version t;
        if (cc_version_parse(driver_floor[i].driver, &t) != 0)
            continue;
        /* compare on three parts, a missing part counting as 0 */
        int cmp = 0;
        for (int k = 0; k < 3 && cmp == 0; k++) {
            int a = d.part[k] < 0 ? 0 : d.part[k], b = t.part[k] < 0 ? 0 : t.part[k];
            cmp = a < b ? -1 : a > b;
        }
        if (cmp >= 0)
            return driver_floor[i].cuda;
    }
    return 0;
}

int cc_detect_parse_libname(const char *name, char **stem, cc_version *v)
{
    *stem = NULL;
    memset(v, 0, sizeof(*v));
    for (int i = 0; i < 4; i++)
        v->part[i] = -1;
    const char *so = strstr(name, ".so");
    if (!so || so == name)
        return -1;
    const char *rest = so + 3;
    if (*rest == '.') {
        if (cc_version_parse(rest + 1, v) != 0)
            return -1;
    } else if (*rest != '\0') {
        return -1;
    }
    *stem = cc_strndup(name, (size_t)(so - name));
    return *stem ? 0 : -1;
}

int cc_detect_parse_dist_info(const char *name, const char *pkg, cc_version *v)
{
    memset(v, 0, sizeof(*v));
    for (int i = 0; i < 4; i++)
        v->part[i] = -1;
    if (!cc_str_starts(name, pkg) || !cc_str_ends(name, ".dist-info"))
        return -1;
    const char *s = name + strlen(pkg);
    if (cc_str_starts(s, "_cu")) {
        s += 3;
        if (!isdigit((unsigned char)*s))
            return -1;
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (*s != '-')
        return -1;
    s++;
    size_t len = strlen(s) - strlen(".dist-info");
    char *ver = cc_strndup(s, len);
    if (!ver)
        return -1;
    int rc = cc_version_parse(ver, v);
    free(ver);
    return rc == 0 && v->n >= 2 ? 0 : -1;
}

char *cc_detect_platform_key(const char *os, const char *machine, int tegra)
{
    int arm = strcmp(machine, "aarch64") == 0 || strcmp(machine, "arm64") == 0 ||
              strcmp(machine, "ARM64") == 0;
    int x64 = strcmp(machine, "x86_64") == 0 || strcmp(machine, "amd64") == 0 ||
              strcmp(machine, "AMD64") == 0;
    if (strcmp(os, "windows") == 0)
        return cc_strdup(arm ? "windows-arm64" : "windows-x86_64");
    if (x64)
        return cc_asprintf("%s-x86_64", os);
    if (arm)
        return cc_asprintf("%s-%s", os, tegra ? "aarch64" : "sbsa");
    return cc_asprintf("%s-%s", os, machine);
}

int cc_detect_glob(const char *pattern, const char *name)
{
    const char *star_p = NULL, *star_n = NULL;
    while (*name) {
        if (*pattern == '*') {
            star_p = pattern++;
            star_n = name;
        } else if (*pattern == '?' || *pattern == *name) {
            pattern++;
            name++;
        } else if (star_p) {
            pattern = star_p + 1;
            name = ++star_n;
        } else {
            return 0;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

/* glibc's ld.so.cache (cache.c): "glibc-ld.so.cache" "1.1", nlibs, len_strings, flags, ..., then
 * nlibs entries {int32 flags; uint32 key, value; uint32 osversion; uint64 hwcap} (24 bytes);
 * key/value are offsets from the start of that header. Older caches put the "ld.so-1.7.0" table
 * first: the new header is then searched for. Native byte order (the cache is per machine). */
int cc_detect_parse_ld_cache(const char *data, size_t len, const char *prefix, cc_strv *paths)
{
    static const char magic[] = "glibc-ld.so.cache1.1";
    const size_t mlen = sizeof(magic) - 1, hdr = 48, ent = 24;
    size_t off = 0;
    int found = 0;
    for (off = 0; off + mlen <= len && off < 1u << 20; off++)
        if (memcmp(data + off, magic, mlen) == 0) {
            found = 1;
            break;
        }
    if (!found || len - off < hdr)
        return -1;
    const char *base = data + off;
    size_t avail = len - off;
    uint32_t nlibs;
    memcpy(&nlibs, base + 20, sizeof(nlibs));
    if (nlibs > (avail - hdr) / ent)
        return -1;
    for (uint32_t i = 0; i < nlibs; i++) {
        uint32_t key, value;
        memcpy(&key, base + hdr + (size_t)i * ent + 4, sizeof(key));
        memcpy(&value, base + hdr + (size_t)i * ent + 8, sizeof(value));
        if (key >= avail || value >= avail || !memchr(base + key, '\0', avail - key) ||
            !memchr(base + value, '\0', avail - value))
            return -1;
        if (prefix && !cc_str_starts(base + key, prefix))
            continue;
        if (!cc_strv_contains(paths, base + value) && cc_strv_push(paths, base + value) != 0)
            return -1;
    }
    return 0;
}
