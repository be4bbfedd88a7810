/* links.c: the .so link chain of a staged lib dir and SONAME checks. */
#include <stdlib.h>
#include <string.h>

#include "elf_info.h"
#include "grow.h"
#include "links.h"
#include "txfs.h"

typedef struct {
    char stem[128];
    int major;
    char *full;        /* libX.so.M.m.p real file, NULL when none */
    int major_is_file; /* libX.so.M exists as a regular file */
} sublib;

static sublib *find_sub(sublib *v, size_t n, const char *stem)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].stem, stem) == 0)
            return &v[i];
    return NULL;
}

/* Make name a link to target (replacing what is there); records it in made. */
static cudnnctl_err ensure_link(cudnnctl_ctx *ctx, const char *dir, const char *name,
                                const char *target, cc_strv *made)
{
    char *path = cc_path_join(dir, name);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_obj_type k = cc_txn_kind(path);
    if (k == CC_OBJ_LINK) {
        char *cur = cc_pf_readlink(path);
        int same = cur && strcmp(cur, target) == 0;
        free(cur);
        if (same)
            goto out;
    }
    if (k == CC_OBJ_DIR) {
        rc = CC_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT, "%s is a directory in the archive", name);
        goto out;
    }
    if (k != CC_OBJ_NONE && cc_sys_unlink(ctx, path) != 0) {
        rc = CC_ERR_PF(ctx, "cannot replace", path);
        goto out;
    }
    if (cc_sys_symlink(ctx, target, path) != 0) {
        rc = CC_ERR_PF(ctx, "cannot create link", path);
        goto out;
    }
    if (made)
        cc_strv_push_own(made, cc_asprintf("%s -> %s", name, target));
out:
    free(path);
    return rc;
}

static cudnnctl_err check_soname(cudnnctl_ctx *ctx, const char *dir, const char *file,
                                 const char *want)
{
    char *path = cc_path_join(dir, file);
    cc_elf_info info;
    memset(&info, 0, sizeof(info));
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (cc_elf_read(path, &info) != 0)
        rc = CC_ERR(ctx, CUDNNCTL_E_SONAME,
                    "%s is not a readable ELF shared object: the archive is damaged or not for "
                    "Linux; fetch it again or pick the archive for this platform",
                    file);
    else if (!info.soname)
        rc = CC_ERR(ctx, CUDNNCTL_E_SONAME,
                    "%s has no ELF SONAME, so the loader cannot match it to %s: the archive is "
                    "not a cuDNN release; use NVIDIA's archive",
                    file, want);
    else if (strcmp(info.soname, want) != 0)
        rc = CC_ERR(ctx, CUDNNCTL_E_SONAME,
                    "%s has SONAME %s but its name says %s: the archive is mislabelled or "
                    "mixed; use the archive exactly as NVIDIA publishes it",
                    file, info.soname, want);
    cc_elf_info_free(&info);
    free(path);
    return rc;
}

/* The real files of the dir grouped per sub-library (libcudnn_ops, ...): one major, at most one
 * full version each. The names stay in names; subs point into it. */
static cudnnctl_err group_sublibs(cudnnctl_ctx *ctx, const char *dir, const cc_strv *names,
                                  sublib **subs, size_t *n)
{
    size_t cap = 0;
    for (size_t i = 0; i < names->n; i++) {
        cc_libname ln;
        if (!cc_lib_classify(names->v[i], &ln) ||
            (ln.kind != CC_LIB_SO_FULL && ln.kind != CC_LIB_SO_MAJOR))
            continue;
        char *path = cc_path_join(dir, names->v[i]);
        cc_obj_type k = path ? cc_txn_kind(path) : CC_OBJ_NONE;
        free(path);
        if (k != CC_OBJ_FILE)
            continue; /* links are (re)made below from the real files */
        sublib *s = find_sub(*subs, *n, ln.stem);
        if (!s) {
            if (cc_grow(subs, &cap, *n + 1, sizeof(**subs)) != 0)
                CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            s = &(*subs)[(*n)++];
            memset(s, 0, sizeof(*s));
            memcpy(s->stem, ln.stem, sizeof(s->stem));
            s->major = ln.major;
        }
        if (ln.major != s->major)
            CC_RET_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT,
                       "the archive carries %s of two majors (%d and %d): it is not one cuDNN "
                       "release; use NVIDIA's archive",
                       ln.stem, s->major, ln.major);
        if (ln.kind == CC_LIB_SO_MAJOR)
            s->major_is_file = 1;
        else if (s->full)
            CC_RET_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT,
                       "the archive carries two versions of %s (%s and %s): it is not one cuDNN "
                       "release; use NVIDIA's archive",
                       ln.stem, s->full, names->v[i]);
        else
            s->full = names->v[i];
    }
    return CUDNNCTL_E_OK;
}

/* libX.so.M -> the full-version file, libX.so -> libX.so.M. */
static cudnnctl_err link_sublib(cudnnctl_ctx *ctx, const char *dir, const sublib *s, cc_strv *made,
                                int dev_links)
{
    cudnnctl_err rc;
    char *soM = cc_asprintf("%s.so.%d", s->stem, s->major);
    char *dev = cc_asprintf("%s.so", s->stem);
    if (!soM || !dev) {
        free(soM);
        free(dev);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (s->full) {
        /* the real file carries the version; .so.M must be a link to it (a regular .so.M
         * next to it would be a second copy that ldconfig could pick instead) */
        rc = check_soname(ctx, dir, s->full, soM);
        if (rc == CUDNNCTL_E_OK)
            rc = ensure_link(ctx, dir, soM, s->full, made);
    } else {
        rc = check_soname(ctx, dir, soM, soM); /* wheel style: keep the file as it is */
    }
    if (rc == CUDNNCTL_E_OK && dev_links) /* libX.so is the dev component's */
        rc = ensure_link(ctx, dir, dev, soM, made);
    free(soM);
    free(dev);
    return rc;
}

cudnnctl_err cc_links_fix(cudnnctl_ctx *ctx, const char *dir, cc_strv *made)
{
    return cc_links_fix_ex(ctx, dir, made, 1);
}

cudnnctl_err cc_links_fix_ex(cudnnctl_ctx *ctx, const char *dir, cc_strv *made, int dev_links)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    sublib *subs = NULL;
    size_t n = 0;
    cc_strv names = {0};
    if (cc_txn_kind(dir) != CC_OBJ_DIR)
        return CUDNNCTL_E_OK; /* no lib dir: nothing to link */
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return CC_ERR_PF(ctx, "cannot list", dir);
    const char *nm;
    while ((nm = cc_pf_readdir(d)) != NULL)
        if (cc_strv_push(&names, nm) != 0) {
            cc_pf_closedir(d);
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    cc_pf_closedir(d);
    cc_strv_sort(&names);
    rc = group_sublibs(ctx, dir, &names, &subs, &n);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < n; i++)
        rc = link_sublib(ctx, dir, &subs[i], made, dev_links);
out:
    free(subs);
    cc_strv_free(&names);
    return rc;
}

static int major_in(const char *dir, int want_dll)
{
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    int major = -1;
    if (!d)
        return -1;
    const char *nm;
    while ((nm = cc_pf_readdir(d)) != NULL) {
        cc_libname ln;
        if (!cc_lib_classify(nm, &ln) || ln.major < 0)
            continue;
        if (want_dll ? ln.kind == CC_LIB_DLL
                     : (ln.kind == CC_LIB_SO_FULL || ln.kind == CC_LIB_SO_MAJOR ||
                        ln.kind == CC_LIB_IMPLIB_V)) {
            if (ln.major > major)
                major = ln.major;
        }
    }
    cc_pf_closedir(d);
    return major;
}

int cc_links_major(const char *lib_dir, const char *bin_dir)
{
    int m = major_in(lib_dir, 0);
    int b = major_in(bin_dir, 1);
    return b > m ? b : m;
}
