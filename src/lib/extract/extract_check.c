/* extract_check.c: per-archive entry checks with memory of earlier entries (top directory,
 * layout mapping, duplicates and case collisions, writes through links, hardlinks, types,
 * modes). Pure: the verdict comes before any byte of the entry is written. */
#include "extract_check.h"

#include <stdlib.h>
#include <string.h>

#include "pathcheck.h"
#include "str.h"

#define FIX_HINT                                                                                   \
    "NVIDIA's archives never contain this: do not install it; download the archive again from "    \
    "NVIDIA (or your mirror) and check its SHA-256"

/* ---- a small set of staging paths, keyed case-insensitively (Windows and macOS file systems
 * would merge names that differ only in case) ---------------------------------------------- */
typedef struct {
    char *key;  /* ASCII-lower-cased staging path */
    char *path; /* the staging path as written (original case) */
    char *norm; /* the archive name that claimed it ("" for implicit parents) */
    cc_xentry_type type;
    long rec;
} slot;

struct cc_xcheck {
    slot *slots;
    size_t cap, used;
    char *expected_top;
    char *top;
    unsigned long entries;
    cc_layout_seen seen;
    char *disp, *disp_link; /* the current entry's name and link target, safe to print */
};

static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static char *fold(const char *s)
{
    char *k = cc_strdup(s);
    if (k)
        for (char *c = k; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c + ('a' - 'A'));
    return k;
}

/* A hostile name, made safe for a terminal and a log: control bytes as \xNN, cut at 300 bytes. */
static char *printable(const char *s)
{
    cc_buf b = {0};
    if (cc_buf_puts(&b, "") != 0)
        return NULL;
    for (size_t i = 0; s && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= 300) {
            cc_buf_puts(&b, "...");
            break;
        }
        if (c < 0x20 || c == 0x7f)
            cc_buf_printf(&b, "\\x%02x", c);
        else
            cc_buf_append(&b, &s[i], 1);
    }
    return b.data;
}

static slot *find(cc_xcheck *x, const char *key)
{
    size_t i = (size_t)hash_key(key) & (x->cap - 1);
    while (x->slots[i].key) {
        if (strcmp(x->slots[i].key, key) == 0)
            return &x->slots[i];
        i = (i + 1) & (x->cap - 1);
    }
    return NULL;
}

static int grow(cc_xcheck *x)
{
    size_t ncap = x->cap * 2;
    slot *ns = calloc(ncap, sizeof(*ns));
    if (!ns)
        return -1;
    for (size_t i = 0; i < x->cap; i++) {
        if (!x->slots[i].key)
            continue;
        size_t j = (size_t)hash_key(x->slots[i].key) & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = x->slots[i];
    }
    free(x->slots);
    x->slots = ns;
    x->cap = ncap;
    return 0;
}

/* Insert the staging path (len bytes of path); -1 on OOM. */
static int insert(cc_xcheck *x, const char *path, size_t len, const char *norm, cc_xentry_type type,
                  long rec)
{
    if ((x->used + 1) * 2 > x->cap && grow(x) != 0)
        return -1;
    char *p = cc_strndup(path, len), *n = cc_strdup(norm), *key = p ? fold(p) : NULL;
    if (!p || !n || !key) {
        free(p);
        free(n);
        free(key);
        return -1;
    }
    size_t i = (size_t)hash_key(key) & (x->cap - 1);
    while (x->slots[i].key)
        i = (i + 1) & (x->cap - 1);
    x->slots[i] = (slot){key, p, n, type, rec};
    x->used++;
    return 0;
}

cc_xcheck *cc_xcheck_new(const char *expected_top)
{
    cc_xcheck *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->cap = 256;
    x->slots = calloc(x->cap, sizeof(*x->slots));
    if (!x->slots || (expected_top && !(x->expected_top = cc_strdup(expected_top)))) {
        cc_xcheck_free(x);
        return NULL;
    }
    return x;
}

void cc_xcheck_free(cc_xcheck *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->cap; i++) {
        free(x->slots[i].key);
        free(x->slots[i].path);
        free(x->slots[i].norm);
    }
    free(x->slots);
    free(x->expected_top);
    free(x->top);
    free(x->disp);
    free(x->disp_link);
    free(x);
}

const char *cc_xcheck_top(const cc_xcheck *x)
{
    return x->top;
}

void cc_xentry_clear(cc_xentry *e)
{
    free(e->norm);
    free(e->mapped);
    free(e->link_text);
    e->norm = e->mapped = e->link_text = NULL;
    cc_strv_free(&e->new_dirs);
}

static const char *type_name(cc_xentry_type t)
{
    switch (t) {
    case CC_XE_DIR:
        return "directory";
    case CC_XE_FILE:
        return "file";
    case CC_XE_SYMLINK:
        return "symbolic link";
    case CC_XE_HARDLINK:
        return "hard link";
    case CC_XE_CHARDEV:
        return "character device";
    case CC_XE_BLOCKDEV:
        return "block device";
    case CC_XE_FIFO:
        return "fifo";
    case CC_XE_SOCKET:
        return "socket";
    default:
        return "special file";
    }
}

static cudnnctl_err unsafe(char **detail, const char *name, const char *why)
{
    *detail =
        cc_asprintf("unsafe archive entry '%s': %s. " FIX_HINT, name ? name : "(unnamed)", why);
    return *detail ? CUDNNCTL_E_UNSAFE_ARCHIVE : CUDNNCTL_E_NOMEM;
}

static cudnnctl_err oom(char **detail)
{
    *detail = NULL;
    return CUDNNCTL_E_NOMEM;
}

static cudnnctl_err check_pc(int rc, char **detail, const char *name, const char *why)
{
    if (rc == CC_PATHCHECK_NOMEM)
        return oom(detail);
    return unsafe(detail, name, why);
}

/* The entry's first component must be the one top directory. *rel = the rest. */
static cudnnctl_err check_top(cc_xcheck *x, cc_xentry *e, const char **rel, char **detail)
{
    size_t tl = strcspn(e->norm, "/");
    if (!x->top) {
        char *top = cc_strndup(e->norm, tl);
        if (!top)
            return oom(detail);
        const char *why = NULL;
        if (x->expected_top && strcmp(top, x->expected_top) != 0)
            why = "top directory does not match the archive's name";
        else if (!x->expected_top && !cc_layout_top_plausible(top))
            why = "top directory is neither 'cuda' nor 'cudnn-<platform>-<version>-archive'";
        if (why) {
            *detail =
                cc_asprintf("unsafe archive entry '%s': %s (expected '%s/'). " FIX_HINT, x->disp,
                            why, x->expected_top ? x->expected_top : "cudnn-...-archive");
            free(top);
            return *detail ? CUDNNCTL_E_UNSAFE_ARCHIVE : CUDNNCTL_E_NOMEM;
        }
        x->top = top;
        x->seen.legacy = strcmp(top, "cuda") == 0;
    } else if (strncmp(e->norm, x->top, tl) != 0 || strlen(x->top) != tl) {
        *detail = cc_asprintf("unsafe archive entry '%s': a second top-level directory (the "
                              "archive must hold everything under '%s/'). " FIX_HINT,
                              x->disp, x->top);
        return *detail ? CUDNNCTL_E_UNSAFE_ARCHIVE : CUDNNCTL_E_NOMEM;
    }
    if (e->norm[tl] == '\0' && e->type != CC_XE_DIR)
        return unsafe(detail, x->disp, "a non-directory where the top directory should be");
    *rel = e->norm[tl] ? e->norm + tl + 1 : "";
    return CUDNNCTL_E_OK;
}

/* Every parent of the staging path must be a directory (implicit or explicit), never a link or
 * a file; missing parents are recorded as implicit directories and listed in e->new_dirs, so
 * that they are created 0755 whatever the umask. */
static cudnnctl_err check_parents(cc_xcheck *x, cc_xentry *e, char **detail)
{
    char *key = fold(e->mapped);
    if (!key)
        return oom(detail);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (char *c = key; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        slot *s = find(x, key);
        if (s && s->type == CC_XE_SYMLINK) {
            char *why = cc_asprintf("it would be written through the symbolic link '%s'", s->norm);
            rc = why ? unsafe(detail, x->disp, why) : oom(detail);
            free(why);
        } else if (s && s->type != CC_XE_DIR) {
            char *why = cc_asprintf("its parent '%s' is a %s, not a directory", s->norm,
                                    type_name(s->type));
            rc = why ? unsafe(detail, x->disp, why) : oom(detail);
            free(why);
        } else if (s && strncmp(s->path, e->mapped, (size_t)(c - key)) != 0) {
            char *why = cc_asprintf("its directory collides with '%s' on case-insensitive file "
                                    "systems",
                                    s->path);
            rc = why ? unsafe(detail, x->disp, why) : oom(detail);
            free(why);
        } else if (!s) {
            size_t len = (size_t)(c - key);
            char *d = cc_strndup(e->mapped, len);
            if (!d || insert(x, e->mapped, len, "", CC_XE_DIR, -1) != 0 ||
                cc_strv_push_own(&e->new_dirs, d) != 0)
                rc = oom(detail);
        }
        *c = '/';
        if (rc)
            break;
    }
    free(key);
    return rc;
}

static cudnnctl_err claim(cc_xcheck *x, cc_xentry *e, char **detail)
{
    char *key = fold(e->mapped);
    if (!key)
        return oom(detail);
    slot *s = find(x, key);
    if (s) {
        free(key);
        if (s->type == CC_XE_DIR && e->type == CC_XE_DIR && strcmp(s->path, e->mapped) == 0)
            return CUDNNCTL_E_OK; /* directories may repeat (lib and lib/x64 both map to lib) */
        if (!*s->norm && strcmp(s->path, e->mapped) == 0)
            return unsafe(detail, x->disp, "replaces a directory that earlier entries created");
        if (!*s->norm) {
            char *why = cc_asprintf("collides with the directory '%s' on case-insensitive file "
                                    "systems",
                                    s->path);
            cudnnctl_err r = why ? unsafe(detail, x->disp, why) : oom(detail);
            free(why);
            return r;
        }
        char *fa = fold(s->norm), *fb = fold(e->norm);
        cudnnctl_err rc;
        if (!fa || !fb) {
            rc = oom(detail);
        } else if (strcmp(fa, fb) == 0) {
            char *why =
                strcmp(s->norm, e->norm) == 0
                    ? cc_strdup("the same name appears twice (a later copy would silently "
                                "replace the first)")
                    : cc_asprintf("collides with '%s' on case-insensitive file systems", s->norm);
            rc = why ? unsafe(detail, x->disp, why) : oom(detail);
            free(why);
        } else {
            *detail = cc_asprintf("archive layout not recognised: '%s' and '%s' both map to "
                                  "'%s' in the install layout; report this archive name to "
                                  "the cudnnctl maintainers",
                                  s->norm, e->norm, e->mapped);
            rc = *detail ? CUDNNCTL_E_BAD_LAYOUT : CUDNNCTL_E_NOMEM;
        }
        free(fa);
        free(fb);
        return rc;
    }
    free(key);
    return insert(x, e->mapped, strlen(e->mapped), e->norm, e->type, e->rec_index) == 0
               ? CUDNNCTL_E_OK
               : oom(detail);
}

static cudnnctl_err check_symlink(cc_xcheck *x, cc_xentry *e, char **detail)
{
    const char *why = NULL;
    char *resolved = NULL;
    int rc = cc_pathcheck_link_target(e->norm, e->link, &resolved, &why);
    if (rc) {
        char *w = cc_asprintf("%s ('%s')", why, x->disp_link);
        cudnnctl_err r = w ? check_pc(rc, detail, x->disp, w) : oom(detail);
        free(w);
        return r;
    }
    /* The target is rewritten for the staging layout (lib/x64 -> lib, lib64 -> lib), as the
     * canonical relative path: it then never climbs through another link. */
    cc_layout_seen scratch = x->seen;
    char *mt = NULL;
    const char *rel_t = resolved + strlen(x->top) + 1;
    if (cc_layout_map(rel_t, 1, &scratch, &mt) != 0) {
        free(resolved);
        return oom(detail);
    }
    free(resolved);
    if (!mt) {
        *detail = cc_asprintf("archive layout not recognised: link '%s' points at '%s', which "
                              "has no place in the install layout",
                              x->disp, x->disp_link);
        return *detail ? CUDNNCTL_E_BAD_LAYOUT : CUDNNCTL_E_NOMEM;
    }
    char *dir = cc_path_dir(e->mapped);
    if (!dir) {
        free(mt);
        return oom(detail);
    }
    e->link_text = cc_path_relative(strcmp(dir, ".") == 0 ? "" : dir, mt);
    free(dir);
    free(mt);
    return e->link_text ? CUDNNCTL_E_OK : oom(detail);
}

static cudnnctl_err check_hardlink(cc_xcheck *x, cc_xentry *e, char **detail)
{
    const char *why = NULL;
    char *hn = NULL;
    int rc = cc_pathcheck_name(e->link, &hn, &why);
    if (rc) {
        char *w = cc_asprintf("hard link target '%s': %s", x->disp_link, why);
        cudnnctl_err r = w ? check_pc(rc, detail, x->disp, w) : oom(detail);
        free(w);
        return r;
    }
    size_t tl = strlen(x->top);
    cudnnctl_err r = CUDNNCTL_E_OK;
    char *mt = NULL, *key = NULL;
    if (strncmp(hn, x->top, tl) != 0 || hn[tl] != '/') {
        r = unsafe(detail, x->disp, "hard link to a file outside the archive's top directory");
        goto out;
    }
    cc_layout_seen scratch = x->seen;
    if (cc_layout_map(hn + tl + 1, 0, &scratch, &mt) != 0 || !mt || !(key = fold(mt))) {
        r = oom(detail);
        goto out;
    }
    slot *s = find(x, key);
    if (!s || s->type != CC_XE_FILE) {
        r = unsafe(detail, x->disp,
                   "hard link to something that is not an earlier regular file of the archive");
        goto out;
    }
    e->hardlink_rec = s->rec;
    e->link_text = mt;
    mt = NULL;
out:
    free(hn);
    free(mt);
    free(key);
    return r;
}

cudnnctl_err cc_xcheck_entry(cc_xcheck *x, cc_xentry *e, char **detail)
{
    *detail = NULL;
    e->norm = e->mapped = e->link_text = NULL;
    memset(&e->new_dirs, 0, sizeof(e->new_dirs));
    e->hardlink_rec = -1;
    free(x->disp);
    free(x->disp_link);
    x->disp = printable(e->name ? e->name : "(not valid UTF-8)");
    x->disp_link = printable(e->link ? e->link : "");
    if (!x->disp || !x->disp_link)
        return oom(detail);
    if (!e->name)
        return unsafe(detail, x->disp, "the entry name is not valid UTF-8");
    if (++x->entries > CC_EXTRACT_MAX_ENTRIES)
        return unsafe(detail, x->disp, "more than 100000 entries (cuDNN archives hold ~100)");
    switch (e->type) {
    case CC_XE_DIR:
    case CC_XE_FILE:
    case CC_XE_SYMLINK:
    case CC_XE_HARDLINK:
        break;
    default: {
        char *why = cc_asprintf("a %s (cuDNN archives hold only files, directories and links)",
                                type_name(e->type));
        cudnnctl_err r = why ? unsafe(detail, x->disp, why) : oom(detail);
        free(why);
        return r;
    }
    }
    const char *why = NULL;
    int rc = cc_pathcheck_name(e->name, &e->norm, &why);
    if (rc)
        return check_pc(rc, detail, x->disp, why);
    if (!*e->norm) {
        if (e->type == CC_XE_DIR)
            return CUDNNCTL_E_OK; /* "./": the archive root itself, nothing to write */
        return unsafe(detail, x->disp, "a non-directory named like the archive root");
    }
    const char *rel = NULL;
    cudnnctl_err r = check_top(x, e, &rel, detail);
    if (r)
        return r;
    if (cc_layout_map(rel, e->type == CC_XE_DIR, &x->seen, &e->mapped) != 0)
        return oom(detail);
    if (!e->mapped) {
        if (e->type == CC_XE_DIR)
            return CUDNNCTL_E_OK; /* a container (the top dir, targets/<arch>) */
        *detail = cc_asprintf("archive layout not recognised: '%s' has no place in the install "
                              "layout",
                              x->disp);
        return *detail ? CUDNNCTL_E_BAD_LAYOUT : CUDNNCTL_E_NOMEM;
    }
    /* permissions: never setuid/setgid/sticky, never group/other-writable; owner can read and
     * write (the commit step renames, fsyncs and may remove what we stage) */
    e->dropped = e->mode & 07022u;
    e->out_mode = cc_xcheck_out_mode(e->type, e->mode);
    if ((r = check_parents(x, e, detail)) != CUDNNCTL_E_OK)
        return r;
    if (e->type == CC_XE_SYMLINK && (r = check_symlink(x, e, detail)) != CUDNNCTL_E_OK)
        return r;
    if (e->type == CC_XE_HARDLINK && (r = check_hardlink(x, e, detail)) != CUDNNCTL_E_OK)
        return r;
    /* a hard link stands for a regular file in the staging tree */
    if (e->type == CC_XE_HARDLINK) {
        e->type = CC_XE_FILE;
        r = claim(x, e, detail);
        e->type = CC_XE_HARDLINK;
        return r;
    }
    return claim(x, e, detail);
}

uint32_t cc_xcheck_out_mode(cc_xentry_type type, uint32_t mode)
{
    return type == CC_XE_DIR ? 0755u : ((mode & 0755u) | 0600u);
}

cudnnctl_err cc_xcheck_finish(cc_xcheck *x, int is_zip, cc_layout *layout, char **detail)
{
    *detail = NULL;
    *layout = cc_layout_detect(&x->seen, is_zip);
    if (*layout != CC_LAYOUT_UNKNOWN)
        return CUDNNCTL_E_OK;
    *detail = cc_asprintf(
        "archive layout not recognised: %s; expected NVIDIA's layout (<top>/include, <top>/lib, "
        "and for Windows <top>/bin) — is this a cuDNN archive?",
        x->top ? "no file under include/, lib/, lib64/ or bin/" : "the archive is empty");
    return *detail ? CUDNNCTL_E_BAD_LAYOUT : CUDNNCTL_E_NOMEM;
}
