/* source_keep.c: what makes "the bytes verified are the bytes extracted" hold for an archive on
 * disk (docs/security.md, "Running as root"): a local archive another user could change (its
 * directory or the file writable by someone else) is first copied into a private file in the
 * cache, and only that copy is hashed and read; a zip keeps the very file its bytes were hashed
 * from open (a download: the file it landed in, hashed again from the descriptor unless only
 * root or we could have changed it), for the extraction to read by descriptor, whatever the path
 * names meanwhile. */
#include <stdlib.h>
#include <string.h>

#include "source_int.h"

#define COPY_CHUNK (1u << 20)

/* Copy the open file `in` into `out`; 0 or -1 with *why (malloc'd). */
static int copy_bytes(cc_source *s, cc_pf_fd in, cc_pf_fd out, char **why)
{
    unsigned char *buf = malloc(COPY_CHUNK);
    if (!buf) {
        *why = cc_strdup("out of memory");
        return -1;
    }
    int rc = 0;
    for (;;) {
        long long n = cc_sys_read(s->ctx, in, buf, COPY_CHUNK);
        if (n == 0)
            break;
        if (n < 0 || cc_sys_write_all(s->ctx, out, buf, (size_t)n) != 0) {
            *why =
                cc_asprintf("cannot copy %s to %s: %s", s->path, s->copy, cc_pf_last_error_text());
            rc = -1;
            break;
        }
        if (cc_cancel_requested(s->ctx)) {
            *why = cc_strdup("cancelled while copying the archive");
            rc = -1;
            break;
        }
    }
    free(buf);
    return rc;
}

cudnnctl_err cc_source_private_copy(cc_source *s, const char *why_untrusted)
{
    cc_cache_entry e;
    cudnnctl_err rc = cc_cache_entry_open(s->ctx, NULL, &e); /* a private, random name */
    if (rc != CUDNNCTL_E_OK)
        return rc;
    s->copy = cc_asprintf("%s.copy", e.part);
    cc_cache_entry_close(s->ctx, &e);
    if (!s->copy)
        CC_RET_ERR(s->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_log(s->ctx, CUDNNCTL_LOG_INFO,
           "%s: %s; it is copied to %s first, and only the copy is verified and unpacked", s->path,
           why_untrusted, s->copy);
    cc_event(s->ctx, CUDNNCTL_EV_STEP, "copy the archive to a private file", s->copy);
    char *why = NULL;
    cc_pf_fd in = cc_sys_open(s->ctx, s->path, CC_PF_O_RDONLY, 0);
    cc_pf_fd out =
        in < 0 ? -1
               : cc_sys_open(s->ctx, s->copy, CC_PF_O_RDWR | CC_PF_O_CREAT | CC_PF_O_EXCL, 0600);
    if (in < 0 || out < 0)
        why = cc_asprintf("cannot copy %s to %s: %s", s->path, s->copy, cc_pf_last_error_text());
    else if (copy_bytes(s, in, out, &why) == 0 && cc_pf_seek(out, 0) != 0)
        why = cc_asprintf("cannot read back %s: %s", s->copy, cc_pf_last_error_text());
    if (in >= 0)
        cc_sys_close(s->ctx, in);
    if (why) {
        if (out >= 0)
            cc_sys_close(s->ctx, out);
        rc = CC_ERR(s->ctx, CUDNNCTL_E_IO,
                    "%s; or give an archive in a directory only you (or "
                    "root) can write",
                    why);
        free(why);
        return rc;
    }
    s->file_fd = out; /* the file thread hashes this one, the extraction reads it */
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_source_keep_download(cc_source *s)
{
    /* the download was hashed as it arrived. A blob that only root or we could have changed
     * since (it and every directory above it: the trust rule) holds exactly those bytes: kept
     * open as it is. Otherwise it is hashed again from the descriptor the extraction reads. */
    if (cc_pf_trust_check(s->final_path, CC_PF_TRUST_OBJECT) == 0) {
        cc_pf_fd kept = cc_sys_open(s->ctx, s->final_path, CC_PF_O_RDONLY, 0);
        if (kept < 0)
            CC_RET_ERR(s->ctx, cc_pf_last_error(), "cannot read the verified download %s: %s",
                       s->final_path, cc_pf_last_error_text());
        s->file_fd = kept;
        return CUDNNCTL_E_OK;
    }
    cc_log(s->ctx, CUDNNCTL_LOG_INFO, "%s: %s; hashing it again from the file unpacked",
           s->final_path, cc_pf_last_error_text());
    cc_pf_fd fd = cc_sys_open(s->ctx, s->final_path, CC_PF_O_RDONLY, 0);
    cc_sha256 *h = cc_sha256_new();
    unsigned char *buf = malloc(COPY_CHUNK);
    char hex[65] = "";
    uint64_t n_total = 0;
    long long n = -1;
    if (fd >= 0 && h && buf)
        while ((n = cc_sys_read(s->ctx, fd, buf, COPY_CHUNK)) > 0 &&
               cc_sha256_update(h, buf, (size_t)n) == 0)
            n_total += (uint64_t)n;
    int ok = fd >= 0 && h && buf && n == 0 && cc_sha256_final_hex(h, hex) == 0;
    free(buf);
    cc_sha256_free(h);
    if (ok && (strcmp(hex, s->hex) != 0 || n_total != s->produced)) {
        cc_sys_close(s->ctx, fd);
        CC_RET_ERR(s->ctx, CUDNNCTL_E_HASH_MISMATCH,
                   "%s changed on disk after it was verified (SHA-256 %s, now %s): someone "
                   "else can write the cache dir; nothing was installed. Fix: use a cache dir "
                   "only you can write (--cache-dir DIR)",
                   s->final_path, s->hex, hex);
    }
    if (!ok) {
        cudnnctl_err rc = CC_ERR(s->ctx, fd < 0 ? cc_pf_last_error() : CUDNNCTL_E_IO,
                                 "cannot read the verified download %s again: %s", s->final_path,
                                 cc_pf_last_error_text());
        if (fd >= 0)
            cc_sys_close(s->ctx, fd);
        return rc;
    }
    s->file_fd = fd;
    return CUDNNCTL_E_OK;
}

cc_pf_fd cc_source_take_file(cc_source *s)
{
    cc_pf_fd fd = s->finished ? s->file_fd : -1;
    if (fd < 0) {
        CC_ERR(s->ctx, CUDNNCTL_E_USAGE, "the source kept no verified file (keep_file)");
        return -1;
    }
    if (cc_pf_seek(fd, 0) != 0) {
        CC_ERR(s->ctx, CUDNNCTL_E_IO, "cannot rewind the verified file %s: %s",
               s->final_path ? s->final_path : s->url, cc_pf_last_error_text());
        return -1;
    }
    s->file_fd = -1;
    return fd;
}

const char *cc_source_file(const cc_source *s)
{
    return s->path;
}
