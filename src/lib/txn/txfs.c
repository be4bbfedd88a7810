/* txfs.c: clone / move / copy / fsync primitives for journaled commits, path resolution
 * inside --root, and the temporary names a transaction uses. All writes go through cc_sys_* so
 * fault tests reach every step. */
#include <stdlib.h>
#include <string.h>

#include "journal.h" /* cc_txn, for cc_txn_temp_name */
#include "txfs.h"

cc_obj_type cc_txn_kind(const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists)
        return CC_OBJ_NONE;
    if (st.is_link)
        return CC_OBJ_LINK;
    if (st.is_dir)
        return CC_OBJ_DIR;
    if (st.is_reg)
        return CC_OBJ_FILE;
    return CC_OBJ_OTHER;
}

static const char *const kind_names[] = {"none", "file", "link", "dir", "other"};

const char *cc_txn_kind_name(cc_obj_type t)
{
    return (unsigned)t < 5 ? kind_names[t] : "other";
}

cc_obj_type cc_txn_kind_parse(const char *name)
{
    for (int i = 1; i < 5; i++)
        if (name && strcmp(name, kind_names[i]) == 0)
            return (cc_obj_type)i;
    return CC_OBJ_NONE;
}

int cc_txn_copy_file(cudnnctl_ctx *ctx, const char *src, const char *dst, uint32_t mode)
{
    int rc = -1;
    char *buf = NULL;
    cc_pf_fd in = cc_pf_open(src, CC_PF_O_RDONLY, 0);
    cc_pf_fd out = -1;
    if (in < 0)
        goto out;
    out = cc_sys_open(ctx, dst, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_EXCL, mode);
    if (out < 0)
        goto out;
    const size_t chunk = 1u << 20;
    buf = malloc(chunk);
    if (!buf) {
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    for (;;) {
        long long n = cc_pf_read(in, buf, chunk);
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        if (cc_sys_write_all(ctx, out, buf, (size_t)n) != 0)
            goto out;
    }
    if (cc_sys_fsync(ctx, out) != 0)
        goto out;
    rc = 0;
out:
    free(buf);
    if (in >= 0)
        cc_pf_close(in);
    if (out >= 0) {
        cc_sys_close(ctx, out);
        if (rc == 0)
            cc_pf_chmod(dst, mode); /* exact bits, whatever the umask */
        else
            cc_pf_unlink(dst);
    }
    return rc;
}

static int clone_tree(cudnnctl_ctx *ctx, const char *src, const char *dst)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(src, &st) != 0)
        return -1;
    if (cc_sys_mkdir(ctx, dst, st.mode ? st.mode : 0755) != 0)
        return -1;
    cc_pf_dir *d = cc_pf_opendir(src);
    if (!d)
        return -1;
    int rc = 0;
    const char *name;
    while (rc == 0 && (name = cc_pf_readdir(d)) != NULL) {
        char *s = cc_path_join(src, name), *t = cc_path_join(dst, name);
        if (!s || !t)
            rc = -1;
        else
            rc = cc_txn_clone(ctx, s, t);
        free(s);
        free(t);
    }
    cc_pf_closedir(d);
    return rc;
}

int cc_txn_clone(cudnnctl_ctx *ctx, const char *src, const char *dst)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(src, &st) != 0)
        return -1;
    if (!st.exists) {
        cc_pf_set_error(CUDNNCTL_E_NOT_FOUND, "no such file");
        return -1;
    }
    if (st.is_link) {
        char *target = cc_pf_readlink(src);
        if (!target)
            return -1;
        int rc = cc_sys_symlink(ctx, target, dst);
        free(target);
        return rc;
    }
    if (st.is_dir)
        return clone_tree(ctx, src, dst);
    if (!st.is_reg) {
        cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "not a regular file, link or directory");
        return -1;
    }
    if (cc_txn_same_fs(src, dst) && cc_sys_link(ctx, src, dst) == 0)
        return 0;
    /* a filesystem without hard links (or a failed link): a real copy */
    cc_pf_unlink(dst);
    return cc_txn_copy_file(ctx, src, dst, st.mode);
}

int cc_txn_move(cudnnctl_ctx *ctx, const char *src, const char *dst)
{
    if (cc_txn_same_fs(src, dst))
        return cc_sys_rename(ctx, src, dst);
    if (cc_txn_clone(ctx, src, dst) != 0)
        return -1;
    return cc_sys_rm_rf(ctx, src);
}

int cc_txn_fsync_file(cudnnctl_ctx *ctx, const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0)
        return -1;
    if (!st.exists || !st.is_reg)
        return 0;
    cc_pf_fd fd = cc_sys_open(ctx, path, CC_PF_O_RDONLY | CC_PF_O_FOR_SYNC, 0);
    if (fd < 0)
        return -1;
    int rc = cc_sys_fsync(ctx, fd);
    cc_sys_close(ctx, fd);
    return rc;
}

int cc_txn_fsync_tree(cudnnctl_ctx *ctx, const char *dir)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return -1;
    cc_strv names = {0};
    const char *n;
    int rc = 0;
    while ((n = cc_pf_readdir(d)) != NULL)
        if (cc_strv_push(&names, n) != 0)
            rc = -1;
    cc_pf_closedir(d);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        char *child = cc_path_join(dir, names.v[i]);
        cc_pf_stat_t st;
        if (!child || cc_pf_lstat(child, &st) != 0)
            rc = -1;
        else if (st.is_dir)
            rc = cc_txn_fsync_tree(ctx, child);
        else if (st.is_reg)
            rc = cc_txn_fsync_file(ctx, child);
        free(child);
    }
    cc_strv_free(&names);
    if (rc == 0)
        cc_pf_fsync_dir(dir); /* best effort, as everywhere: some filesystems cannot sync dirs */
    return rc;
}

static uint64_t dev_of_parent(const char *path, int *ok)
{
    char *dir = cc_path_dir(path);
    cc_pf_stat_t st;
    *ok = dir && cc_pf_stat(dir, &st) == 0 && st.exists;
    free(dir);
    return *ok ? st.dev : 0;
}

int cc_txn_same_fs(const char *a, const char *b)
{
    int oka, okb;
    uint64_t da = dev_of_parent(a, &oka), db = dev_of_parent(b, &okb);
    return oka && okb && da == db;
}

int cc_txn_dir_empty(const char *path)
{
    cc_pf_dir *d = cc_pf_opendir(path);
    if (!d)
        return 0;
    int empty = cc_pf_readdir(d) == NULL;
    cc_pf_closedir(d);
    return empty;
}

const char *cc_txn_under(const char *base, const char *path)
{
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/')
        n--;
    if (strncmp(base, path, n) != 0)
        return NULL;
    if (path[n] == '\0')
        return path + n;
    if (path[n] != '/')
        return NULL;
    return path + n + 1;
}

char *cc_txn_absolute(const char *path)
{
    if (!path)
        return NULL;
    if (cc_pf_is_abs(path))
        return cc_strdup(path);
    char *cwd = cc_pf_realpath(".");
    if (!cwd)
        return NULL;
    const char *p = path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    char *r = strcmp(p, ".") == 0 || !*p ? cc_strdup(cwd) : cc_path_join(cwd, p);
    free(cwd);
    return r;
}

/* The root of an absolute path in '/' style, ending in '/': "/", "C:/", "//srv/share/". */
static char *root_of(const char *path)
{
    size_t n = cc_pf_path_root_len(path);
    char *r = n && path[n - 1] != '/' ? cc_asprintf("%.*s/", (int)n, path) : cc_strndup(path, n);
    return r;
}

/* A link met on the walk (real: where it is on the host): what is left to walk becomes its target
 * + *todo; an absolute target restarts from its root, a relative one from the link's dir. 0, or
 * -1 (unreadable, more than 40 links). */
static int follow_link(const char *real, char **todo, char **root, char **done, int *hops)
{
    char *target = cc_pf_readlink(real);
    if (!target || ++*hops > 40) {
        free(target);
        return -1;
    }
    cc_path_slashes(target);
    size_t tr = cc_pf_path_root_len(target);
    char *nt = cc_asprintf("%s%s", target + tr, *todo); /* *todo is "" or "/rest" */
    free(*todo);
    *todo = nt;
    if (tr) {
        free(*root);
        *root = root_of(target);
        free(*done);
        *done = *root ? cc_strdup(*root) : NULL;
    }
    free(target);
    return 0;
}

/* Split "/a/b/c" (or "C:/a/b/c" on Windows: '\' separators become '/') into components,
 * resolving ".", ".." and links as seen under the root. */
char *cc_txn_canonical(const cudnnctl_ctx *ctx, const char *user_path)
{
    if (!user_path || !cc_pf_is_abs(user_path))
        return NULL;
    /* a path the caller already rooted is taken back to the user's view first */
    char *todo = cc_unrooted(ctx, user_path);
    cc_path_slashes(todo);
    char *root = todo ? root_of(todo) : NULL;
    char *done = root ? cc_strdup(root) : NULL;
    if (todo && root) {
        char *rest = cc_strdup(todo + cc_pf_path_root_len(todo));
        free(todo);
        todo = rest;
    }
    int hops = 0;
    char *result = NULL;
    while (todo && done && root) {
        char *p = todo;
        while (*p == '/')
            p++;
        if (!*p) {
            result = done;
            done = NULL;
            break;
        }
        char *slash = strchr(p, '/');
        char *comp = slash ? cc_strndup(p, (size_t)(slash - p)) : cc_strdup(p);
        char *rest = cc_strdup(slash ? slash : "");
        free(todo);
        todo = rest;
        if (!comp || !todo) {
            free(comp);
            break;
        }
        if (strcmp(comp, ".") == 0) {
            free(comp);
            continue;
        }
        if (strcmp(comp, "..") == 0) {
            char *up = strcmp(done, root) == 0 ? cc_strdup(root) : cc_path_dir(done);
            free(done);
            done = up;
            free(comp);
            continue;
        }
        char *next =
            strcmp(done, root) == 0 ? cc_asprintf("%s%s", root, comp) : cc_path_join(done, comp);
        free(comp);
        char *real = next ? cc_rooted(ctx, next) : NULL;
        cc_pf_stat_t st;
        if (real && cc_pf_lstat(real, &st) == 0 && st.exists && st.is_link) {
            int rc = follow_link(real, &todo, &root, &done, &hops);
            free(real);
            free(next);
            if (rc != 0)
                break;
            continue;
        }
        free(real);
        free(done);
        done = next;
    }
    free(todo);
    free(done);
    free(root);
    return result;
}

/* The names a transaction gives its temporary files beside their destination
 * (".cudnnctl-<txn>-<what>-<name>"), used by journal.c and inuse.c. */
char *cc_txn_temp_name(const cc_txn *t, const char *dst, const char *what)
{
    /* next to dst; when dst's dir is one the transaction has yet to create (its mkdirs, made at
     * the commit), in the nearest dir that exists, the rest of the path folded into the name
     * with '%', so nothing new is visible in the tree before the commit starts */
    char *dir = cc_path_dir(dst), *rest = cc_strdup(cc_path_base(dst));
    while (dir && rest && cc_txn_kind(dir) != CC_OBJ_DIR) {
        char *up = cc_path_dir(dir);
        char *folded = up ? cc_asprintf("%s%%%s", cc_path_base(dir), rest) : NULL;
        int top = up && strcmp(up, dir) == 0;
        free(dir);
        free(rest);
        dir = up;
        rest = folded;
        if (top)
            break;
    }
    char *name = dir && rest ? cc_asprintf(".cudnnctl-%s-%s-%s", t->id, what, rest) : NULL;
    char *r = name ? cc_path_join(dir, name) : NULL;
    free(dir);
    free(rest);
    free(name);
    return r;
}
