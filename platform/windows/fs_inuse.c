/* fs_inuse.c (windows): files another process holds — who holds them (the Restart Manager,
 * rstrtmgr.dll loaded at run time; where it answers nothing, as under wine, every process's loaded
 * modules), and deletion at the next reboot (MoveFileExW MOVEFILE_DELAY_UNTIL_REBOOT, which writes
 * HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\PendingFileRenameOperations and so needs an
 * elevated process). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"
#include "grow.h"

#include <psapi.h>

int cc_pf_delete_on_reboot(const char *path)
{
    wchar_t *w = cc_w_path_plain(path);
    if (!w)
        return -1;
    int rc = 0;
    if (!MoveFileExW(w, NULL, MOVEFILE_DELAY_UNTIL_REBOOT)) {
        cc_w_last_error(path);
        rc = -1;
    }
    free(w);
    return rc;
}

/* ---- Restart Manager (declared here: older mingw headers lack restartmanager.h) ----------------
 */
typedef struct {
    DWORD pid;
    FILETIME start;
} rm_unique_process;

typedef struct {
    rm_unique_process process;
    WCHAR app_name[256];
    WCHAR service_name[64];
    int app_type;
    ULONG app_status;
    DWORD session_id;
    BOOL restartable;
} rm_process_info;

typedef DWORD(WINAPI *rm_start_fn)(DWORD *, DWORD, WCHAR *);
typedef DWORD(WINAPI *rm_register_fn)(DWORD, UINT, LPCWSTR *, UINT, rm_unique_process *, UINT,
                                      LPCWSTR *);
typedef DWORD(WINAPI *rm_list_fn)(DWORD, UINT *, UINT *, rm_process_info *, DWORD *);
typedef DWORD(WINAPI *rm_end_fn)(DWORD);

static char *who(const wchar_t *name, DWORD pid)
{
    char *u = cc_w_to_utf8(name);
    char *r = NULL;
    if (u) {
        size_t len = strlen(u) + 32;
        r = malloc(len);
        if (r)
            snprintf(r, len, "%s (pid %lu)", u, (unsigned long)pid);
    }
    free(u);
    return r;
}

static void rm_users(const wchar_t *file, char ***v, size_t *n)
{
    HMODULE rm = LoadLibraryExW(L"rstrtmgr.dll", NULL, 0x00000800 /* SEARCH_SYSTEM32 */);
    if (!rm)
        return;
    rm_start_fn start = (rm_start_fn)(void (*)(void))GetProcAddress(rm, "RmStartSession");
    rm_register_fn reg = (rm_register_fn)(void (*)(void))GetProcAddress(rm, "RmRegisterResources");
    rm_list_fn list = (rm_list_fn)(void (*)(void))GetProcAddress(rm, "RmGetList");
    rm_end_fn end = (rm_end_fn)(void (*)(void))GetProcAddress(rm, "RmEndSession");
    DWORD session = 0;
    WCHAR key[64] = {0};
    if (start && reg && list && end && start(&session, 0, key) == ERROR_SUCCESS) {
        LPCWSTR files[1] = {file};
        UINT need = 0, have = 0;
        DWORD reasons = 0;
        rm_process_info info[16];
        if (reg(session, 1, files, 0, NULL, 0, NULL) == ERROR_SUCCESS) {
            have = 16;
            DWORD r = list(session, &need, &have, info, &reasons);
            for (UINT i = 0; (r == ERROR_SUCCESS || r == ERROR_MORE_DATA) && i < have && i < 16;
                 i++)
                cc_strs_push(v, n, who(info[i].app_name, info[i].process.pid));
        }
        end(session);
    }
    FreeLibrary(rm);
}

/* Does process @p h have @p file (no \\?\ prefix) loaded as a module? */
static int has_module(HANDLE h, const wchar_t *file)
{
    HMODULE mods[1024];
    DWORD need = 0;
    if (!EnumProcessModulesEx(h, mods, sizeof(mods), &need, LIST_MODULES_ALL))
        return 0;
    DWORD count = need / sizeof(HMODULE);
    for (DWORD i = 0; i < count && i < 1024; i++) {
        wchar_t name[MAX_PATH * 2];
        DWORD len = GetModuleFileNameExW(h, mods[i], name, MAX_PATH * 2);
        if (len) {
            cc_w_strip_prefix(name);
            if (_wcsicmp(name, file) == 0)
                return 1;
        }
    }
    return 0;
}

static void module_users(const wchar_t *file, char ***v, size_t *n)
{
    DWORD pids[4096], got = 0;
    if (!EnumProcesses(pids, sizeof(pids), &got))
        return;
    DWORD self = GetCurrentProcessId();
    for (DWORD i = 0; i < got / sizeof(DWORD); i++) {
        if (pids[i] == 0 || pids[i] == self)
            continue;
        HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pids[i]);
        if (!h)
            continue;
        if (has_module(h, file)) {
            wchar_t exe[MAX_PATH * 2];
            DWORD len = MAX_PATH * 2;
            const wchar_t *base = L"?";
            if (QueryFullProcessImageNameW(h, 0, exe, &len)) {
                const wchar_t *s = wcsrchr(exe, L'\\');
                base = s ? s + 1 : exe;
            }
            cc_strs_push(v, n, who(base, pids[i]));
        }
        CloseHandle(h);
    }
}

char **cc_pf_file_users(const char *path)
{
    char **v = calloc(1, sizeof(char *));
    size_t n = 0;
    wchar_t *w = cc_w_path(path);
    if (!v || !w) {
        free(v);
        free(w);
        return NULL;
    }
    cc_w_strip_prefix(w);
    rm_users(w, &v, &n);
    if (n == 0) /* no Restart Manager answer (wine's is a stub): who has it loaded */
        module_users(w, &v, &n);
    free(w);
    return v;
}
