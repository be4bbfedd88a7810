/* env_persist.c: persistent wiring: /etc/profile.d/cudnnctl.sh, /etc/ld.so.conf.d/cudnnctl-*.conf
 * (+ ldconfig), the user's ~/.config/cudnnctl/env.{sh,fish} and one marked line per rc file.
 * Never a persistent LD_LIBRARY_PATH: system-wide library lookup goes through ld.so.conf.d. */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

#define LDCONF_DIR "/etc/ld.so.conf.d"
#define PROFILE_SH "/etc/profile.d/cudnnctl.sh"
#define FISH_CONF_DIR "/etc/fish/conf.d"
#define FISH_CONF "/etc/fish/conf.d/cudnnctl.fish"
#define MARK "# added by cudnnctl"

static cudnnctl_err oom(cudnnctl_ctx *ctx)
{
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* Write a root-relative file atomically (parents created), recording the change. */
static cudnnctl_err write_file(cudnnctl_ctx *ctx, const char *path, const char *text, uint32_t mode,
                               cudnnctl_changes *ch)
{
    char *real = cc_rooted(ctx, path);
    cudnnctl_err rc = real ? cc_env_write_file(ctx, real, path, NULL, text, mode, ch) : oom(ctx);
    free(real);
    return rc;
}

static cudnnctl_err remove_file(cudnnctl_ctx *ctx, const char *path, cudnnctl_changes *ch)
{
    char *real = cc_rooted(ctx, path);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!real)
        return oom(ctx);
    cc_pf_stat_t st;
    if (cc_pf_lstat(real, &st) == 0 && st.exists) {
        if (cc_sys_unlink(ctx, real) != 0)
            rc = CC_ERR_PF(ctx, "cannot remove", path);
        else {
            cc_event(ctx, CUDNNCTL_EV_FILE_REMOVED, "env", path);
            if (cc_changes_add(ch, "remove", path, NULL) != 0)
                rc = oom(ctx);
        }
    }
    free(real);
    return rc;
}

/* Root-relative names of the existing /etc/ld.so.conf.d/cudnnctl-*.conf files. */
static cudnnctl_err our_ldconfs(cudnnctl_ctx *ctx, cc_strv *out)
{
    char *dir = cc_rooted(ctx, LDCONF_DIR);
    if (!dir)
        return oom(ctx);
    cc_pf_dir *d = cc_pf_opendir(dir);
    free(dir);
    const char *name;
    while (d && (name = cc_pf_readdir(d)) != NULL)
        if (cc_str_starts(name, "cudnnctl-") && cc_str_ends(name, ".conf") &&
            cc_strv_push_own(out, cc_asprintf(LDCONF_DIR "/%s", name)) != 0) {
            cc_pf_closedir(d);
            return oom(ctx);
        }
    if (d)
        cc_pf_closedir(d);
    cc_strv_sort(out);
    return CUDNNCTL_E_OK;
}

static cudnnctl_err run_ldconfig(cudnnctl_ctx *ctx, int no_ldconfig, cudnnctl_changes *ch)
{
    if (ctx->root) {
        char *d = cc_asprintf("not run under --root; to rebuild that root's cache: ldconfig -r %s",
                              ctx->root);
        int e = !d || cc_changes_add(ch, "keep", "ldconfig", d) != 0;
        free(d);
        return e ? oom(ctx) : CUDNNCTL_E_OK;
    }
    if (no_ldconfig)
        return cc_changes_add(ch, "keep", "ldconfig", "skipped (--no-ldconfig); run: ldconfig")
                   ? oom(ctx)
                   : CUDNNCTL_E_OK;
    cc_pf_stat_t st;
    const char *bin =
        (cc_pf_stat("/sbin/ldconfig", &st) == 0 && st.exists) ? "/sbin/ldconfig" : "ldconfig";
    const char *argv[] = {bin, NULL};
    char *outp = NULL;
    size_t n = 0;
    int status = 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (cc_pf_run(argv, NULL, NULL, 120000, 1, &outp, &n, &status) != 0 || status != 0)
        rc = CC_ERR(ctx, CUDNNCTL_E_ENV,
                    "%s failed (status %d): %s; the ld.so.conf.d entry is in "
                    "place, run ldconfig by hand",
                    bin, status, outp && *outp ? outp : cc_pf_last_error_text());
    else if (cc_changes_add(ch, "run", bin, NULL) != 0)
        rc = oom(ctx);
    free(outp);
    return rc;
}

/* "cuda-13.0", else the cuDNN install's name; only [A-Za-z0-9._-]. */
static char *ldconf_name(const cudnnctl_env_selection *s)
{
    char *n = NULL;
    if (s->toolkit_major >= 0)
        n = cc_asprintf("cuda-%d.%d", s->toolkit_major, s->toolkit_minor);
    else if (s->cudnn_path)
        n = cc_strdup(cc_path_base(s->cudnn_path));
    else
        n = cc_strdup("selection");
    for (char *p = n; p && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-' || *p == '_'))
            *p = '_';
    return n;
}

/* One line per dir: a control character in a (resolved) dir would register another dir. */
static cudnnctl_err ldconf_line(cudnnctl_ctx *ctx, cc_buf *b, const char *dir)
{
    char *r = cc_env_realpath(ctx, dir);
    cudnnctl_err rc = r ? cc_refuse_ctl_path(ctx, "the library dir", r) : CUDNNCTL_E_NOMEM;
    if (rc == CUDNNCTL_E_OK && cc_buf_printf(b, "%s\n", r) != 0)
        rc = CUDNNCTL_E_NOMEM;
    free(r);
    return rc == CUDNNCTL_E_NOMEM ? oom(ctx) : rc;
}

/* The file's text: a comment, then the real lib dirs (the cache then names them, whatever links
 * lead there). */
static cudnnctl_err ldconf_text(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s, cc_buf *b)
{
    cc_buf_puts(b, "# written by cudnnctl: library dirs of the selected CUDA toolkit / cuDNN.\n"
                   "# cudnnctl use rewrites it; remove with: cudnnctl env --remove --system\n");
    cudnnctl_err rc = CUDNNCTL_E_OK;
    for (size_t i = 0; i < s->n_lib_dirs && rc == CUDNNCTL_E_OK; i++)
        rc = ldconf_line(ctx, b, s->lib_dirs[i]);
    return rc;
}

cudnnctl_err cc_env_ldconf_allowed(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                   int only_if_present, const char *what)
{
    cc_strv have = {0};
    cudnnctl_err rc = our_ldconfs(ctx, &have);
    cc_buf b = {0};
    if (rc == CUDNNCTL_E_OK && (!only_if_present || have.n > 0) &&
        (rc = cc_env_trust_system(ctx, s, what)) == CUDNNCTL_E_OK)
        rc = ldconf_text(ctx, s, &b); /* its lines too: nothing is written when one is refused */
    cc_buf_free(&b);
    cc_strv_free(&have);
    return rc;
}

cudnnctl_err cc_env_write_ldconf(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 int only_if_present, int no_ldconfig, cudnnctl_changes *ch)
{
    cc_strv have = {0};
    cc_buf b = {0};
    char *name = NULL, *path = NULL;
    int changed = 0;
    cudnnctl_err rc = our_ldconfs(ctx, &have);
    if (rc != CUDNNCTL_E_OK || (only_if_present && have.n == 0))
        goto out;
    if (s->n_lib_dirs == 0) {
        if (cc_changes_add(ch, "keep", LDCONF_DIR, "the selection has no library dir") != 0)
            rc = oom(ctx);
        goto out;
    }
    name = ldconf_name(s);
    path = name ? cc_asprintf(LDCONF_DIR "/cudnnctl-%s.conf", name) : NULL;
    if (!path) {
        rc = oom(ctx);
        goto out;
    }
    if ((rc = ldconf_text(ctx, s, &b)) != CUDNNCTL_E_OK)
        goto out;
    size_t before = ch->n;
    if ((rc = write_file(ctx, path, b.data, 0644, ch)) != CUDNNCTL_E_OK)
        goto out;
    changed = strcmp(ch->v[before].action, "keep") != 0;
    for (size_t i = 0; i < have.n; i++) {
        if (strcmp(have.v[i], path) == 0)
            continue;
        if ((rc = remove_file(ctx, have.v[i], ch)) != CUDNNCTL_E_OK)
            goto out;
        changed = 1;
    }
    if (changed)
        rc = run_ldconfig(ctx, no_ldconfig, ch);
out:
    cc_strv_free(&have);
    cc_buf_free(&b);
    free(name);
    free(path);
    return rc;
}

/* ---- per user -------------------------------------------------------------------------------- */

typedef struct {
    char *home;   /* root-relative */
    char *config; /* $XDG_CONFIG_HOME or ~/.config, root-relative */
} user_dirs;

static void user_dirs_free(user_dirs *u)
{
    free(u->home);
    free(u->config);
}

static cudnnctl_err get_user_dirs(cudnnctl_ctx *ctx, user_dirs *u)
{
    memset(u, 0, sizeof(*u));
    u->home = cc_pf_home_dir();
    const char *x = cc_pf_getenv("XDG_CONFIG_HOME");
    if (u->home)
        u->config = (x && *x && cc_pf_is_abs(x)) ? cc_strdup(x) : cc_path_join(u->home, ".config");
    if (!u->home || !u->config) {
        user_dirs_free(u);
        return oom(ctx);
    }
    return CUDNNCTL_E_OK;
}

/* The rc file of a shell; NULL for shells without one here. */
static char *rc_file(const user_dirs *u, cudnnctl_shell sh)
{
    const char *zd = cc_pf_getenv("ZDOTDIR");
    switch (sh) {
    case CUDNNCTL_SHELL_SH:
        return cc_path_join(u->home, ".profile");
    case CUDNNCTL_SHELL_BASH:
        return cc_path_join(u->home, ".bashrc");
    case CUDNNCTL_SHELL_ZSH:
        return cc_path_join(zd && *zd && cc_pf_is_abs(zd) ? zd : u->home, ".zshrc");
    case CUDNNCTL_SHELL_FISH:
        return cc_path_join3(u->config, "fish", "config.fish");
    default:
        return NULL;
    }
}

/* A path for a double-quoted shell string, as "$HOME/..." when it lives under home. */
static char *home_expr(const user_dirs *u, const char *path)
{
    cc_buf b = {0};
    const char *rest = path;
    size_t hn = strlen(u->home);
    if (cc_str_starts(path, u->home) && path[hn] == '/' && hn > 1) {
        cc_buf_puts(&b, "$HOME");
        rest = path + hn;
    }
    for (; *rest; rest++) {
        if (*rest == '"' || *rest == '\\' || *rest == '$' || *rest == '`')
            cc_buf_puts(&b, "\\");
        cc_buf_append(&b, rest, 1);
    }
    return b.data;
}

/* Replace every marked line of an rc file by @p line (the first one in place; appended when
 * there is none), or drop them all when @p line is NULL. */
/* The file to edit for rc_path (rooted): a dotfile manager's symlink stays a symlink, so the
 * file it leads to. NULL on OOM. */
static char *rc_target(cudnnctl_ctx *ctx, const char *rc_path)
{
    char *real0 = cc_rooted(ctx, rc_path);
    if (!real0)
        return NULL;
    char *real;
    cc_pf_stat_t st;
    if (cc_pf_lstat(real0, &st) == 0 && st.is_link) {
        char *u = cc_env_realpath(ctx, rc_path);
        real = u ? cc_rooted(ctx, u) : NULL;
        free(u);
    } else {
        real = cc_strdup(real0);
    }
    free(real0);
    return real;
}

/* data with every marked line dropped and line (NULL: none) where the first one was, else at
 * the end. *removed counts the marked lines; -1 on OOM. */
static int rewrite_lines(const char *data, const char *line, cc_buf *b, int *removed)
{
    int placed = 0;
    const char *p = data ? data : "";
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
        char *l = cc_strndup(p, n);
        if (!l)
            return -1;
        if (strstr(l, MARK)) {
            if (line && !placed) {
                cc_buf_printf(b, "%s\n", line);
                placed = 1;
            }
            (*removed)++;
        } else {
            cc_buf_puts(b, l);
        }
        free(l);
        p += n;
    }
    if (line && !placed) {
        if (b->len && b->data[b->len - 1] != '\n')
            cc_buf_puts(b, "\n");
        cc_buf_printf(b, "%s\n", line);
    }
    if (!b->data)
        cc_buf_puts(b, "");
    return b->data ? 0 : -1;
}

static cudnnctl_err edit_rc(cudnnctl_ctx *ctx, const char *rc_path, const char *line,
                            cudnnctl_changes *ch)
{
    char *data = NULL;
    cc_buf b = {0};
    cudnnctl_err rc = CUDNNCTL_E_OK;
    int removed = 0;
    char *real = rc_target(ctx, rc_path);
    if (!real)
        return oom(ctx);
    cc_pf_stat_t st;
    uint32_t mode = 0644;
    if (cc_pf_stat(real, &st) == 0 && st.exists) {
        mode = st.mode & 07777;
        if (cc_sys_read_file(ctx, real, 1 << 22, &data, NULL) != 0) {
            rc = CC_ERR_PF(ctx, "cannot read", rc_path);
            goto out;
        }
    } else if (!line) {
        goto out; /* nothing to remove from */
    }
    if (rewrite_lines(data, line, &b, &removed) != 0) {
        rc = oom(ctx);
        goto out;
    }
    if (data && strcmp(data, b.data) == 0) {
        if (line && cc_changes_add(ch, "keep", rc_path, "line already there") != 0)
            rc = oom(ctx);
        goto out;
    }
    if (!line && removed == 0)
        goto out;
    char *dir = cc_path_dir(real);
    if (!dir || cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
        cc_sys_write_file_atomic(ctx, real, b.data, b.len, mode) != 0) {
        rc = dir ? CC_ERR_PF(ctx, "cannot write", rc_path) : oom(ctx);
        free(dir);
        goto out;
    }
    free(dir);
    if (cc_changes_add(ch, line ? "line-add" : "line-remove", rc_path, line ? line : MARK) != 0)
        rc = oom(ctx);
out:
    free(real);
    free(data);
    cc_buf_free(&b);
    return rc;
}

static unsigned auto_shells(cudnnctl_ctx *ctx, const user_dirs *u)
{
    unsigned mask = 0;
    cudnnctl_shell cand[] = {CUDNNCTL_SHELL_BASH, CUDNNCTL_SHELL_ZSH, CUDNNCTL_SHELL_FISH};
    for (int i = 0; i < 3; i++) {
        char *f = rc_file(u, cand[i]);
        if (f && cc_env_exists(ctx, f))
            mask |= 1u << cand[i];
        free(f);
    }
    if (!mask) {
        cudnnctl_shell d = cudnnctl_shell_default();
        mask =
            1u << ((d == CUDNNCTL_SHELL_PWSH || d == CUDNNCTL_SHELL_CMD) ? CUDNNCTL_SHELL_BASH : d);
    }
    return mask;
}

static cudnnctl_err persist_user(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 unsigned shells, cudnnctl_changes *ch)
{
    user_dirs u;
    char *sh_text = NULL, *fish_text = NULL, *env_sh = NULL, *env_fish = NULL;
    cudnnctl_err rc = get_user_dirs(ctx, &u);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    /* both end up in the rc lines: refused before anything is written */
    if ((rc = cc_refuse_ctl_path(ctx, "the home dir", u.home)) != CUDNNCTL_E_OK ||
        (rc = cc_refuse_ctl_path(ctx, "the config dir ($XDG_CONFIG_HOME)", u.config)) !=
            CUDNNCTL_E_OK)
        goto out;
    if (shells & ((1u << CUDNNCTL_SHELL_PWSH) | (1u << CUDNNCTL_SHELL_CMD))) {
        rc = CC_ERR(ctx, CUDNNCTL_E_UNSUPPORTED,
                    "persisting activation for pwsh / cmd is not done by rc lines; put "
                    "`cudnnctl env --shell pwsh | Out-String | Invoke-Expression` in $PROFILE");
        goto out;
    }
    if (!shells)
        shells = auto_shells(ctx, &u);
    env_sh = cc_path_join3(u.config, "cudnnctl", "env.sh");
    env_fish = cc_path_join3(u.config, "cudnnctl", "env.fish");
    if (!env_sh || !env_fish) {
        rc = oom(ctx);
        goto out;
    }
    if ((rc = cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_SH, 0, &sh_text)) != CUDNNCTL_E_OK ||
        (rc = cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_FISH, 0, &fish_text)) != CUDNNCTL_E_OK ||
        (rc = write_file(ctx, env_sh, sh_text, 0644, ch)) != CUDNNCTL_E_OK ||
        (rc = write_file(ctx, env_fish, fish_text, 0644, ch)) != CUDNNCTL_E_OK)
        goto out;
    for (int sh = CUDNNCTL_SHELL_SH; sh <= CUDNNCTL_SHELL_FISH; sh++) {
        if (!(shells & (1u << sh)))
            continue;
        char *f = rc_file(&u, (cudnnctl_shell)sh);
        char *expr = home_expr(&u, sh == CUDNNCTL_SHELL_FISH ? env_fish : env_sh);
        char *line = NULL;
        if (f && expr)
            line = sh == CUDNNCTL_SHELL_FISH
                       ? cc_asprintf("test -r \"%s\"; and source \"%s\"  " MARK
                                     " (remove: cudnnctl env --remove)",
                                     expr, expr)
                       : cc_asprintf("if [ -r \"%s\" ]; then . \"%s\"; fi  " MARK
                                     " (remove: cudnnctl env --remove)",
                                     expr, expr);
        rc = !line ? oom(ctx) : cc_refuse_ctl_path(ctx, "the config dir", expr);
        if (rc == CUDNNCTL_E_OK)
            rc = edit_rc(ctx, f, line, ch);
        free(f);
        free(expr);
        free(line);
        if (rc != CUDNNCTL_E_OK)
            goto out;
    }
out:
    user_dirs_free(&u);
    free(sh_text);
    free(fish_text);
    free(env_sh);
    free(env_fish);
    return rc;
}

static cudnnctl_err need_system(cudnnctl_ctx *ctx, const char *what)
{
    if (ctx->root || cc_pf_is_root())
        return CUDNNCTL_E_OK;
    CC_RET_ERR(ctx, CUDNNCTL_E_PERMISSION,
               "%s writes /etc and needs root: run it with sudo, or leave out --system to wire "
               "only your own shells",
               what);
}

cudnnctl_err cudnnctl_env_persist(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                  const cudnnctl_persist_opts *o, cudnnctl_changes *out)
{
    unsigned flags = o ? o->flags : 0;
    if (!(flags & CUDNNCTL_PERSIST_SYSTEM))
        return persist_user(ctx, s, o ? o->shells : 0, out);
    cudnnctl_err rc = need_system(ctx, "env --persist --system");
    char *text = NULL;
    if (rc == CUDNNCTL_E_OK) /* before anything is written */
        rc = cc_env_ldconf_allowed(ctx, s, 0, "env --persist --system");
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if ((rc = cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_SH, 0, &text)) != CUDNNCTL_E_OK ||
        (rc = write_file(ctx, PROFILE_SH, text, 0644, out)) != CUDNNCTL_E_OK)
        goto out;
    free(text);
    text = NULL;
    if (cc_env_is_dir(ctx, "/etc/fish") &&
        ((rc = cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_FISH, 0, &text)) != CUDNNCTL_E_OK ||
         (rc = write_file(ctx, FISH_CONF, text, 0644, out)) != CUDNNCTL_E_OK))
        goto out;
    rc = cc_env_write_ldconf(ctx, s, 0, (flags & CUDNNCTL_PERSIST_NO_LDCONFIG) != 0, out);
out:
    free(text);
    return rc;
}

cudnnctl_err cudnnctl_env_unpersist(cudnnctl_ctx *ctx, const cudnnctl_persist_opts *o,
                                    cudnnctl_changes *out)
{
    unsigned flags = o ? o->flags : 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (flags & CUDNNCTL_PERSIST_SYSTEM) {
        cc_strv have = {0};
        if ((rc = need_system(ctx, "env --remove --system")) != CUDNNCTL_E_OK ||
            (rc = remove_file(ctx, PROFILE_SH, out)) != CUDNNCTL_E_OK ||
            (rc = remove_file(ctx, FISH_CONF, out)) != CUDNNCTL_E_OK ||
            (rc = our_ldconfs(ctx, &have)) != CUDNNCTL_E_OK)
            return rc;
        for (size_t i = 0; i < have.n && rc == CUDNNCTL_E_OK; i++)
            rc = remove_file(ctx, have.v[i], out);
        if (rc == CUDNNCTL_E_OK && have.n)
            rc = run_ldconfig(ctx, (flags & CUDNNCTL_PERSIST_NO_LDCONFIG) != 0, out);
        cc_strv_free(&have);
        return rc;
    }
    user_dirs u;
    if ((rc = get_user_dirs(ctx, &u)) != CUDNNCTL_E_OK)
        return rc;
    for (int sh = CUDNNCTL_SHELL_SH; sh <= CUDNNCTL_SHELL_FISH && rc == CUDNNCTL_E_OK; sh++) {
        char *f = rc_file(&u, (cudnnctl_shell)sh);
        rc = f ? edit_rc(ctx, f, NULL, out) : oom(ctx);
        free(f);
    }
    char *d = cc_path_join(u.config, "cudnnctl");
    char *a = d ? cc_path_join(d, "env.sh") : NULL;
    char *b = d ? cc_path_join(d, "env.fish") : NULL;
    if (rc == CUDNNCTL_E_OK && (!a || !b))
        rc = oom(ctx);
    if (rc == CUDNNCTL_E_OK && (rc = remove_file(ctx, a, out)) == CUDNNCTL_E_OK &&
        (rc = remove_file(ctx, b, out)) == CUDNNCTL_E_OK) {
        char *rd = cc_rooted(ctx, d);
        if (rd)
            cc_sys_rmdir(ctx, rd); /* only when empty: other files there stay */
        free(rd);
    }
    free(a);
    free(b);
    free(d);
    user_dirs_free(&u);
    return rc;
}
