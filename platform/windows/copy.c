/* copy.c (windows): the unpacked store's copies fall back to the library's read/write loop (no
 * block cloning here); an open file's mtime (its read-only attribute stands for the mode), and a
 * touch of a store entry's last use. */
#include <stdlib.h>

#include "win.h"

int cc_pf_copy_fd(cc_pf_fd src, cc_pf_fd dst, uint64_t size, int reflink, int *how)
{
    (void)src;
    (void)dst;
    (void)size;
    (void)reflink;
    *how = 0;
    cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "no block cloning on Windows: copied with read/write");
    return -1;
}

static void unix_to_filetime(int64_t t, uint32_t ns, FILETIME *ft)
{
    ULONGLONG v = ((ULONGLONG)t + 11644473600ULL) * 10000000ULL + ns / 100u;
    ft->dwLowDateTime = (DWORD)v;
    ft->dwHighDateTime = (DWORD)(v >> 32);
}

int cc_pf_fset_mode_time(cc_pf_fd fd, uint32_t mode, int64_t mtime, uint32_t mtime_ns)
{
    (void)mode; /* the read-only attribute is set by path (cc_pf_chmod) where it matters */
    FILETIME ft;
    unix_to_filetime(mtime, mtime_ns, &ft);
    if (!SetFileTime((HANDLE)fd, NULL, NULL, &ft)) {
        cc_w_last_error("setting a file's time");
        return -1;
    }
    return 0;
}

int cc_pf_touch(const char *path)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    HANDLE h =
        CreateFileW(w, FILE_WRITE_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        cc_w_last_error(path);
        return -1;
    }
    FILETIME ft;
    SYSTEMTIME now;
    GetSystemTime(&now);
    int ok = SystemTimeToFileTime(&now, &ft) && SetFileTime(h, NULL, NULL, &ft);
    if (!ok)
        cc_w_last_error(path);
    CloseHandle(h);
    return ok ? 0 : -1;
}
