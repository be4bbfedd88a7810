/* fs_link.c (windows): links (create, read, replace), canonical paths (GetFinalPathNameByHandleW).
 * A link to a directory (a prefix's `current`) is a directory junction: a mount-point reparse
 * point set with FSCTL_SET_REPARSE_POINT on an empty directory, which needs no privilege (a
 * symbolic link needs Developer Mode or elevation). Its target is stored absolute ("\??\C:\...")
 * as junctions require; readlink gives back the bare name when the target sits beside the
 * junction, so PREFIX\current reads "cudnn-9.1.0.70-cuda12" like the relative symlink on Linux.
 * Replacing one junction by another (cc_pf_rename, fs.c) rewrites the reparse data of the existing
 * junction in place — one FSCTL, so `current` never disappears — see cc_pf_junction_retarget.
 * Links to files stay symbolic links; their absence is CUDNNCTL_E_UNSUPPORTED (cuDNN on Windows
 * needs none). wine 8 implements neither (FSCTL_SET_REPARSE_POINT: ERROR_NOT_SUPPORTED;
 * CreateSymbolicLinkW: a stub that creates nothing). */
#include <stdio.h>
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
#ifndef FSCTL_SET_REPARSE_POINT
#define FSCTL_SET_REPARSE_POINT 0x000900A4
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

/* Set a mount-point reparse buffer naming @p full (absolute, no \\?\ prefix) on the empty
 * directory @p wl. */
static int set_junction(const wchar_t *wl, const wchar_t *full)
{
    size_t fl = wcslen(full) * sizeof(wchar_t), sl = fl + 4 * sizeof(wchar_t);
    size_t total =
        sizeof(reparse_hdr) - sizeof(ULONG) + sl + sizeof(wchar_t) + fl + sizeof(wchar_t);
    if (total > MAXIMUM_REPARSE_DATA_BUFFER_SIZE) {
        SetLastError(ERROR_FILENAME_EXCED_RANGE);
        return -1;
    }
    unsigned char *buf = calloc(1, total);
    if (!buf) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return -1;
    }
    reparse_hdr hdr = {0};
    hdr.tag = IO_REPARSE_TAG_MOUNT_POINT;
    hdr.data_len = (USHORT)(total - 8);
    hdr.subst_off = 0;
    hdr.subst_len = (USHORT)sl;
    hdr.print_off = (USHORT)(sl + sizeof(wchar_t));
    hdr.print_len = (USHORT)fl;
    memcpy(buf, &hdr, sizeof(hdr) - sizeof(ULONG));
    unsigned char *pb = buf + sizeof(reparse_hdr) - sizeof(ULONG);
    memcpy(pb, L"\\??\\", 4 * sizeof(wchar_t));
    memcpy(pb + 4 * sizeof(wchar_t), full, fl);
    memcpy(pb + sl + sizeof(wchar_t), full, fl);
    HANDLE h = CreateFileW(wl, GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    DWORD got = 0;
    BOOL ok = h != INVALID_HANDLE_VALUE &&
              DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, buf, (DWORD)total, NULL, 0, &got, NULL);
    DWORD e = GetLastError();
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    free(buf);
    SetLastError(e);
    return ok ? 0 : -1;
}

/* A junction at @p wl to the directory @p wt (a \\?\ path). */
static int make_junction(const wchar_t *wl, wchar_t *wt, const char *linkpath)
{
    cc_w_strip_prefix(wt);
    if (!CreateDirectoryW(wl, NULL)) {
        cc_w_last_error(linkpath);
        return -1;
    }
    if (set_junction(wl, wt) == 0)
        return 0;
    DWORD e = GetLastError();
    RemoveDirectoryW(wl);
    if (e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION || e == ERROR_INVALID_PARAMETER) {
        char text[400];
        snprintf(text, sizeof(text),
                 "%s: this filesystem cannot hold a directory junction (Windows error %lu: no "
                 "reparse points, as on FAT32/exFAT, many network shares and wine): put the prefix "
                 "on an NTFS or ReFS drive",
                 linkpath, (unsigned long)e);
        cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, text);
        return -1;
    }
    cc_w_set_error(e, linkpath);
    return -1;
}

int cc_pf_junction_retarget(const char *src, const char *dst)
{
    wchar_t *ws = cc_w_path(src), *wd = cc_w_path(dst);
    unsigned char *buf = malloc(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
    int rc = -1;
    HANDLE hs = INVALID_HANDLE_VALUE, hd = INVALID_HANDLE_VALUE;
    DWORD got = 0, e = ERROR_NOT_ENOUGH_MEMORY;
    if (!ws || !wd || !buf)
        goto out;
    DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
    DWORD how = FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT;
    hs = CreateFileW(ws, FILE_READ_ATTRIBUTES, share, NULL, OPEN_EXISTING, how, NULL);
    hd = CreateFileW(wd, GENERIC_WRITE, share, NULL, OPEN_EXISTING, how, NULL);
    if (hs == INVALID_HANDLE_VALUE || hd == INVALID_HANDLE_VALUE ||
        !DeviceIoControl(hs, FSCTL_GET_REPARSE_POINT, NULL, 0, buf,
                         MAXIMUM_REPARSE_DATA_BUFFER_SIZE, &got, NULL) ||
        !DeviceIoControl(hd, FSCTL_SET_REPARSE_POINT, buf, got, NULL, 0, &got, NULL)) {
        e = GetLastError();
        goto out;
    }
    CloseHandle(hs);
    hs = INVALID_HANDLE_VALUE;
    /* the new target is live; the temp name must go too (the journal reads its presence) */
    rc = RemoveDirectoryW(ws) ? 0 : -1;
    e = GetLastError();
out:
    if (rc != 0)
        cc_w_set_error(e, dst);
    if (hs != INVALID_HANDLE_VALUE)
        CloseHandle(hs);
    if (hd != INVALID_HANDLE_VALUE)
        CloseHandle(hd);
    free(buf);
    free(ws);
    free(wd);
    return rc;
}

/* The full path of @p target (relative: to the directory of @p wl, a \\?\ path); malloc'd. */
static wchar_t *resolve_beside(const wchar_t *wl, const char *target)
{
    if (cc_pf_is_abs(target))
        return cc_w_path(target);
    wchar_t *wt = cc_w_from_utf8(target);
    size_t nl = wcslen(wl), nt = wt ? wcslen(wt) : 0;
    wchar_t *r = wt ? malloc((nl + nt + 2) * sizeof(wchar_t)) : NULL;
    if (r) {
        memcpy(r, wl, (nl + 1) * sizeof(wchar_t));
        wchar_t *slash = wcsrchr(r, L'\\');
        if (slash)
            slash[1] = L'\0';
        wcscat(r, wt);
        for (wchar_t *p = r; *p; p++)
            if (*p == L'/')
                *p = L'\\';
    } else {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
    }
    free(wt);
    return r;
}

int cc_pf_symlink_dir(const char *target, const char *linkpath)
{
    wchar_t *wl = cc_w_path(linkpath), *full = wl ? resolve_beside(wl, target) : NULL;
    int rc = full ? make_junction(wl, full, linkpath) : -1;
    free(full);
    free(wl);
    return rc;
}

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
        if (cc_pf_stat(target, &st) == 0 && st.is_dir) {
            wchar_t *full = cc_w_path(target);
            rc = full ? make_junction(wl, full, linkpath) : -1;
            free(full);
            goto out;
        }
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
        if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) {
            /* "cudnn-9.1.0.70-cuda12" beside the link: a junction to its full path */
            DWORD n = GetFullPathNameW(resolved, 0, NULL, NULL);
            wchar_t *full = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
            if (full && GetFullPathNameW(resolved, n + 1, full, NULL))
                rc = make_junction(wl, full, linkpath);
            else
                cc_w_last_error(linkpath);
            free(full);
            goto out;
        }
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

/* A junction's target in the junction's own directory is given back as its bare name (what the
 * library stores in a relative link); any other target stays absolute. */
static const wchar_t *beside(const wchar_t *link, const wchar_t *target)
{
    const wchar_t *l = link, *ls, *ts = wcsrchr(target, L'\\');
    if (wcsncmp(l, L"\\\\?\\", 4) == 0)
        l += 4;
    ls = wcsrchr(l, L'\\');
    if (!ls || !ts || ls - l != ts - target || _wcsnicmp(l, target, (size_t)(ls - l)) != 0)
        return target;
    return ts + 1;
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
    if (hdr.tag == IO_REPARSE_TAG_MOUNT_POINT)
        s = beside(w, s);
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
