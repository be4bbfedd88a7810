/* win.h (windows): helpers shared by the platform/windows files: UTF-8 <-> UTF-16 conversion, long
 * path preparation, and recording GetLastError() as the thread's platform error. Not a public header. */
#ifndef CC_PF_WIN_H
#define CC_PF_WIN_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "platform.h"

/* UTF-8 -> UTF-16, malloc'd; NULL (error recorded) on invalid UTF-8 or no memory. */
wchar_t *cc_w_from_utf8(const char *s);
/* UTF-16 -> UTF-8, malloc'd; len = -1 for NUL-terminated input. */
char *cc_w_to_utf8_n(const wchar_t *w, int len);
char *cc_w_to_utf8(const wchar_t *w);

/* A path for the wide file APIs: UTF-16, '/' accepted as separator, made absolute and normalised
 * (GetFullPathNameW) and given the \\?\ (or \\?\UNC\) prefix so the MAX_PATH limit does not apply.
 * Already-prefixed paths pass unchanged. malloc'd; NULL with the error recorded. */
wchar_t *cc_w_path(const char *path);
/* The same without the \\?\ prefix when the full path fits in MAX_PATH (for APIs that dislike the
 * prefix: LoadLibraryExW, CreateProcessW's directory, GetDiskFreeSpaceExW). */
wchar_t *cc_w_path_plain(const char *path);
/* Strip a \\?\ or \\?\UNC\ prefix in place (for paths shown to users). */
void cc_w_strip_prefix(wchar_t *w);

/* Record e (a GetLastError() value) as the thread's platform error; what = context or NULL. */
void cc_w_set_error(DWORD e, const char *what);
/* Shorthand: record GetLastError(). */
void cc_w_last_error(const char *what);
/* 1 (with the platform error set) when a write to path would go through a final symbolic link
 * (fs_safe.c). */
int cc_w_write_through_link(const char *path, const wchar_t *w);

/* Replace the directory junction @p dst by the junction @p src: @p src's reparse data is written
 * onto @p dst in place (FSCTL_SET_REPARSE_POINT on an existing mount point of the same tag replaces
 * its data in one operation: @p dst never stops existing and never names anything but the old or
 * the new target), then @p src is removed. fs_link.c. */
int cc_pf_junction_retarget(const char *src, const char *dst);

/* Windows FILETIME (100 ns since 1601) -> seconds since the Unix epoch. */
int64_t cc_w_filetime_to_unix(const FILETIME *ft);

#endif
