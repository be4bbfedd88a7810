/* fuzz_entry.c: the archive entry checks — entry names and link targets (pathcheck.c) and the
 * per-archive checks with memory of earlier entries (extract_check.c: top dir, layout mapping,
 * duplicates, links, hardlinks), then the CUDA-tree content policy (content_policy.c).
 * Input: a first byte choosing the expected top dir and zip/tar, then one entry per line:
 * "<type char><name>\t<link>" (type: d f l h c b p s). Properties: an accepted entry maps to
 * a relative staging path without "." / ".." components; a symlink's staged target, resolved
 * from the link's dir, stays inside the staging root; an entry the content policy allows is a
 * direct child of include/, lib/ or bin/, or LICENSE. */
#include "content_policy.h"
#include "extract_check.h"
#include "fuzz_common.h"
#include "pathcheck.h"

static void check_rel(const char *p)
{
    FZ_CHECK(p[0] != '/' && !strchr(p, '\\'));
    char *c = fz_str((const uint8_t *)p, strlen(p));
    char *parts[64];
    size_t n = fz_split(c, '/', parts, 64);
    for (size_t i = 0; i < n; i++)
        FZ_CHECK(strcmp(parts[i], "..") != 0 && strcmp(parts[i], ".") != 0 && parts[i][0]);
    free(c);
}

/* the link's staged target, resolved lexically from its dir, stays inside staging */
static void check_link(const char *mapped, const char *text)
{
    FZ_CHECK(text[0] != '/');
    int depth = 0;
    for (const char *c = mapped; *c; c++)
        depth += *c == '/';
    char *t = fz_str((const uint8_t *)text, strlen(text));
    char *parts[128];
    size_t n = fz_split(t, '/', parts, 128);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(parts[i], "..") == 0)
            depth--;
        else if (strcmp(parts[i], ".") != 0 && parts[i][0])
            depth++;
        FZ_CHECK(depth >= 0);
    }
    free(t);
}

static cc_xentry_type type_of(char c)
{
    switch (c) {
    case 'd': return CC_XE_DIR;
    case 'l': return CC_XE_SYMLINK;
    case 'h': return CC_XE_HARDLINK;
    case 'c': return CC_XE_CHARDEV;
    case 'b': return CC_XE_BLOCKDEV;
    case 'p': return CC_XE_FIFO;
    case 's': return CC_XE_SOCKET;
    default: return CC_XE_FILE;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 64 * 1024)
        return 0;
    static const char *tops[] = {NULL, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive", "cuda",
                                 "cudnn-windows-x86_64-9.19.0.56_cuda13-archive"};
    int is_zip = (data[0] >> 2) & 1;
    char *s = fz_str(data + 1, size - 1);
    char *lines[512];
    size_t n = fz_split(s, '\n', lines, 512);
    cc_xcheck *x = cc_xcheck_new(tops[data[0] & 3]);
    FZ_CHECK(x != NULL);
    long recs = 0;
    for (size_t i = 0; i < n; i++) {
        char *line = lines[i];
        if (!*line)
            continue;
        char *tab = strchr(line + 1, '\t');
        if (tab)
            *tab = '\0';
        const char *name = line + 1, *link = tab ? tab + 1 : "";
        /* the pure checks on their own */
        char *norm = NULL, *res = NULL;
        const char *why = NULL;
        if (cc_pathcheck_name(name, &norm, &why) == 0) {
            check_rel(norm[0] ? norm : "x");
            if (cc_pathcheck_link_target(norm, link, &res, &why) == 0 && res[0])
                check_rel(res);
            char *rel = cc_path_relative(norm, res ? res : "");
            free(rel);
        }
        free(norm);
        free(res);
        /* the archive-level checks */
        cc_xentry e = {.name = name, .type = type_of(line[0]), .link = link,
                       .mode = (uint32_t)(unsigned char)line[0] << 4, .rec_index = recs};
        char *detail = NULL;
        if (cc_xcheck_entry(x, &e, &detail) == CUDNNCTL_E_OK) {
            if (e.mapped) {
                check_rel(e.mapped);
                FZ_CHECK((e.out_mode & 07000) == 0 && (e.out_mode & 022) == 0);
                if (e.type == CC_XE_SYMLINK)
                    check_link(e.mapped, e.link_text);
                if (e.type == CC_XE_HARDLINK)
                    FZ_CHECK(e.hardlink_rec >= 0 && e.hardlink_rec < recs);
                if (cc_content_allowed(e.mapped, e.type,
                                       e.type == CC_XE_SYMLINK ? e.link_text : NULL, is_zip,
                                       &why) == 0 &&
                    e.type != CC_XE_DIR && strcmp(e.mapped, "LICENSE") != 0) {
                    const char *sl = strchr(e.mapped, '/');
                    FZ_CHECK(sl && !strchr(sl + 1, '/'));
                    FZ_CHECK(strncmp(e.mapped, "include/", 8) == 0 ||
                             strncmp(e.mapped, "lib/", 4) == 0 || strncmp(e.mapped, "bin/", 4) == 0);
                }
            }
            if (e.type != CC_XE_DIR && e.mapped)
                recs++;
        } else {
            FZ_CHECK(detail != NULL);
        }
        free(detail);
        cc_xentry_clear(&e);
    }
    cc_layout layout;
    char *detail = NULL;
    (void)cc_xcheck_finish(x, is_zip, &layout, &detail);
    free(detail);
    cc_xcheck_free(x);
    free(s);
    return 0;
}
