/* env_paths.c: path work for environment wiring under --root: link resolution, atomic link
 * replacement, toolkit library dirs and versions, and the list of changes made. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envwire_int.h"
#include "grow.h"
#include "json.h"

int cc_changes_add(cudnnctl_changes *c, const char *action, const char *path, const char *detail)
{
    if (cc_grow(&c->v, NULL, c->n + 1, sizeof(*c->v)) != 0)
        return -1;
    cudnnctl_change *e = &c->v[c->n];
    e->action = cc_strdup(action);
    e->path = cc_strdup(path ? path : "");
    e->detail = detail ? cc_strdup(detail) : NULL;
    if (!e->action || !e->path || (detail && !e->detail)) {
        free(e->action);
        free(e->path);
        free(e->detail);
        return -1;
    }
    c->n++;
    return 0;
}

void cudnnctl_changes_free(cudnnctl_changes *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].action);
        free(c->v[i].path);
        free(c->v[i].detail);
    }
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

cudnnctl_err cudnnctl_changes_json(const cudnnctl_changes *c, char **json)
{
    *json = NULL;
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return CUDNNCTL_E_NOMEM;
    for (size_t i = 0; c && i < c->n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, "action", c->v[i].action);
        cJSON_AddStringToObject(o, "path", c->v[i].path);
        if (c->v[i].detail)
            cJSON_AddStringToObject(o, "detail", c->v[i].detail);
        else
            cJSON_AddNullToObject(o, "detail");
    }
    return cc_json_out(a, 0, json);
}

/* Append one component to a "/a/b" style path held in a buffer. */
static int push_comp(cc_buf *b, const char *c, size_t n)
{
    return cc_buf_puts(b, "/") || cc_buf_append(b, c, n);
}

static void pop_comp(cc_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] != '/')
        b->len--;
    if (b->len > 0)
        b->len--; /* the '/' itself */
    if (b->data)
        b->data[b->len] = '\0';
}

char *cc_env_realpath(cudnnctl_ctx *ctx, const char *path)
{
    if (!path || path[0] != '/')
        return cc_strdup(path); /* Windows paths and relative ones are taken as given */
    cc_buf done = {0};
    char *rest = cc_strdup(path);
    char *result = NULL;
    int links = 0;
    if (!rest || cc_buf_append(&done, "", 0) != 0)
        goto out;
    const char *p = rest;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 1 && p[0] == '.') {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            pop_comp(&done);
            p += n;
            continue;
        }
        size_t keep = done.len;
        if (push_comp(&done, p, n) != 0)
            goto out;
        p += n;
        char *real = cc_rooted(ctx, done.data);
        cc_pf_stat_t st;
        int is_link = real && cc_pf_lstat(real, &st) == 0 && st.exists && st.is_link;
        char *target = is_link ? cc_pf_readlink(real) : NULL;
        free(real);
        if (!is_link)
            continue;
        if (!target || ++links > 40) {
            free(target);
            goto out; /* unreadable link or a loop: give up like realpath(3) */
        }
        /* splice: target + remaining components */
        char *nrest = cc_asprintf("%s/%s", target, p);
        if (!nrest) {
            free(target);
            goto out;
        }
        if (target[0] == '/')
            done.len = 0;
        else
            done.len = keep;
        done.data[done.len] = '\0';
        free(target);
        free(rest);
        rest = nrest;
        p = rest;
    }
    result = done.len ? cc_strdup(done.data) : cc_strdup("/");
out:
    cc_buf_free(&done);
    free(rest);
    return result;
}

/* The real location under the root: links resolved inside the root first, so an absolute
 * link target never escapes to the host. */
static char *rooted_real(cudnnctl_ctx *ctx, const char *path)
{
    char *u = cc_env_realpath(ctx, path);
    char *r = u ? cc_rooted(ctx, u) : NULL;
    free(u);
    return r;
}

char *cc_env_abs(cudnnctl_ctx *ctx, const char *path)
{
    if (!path || path[0] == '/' || cc_env_is_windows_path(path) || cc_pf_is_abs(path))
        return cc_strdup(path);
    /* relative to the working dir (outside any --root): make it absolute, then as seen inside */
    char *r = cc_pf_realpath(path);
    char *u = r ? cc_unrooted(ctx, r) : NULL;
    free(r);
    return u ? u : cc_strdup(path);
}

int cc_env_has_cuda_link(cudnnctl_ctx *ctx)
{
    /* Windows has none: there "/usr/local/cuda" would name a dir on the current drive */
    return !cc_host_is_windows(ctx) && cc_env_is_dir(ctx, "/usr/local/cuda");
}

int cc_env_is_dir(cudnnctl_ctx *ctx, const char *path)
{
    char *r = rooted_real(ctx, path);
    cc_pf_stat_t st;
    int ok = r && cc_pf_stat(r, &st) == 0 && st.exists && st.is_dir;
    free(r);
    return ok;
}

int cc_env_exists(cudnnctl_ctx *ctx, const char *path)
{
    /* the path itself may be a dangling link: resolve only its dir */
    char *d = cc_path_dir(path);
    char *rd = d ? cc_env_realpath(ctx, d) : NULL;
    char *u = rd ? cc_path_join(rd, cc_path_base(path)) : NULL;
    char *r = u ? cc_rooted(ctx, u) : NULL;
    cc_pf_stat_t st;
    int ok = r && cc_pf_lstat(r, &st) == 0 && st.exists;
    free(d);
    free(rd);
    free(u);
    free(r);
    return ok;
}

char *cc_env_link_text(const char *link, const char *dest)
{
    char *ld = cc_path_dir(link);
    char *dd = cc_path_dir(dest);
    char *r = NULL;
    if (ld && dd && strcmp(ld, dd) == 0 && dest[0] == '/')
        r = cc_strdup(cc_path_base(dest));
    else
        r = cc_strdup(dest);
    free(ld);
    free(dd);
    return r;
}

cudnnctl_err cc_env_replace_link(cudnnctl_ctx *ctx, const char *link, const char *text,
                                 cudnnctl_changes *ch)
{
    static unsigned long seq;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    char *real = cc_rooted(ctx, link);
    char *dir = real ? cc_path_dir(real) : NULL;
    char *tmp = NULL;
    if (!real || !dir)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    char *tok = cc_sys_random_token();
    tmp = tok ? cc_asprintf("%s/.%s.cudnnctl-%s-%lu", dir, cc_path_base(real), tok, ++seq) : NULL;
    free(tok);
    if (!tmp) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (cc_sys_symlink(ctx, text, tmp) != 0) {
        if (cc_pf_last_error() == CUDNNCTL_E_PERMISSION)
            rc = CC_ERR(ctx, CUDNNCTL_E_PERMISSION,
                        "cannot create a link in %s: %s; changing %s needs root (sudo)", dir,
                        cc_pf_last_error_text(), link);
        else
            rc = CC_ERR_PF(ctx, "cannot create link", tmp);
        goto out;
    }
    if (cc_sys_rename(ctx, tmp, real) != 0) {
        rc = CC_ERR_PF(ctx, "cannot replace link", link);
        cc_pf_unlink(tmp);
        goto out;
    }
    cc_pf_fsync_dir(dir);
    cc_event(ctx, CUDNNCTL_EV_FILE_WRITTEN, "link", link);
    if (ch && cc_changes_add(ch, "link", link, text) != 0)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(real);
    free(dir);
    free(tmp);
    return rc;
}

int cc_env_is_windows_path(const char *p)
{
    if (!p)
        return 0;
    if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
        (p[2] == '\\' || p[2] == '/'))
        return 1;
    return p[0] == '\\' && p[1] == '\\';
}

int cc_env_is_shared_root(const char *path)
{
    static const char *const shared[] = {"/",    "/usr",     "/usr/local", "/opt", "/snap",
                                         "/bin", "/usr/lib", "/lib",       NULL};
    if (!path || !*path)
        return 1;
    size_t n = strlen(path);
    while (n > 1 && (path[n - 1] == '/' || path[n - 1] == '\\'))
        n--;
    for (int i = 0; shared[i]; i++)
        if (strlen(shared[i]) == n && strncmp(shared[i], path, n) == 0)
            return 1;
    if (cc_env_is_windows_path(path) && n <= 3)
        return 1; /* "C:\" */
    return 0;
}

char *cc_env_join(const char *dir, const char *name, int windows)
{
    if (!windows)
        return cc_path_join(dir, name);
    size_t n = strlen(dir);
    while (n > 0 && (dir[n - 1] == '\\' || dir[n - 1] == '/'))
        n--;
    char *r = cc_asprintf("%.*s\\%s", (int)n, dir, name);
    for (char *q = r ? r + n : NULL; q && *q; q++)
        if (*q == '/')
            *q = '\\';
    return r;
}

char *cc_env_toolkit_libdir(cudnnctl_ctx *ctx, const char *home)
{
    static const char *const cand[] = {"lib64", "lib", NULL};
    for (int i = 0; cand[i]; i++) {
        char *d = cc_path_join(home, cand[i]);
        if (d && cc_env_is_dir(ctx, d))
            return d;
        free(d);
    }
    /* targets/<arch>-linux/lib: the only sub-dir of targets that has a lib */
    char *targets = cc_path_join(home, "targets");
    char *rt = targets ? cc_rooted(ctx, targets) : NULL;
    char *found = NULL;
    cc_pf_dir *d = rt ? cc_pf_opendir(rt) : NULL;
    const char *name;
    while (d && !found && (name = cc_pf_readdir(d)) != NULL) {
        char *lib = cc_path_join3(targets, name, "lib");
        if (lib && cc_env_is_dir(ctx, lib))
            found = lib;
        else
            free(lib);
    }
    if (d)
        cc_pf_closedir(d);
    free(targets);
    free(rt);
    return found;
}

static int split_version(const char *s, char **version, int *major, int *minor)
{
    cc_version v;
    if (!s || cc_version_parse(s, &v) != 0 || v.n < 2)
        return -1;
    /* keep major.minor[.patch]; a build date in the patch field (12.1.20230222) is dropped */
    if (v.n >= 3 && v.part[2] < 10000)
        *version = cc_asprintf("%d.%d.%d", v.part[0], v.part[1], v.part[2]);
    else
        *version = cc_asprintf("%d.%d", v.part[0], v.part[1]);
    *major = v.part[0];
    *minor = v.part[1];
    return *version ? 0 : -1;
}

int cc_env_read_toolkit_version(cudnnctl_ctx *ctx, const char *home, char **version, int *major,
                                int *minor)
{
    *version = NULL;
    *major = *minor = -1;
    char *f = cc_path_join(home, "version.json");
    char *rf = f ? cc_rooted(ctx, f) : NULL;
    char *data = NULL;
    int rc = -1;
    if (rf && cc_sys_read_file(ctx, rf, 1 << 20, &data, NULL) == 0) {
        cJSON *j = cJSON_Parse(data);
        cJSON *cuda = cJSON_GetObjectItemCaseSensitive(j, "cuda");
        cJSON *ver = cJSON_GetObjectItemCaseSensitive(cuda, "version");
        if (cJSON_IsString(ver))
            rc = split_version(ver->valuestring, version, major, minor);
        cJSON_Delete(j);
    }
    free(f);
    free(rf);
    free(data);
    data = NULL;
    if (rc == 0)
        return 0;
    f = cc_path_join(home, "version.txt");
    rf = f ? cc_rooted(ctx, f) : NULL;
    if (rf && cc_sys_read_file(ctx, rf, 4096, &data, NULL) == 0) {
        const char *p = strstr(data, "CUDA Version ");
        if (p) {
            char *t = data + (p - data) + 13;
            t[strcspn(t, " \r\n")] = '\0';
            rc = split_version(t, version, major, minor);
        }
    }
    free(f);
    free(rf);
    free(data);
    return rc;
}
