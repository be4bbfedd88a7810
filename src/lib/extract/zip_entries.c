/* zip_entries.c: a zip's entries as jobs (zip_int.h): each read from a header, a wheel's names
 * mapped (nvidia/cudnn/X -> X, the licence -> LICENSE, lib/libX.so.M -> libX.so.M.m.p as NVIDIA's
 * archives name it; the Python metadata is not installed: docs/archive-layouts.md), judged (the
 * entry checks, the content policy, the bomb limits, the component selection), and handed over
 * as the staging records. */
#include <stdlib.h>
#include <string.h>

#include "content_policy.h"
#include "grow.h"
#include "zip_int.h"

/* ---- the entries ---- */
/* A zip holds files, dirs and links; any other type of entry is one the checks refuse. */
static cc_xentry_type zentry_type(struct archive_entry *ae)
{
    cc_xentry_type t = cc_xentry_type_of(ae);
    return t == CC_XE_HARDLINK || t == CC_XE_FILE || t == CC_XE_DIR || t == CC_XE_SYMLINK
               ? t
               : CC_XE_OTHER;
}

cc_zjob *cc_zip_add_job(cc_zrun *z, struct archive_entry *ae)
{
    if (z->n >= CC_EXTRACT_MAX_ENTRIES) {
        CC_ERR(z->ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
               "unsafe archive: more than %d entries; this is not a cuDNN archive",
               CC_EXTRACT_MAX_ENTRIES);
        return NULL;
    }
    cc_zjob *j = NULL;
    if (cc_grow(&z->jobs, &z->cap, z->n + 1, sizeof(*z->jobs)) != 0 ||
        !(j = calloc(1, sizeof(*j)))) {
        CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        return NULL;
    }
    const char *name = archive_entry_pathname_utf8(ae), *link = NULL;
    j->index = (long)z->n;
    j->type = zentry_type(ae);
    j->mode = (uint32_t)archive_entry_perm(ae);
    j->size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1;
    j->mtime = archive_entry_mtime(ae);
    if (j->type == CC_XE_SYMLINK)
        link = archive_entry_symlink_utf8(ae);
    else if (j->type == CC_XE_HARDLINK)
        link = archive_entry_hardlink_utf8(ae);
    z->jobs[z->n++] = j;
    j->stored = cc_strdup(name ? name : "");
    if (!j->stored || (link && !(j->link = cc_strdup(link)))) {
        CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        return NULL;
    }
    return j; /* a name not representable is "": the check refuses it */
}

/* ---- a wheel's names ---------------------------------------------------------------------- */
int cc_zip_is_wheel(const cc_zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        const char *s = strchr(z->jobs[i]->stored, '/');
        if (s && s > z->jobs[i]->stored && strcmp(s, "/WHEEL") == 0 &&
            (size_t)(s - z->jobs[i]->stored) > 10 && strncmp(s - 10, ".dist-info", 10) == 0)
            return 1;
    }
    return 0;
}

/* The version that starts at v and ends at `end` -> its first three parts ("9.19.0"); NULL
 * when it is not digits and dots with at least three parts. */
static char *ver3_of(const char *v, const char *end)
{
    size_t len = 0;
    int dots = 0;
    while (v + len < end && dots < 3) {
        char c = v[len];
        if (c == '.' && ++dots == 3)
            break;
        if (c != '.' && (c < '0' || c > '9'))
            return NULL;
        len++;
    }
    return dots >= 2 ? cc_strndup(v, len) : NULL;
}

/* "<name>-<version>.dist-info/WHEEL" -> the version's first three parts ("9.19.0"). */
char *cc_zip_wheel_ver3(const cc_zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        const char *n = z->jobs[i]->stored, *d = strstr(n, ".dist-info/");
        const char *dash = NULL;
        for (const char *c = n; d && c < d; c++)
            if (*c == '-')
                dash = c;
        if (d && dash)
            return ver3_of(dash + 1, d);
    }
    return NULL;
}

char *cc_zip_wheel_ver3_of_name(const char *file_name)
{
    const char *b = file_name ? strrchr(file_name, '/') : NULL;
    b = b ? b + 1 : file_name;
    const char *d1 = b ? strchr(b, '-') : NULL, *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    return d2 && cc_str_ends(b, ".whl") ? ver3_of(d1 + 1, d2) : NULL;
}

/* lib/libX.so.M with M the version's major -> lib/libX.so.<ver3>; else a copy. */
static char *wheel_lib_name(const char *rest, const char *ver3)
{
    const char *b = strrchr(rest, '/'), *so = NULL;
    b = b ? b + 1 : rest;
    so = strstr(b, ".so.");
    size_t major = ver3 ? strcspn(ver3, ".") : 0;
    if (cc_str_starts(rest, "lib/") && so && cc_str_starts(b, "lib") && major &&
        strlen(so + 4) == major && strncmp(so + 4, ver3, major) == 0)
        return cc_asprintf("%.*s%s", (int)(so + 4 - rest), rest, ver3);
    return cc_strdup(rest);
}

/* The name to judge for a wheel entry, or NULL (set *skip) when the entry is not installed. */
static char *wheel_name(const cc_zrun *z, const char *n, int *skip)
{
    const char *d = strstr(n, ".dist-info/");
    *skip = 0;
    if (d && (size_t)(strchr(n, '/') - n) == (size_t)(d - n) + 10) {
        const char *r = d + 11, *b = strrchr(r, '/');
        b = b ? b + 1 : r;
        if ((cc_str_starts(r, "licenses/") || !strchr(r, '/')) &&
            (strcmp(b, "License.txt") == 0 || strcmp(b, "LICENSE") == 0 ||
             strcmp(b, "LICENSE.txt") == 0))
            return cc_strdup(CC_ZIP_WHEEL_TOP "/LICENSE");
        *skip = 1;
        return NULL;
    }
    if (strcmp(n, "nvidia/cudnn") == 0 || strcmp(n, "nvidia/cudnn/") == 0)
        return cc_strdup(CC_ZIP_WHEEL_TOP "/");
    if (!cc_str_starts(n, "nvidia/cudnn/") || cc_str_ends(n, "__init__.py") ||
        strstr(n, "__pycache__") || cc_str_ends(n, ".pyc")) {
        *skip = 1;
        return NULL;
    }
    char *rest = wheel_lib_name(n + strlen("nvidia/cudnn/"), z->ver3);
    char *out = rest ? cc_asprintf(CC_ZIP_WHEEL_TOP "/%s", rest) : NULL;
    free(rest);
    return out;
}

static int keeps_everything(const cc_zrun *z)
{
    cudnnctl_components c = z->o->components & CUDNNCTL_COMPONENTS_ALL;
    return !c || c == CUDNNCTL_COMPONENTS_ALL;
}

cudnnctl_err cc_zip_judge(cc_zrun *z, cc_xcheck *x, cc_xlimits *lim, cc_zjob *j)
{
    int skip = 0;
    j->name = z->wheel ? wheel_name(z, j->stored, &skip) : cc_strdup(j->stored);
    if (skip)
        return CUDNNCTL_E_OK;
    if (!j->name)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    j->e = (cc_xentry){.name = j->stored[0] ? j->name : NULL,
                       .type = j->type,
                       .mode = j->mode,
                       .link = j->link,
                       .rec_index = j->index};
    char *detail = NULL;
    cudnnctl_err c = cc_xcheck_entry(x, &j->e, &detail);
    if (c) {
        CC_ERR(z->ctx, c, "%s", detail ? detail : "out of memory");
        free(detail);
        return c;
    }
    if ((c = cc_content_check(z->ctx, z->o->content, j->stored, &j->e, z->windows)) != 0)
        return c;
    if (j->type == CC_XE_HARDLINK)
        CC_RET_ERR(z->ctx, CUDNNCTL_E_UNSUPPORTED,
                   "the zip archive hard-links '%s': NVIDIA's zips carry none; use NVIDIA's "
                   "archive",
                   j->stored);
    if (j->type == CC_XE_FILE) {
        cudnnctl_err rc = cc_xlimits_entry(z->ctx, lim, j->stored, j->size, 0);
        if (rc)
            return rc;
        if (j->size < 0)
            CC_RET_ERR(z->ctx, CUDNNCTL_E_BAD_ARCHIVE,
                       "bad archive: the zip does not declare the size of '%s'; the file is "
                       "damaged: delete it (or the cached copy) and download it again",
                       j->stored);
    }
    if (j->e.mapped && j->type != CC_XE_DIR) {
        if (!(j->rec = calloc(1, sizeof(*j->rec))) || !(j->rec->path = cc_strdup(j->e.mapped)))
            return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        j->write =
            keeps_everything(z) || (cudnnctl_component_of(j->e.mapped) & z->o->components) != 0;
        j->rec->skipped = !j->write;
        j->rec->mode = j->type == CC_XE_SYMLINK ? 0777 : j->e.out_mode;
        j->rec->is_link = j->type == CC_XE_SYMLINK;
        if (j->rec->is_link && !(j->rec->link_target = cc_strdup(j->e.link_text)))
            return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (j->e.mapped) {
        j->write = keeps_everything(z);
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_zip_fill_out(cc_zrun *z, cc_layout layout, cc_staging *out)
{
    out->layout = layout;
    out->top_dir = cc_strdup(z->wheel ? CC_ZIP_WHEEL_TOP : z->expected ? z->expected : "");
    out->files = calloc(z->n ? z->n : 1, sizeof(*out->files));
    if (!out->top_dir || !out->files)
        return CC_ERR(z->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < z->n; i++) {
        cc_staged_file *r = z->jobs[i]->rec;
        if (!r || r->skipped)
            continue;
        out->files[out->n_files++] = *r;
        out->bytes += r->is_link ? 0 : r->size;
        free(r);
        z->jobs[i]->rec = NULL;
    }
    return CUDNNCTL_E_OK;
}

void cc_zip_free_jobs(cc_zrun *z)
{
    for (size_t i = 0; i < z->n; i++) {
        cc_zjob *j = z->jobs[i];
        free(j->stored);
        free(j->name);
        free(j->link);
        cc_xentry_clear(&j->e);
        if (j->rec) {
            free(j->rec->path);
            free(j->rec->link_target);
            free(j->rec);
        }
        free(j);
    }
    free(z->jobs);
    z->jobs = NULL;
    z->n = z->cap = 0;
}
