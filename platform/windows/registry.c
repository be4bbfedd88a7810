/* registry.c (windows): registry values (REG_SZ / REG_EXPAND_SZ kept unexpanded, REG_DWORD), subkey
 * lists, the WM_SETTINGCHANGE broadcast after persistent environment changes, and %VAR% expansion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"
#include "grow.h"

/* Split "HKLM\\SOFTWARE\\X" into a root key and a wide subkey path (malloc'd). */
static wchar_t *split_key(const char *key, HKEY *root)
{
    static const struct {
        const char *name;
        HKEY root;
    } roots[] = {
        {"HKLM", HKEY_LOCAL_MACHINE}, {"HKEY_LOCAL_MACHINE", HKEY_LOCAL_MACHINE},
        {"HKCU", HKEY_CURRENT_USER},  {"HKEY_CURRENT_USER", HKEY_CURRENT_USER},
        {"HKU", HKEY_USERS},          {"HKEY_USERS", HKEY_USERS},
        {"HKCR", HKEY_CLASSES_ROOT},  {"HKEY_CLASSES_ROOT", HKEY_CLASSES_ROOT},
    };
    const char *sep = strchr(key, '\\');
    size_t n = sep ? (size_t)(sep - key) : strlen(key);
    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        if (strlen(roots[i].name) == n && _strnicmp(key, roots[i].name, n) == 0) {
            *root = roots[i].root;
            return cc_w_from_utf8(sep ? sep + 1 : "");
        }
    }
    cc_pf_set_error(CUDNNCTL_E_USAGE, "registry key must start with HKLM\\, HKCU\\, HKU\\ or HKCR\\");
    return NULL;
}

static void reg_error(LONG rc, const char *key)
{
    cc_w_set_error((DWORD)rc, key);
}

/* Open key with access and make the value name UTF-16: 1 when open, 0 when the key does not
 * exist, -1 on error (recorded). The caller closes *k and frees *wname. */
static int open_value(const char *key, const char *name, REGSAM access, HKEY *k, wchar_t **wname)
{
    HKEY root;
    *k = NULL;
    *wname = NULL;
    wchar_t *sub = split_key(key, &root);
    if (!sub)
        return -1;
    LONG r = RegOpenKeyExW(root, sub, 0, access | KEY_WOW64_64KEY, k);
    free(sub);
    if (r != ERROR_SUCCESS) {
        *k = NULL;
        if (r == ERROR_FILE_NOT_FOUND)
            return 0;
        reg_error(r, key);
        return -1;
    }
    *wname = cc_w_from_utf8(name ? name : "");
    return *wname ? 1 : -1;
}

int cc_pf_reg_get(const char *key, const char *name, char **value, int *type)
{
    HKEY k;
    BYTE *data = NULL;
    wchar_t *wname;
    *value = NULL;
    *type = CC_PF_REG_NONE;
    int rc = open_value(key, name, KEY_QUERY_VALUE, &k, &wname);
    if (rc <= 0)
        goto out;
    rc = -1;
    LONG r;
    DWORD t = 0, size = 0;
    for (;;) {
        r = RegQueryValueExW(k, wname, NULL, &t, data, &size);
        if (r == ERROR_FILE_NOT_FOUND) {
            rc = 0;
            goto out;
        }
        if (r == ERROR_SUCCESS && data)
            break;
        if (r != ERROR_SUCCESS && r != ERROR_MORE_DATA) {
            reg_error(r, key);
            goto out;
        }
        free(data);
        data = malloc(size + 2 * sizeof(wchar_t)); /* room for a missing terminator */
        if (!data) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            goto out;
        }
    }
    if (t == REG_SZ || t == REG_EXPAND_SZ) {
        memset(data + size, 0, 2 * sizeof(wchar_t)); /* stored strings need not be terminated */
        *value = cc_w_to_utf8((const wchar_t *)data);
        if (!*value) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            goto out;
        }
        *type = t == REG_SZ ? CC_PF_REG_SZ : CC_PF_REG_EXPAND_SZ;
    } else if (t == REG_DWORD && size >= sizeof(DWORD)) {
        DWORD d;
        memcpy(&d, data, sizeof(d));
        char buf[16];
        snprintf(buf, sizeof(buf), "%lu", (unsigned long)d);
        *value = _strdup(buf);
        if (!*value)
            goto out;
        *type = CC_PF_REG_DWORD;
    } else {
        *type = CC_PF_REG_OTHER;
    }
    rc = 0;
out:
    if (k)
        RegCloseKey(k);
    free(data);
    free(wname);
    return rc;
}

int cc_pf_reg_set(const char *key, const char *name, const char *value, int type)
{
    int rc = -1;
    HKEY root, k = NULL;
    wchar_t *wname = NULL, *wval = NULL;
    wchar_t *sub = split_key(key, &root);
    if (!sub)
        return -1;
    if (type != CC_PF_REG_SZ && type != CC_PF_REG_EXPAND_SZ && type != CC_PF_REG_DWORD) {
        cc_pf_set_error(CUDNNCTL_E_USAGE, "registry values are written as SZ, EXPAND_SZ or DWORD");
        goto out;
    }
    LONG r = RegCreateKeyExW(root, sub, 0, NULL, 0, KEY_SET_VALUE | KEY_WOW64_64KEY, NULL, &k, NULL);
    if (r != ERROR_SUCCESS) {
        reg_error(r, key);
        goto out;
    }
    wname = cc_w_from_utf8(name ? name : "");
    if (!wname)
        goto out;
    if (type == CC_PF_REG_DWORD) {
        char *end = NULL;
        unsigned long v = strtoul(value, &end, 10);
        if (!*value || *end || v > 0xFFFFFFFFul) {
            cc_pf_set_error(CUDNNCTL_E_USAGE, "a REG_DWORD value must be a decimal number");
            goto out;
        }
        DWORD d = (DWORD)v;
        r = RegSetValueExW(k, wname, 0, REG_DWORD, (const BYTE *)&d, sizeof(d));
    } else {
        wval = cc_w_from_utf8(value);
        if (!wval)
            goto out;
        r = RegSetValueExW(k, wname, 0, type == CC_PF_REG_SZ ? REG_SZ : REG_EXPAND_SZ,
                           (const BYTE *)wval, (DWORD)((wcslen(wval) + 1) * sizeof(wchar_t)));
    }
    if (r != ERROR_SUCCESS) {
        reg_error(r, key);
        goto out;
    }
    rc = 0;
out:
    if (k)
        RegCloseKey(k);
    free(wname);
    free(wval);
    free(sub);
    return rc;
}

int cc_pf_reg_delete(const char *key, const char *name)
{
    HKEY k;
    wchar_t *wname;
    int rc = open_value(key, name, KEY_SET_VALUE, &k, &wname);
    if (rc == 1) {
        LONG r = RegDeleteValueW(k, wname);
        rc = 0;
        if (r != ERROR_SUCCESS && r != ERROR_FILE_NOT_FOUND) {
            reg_error(r, key);
            rc = -1;
        }
    }
    if (k)
        RegCloseKey(k);
    free(wname);
    return rc;
}

char **cc_pf_reg_subkeys(const char *key)
{
    HKEY root, k = NULL;
    char **v = NULL;
    size_t n = 0, cap = 0;
    wchar_t *sub = split_key(key, &root);
    if (!sub)
        return NULL;
    LONG r = RegOpenKeyExW(root, sub, 0, KEY_ENUMERATE_SUB_KEYS | KEY_WOW64_64KEY, &k);
    free(sub);
    if (r == ERROR_FILE_NOT_FOUND)
        return calloc(1, sizeof(char *));
    if (r != ERROR_SUCCESS) {
        reg_error(r, key);
        return NULL;
    }
    for (DWORD i = 0;; i++) {
        wchar_t name[256]; /* registry key names are at most 255 characters */
        DWORD len = 256;
        r = RegEnumKeyExW(k, i, name, &len, NULL, NULL, NULL, NULL);
        if (r == ERROR_NO_MORE_ITEMS)
            break;
        if (r != ERROR_SUCCESS) {
            reg_error(r, key);
            goto fail;
        }
        if (cc_grow(&v, &cap, n + 2, sizeof(char *)) != 0)
            goto fail;
        v[n] = cc_w_to_utf8(name);
        if (!v[n])
            goto fail;
        v[++n] = NULL;
    }
    RegCloseKey(k);
    return v ? v : calloc(1, sizeof(char *));
fail:
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    RegCloseKey(k);
    return NULL;
}

int cc_pf_env_broadcast(void)
{
    DWORD_PTR res = 0;
    if (!SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, (LPARAM)L"Environment",
                             SMTO_ABORTIFHUNG, 5000, &res)) {
        DWORD e = GetLastError();
        if (e != 0 && e != ERROR_TIMEOUT) { /* a hung window is not our failure */
            cc_w_set_error(e, "SendMessageTimeoutW(WM_SETTINGCHANGE)");
            return -1;
        }
    }
    return 0;
}

char *cc_pf_expand_env(const char *s)
{
    wchar_t *w = cc_w_from_utf8(s);
    if (!w)
        return NULL;
    char *r = NULL;
    DWORD n = ExpandEnvironmentStringsW(w, NULL, 0);
    wchar_t *o = n ? malloc(n * sizeof(wchar_t)) : NULL;
    if (!o || ExpandEnvironmentStringsW(w, o, n) == 0)
        cc_w_last_error("ExpandEnvironmentStringsW");
    else
        r = cc_w_to_utf8(o);
    free(o);
    free(w);
    return r;
}
