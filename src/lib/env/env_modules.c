/* env_modules.c: environment modules for a selection: an Lmod modulefile (Lua) and an
 * Environment Modules one (Tcl), and `env --persist --modulefiles DIR` writing them as
 * DIR/cudnn/<version>-cuda<M>[.lua]. `module unload` undoes what `module load` did (prepend_path
 * takes its entries out again; Lua's pushenv restores the value before, Tcl's setenv unsets: a
 * Tcl pushenv is not undone by every implementation — Lmod 8.6 leaves it set), so nothing of the
 * install is left behind; `conflict cudnn` keeps two cuDNN modules from being loaded together. */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

#define MODULE_MARK "written by cudnnctl"

/* ---- quoting: every path is a quoted string, never raw text (nor inside a comment) -------- */

static void q_lua(cc_buf *b, const char *s)
{
    cc_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == '"')
            cc_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            cc_buf_printf(b, "\\%03u", (unsigned)*p); /* Lua's decimal escape */
        else
            cc_buf_append(b, p, 1);
    }
    cc_buf_puts(b, "\"");
}

static void q_tcl(cc_buf *b, const char *s)
{
    cc_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (strchr("\\\"$[]{}", *p))
            cc_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            cc_buf_printf(b, "\\u%04x", (unsigned)*p);
        else
            cc_buf_append(b, p, 1);
    }
    cc_buf_puts(b, "\"");
}

/* How one modulefile language writes each statement. */
typedef struct {
    void (*quote)(cc_buf *, const char *);
    const char *comment;               /* "--" / "##" */
    const char *whatis, *whatis_end;   /* whatis("  ") / module-whatis  */
    const char *prepend, *mid, *end;   /* prepend_path("VAR", "dir") / prepend-path VAR dir */
    const char *pushenv, *pmid, *pend; /* pushenv("VAR", "dir") / pushenv VAR dir */
    const char *conflict;              /* the whole conflict line */
} module_style;

static const module_style lua_style = {
    q_lua, "--",         "whatis(", ")\n", "prepend_path(\"",      "\", ",
    ")\n", "pushenv(\"", "\", ",    ")\n", "conflict(\"cudnn\")\n"};
static const module_style tcl_style = {
    q_tcl, "##", "module-whatis ",  "\n", "prepend-path ", " ", "\n", "setenv ",
    " ",   "\n", "conflict cudnn\n"};

static void m_whatis(cc_buf *b, const module_style *st, const char *label, const char *value)
{
    char *t = cc_asprintf("%s: %s", label, value ? value : "?");
    cc_buf_puts(b, st->whatis);
    if (t)
        st->quote(b, t);
    else
        cc_buf_puts(b, "\"\""); /* the OOM shows as b's failed append below */
    cc_buf_puts(b, st->whatis_end);
    free(t);
}

/* prepend in reverse, so the list ends up in the selection's order */
static void m_prepend(cc_buf *b, const module_style *st, const char *var, char **dirs, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        cc_buf_printf(b, "%s%s%s", st->prepend, var, st->mid);
        st->quote(b, dirs[i]);
        cc_buf_puts(b, st->end);
    }
}

static void m_pushenv(cc_buf *b, const module_style *st, const char *var, const char *value)
{
    if (!value)
        return;
    cc_buf_printf(b, "%s%s%s", st->pushenv, var, st->pmid);
    st->quote(b, value);
    cc_buf_puts(b, st->pend);
}

/* "cudnn/9.19.0.56-cuda13": the name `module load` takes. */
static char *module_name(const cudnnctl_env_selection *s)
{
    return s->cudnn_path ? cc_asprintf("cudnn/%s-cuda%d", s->cudnn_version ? s->cudnn_version : "0",
                                       s->cudnn_cuda_major)
                         : cc_asprintf("cuda/%s", s->toolkit_version ? s->toolkit_version : "0");
}

static void m_head(cc_buf *b, const module_style *st, const cudnnctl_env_selection *s,
                   cudnnctl_shell sh)
{
    char *name = module_name(s);
    if (sh == CUDNNCTL_SHELL_TCL)
        cc_buf_puts(b, "#%Module1.0\n");
    /* versions only in the comments: paths are in the quoted statements below */
    cc_buf_printf(b, "%s " MODULE_MARK ": cuDNN %s (CUDA %d) with the CUDA %s toolkit\n",
                  st->comment, s->cudnn_version ? s->cudnn_version : "none", s->cudnn_cuda_major,
                  s->toolkit_version ? s->toolkit_version : "(none)");
    cc_buf_printf(b, "%s load: module load %s; remove: cudnnctl env --remove --modulefiles DIR\n",
                  st->comment, name ? name : "cudnn");
    free(name);
    m_whatis(b, st, "Name", "cuDNN");
    m_whatis(b, st, "Version", s->cudnn_version);
    m_whatis(b, st, "CUDA toolkit", s->toolkit_version);
    m_whatis(b, st, "cuDNN install", s->cudnn_path);
    m_whatis(b, st, "CUDA toolkit dir", s->toolkit_path);
    m_whatis(b, st, "Description", "NVIDIA cuDNN for CUDA, installed by cudnnctl (docs/build.md)");
    cc_buf_puts(b, st->conflict);
}

int cc_env_render_module(const cudnnctl_env_selection *s, cudnnctl_shell sh, unsigned flags,
                         cc_buf *b)
{
    const module_style *st = sh == CUDNNCTL_SHELL_TCL ? &tcl_style : &lua_style;
    m_head(b, st, s, sh);
    m_pushenv(b, st, "CUDA_HOME", s->toolkit_path);
    m_pushenv(b, st, "CUDA_PATH", s->toolkit_path);
    m_prepend(b, st, "PATH", s->bin_dirs, s->n_bin_dirs);
    if ((flags & CUDNNCTL_ENV_LD_LIBRARY_PATH) && !s->windows)
        m_prepend(b, st, "LD_LIBRARY_PATH", s->lib_dirs, s->n_lib_dirs);
    cc_env_list_var lv[CC_ENV_LIST_VARS];
    size_t nl = cc_env_list_vars(s, lv), nv = 0;
    for (size_t i = 0; i < nl; i++)
        m_prepend(b, st, lv[i].name, lv[i].dirs, lv[i].n);
    const cudnnctl_build_var *bv = cudnnctl_env_build_vars(&nv);
    for (size_t i = 0; i < nv; i++)
        m_pushenv(b, st, bv[i].name, cudnnctl_env_build_value(s, &bv[i]));
    m_prepend(b, st, "CUDNNCTL_ENV", s->roots, s->n_roots);
    return b->data ? 0 : -1;
}

/* ---- DIR/cudnn/<version>-cuda<M>[.lua] ------------------------------------------------------ */

static cudnnctl_err oom(cudnnctl_ctx *ctx)
{
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* DIR/cudnn as the user sees it (relative DIRs from the working dir) and its real path. */
static cudnnctl_err module_dir(cudnnctl_ctx *ctx, const char *dir, char **shown, char **real)
{
    char *abs = dir && *dir ? cc_env_abs(ctx, dir) : NULL;
    *shown = abs ? cc_path_join(abs, "cudnn") : NULL;
    *real = *shown ? cc_rooted(ctx, *shown) : NULL;
    free(abs);
    if (!dir || !*dir)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "--modulefiles takes a directory (a MODULEPATH entry)");
    return *real ? CUDNNCTL_E_OK : oom(ctx);
}

/* The file name of a selection's modulefile. */
static char *module_file(const cudnnctl_env_selection *s, cudnnctl_shell sh)
{
    return cc_asprintf("%s-cuda%d%s", s->cudnn_version, s->cudnn_cuda_major,
                       sh == CUDNNCTL_SHELL_TCL ? "" : ".lua");
}

cudnnctl_err cudnnctl_env_write_modulefile(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                           cudnnctl_shell sh, const char *dir, unsigned flags,
                                           cudnnctl_changes *out)
{
    if (sh != CUDNNCTL_SHELL_LMOD && sh != CUDNNCTL_SHELL_TCL)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "modulefiles are written for --shell lmod or tcl");
    if (!s->cudnn_path || !s->cudnn_version)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "the selection has no cuDNN install for a cudnn/<version> module; name a "
                   "prefix: cudnnctl env --persist --modulefiles DIR --prefix PREFIX");
    char *shown = NULL, *real = NULL, *name = NULL, *path = NULL, *rpath = NULL;
    cc_buf b = {0};
    cudnnctl_err rc = module_dir(ctx, dir, &shown, &real);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    name = module_file(s, sh);
    path = name ? cc_path_join(shown, name) : NULL;
    rpath = name ? cc_path_join(real, name) : NULL;
    if (!path || !rpath || cc_env_render_module(s, sh, flags, &b) != 0) {
        rc = oom(ctx);
        goto out;
    }
    rc = cc_env_write_file(ctx, rpath, path, shown, b.data, 0644, out);
out:
    free(shown);
    free(real);
    free(name);
    free(path);
    free(rpath);
    cc_buf_free(&b);
    return rc;
}

/* 1 when the file's first two lines say cudnnctl wrote it. */
static int ours(cudnnctl_ctx *ctx, const char *real)
{
    char *data = NULL;
    if (cc_sys_read_file(ctx, real, 1 << 20, &data, NULL) != 0)
        return 0;
    char *nl = strchr(data, '\n');
    nl = nl ? strchr(nl + 1, '\n') : NULL;
    if (nl)
        *nl = '\0';
    int yes = strstr(data, MODULE_MARK) != NULL;
    free(data);
    return yes;
}

/* Is @p name the modulefile of @p s (either language)? NULL s: every name. */
static int wanted(const cudnnctl_env_selection *s, const char *name)
{
    if (!s)
        return 1;
    char *lua = module_file(s, CUDNNCTL_SHELL_LMOD), *tcl = module_file(s, CUDNNCTL_SHELL_TCL);
    int yes = (lua && strcmp(name, lua) == 0) || (tcl && strcmp(name, tcl) == 0);
    free(lua);
    free(tcl);
    return yes;
}

cudnnctl_err cudnnctl_env_remove_modulefiles(cudnnctl_ctx *ctx, const char *dir,
                                             const cudnnctl_env_selection *s, cudnnctl_changes *out)
{
    char *shown = NULL, *real = NULL;
    cc_strv names = {0};
    cudnnctl_err rc = module_dir(ctx, dir, &shown, &real);
    cc_pf_dir *d = rc == CUDNNCTL_E_OK ? cc_pf_opendir(real) : NULL;
    const char *nm;
    while (d && (nm = cc_pf_readdir(d)) != NULL)
        if (cc_strv_push(&names, nm) != 0)
            rc = oom(ctx);
    if (d)
        cc_pf_closedir(d);
    cc_strv_sort(&names);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < names.n; i++) {
        char *r = cc_path_join(real, names.v[i]), *p = cc_path_join(shown, names.v[i]);
        if (!r || !p)
            rc = oom(ctx);
        else if (wanted(s, names.v[i]) && ours(ctx, r)) {
            if (cc_sys_unlink(ctx, r) != 0)
                rc = CC_ERR_PF(ctx, "cannot remove", p);
            else if (cc_changes_add(out, "remove", p, NULL) != 0)
                rc = oom(ctx);
            else
                cc_event(ctx, CUDNNCTL_EV_FILE_REMOVED, "env", p);
        }
        free(r);
        free(p);
    }
    if (rc == CUDNNCTL_E_OK && real)
        cc_sys_rmdir(ctx, real); /* only when empty: other modules there stay */
    cc_strv_free(&names);
    free(shown);
    free(real);
    return rc;
}
