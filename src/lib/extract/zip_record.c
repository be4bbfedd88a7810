/* zip_record.c: the SHA-256 of a pinned wheel's files from its own RECORD. A wheel carries, in
 * <name>-<version>.dist-info/RECORD, one line per file: "path,sha256=<urlsafe base64, no
 * padding>,size" (PEP 376, PEP 627). When the wheel's own SHA-256 is the wheel catalog's —
 * NVIDIA's wheel as the index published it, checked over every byte before anything goes live —
 * its RECORD is NVIDIA's statement of every file's digest, covered by that check, and the bytes
 * unpacked are the deterministic inflate of the verified bytes: the files are not hashed a second
 * time as they are written (a quarter of the CPU of a cold wheel install: docs/performance.md).
 * A file the RECORD does not list plainly (a quoted line, another algorithm, another size, no
 * line at all) is hashed from staging instead, so every staged file still gets its digest.
 * Entries are found by libarchive; only RECORD's text is read here. */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "zip_int.h"

#define RECORD_MAX (4u << 20) /* NVIDIA's cuDNN wheels: ~3 kB */

int cc_zip_record_wanted(const cc_zrun *z)
{
    return z->o->wheel_record && z->wheel;
}

/* "<x>.dist-info/RECORD" at the top of the wheel */
static int is_record(const char *name)
{
    const char *s = strchr(name, '/');
    return s && s - name > 10 && strncmp(s - 10, ".dist-info", 10) == 0 &&
           strcmp(s, "/RECORD") == 0;
}

/* RECORD's bytes (NUL-terminated, malloc'd) from the zip open in fd; NULL when it has none or it
 * cannot be read (every file is then hashed from staging). */
static char *read_record(cc_pf_fd fd)
{
    cc_pf_stat_t st;
    cc_xfile r = {.fd = fd, .buf = malloc(CC_XFILE_BLOCK), .at_pos = 1};
    struct archive *a = NULL;
    if (r.buf && cc_pf_fstat(fd, &st) == 0) {
        r.size = st.size;
        a = cc_zip_open_seekable(&r);
    }
    struct archive_entry *ae;
    char *text = NULL;
    int h;
    while (a && ((h = archive_read_next_header(a, &ae)) == ARCHIVE_OK || h == ARCHIVE_WARN)) {
        const char *n = archive_entry_pathname(ae);
        if (!n || !is_record(n))
            continue;
        la_int64_t size = archive_entry_size(ae);
        if (size < 0 || (uint64_t)size > RECORD_MAX || !(text = malloc((size_t)size + 1)))
            break;
        la_ssize_t got = archive_read_data(a, text, (size_t)size);
        if (got != size) {
            free(text);
            text = NULL;
            break;
        }
        text[size] = '\0';
        break;
    }
    if (a)
        archive_read_free(a);
    free(r.buf);
    return text;
}

/* The line of RECORD naming `stored` with `size`: its SHA-256 as hex into hex; 0 found, -1 not. */
static int record_digest(const char *text, const char *stored, uint64_t size, char hex[65])
{
    size_t sl = strlen(stored);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len && line[len - 1] == '\r')
            len--;
        /* path,sha256=<43 chars>,<size>: an unquoted path (a quoted one is left to hashing) */
        if (len > sl + 8 && memcmp(line, stored, sl) == 0 && line[sl] == ',' &&
            memcmp(line + sl + 1, "sha256=", 7) == 0) {
            const char *b64 = line + sl + 8;
            const char *comma = memchr(b64, ',', len - sl - 8);
            if (comma) {
                char num[24];
                size_t nl = (size_t)(line + len - comma - 1);
                char *e = NULL;
                memcpy(num, comma + 1, nl < sizeof(num) - 1 ? nl : sizeof(num) - 1);
                num[nl < sizeof(num) - 1 ? nl : sizeof(num) - 1] = '\0';
                unsigned long long v = strtoull(num, &e, 10);
                if (nl && nl < sizeof(num) && e && *e == '\0' && v == size &&
                    cc_sha256_hex_of_b64url(b64, (size_t)(comma - b64), hex) == 0)
                    return 0;
            }
        }
        line = end ? end + 1 : line + len;
    }
    return -1;
}

cudnnctl_err cc_zip_record_hashes(cc_zrun *z, cc_pf_fd fd)
{
    if (!cc_zip_record_wanted(z))
        return CUDNNCTL_E_OK;
    char *text = read_record(fd);
    size_t listed = 0, hashed = 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < z->n; i++) {
        cc_zjob *j = z->jobs[i];
        cc_staged_file *r = j->rec;
        if (!r || r->skipped || r->is_link || j->type != CC_XE_FILE || r->sha256[0])
            continue;
        if (text && record_digest(text, j->stored, r->size, r->sha256) == 0) {
            listed++;
            continue;
        }
        char *p = cc_path_join(z->root, r->path);
        uint64_t size = 0;
        if (!p || cc_sha256_file(z->ctx, p, r->sha256, &size) != 0 || size != r->size)
            rc = CC_ERR(z->ctx, CUDNNCTL_E_IO, "cannot hash the staged %s (%s)", r->path,
                        cc_pf_last_error_text());
        hashed++;
        free(p);
    }
    free(text);
    cc_log(z->ctx, CUDNNCTL_LOG_DEBUG,
           "extract: %zu files' SHA-256 from the wheel's RECORD (its digest the wheel catalog's), "
           "%zu hashed from staging",
           listed, hashed);
    return rc;
}
