/* fs.c (windows): files, directories, free space and locks through the wide Win32 file API.
 * Handles are opened with full sharing (read, write, delete) so POSIX-like renames and deletes of
 * open files work; replaces retry briefly on sharing / lock violations (antivirus, indexers). */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

static int not_found(DWORD e)
{
    return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND || e == ERROR_INVALID_NAME ||
           e == ERROR_INVALID_DRIVE || e == ERROR_BAD_NETPATH || e == ERROR_BAD_NET_NAME ||
           e == ERROR_NOT_READY || e == ERROR_DIRECTORY;
}

/* Transient errors that a virus scanner or indexer holding the file causes. */
static int transient(DWORD e)
{
    return e == ERROR_SHARING_VIOLATION || e == ERROR_LOCK_VIOLATION || e == ERROR_ACCESS_DENIED;
}

#define RETRIES 8 /* 5+10+20+40+80+160+320+640 ms: about 1.3 s in all */

static void backoff(int attempt)
{
    Sleep(5u << attempt);
}

static int has_ext(const wchar_t *w, const wchar_t *ext)
{
    size_t n = wcslen(w), e = wcslen(ext);
    return n >= e && _wcsicmp(w + n - e, ext) == 0;
}

static void fill_info(const wchar_t *w, const BY_HANDLE_FILE_INFORMATION *fi, int is_link,
                      cc_pf_stat_t *st)
{
    st->exists = 1;
    st->is_link = is_link;
    st->is_dir = !is_link && (fi->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    st->is_reg = !is_link && !st->is_dir;
    st->size = ((uint64_t)fi->nFileSizeHigh << 32) | fi->nFileSizeLow;
    if (st->is_dir || is_link)
        st->mode = 0755;
    else {
        st->mode = 0644;
        if (has_ext(w, L".exe") || has_ext(w, L".dll") || has_ext(w, L".bat") ||
            has_ext(w, L".cmd"))
            st->mode |= 0111;
    }
    if (fi->dwFileAttributes & FILE_ATTRIBUTE_READONLY)
        st->mode &= ~0222u;
    st->mtime = cc_w_filetime_to_unix(&fi->ftLastWriteTime);
    st->mtime_ns = (uint32_t)((((ULONGLONG)fi->ftLastWriteTime.dwHighDateTime << 32) |
                               fi->ftLastWriteTime.dwLowDateTime) % 10000000ULL) * 100u;
    st->dev = fi->dwVolumeSerialNumber;
    st->ino = ((uint64_t)fi->nFileIndexHigh << 32) | fi->nFileIndexLow;
}

/* The reparse tag of a path (0 when it is no reparse point). */
static DWORD reparse_tag(const wchar_t *w)
{
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    if (h == INVALID_HANDLE_VALUE)
        return 0;
    FindClose(h);
    return (fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? fd.dwReserved0 : 0;
}

static int is_link_tag(DWORD tag)
{
    return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT;
}

static int do_stat(const char *path, cc_pf_stat_t *st, int follow)
{
    memset(st, 0, sizeof(*st));
    wchar_t *w = cc_w_path(path);
    if (!w)
        return cc_pf_last_error() == CUDNNCTL_E_NOT_FOUND ? 0 : -1;
    int is_link = 0;
    if (!follow) {
        DWORD a = GetFileAttributesW(w);
        if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT))
            is_link = is_link_tag(reparse_tag(w));
    }
    DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (is_link ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, SHARE_ALL, NULL, OPEN_EXISTING, flags, NULL);
    BY_HANDLE_FILE_INFORMATION fi;
    memset(&fi, 0, sizeof(fi));
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        if (not_found(e)) {
            free(w);
            return 0;
        }
        /* some files (pagefile, locked system files) refuse even attribute opens */
        WIN32_FILE_ATTRIBUTE_DATA ad;
        if (!GetFileAttributesExW(w, GetFileExInfoStandard, &ad)) {
            cc_w_set_error(e, path);
            free(w);
            return -1;
        }
        fi.dwFileAttributes = ad.dwFileAttributes;
        fi.ftLastWriteTime = ad.ftLastWriteTime;
        fi.nFileSizeHigh = ad.nFileSizeHigh;
        fi.nFileSizeLow = ad.nFileSizeLow;
    } else {
        BOOL ok = GetFileInformationByHandle(h, &fi);
        DWORD e = GetLastError();
        CloseHandle(h);
        if (!ok) {
            cc_w_set_error(e, path);
            free(w);
            return -1;
        }
    }
    fill_info(w, &fi, is_link, st);
    free(w);
    return 0;
}

int cc_pf_stat(const char *path, cc_pf_stat_t *st)
{
    return do_stat(path, st, 1);
}

int cc_pf_lstat(const char *path, cc_pf_stat_t *st)
{
    return do_stat(path, st, 0);
}

cc_pf_fd cc_pf_open(const char *path, int flags, uint32_t mode)
{
    if (flags & CC_PF_O_TRUSTED)
        return cc_pf_open_trusted(path);
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    if (((flags & 0x3) != CC_PF_O_RDONLY || (flags & (CC_PF_O_CREAT | CC_PF_O_TRUNC))) &&
        cc_w_write_through_link(path, w)) {
        free(w);
        return -1;
    }
    DWORD access;
    switch (flags & 0x3) {
    case CC_PF_O_WRONLY:
        access = GENERIC_WRITE;
        break;
    case CC_PF_O_RDWR:
        access = GENERIC_READ | GENERIC_WRITE;
        break;
    default:
        access = GENERIC_READ;
    }
    if (flags & CC_PF_O_APPEND) /* append-only: every write lands at the end, like O_APPEND */
        access = (access & GENERIC_READ) | (FILE_GENERIC_WRITE & ~(DWORD)FILE_WRITE_DATA);
    DWORD disp;
    if ((flags & CC_PF_O_CREAT) && (flags & CC_PF_O_EXCL))
        disp = CREATE_NEW;
    else if ((flags & CC_PF_O_CREAT) && (flags & CC_PF_O_TRUNC))
        disp = CREATE_ALWAYS;
    else if (flags & CC_PF_O_CREAT)
        disp = OPEN_ALWAYS;
    else if (flags & CC_PF_O_TRUNC)
        disp = TRUNCATE_EXISTING;
    else
        disp = OPEN_EXISTING;
    DWORD attrs = FILE_ATTRIBUTE_NORMAL;
    if ((flags & CC_PF_O_CREAT) && !(mode & 0222))
        attrs = FILE_ATTRIBUTE_READONLY;
    if ((flags & 0x3) == CC_PF_O_RDONLY)
        attrs |= FILE_FLAG_BACKUP_SEMANTICS; /* lets a directory be opened, as open(2) does */
    if (flags & CC_PF_O_FOR_SYNC)
        access = GENERIC_READ | GENERIC_WRITE; /* FlushFileBuffers needs GENERIC_WRITE */
    HANDLE h = CreateFileW(w, access, SHARE_ALL, NULL, disp, attrs, NULL);
    if (h == INVALID_HANDLE_VALUE && (flags & CC_PF_O_FOR_SYNC) &&
        GetLastError() == ERROR_ACCESS_DENIED) /* a read-only file: nothing of ours to flush */
        h = CreateFileW(w, GENERIC_READ, SHARE_ALL, NULL, disp, attrs, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        cc_w_last_error(path);
        free(w);
        return -1;
    }
    free(w);
    return (cc_pf_fd)h;
}

long long cc_pf_read(cc_pf_fd fd, void *buf, size_t len)
{
    DWORD got = 0;
    DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len;
    if (!ReadFile((HANDLE)fd, buf, want, &got, NULL)) {
        DWORD e = GetLastError();
        if (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF)
            return 0;
        cc_w_set_error(e, "ReadFile");
        return -1;
    }
    return (long long)got;
}

long long cc_pf_write(cc_pf_fd fd, const void *buf, size_t len)
{
    DWORD put = 0;
    DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len;
    if (!WriteFile((HANDLE)fd, buf, want, &put, NULL)) {
        cc_w_last_error("WriteFile");
        return -1;
    }
    return (long long)put;
}

long long cc_pf_pread(cc_pf_fd fd, void *buf, size_t len, uint64_t off)
{
    DWORD got = 0;
    DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len;
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.Offset = (DWORD)(off & 0xffffffffu);
    ov.OffsetHigh = (DWORD)(off >> 32);
    if (!ReadFile((HANDLE)fd, buf, want, &got, &ov)) {
        DWORD e = GetLastError();
        if (e == ERROR_HANDLE_EOF)
            return 0;
        cc_w_set_error(e, "ReadFile");
        return -1;
    }
    return (long long)got;
}

int cc_pf_seek(cc_pf_fd fd, uint64_t off)
{
    LARGE_INTEGER li;
    li.QuadPart = (LONGLONG)off;
    if (!SetFilePointerEx((HANDLE)fd, li, NULL, FILE_BEGIN)) {
        cc_w_last_error("SetFilePointerEx");
        return -1;
    }
    return 0;
}

int cc_pf_fsync(cc_pf_fd fd)
{
    if (!FlushFileBuffers((HANDLE)fd)) {
        DWORD e = GetLastError();
        /* read-only handles, consoles and pipes have nothing of ours to flush */
        if (e == ERROR_ACCESS_DENIED || e == ERROR_INVALID_HANDLE || e == ERROR_INVALID_FUNCTION)
            return 0;
        cc_w_set_error(e, "FlushFileBuffers");
        return -1;
    }
    return 0;
}

int cc_pf_close(cc_pf_fd fd)
{
    if (!CloseHandle((HANDLE)fd)) {
        cc_w_last_error("CloseHandle");
        return -1;
    }
    return 0;
}

int cc_pf_truncate(cc_pf_fd fd, uint64_t len)
{
    FILE_END_OF_FILE_INFO eof; /* does not move the file pointer, like ftruncate */
    eof.EndOfFile.QuadPart = (LONGLONG)len;
    if (!SetFileInformationByHandle((HANDLE)fd, FileEndOfFileInfo, &eof, sizeof(eof))) {
        cc_w_last_error("SetFileInformationByHandle(EndOfFile)");
        return -1;
    }
    return 0;
}

/* Clear FILE_ATTRIBUTE_READONLY (POSIX unlink / rename ignore the victim's mode). 1 = cleared. */
static int clear_readonly(const wchar_t *w)
{
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_READONLY))
        return 0;
    return SetFileAttributesW(w, a & ~(DWORD)FILE_ATTRIBUTE_READONLY) ? 1 : 0;
}

int cc_pf_rename(const char *oldpath, const char *newpath)
{
    int rc = -1;
    wchar_t *wo = cc_w_path(oldpath), *wn = cc_w_path(newpath);
    if (!wo || !wn)
        goto out;
    DWORD ao = GetFileAttributesW(wo), an = GetFileAttributesW(wn);
    if (ao != INVALID_FILE_ATTRIBUTES && an != INVALID_FILE_ATTRIBUTES &&
        (ao & an & FILE_ATTRIBUTE_DIRECTORY) && (ao & an & FILE_ATTRIBUTE_REPARSE_POINT) &&
        reparse_tag(wo) == IO_REPARSE_TAG_MOUNT_POINT &&
        reparse_tag(wn) == IO_REPARSE_TAG_MOUNT_POINT) {
        /* MoveFileExW never replaces a directory: a junction over a junction is retargeted */
        free(wo);
        free(wn);
        return cc_pf_junction_retarget(oldpath, newpath);
    }
    if (ao != INVALID_FILE_ATTRIBUTES && an != INVALID_FILE_ATTRIBUTES &&
        (ao & FILE_ATTRIBUTE_DIRECTORY) && (an & FILE_ATTRIBUTE_DIRECTORY) &&
        !(an & FILE_ATTRIBUTE_REPARSE_POINT) && _wcsicmp(wo, wn) != 0) {
        /* rename(2) replaces an empty directory; MoveFileExW never replaces directories */
        if (!RemoveDirectoryW(wn)) {
            cc_w_last_error(newpath);
            goto out;
        }
    }
    for (int i = 0;; i++) {
        if (MoveFileExW(wo, wn, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
            rc = 0;
            break;
        }
        DWORD e = GetLastError();
        if (e == ERROR_ACCESS_DENIED && clear_readonly(wn))
            continue;
        if (!transient(e) || i >= RETRIES) {
            cc_w_set_error(e, newpath);
            break;
        }
        backoff(i);
    }
out:
    free(wo);
    free(wn);
    return rc;
}

int cc_pf_unlink(const char *path)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    int rc = -1;
    DWORD a = GetFileAttributesW(w);
    int dirlink = a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) &&
                  (a & FILE_ATTRIBUTE_REPARSE_POINT);
    for (int i = 0;; i++) {
        if (dirlink ? RemoveDirectoryW(w) : DeleteFileW(w)) {
            rc = 0;
            break;
        }
        DWORD e = GetLastError();
        if (e == ERROR_ACCESS_DENIED && a != INVALID_FILE_ATTRIBUTES &&
            (a & FILE_ATTRIBUTE_DIRECTORY) && !dirlink) {
            cc_w_set_error(e, path); /* unlink(2) of a directory: EISDIR, not worth retrying */
            break;
        }
        if (e == ERROR_ACCESS_DENIED && clear_readonly(w))
            continue;
        if (!transient(e) || i >= RETRIES) {
            cc_w_set_error(e, path);
            break;
        }
        backoff(i);
    }
    free(w);
    return rc;
}

int cc_pf_rmdir(const char *path)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    int rc = -1;
    for (int i = 0;; i++) {
        if (RemoveDirectoryW(w)) {
            rc = 0;
            break;
        }
        DWORD e = GetLastError();
        if (e == ERROR_ACCESS_DENIED && clear_readonly(w))
            continue;
        if (e == ERROR_DIR_NOT_EMPTY || !transient(e) || i >= RETRIES) {
            cc_w_set_error(e, path);
            break;
        }
        backoff(i);
    }
    free(w);
    return rc;
}

int cc_pf_mkdir(const char *path, uint32_t mode)
{
    (void)mode; /* ACLs are inherited from the parent */
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    int rc = 0;
    if (!CreateDirectoryW(w, NULL)) {
        cc_w_last_error(path);
        rc = -1;
    }
    free(w);
    return rc;
}

int cc_pf_chmod(const char *path, uint32_t mode)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    int rc = 0;
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        cc_w_last_error(path);
        rc = -1;
    } else {
        DWORD na =
            (mode & 0200) ? (a & ~(DWORD)FILE_ATTRIBUTE_READONLY) : (a | FILE_ATTRIBUTE_READONLY);
        if (a & FILE_ATTRIBUTE_DIRECTORY)
            na = a; /* read-only means something else on directories */
        if (na != a && !SetFileAttributesW(w, na)) {
            cc_w_last_error(path);
            rc = -1;
        }
    }
    free(w);
    return rc;
}

int cc_pf_fsync_dir(const char *path)
{
    /* NTFS journals directory entries itself; a directory handle cannot be flushed without write
     * access, so this only checks that the directory exists. */
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    DWORD a = GetFileAttributesW(w);
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        cc_w_last_error(path);
        return -1;
    }
    return 0;
}

int cc_pf_free_space(const char *path, uint64_t *bytes)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    DWORD a = GetFileAttributesW(w);
    if (a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY)) {
        wchar_t *slash = wcsrchr(w, L'\\'); /* a file: ask about its directory */
        if (slash)
            slash[1] = L'\0';
    }
    size_t n = wcslen(w);
    wchar_t *dir = malloc((n + 2) * sizeof(wchar_t));
    int rc = -1;
    if (!dir) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        goto out;
    }
    memcpy(dir, w, (n + 1) * sizeof(wchar_t));
    if (n && dir[n - 1] != L'\\') {
        dir[n] = L'\\';
        dir[n + 1] = L'\0';
    }
    ULARGE_INTEGER avail;
    if (!GetDiskFreeSpaceExW(dir, &avail, NULL, NULL)) {
        cc_w_last_error(path);
        goto out;
    }
    *bytes = avail.QuadPart;
    rc = 0;
out:
    free(dir);
    free(w);
    return rc;
}

int cc_pf_fs_readonly(const char *path)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return -1;
    wchar_t vol[MAX_PATH + 1];
    DWORD flags = 0;
    int rc = -1;
    if (GetVolumePathNameW(w, vol, MAX_PATH + 1) &&
        GetVolumeInformationW(vol, NULL, 0, NULL, NULL, &flags, NULL, 0))
        rc = (flags & FILE_READ_ONLY_VOLUME) ? 1 : 0;
    else
        cc_w_last_error(path);
    free(w);
    return rc;
}

int cc_pf_dir_writable(const char *path)
{
    int ro = cc_pf_fs_readonly(path);
    if (ro == 1)
        cc_w_set_error(ERROR_WRITE_PROTECT, path);
    return ro < 0 ? -1 : !ro;
}

/* ---- directory listing ------------------------------------------------------------------- */
struct cc_pf_dir {
    HANDLE h;
    WIN32_FIND_DATAW fd;
    int pending; /* fd holds an entry not returned yet */
    char *name;  /* the last name returned */
};

cc_pf_dir *cc_pf_opendir(const char *path)
{
    wchar_t *w = cc_w_path(path);
    if (!w)
        return NULL;
    size_t n = wcslen(w);
    wchar_t *pat = malloc((n + 3) * sizeof(wchar_t));
    cc_pf_dir *d = calloc(1, sizeof(*d));
    if (!pat || !d) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        goto fail;
    }
    memcpy(pat, w, n * sizeof(wchar_t));
    if (n && pat[n - 1] != L'\\')
        pat[n++] = L'\\';
    pat[n++] = L'*';
    pat[n] = L'\0';
    d->h = FindFirstFileExW(pat, FindExInfoBasic, &d->fd, FindExSearchNameMatch, NULL, 0);
    if (d->h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        if (e != ERROR_FILE_NOT_FOUND) { /* FILE_NOT_FOUND = an empty root directory */
            cc_w_set_error(e, path);
            goto fail;
        }
    } else {
        d->pending = 1;
    }
    free(pat);
    free(w);
    return d;
fail:
    free(pat);
    free(w);
    free(d);
    return NULL;
}

const char *cc_pf_readdir(cc_pf_dir *d)
{
    for (;;) {
        if (!d->pending) {
            if (d->h == INVALID_HANDLE_VALUE || !FindNextFileW(d->h, &d->fd))
                return NULL;
        }
        d->pending = 0;
        const wchar_t *n = d->fd.cFileName;
        if (wcscmp(n, L".") == 0 || wcscmp(n, L"..") == 0)
            continue;
        free(d->name);
        d->name = cc_w_to_utf8(n);
        if (!d->name)
            continue;
        return d->name;
    }
}

void cc_pf_closedir(cc_pf_dir *d)
{
    if (!d)
        return;
    if (d->h != INVALID_HANDLE_VALUE)
        FindClose(d->h);
    free(d->name);
    free(d);
}

int cc_pf_fstat(cc_pf_fd fd, cc_pf_stat_t *st)
{
    BY_HANDLE_FILE_INFORMATION fi;
    memset(st, 0, sizeof(*st));
    if (!GetFileInformationByHandle((HANDLE)fd, &fi)) {
        cc_w_set_error(GetLastError(), "an open file");
        return -1;
    }
    st->exists = 1;
    st->is_dir = (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    st->is_reg = !st->is_dir;
    st->size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
    st->mtime = cc_w_filetime_to_unix(&fi.ftLastWriteTime);
    st->mtime_ns = (uint32_t)((((ULONGLONG)fi.ftLastWriteTime.dwHighDateTime << 32) |
                               fi.ftLastWriteTime.dwLowDateTime) % 10000000ULL) * 100u;
    st->dev = fi.dwVolumeSerialNumber;
    st->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
    return 0;
}

/* ---- locks ------------------------------------------------------------------------------- */
int cc_pf_lock(const char *path, cc_pf_fd *out, int *busy)
{
    *busy = 0;
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDWR | CC_PF_O_CREAT, 0644);
    if (fd == -1)
        return -1;
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    if (!LockFileEx((HANDLE)fd, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD,
                    MAXDWORD, &ov)) {
        DWORD e = GetLastError();
        CloseHandle((HANDLE)fd);
        if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING) {
            *busy = 1;
            cc_pf_set_error(CUDNNCTL_E_LOCKED, "the lock file is held by another process");
            return -1;
        }
        cc_w_set_error(e, path);
        return -1;
    }
    *out = fd;
    return 0;
}

void cc_pf_unlock(cc_pf_fd fd)
{
    if (fd == -1)
        return;
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    UnlockFileEx((HANDLE)fd, 0, MAXDWORD, MAXDWORD, &ov);
    CloseHandle((HANDLE)fd);
}

void cc_pf_start_writeback(const char *path)
{
    /* Windows has no asynchronous "start writeback" call for a path; the commit's
     * FlushFileBuffers does the work. */
    (void)path;
}
