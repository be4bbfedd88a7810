/* fs_path.c (windows): UTF-8 <-> UTF-16 conversion and long-path (\\?\) preparation of file names. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

wchar_t *cc_w_from_utf8(const char *s)
{
    if (!s) {
        cc_w_set_error(ERROR_INVALID_PARAMETER, "no string");
        return NULL;
    }
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        cc_w_set_error(GetLastError(), "not valid UTF-8");
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof(wchar_t));
    if (!w) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* Never records an error: error.c uses it while formatting one. */
char *cc_w_to_utf8_n(const wchar_t *w, int len)
{
    if (!w)
        return NULL;
    int n = WideCharToMultiByte(CP_UTF8, 0, w, len, NULL, 0, NULL, NULL);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    if (n > 0)
        WideCharToMultiByte(CP_UTF8, 0, w, len, s, n, NULL, NULL);
    s[n] = '\0';
    return s;
}

char *cc_w_to_utf8(const wchar_t *w)
{
    return cc_w_to_utf8_n(w, -1);
}

static int has_prefix(const wchar_t *w, const wchar_t *p)
{
    return wcsncmp(w, p, wcslen(p)) == 0;
}

void cc_w_strip_prefix(wchar_t *w)
{
    if (!w)
        return;
    if (has_prefix(w, L"\\\\?\\UNC\\")) {
        memmove(w + 2, w + 8, (wcslen(w + 8) + 1) * sizeof(wchar_t));
    } else if (has_prefix(w, L"\\\\?\\") && w[4] && w[5] == L':') {
        memmove(w, w + 4, (wcslen(w + 4) + 1) * sizeof(wchar_t));
    }
}

/* GetFullPathNameW into a malloc'd buffer. */
static wchar_t *full_path(const wchar_t *w)
{
    DWORD cap = 512;
    for (;;) {
        wchar_t *buf = malloc(cap * sizeof(wchar_t));
        if (!buf) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            return NULL;
        }
        DWORD n = GetFullPathNameW(w, cap, buf, NULL);
        if (n == 0) {
            cc_w_last_error("GetFullPathNameW");
            free(buf);
            return NULL;
        }
        if (n < cap)
            return buf;
        free(buf);
        cap = n + 1;
    }
}

static wchar_t *prepare(const char *path, int plain)
{
    if (!path || !*path) {
        cc_w_set_error(ERROR_PATH_NOT_FOUND, "empty path");
        return NULL;
    }
    wchar_t *w = cc_w_from_utf8(path);
    if (!w)
        return NULL;
    for (wchar_t *p = w; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    if (has_prefix(w, L"\\\\?\\") || has_prefix(w, L"\\\\.\\"))
        return w; /* already a verbatim / device path */
    wchar_t *full = full_path(w);
    free(w);
    if (!full)
        return NULL;
    size_t n = wcslen(full);
    if (plain && n < MAX_PATH - 12)
        return full;
    const wchar_t *pre;
    const wchar_t *rest = full;
    if (full[0] == L'\\' && full[1] == L'\\') {
        if (full[2] == L'.' || full[2] == L'?')
            return full; /* GetFullPathNameW turned a device name (CON, NUL) into \\.\CON */
        pre = L"\\\\?\\UNC\\";
        rest = full + 2;
    } else if (full[0] && full[1] == L':') {
        pre = L"\\\\?\\";
    } else {
        return full;
    }
    size_t pn = wcslen(pre), rn = wcslen(rest);
    wchar_t *r = malloc((pn + rn + 1) * sizeof(wchar_t));
    if (!r) {
        free(full);
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        return NULL;
    }
    memcpy(r, pre, pn * sizeof(wchar_t));
    memcpy(r + pn, rest, (rn + 1) * sizeof(wchar_t));
    free(full);
    return r;
}

wchar_t *cc_w_path(const char *path)
{
    return prepare(path, 0);
}

wchar_t *cc_w_path_plain(const char *path)
{
    return prepare(path, 1);
}

int64_t cc_w_filetime_to_unix(const FILETIME *ft)
{
    uint64_t t = ((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime;
    return (int64_t)(t / 10000000ULL) - 11644473600LL;
}

int cc_pf_is_abs(const char *path)
{
    if (!path || !*path)
        return 0;
    if (path[0] == '/' || path[0] == '\\') /* UNC, \\?\, or rooted on the current drive */
        return 1;
    return ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
           path[1] == ':' && (path[2] == '\\' || path[2] == '/');
}

static int is_sep(char c)
{
    return c == '/' || c == '\\';
}

/* "C:\" 3; "\\server\share\" through the share's separator; "\\?\C:\" and "\\?\UNC\srv\share\" whole;
 * "\\" or "/" alone (rooted on the current drive) 1. */
size_t cc_pf_path_root_len(const char *path)
{
    if (!cc_pf_is_abs(path))
        return 0;
    if (!is_sep(path[0]))
        return 3; /* drive */
    if (!is_sep(path[1]))
        return 1;
    const char *unc = path; /* the "\\" before server\share */
    if ((path[2] == '?' || path[2] == '.') && is_sep(path[3])) { /* \\?\ or \\.\ */
        const char *r = path + 4;
        if ((r[0] | 0x20) == 'u' && (r[1] | 0x20) == 'n' && (r[2] | 0x20) == 'c' && is_sep(r[3]))
            unc = r + 2; /* \\?\UNC\srv\share: continue as "\\srv\share" after "\\?\UN" */
        else if (r[0] && r[1] == ':' && is_sep(r[2]))
            return 7;
        else
            return 4;
    }
    const char *p = unc + 2;
    for (int part = 0; part < 2 && *p; part++) {
        while (*p && !is_sep(*p))
            p++;
        if (*p)
            p++;
    }
    return (size_t)(p - path);
}
