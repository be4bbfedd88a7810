/* install.c (windows): what the install / commit area needs beyond fs.c: hard links
 * (CreateHardLinkW), the process id, and whether a process id is alive (OpenProcess). */
#include <stdlib.h>

#include "win.h"

int cc_pf_link(const char *existing, const char *newpath)
{
    int rc = -1;
    wchar_t *we = cc_w_path(existing), *wn = cc_w_path(newpath);
    if (!we || !wn)
        goto out;
    if (!CreateHardLinkW(wn, we, NULL)) {
        cc_w_last_error(newpath); /* FAT / network shares: callers copy instead */
        goto out;
    }
    rc = 0;
out:
    free(we);
    free(wn);
    return rc;
}

long cc_pf_getpid(void)
{
    return (long)GetCurrentProcessId();
}

int cc_pf_pid_alive(long pid)
{
    if (pid <= 0)
        return 0;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, (DWORD)pid);
    if (!h) /* another user's process: it exists; no such id: gone */
        return GetLastError() == ERROR_ACCESS_DENIED;
    DWORD code = 0;
    int alive = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE &&
                WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
    CloseHandle(h);
    return alive;
}
