/* error.c (windows): GetLastError() -> cudnnctl_err mapping and the thread's last platform error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win.h"

#ifndef ERROR_ELEVATION_REQUIRED
#define ERROR_ELEVATION_REQUIRED 740L
#endif
#ifndef ERROR_DISK_QUOTA_EXCEEDED
#define ERROR_DISK_QUOTA_EXCEEDED 1295L
#endif

static _Thread_local cudnnctl_err last_code = CUDNNCTL_E_OK;
static _Thread_local char last_text[2048]; /* trust refusals name long paths twice */

void cc_pf_set_error(cudnnctl_err code, const char *text)
{
    last_code = code;
    snprintf(last_text, sizeof(last_text), "%s", text ? text : "");
}

cudnnctl_err cc_pf_last_error(void)
{
    return last_code;
}

const char *cc_pf_last_error_text(void)
{
    return last_text;
}

static cudnnctl_err map(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_MOD_NOT_FOUND:
    case ERROR_PROC_NOT_FOUND:
    case ERROR_DIRECTORY:
    case ERROR_NOT_READY:
        return CUDNNCTL_E_NOT_FOUND;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_ELEVATION_REQUIRED:
    case ERROR_CANT_ACCESS_FILE:
        return CUDNNCTL_E_PERMISSION;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
    case ERROR_DIR_NOT_EMPTY:
        return CUDNNCTL_E_EXISTS;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
    case ERROR_DISK_QUOTA_EXCEEDED:
        return CUDNNCTL_E_NO_SPACE;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return CUDNNCTL_E_NOMEM;
    case ERROR_OPERATION_ABORTED:
        return CUDNNCTL_E_INTERRUPTED;
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED:
    case ERROR_PRIVILEGE_NOT_HELD:
        return CUDNNCTL_E_UNSUPPORTED;
    case WAIT_TIMEOUT:
    case ERROR_TIMEOUT:
    case ERROR_SEM_TIMEOUT:
        return CUDNNCTL_E_TIMEOUT;
    case ERROR_BAD_EXE_FORMAT:
        return CUDNNCTL_E_LOAD;
    default:
        return CUDNNCTL_E_IO;
    }
}

void cc_w_set_error(DWORD e, const char *what)
{
    wchar_t *msg = NULL;
    char *u8 = NULL;
    DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                 FORMAT_MESSAGE_IGNORE_INSERTS,
                             NULL, e, MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), (LPWSTR)&msg, 0, NULL);
    if (n == 0) /* no English message table: the user's language */
        n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                               FORMAT_MESSAGE_IGNORE_INSERTS,
                           NULL, e, 0, (LPWSTR)&msg, 0, NULL);
    if (n > 0 && msg) {
        while (n > 0 && (msg[n - 1] == L'\r' || msg[n - 1] == L'\n' || msg[n - 1] == L' ' ||
                         msg[n - 1] == L'.'))
            msg[--n] = L'\0';
        u8 = cc_w_to_utf8(msg);
        char *ins = u8 ? strstr(u8, " %1") : NULL; /* "Bad EXE format for %1": no inserts here */
        if (ins)
            memmove(ins, ins + 3, strlen(ins + 3) + 1);
    }
    if (msg)
        LocalFree(msg);
    last_code = map(e);
    snprintf(last_text, sizeof(last_text), "%s%s%s (Windows error %lu)", what ? what : "",
             what ? ": " : "", u8 && *u8 ? u8 : "system error", (unsigned long)e);
    free(u8);
    SetLastError(e);
}

void cc_w_last_error(const char *what)
{
    cc_w_set_error(GetLastError(), what);
}
