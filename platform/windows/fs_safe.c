/* fs_safe.c (windows): the safe-path layer's Windows side (docs/security.md, "Running as root").
 * What the Linux walk does with owners and modes needs ACLs here, which are not read (the doc
 * says what a check of them would add); what is done: a symbolic-link reparse point anywhere on a
 * path that is written, believed or loaded is refused (directory junctions, which cudnnctl makes
 * for a prefix's `current`, are let through), nothing is written through a final reparse point,
 * and temp names come from the OS's random source. */
#define _CRT_RAND_S
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

/* The reparse tag of w (0 when it is none or absent). */
static DWORD tag_of(const wchar_t *w)
{
    WIN32_FIND_DATAW fd;
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_REPARSE_POINT))
        return 0;
    HANDLE h = FindFirstFileW(w, &fd);
    if (h == INVALID_HANDLE_VALUE)
        return 0;
    FindClose(h);
    return fd.dwReserved0;
}

static int refuse(const char *path, const char *what)
{
    char text[1200];
    snprintf(text, sizeof(text), "%s is %s: not followed (another user could have planted it); "
             "fix: give the path it points to instead", path, what);
    cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
    return -1;
}

int cc_pf_trust_check(const char *path, unsigned what)
{
    (void)what;
    wchar_t *w = cc_w_path_plain(path);
    if (!w)
        return -1;
    size_t n = wcslen(w);
    int rc = 0;
    for (size_t i = 3; i <= n && rc == 0; i++) { /* every prefix after "C:\" */
        if (i < n && w[i] != L'\\' && w[i] != L'/')
            continue;
        wchar_t c = w[i];
        w[i] = L'\0';
        if (tag_of(w) == IO_REPARSE_TAG_SYMLINK) {
            char *shown = cc_w_to_utf8(w);
            rc = refuse(shown ? shown : path, "a symbolic link");
            free(shown);
        }
        w[i] = c;
    }
    free(w);
    return rc;
}

const char *cc_pf_untrusted_owner(void)
{
    return ""; /* owners (ACLs) are not read here: docs/security.md */
}

cc_pf_fd cc_pf_open_trusted(const char *path)
{
    if (cc_pf_trust_check(path, CC_PF_TRUST_OBJECT) != 0)
        return -1;
    return cc_pf_open(path, CC_PF_O_RDONLY, 0);
}

cc_pf_dir *cc_pf_opendir_nofollow(const char *path)
{
    wchar_t *w = cc_w_path_plain(path);
    if (!w)
        return NULL;
    DWORD tag = tag_of(w);
    free(w);
    if (tag != 0) {
        refuse(path, "a reparse point (link or junction)");
        return NULL;
    }
    return cc_pf_opendir(path);
}

/* 1 (with the error set) when a write to path would go through a final symbolic link. */
int cc_w_write_through_link(const char *path, const wchar_t *w)
{
    if (tag_of(w) != IO_REPARSE_TAG_SYMLINK)
        return 0;
    char text[1200];
    snprintf(text, sizeof(text), "%s is a symbolic link: cudnnctl never writes through a link; "
             "fix: remove it, or give the path it points to", path);
    cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
    return 1;
}

int cc_pf_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        unsigned int r;
        if (rand_s(&r) != 0) {
            cc_pf_set_error(CUDNNCTL_E_IO, "no random numbers from the OS (rand_s)");
            return -1;
        }
        size_t k = len < sizeof(r) ? len : sizeof(r);
        memcpy(p, &r, k);
        p += k;
        len -= k;
    }
    return 0;
}

void cc_pf_set_resolve_root(const char *root)
{
    (void)root; /* the Windows walk refuses links outright; nothing is resolved through them */
}
