/* report.c (windows): what the environment report asks of the OS: host name (DNS host name, as
 * UTF-8) and kernel release (none on Windows: the report's OS block says "windows"). */
#include <stdlib.h>
#include <windows.h>

#include "platform.h"

char *cc_pf_hostname(void)
{
    wchar_t w[256];
    DWORD n = (DWORD)(sizeof(w) / sizeof(w[0]));
    if (!GetComputerNameExW(ComputerNameDnsHostname, w, &n)) {
        cc_pf_set_error(CUDNNCTL_E_IO, "GetComputerNameExW failed");
        return NULL;
    }
    int len = WideCharToMultiByte(CP_UTF8, 0, w, (int)n, NULL, 0, NULL, NULL);
    char *s = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (!s) {
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
        return NULL;
    }
    WideCharToMultiByte(CP_UTF8, 0, w, (int)n, s, len, NULL, NULL);
    s[len] = '\0';
    return s;
}

char *cc_pf_kernel_release(void)
{
    return NULL;
}
