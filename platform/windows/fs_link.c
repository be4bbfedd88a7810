/* fs_link.c (windows): symbolic links (create, read) and canonical paths (GetFinalPathNameByHandleW).
 * cuDNN on Windows needs no links; creating one needs Developer Mode or elevation, and its absence is
 * reported as CUDNNCTL_E_UNSUPPORTED so callers can fall back to copies. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

#ifndef SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
#define SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE 0x2
#endif
#ifndef FSCTL_GET_REPARSE_POINT
#define FSCTL_GET_REPARSE_POINT 0x000900A8
#endif
#ifndef MAXIMUM_REPARSE_DATA_BUFFER_SIZE
#define MAXIMUM_REPARSE_DATA_BUFFER_SIZE (16 * 1024)
#endif

/* REPARSE_DATA_BUFFER lives in the DDK headers; the two layouts used here. */
typedef struct {
    ULONG tag;
    USHORT data_len;
    USHORT reserved;
    USHORT subst_off, subst_len, print_off, print_len;
    ULONG flags; /* symlinks only; junctions start their path buffer here */
} reparse_hdr;

int cc_pf_symlink(const char *target, const char *linkpath)
{
    int rc = -1;
    wchar_t *wl = cc_w_path(linkpath);
    wchar_t *wt = cc_w_from_utf8(target);
    wchar_t *resolved = NULL;
    if (!wl || !wt)
        goto out;
    for (wchar_t *p = wt; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    /* a link to a directory must say so; resolve a relative target against the link's dir */
    DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
    if (cc_pf_is_abs(target)) {
        cc_pf_stat_t st;
        if (cc_pf_stat(target, &st) == 0 && st.is_dir)
            flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
    } else {
        size_t nl = wcslen(wl), nt = wcslen(wt);
        resolved = malloc((nl + nt + 2) * sizeof(wchar_t));
        if (!resolved) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            goto out;
        }
        memcpy(resolved, wl, (nl + 1) * sizeof(wchar_t));
        wchar_t *slash = wcsrchr(resolved, L'\\');
        if (slash)
            slash[1] = L'\0';
        wcscat(resolved, wt);
        DWORD a = GetFileAttributesW(resolved);
        if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY))
            flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
    }
    if (!CreateSymbolicLinkW(wl, wt, flags)) {
        DWORD e = GetLastError();
        /* Windows before 10 1703 rejects the unprivileged flag */
        if (e == ERROR_INVALID_PARAMETER &&
            CreateSymbolicLinkW(wl, wt, flags & ~(DWORD)SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE))
            goto check;
        e = GetLastError();
        if (e == ERROR_PRIVILEGE_NOT_HELD) {
            cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED,
                            "creating a symbolic link needs Windows Developer Mode or an elevated "
                            "prompt (Windows error 1314); cuDNN on Windows needs no links");
            goto out;
        }
        cc_w_set_error(e, linkpath);
        goto out;
    }
check:
    /* wine 8's CreateSymbolicLinkW is a stub that returns TRUE and creates nothing */
    {
        DWORD a = GetFileAttributesW(wl);
        if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
            cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED,
                            "CreateSymbolicLinkW reported success but made no link (wine stub); "
                            "cuDNN on Windows needs no links");
            goto out;
        }
    }
    rc = 0;
out:
    free(wl);
    free(wt);
    free(resolved);
    return rc;
}

char *cc_pf_readlink(const char *path)
{
    char *r = NULL;
    unsigned char *buf = NULL;
    wchar_t *w = cc_w_path(path);
    if (!w)
        return NULL;
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
                           NULL);
    if (h == INVALID_HANDLE_VALUE) {
        cc_w_last_error(path);
        goto out;
    }
    buf = malloc(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
    DWORD got = 0;
    if (!buf || !DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, buf,
                                 MAXIMUM_REPARSE_DATA_BUFFER_SIZE, &got, NULL)) {
        DWORD e = buf ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY;
        CloseHandle(h);
        /* not a reparse point: readlink(2) says EINVAL */
        cc_w_set_error(e, path);
        goto out;
    }
    CloseHandle(h);
    reparse_hdr hdr;
    if (got < sizeof(reparse_hdr)) {
        cc_w_set_error(ERROR_INVALID_DATA, path);
        goto out;
    }
    memcpy(&hdr, buf, sizeof(hdr));
    const unsigned char *pathbuf;
    if (hdr.tag == IO_REPARSE_TAG_SYMLINK)
        pathbuf = buf + sizeof(reparse_hdr);
    else if (hdr.tag == IO_REPARSE_TAG_MOUNT_POINT)
        pathbuf = buf + sizeof(reparse_hdr) - sizeof(ULONG);
    else {
        cc_pf_set_error(CUDNNCTL_E_IO, "not a symbolic link");
        goto out;
    }
    USHORT off = hdr.print_len ? hdr.print_off : hdr.subst_off;
    USHORT len = hdr.print_len ? hdr.print_len : hdr.subst_len;
    if ((size_t)(pathbuf - buf) + off + len > got) {
        cc_w_set_error(ERROR_INVALID_DATA, path);
        goto out;
    }
    wchar_t *t = malloc(len + sizeof(wchar_t));
    if (!t) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        goto out;
    }
    memcpy(t, pathbuf + off, len);
    t[len / sizeof(wchar_t)] = L'\0';
    const wchar_t *s = t;
    if (wcsncmp(s, L"\\??\\", 4) == 0) /* NT namespace prefix of substitute names */
        s += 4;
    r = cc_w_to_utf8(s);
    free(t);
out:
    free(buf);
    free(w);
    return r;
}

char *cc_pf_realpath(const char *path)
{
    char *r = NULL;
    wchar_t *w = cc_w_path(path), *out = NULL;
    if (!w)
        return NULL;
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        cc_w_last_error(path);
        goto out;
    }
    DWORD cap = 512;
    for (;;) {
        out = malloc(cap * sizeof(wchar_t));
        if (!out) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            break;
        }
        DWORD n = GetFinalPathNameByHandleW(h, out, cap, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
        if (n == 0 && GetLastError() == ERROR_MORE_DATA && cap < 32768) {
            free(out); /* wine says "more data" instead of the size needed */
            out = NULL;
            cap = cap < 4096 ? 4096 : 32768;
            continue;
        }
        if (n == 0 && GetLastError() == ERROR_MORE_DATA) {
            /* wine 8 cannot name handles of paths past MAX_PATH: the normalised full path, with
             * its links unresolved, is the best answer left */
            free(out);
            out = w;
            w = NULL;
            break;
        }
        if (n == 0) {
            cc_w_last_error(path);
            free(out);
            out = NULL;
            break;
        }
        if (n < cap)
            break;
        free(out);
        out = NULL;
        cap = n + 1;
    }
    CloseHandle(h);
    if (out) {
        cc_w_strip_prefix(out);
        r = cc_w_to_utf8(out);
    }
out:
    free(out);
    free(w);
    return r;
}
