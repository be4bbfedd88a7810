/* dl.c (windows): LoadLibraryExW by absolute path with the safe search flags, GetProcAddress, and the
 * list of loaded modules (EnumProcessModules + GetModuleFileNameExW) for the loaded-from check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"
#include "grow.h"

#include <psapi.h>

#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#endif
#ifndef LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
#define LOAD_LIBRARY_SEARCH_DEFAULT_DIRS 0x00001000
#endif

static _Thread_local char dl_text[600];

void *cc_pf_dlopen(const char *path)
{
    HMODULE h = NULL;
    wchar_t *w = NULL;
    DWORD flags = 0;
    if (cc_pf_is_abs(path)) {
        /* the DLL's own directory for its dependencies, then System32 and AddDllDirectory dirs;
         * never the current directory or PATH (flag value 0x1100, as PyTorch uses) */
        w = cc_w_path_plain(path);
        flags = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
    } else {
        w = cc_w_from_utf8(path); /* a plain name: the standard search, as an application gets */
    }
    if (!w) {
        snprintf(dl_text, sizeof(dl_text), "%s: %s", path, cc_pf_last_error_text());
        return NULL;
    }
    DWORD old = 0;
    SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old); /* no dialog boxes */
    h = LoadLibraryExW(w, NULL, flags);
    DWORD e = GetLastError();
    SetThreadErrorMode(old, NULL);
    free(w);
    if (!h) {
        cc_w_set_error(e, path);
        if (e == ERROR_BAD_EXE_FORMAT)
            snprintf(dl_text, sizeof(dl_text),
                     "%s (error 193: the DLL or one it depends on is not a 64-bit Windows DLL)",
                     cc_pf_last_error_text());
        else if (e == ERROR_MOD_NOT_FOUND)
            snprintf(dl_text, sizeof(dl_text),
                     "%s (error 126: the DLL or one it depends on was not found)",
                     cc_pf_last_error_text());
        else
            snprintf(dl_text, sizeof(dl_text), "%s", cc_pf_last_error_text());
        return NULL;
    }
    return (void *)h;
}

void *cc_pf_dlsym(void *handle, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)handle, name);
    if (!f) {
        cc_w_last_error(name);
        snprintf(dl_text, sizeof(dl_text), "%s", cc_pf_last_error_text());
        return NULL;
    }
    void *p;
    memcpy(&p, &f, sizeof(p)); /* function pointer -> object pointer without a cast warning */
    return p;
}

void cc_pf_dlclose(void *handle)
{
    if (handle)
        FreeLibrary((HMODULE)handle);
}

const char *cc_pf_dlerror(void)
{
    return dl_text[0] ? dl_text : "unknown dynamic loader error";
}

static wchar_t *module_path(HANDLE proc, HMODULE m)
{
    DWORD cap = 260;
    for (;;) {
        wchar_t *buf = malloc(cap * sizeof(wchar_t));
        if (!buf)
            return NULL;
        DWORD n = GetModuleFileNameExW(proc, m, buf, cap);
        if (n == 0) {
            free(buf);
            return NULL;
        }
        if (n < cap - 1)
            return buf;
        free(buf);
        cap *= 2;
    }
}

char **cc_pf_loaded_modules(const char *prefix)
{
    HANDLE proc = GetCurrentProcess();
    HMODULE *mods = NULL;
    DWORD need = 0, cap = 256 * sizeof(HMODULE);
    char **v = NULL;
    size_t n = 0;
    size_t plen = strlen(prefix);
    for (;;) {
        if (cc_grow(&mods, NULL, cap, 1) != 0)
            goto out;
        if (!EnumProcessModules(proc, mods, cap, &need)) {
            cc_w_last_error("EnumProcessModules");
            goto out;
        }
        if (need <= cap)
            break;
        cap = need;
    }
    v = calloc(need / sizeof(HMODULE) + 1, sizeof(char *));
    if (!v)
        goto out;
    for (DWORD i = 0; i < need / sizeof(HMODULE); i++) {
        wchar_t *wp = module_path(proc, mods[i]);
        if (!wp)
            continue;
        cc_w_strip_prefix(wp);
        char *p = cc_w_to_utf8(wp);
        free(wp);
        if (!p)
            continue;
        const char *base = p;
        for (const char *s = p; *s; s++)
            if (*s == '\\' || *s == '/')
                base = s + 1;
        if (_strnicmp(base, prefix, plen) == 0) /* DLL names ignore case */
            v[n++] = p;
        else
            free(p);
    }
out:
    free(mods);
    if (!v)
        v = calloc(1, sizeof(char *));
    return v;
}
