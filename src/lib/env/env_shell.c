/* env_shell.c: activation text per shell (sh/bash/zsh, fish, pwsh, cmd; modulefiles:
 * env_modules.c). The text computes PATH and LD_LIBRARY_PATH (and the build lists of
 * env_build.c) when it is evaluated, from their values at that moment: entries
 * under a managed dir (or under a dir a previous activation exported in CUDNNCTL_ENV) are
 * dropped, the user's own entries keep their order, the selection's dirs go in front. So
 * evaluating it twice changes nothing, and switching versions leaves no stale entries. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

static const char *const shell_names[] = {"sh",   "bash", "zsh",  "fish",
                                          "pwsh", "cmd",  "lmod", "tcl"};

const char *cudnnctl_shell_name(cudnnctl_shell sh)
{
    return (unsigned)sh < sizeof(shell_names) / sizeof(shell_names[0]) ? shell_names[sh] : "sh";
}

cudnnctl_err cudnnctl_shell_parse(const char *name, cudnnctl_shell *out)
{
    static const struct {
        const char *name;
        cudnnctl_shell sh;
    } map[] = {{"sh", CUDNNCTL_SHELL_SH},           {"dash", CUDNNCTL_SHELL_SH},
               {"ash", CUDNNCTL_SHELL_SH},          {"ksh", CUDNNCTL_SHELL_SH},
               {"bash", CUDNNCTL_SHELL_BASH},       {"zsh", CUDNNCTL_SHELL_ZSH},
               {"fish", CUDNNCTL_SHELL_FISH},       {"pwsh", CUDNNCTL_SHELL_PWSH},
               {"powershell", CUDNNCTL_SHELL_PWSH}, {"cmd", CUDNNCTL_SHELL_CMD},
               {"lmod", CUDNNCTL_SHELL_LMOD},       {"tcl", CUDNNCTL_SHELL_TCL}};
    if (!name)
        return CUDNNCTL_E_USAGE;
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    if (*base == '-')
        base++; /* login shells: "-bash" */
    size_t n = strlen(base);
    if (n > 4 && (strcmp(base + n - 4, ".exe") == 0 || strcmp(base + n - 4, ".EXE") == 0))
        n -= 4;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strlen(map[i].name) == n && strncmp(map[i].name, base, n) == 0) {
            *out = map[i].sh;
            return CUDNNCTL_E_OK;
        }
    return CUDNNCTL_E_USAGE;
}

cudnnctl_shell cudnnctl_shell_default(void)
{
    cudnnctl_shell sh;
    if (cc_host_native_windows())
        return CUDNNCTL_SHELL_PWSH;
    if (cudnnctl_shell_parse(cc_pf_getenv("SHELL"), &sh) == CUDNNCTL_E_OK)
        return sh;
    return CUDNNCTL_SHELL_SH;
}

/* Output buffer that remembers a failed allocation, so one check at the end suffices. */
typedef struct {
    cc_buf b;
    int fail;
} ob;

static void oa(ob *o, const char *s, size_t n)
{
    if (cc_buf_append(&o->b, s, n) != 0)
        o->fail = 1;
}

static void op(ob *o, const char *s)
{
    oa(o, s, strlen(s));
}

static void opf(ob *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void opf(ob *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cc_vasprintf(fmt, ap);
    va_end(ap);
    if (!s) {
        o->fail = 1;
        return;
    }
    op(o, s);
    free(s);
}

/* ---- quoting ------------------------------------------------------------------------------- */

static void q_sh(ob *b, const char *s)
{
    op(b, "'");
    for (; *s; s++)
        if (*s == '\'')
            op(b, "'\\''");
        else
            oa(b, s, 1);
    op(b, "'");
}

static void q_fish(ob *b, const char *s)
{
    op(b, "'");
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            op(b, "\\");
        oa(b, s, 1);
    }
    op(b, "'");
}

static void q_pwsh(ob *b, const char *s)
{
    op(b, "'");
    for (; *s; s++)
        if (*s == '\'')
            op(b, "''");
        else
            oa(b, s, 1);
    op(b, "'");
}

/* Inside `set "X=..."` of a batch file only '%' needs doubling. */
static void q_cmd(ob *b, const char *s)
{
    for (; *s; s++)
        if (*s == '%')
            op(b, "%%");
        else
            oa(b, s, 1);
}

/* A managed dir without trailing separators (so "dir" and "dir/..." patterns line up). */
static char *trimmed(const char *s)
{
    /* a trailing '\\' is a separator only in a Windows path (drive letter or UNC); in a POSIX
     * path it is part of the name (fuzz_env: a root ending in '\\' lost it in CUDNNCTL_ENV but
     * not in the PATH entries under it, so a second activation prepended them again) */
    int win = (isalpha((unsigned char)s[0]) && s[1] == ':') || (s[0] == '\\' && s[1] == '\\');
    size_t n = strlen(s);
    while (n > 1 && (s[n - 1] == '/' || (win && s[n - 1] == '\\')))
        n--;
    return cc_strndup(s, n);
}

/* How a shell writes a list of dirs: each trimmed and quoted, between open and close. */
typedef struct {
    void (*quote)(ob *, const char *);
    const char *open, *before, *between, *close;
} list_style;

static const list_style sh_style = {q_sh, "", "", ":", ""};
static const list_style fish_style = {q_fish, "", " ", "", ""};
static const list_style pwsh_style = {q_pwsh, "@(", "", ", ", ")"};

/* pre, the list, post. */
static void put_list(ob *b, const char *pre, char **v, size_t n, const list_style *ls,
                     const char *post)
{
    op(b, pre);
    op(b, ls->open);
    for (size_t i = 0; i < n; i++) {
        char *t = trimmed(v[i]);
        if (!t) {
            b->fail = 1;
            continue;
        }
        if (i)
            op(b, ls->between);
        op(b, ls->before);
        ls->quote(b, t);
        free(t);
    }
    op(b, ls->close);
    op(b, post);
}

/* CUDA_HOME and CUDA_PATH both name the toolkit: a, the path, mid, the path, end. */
static void put_toolkit(ob *b, const cudnnctl_env_selection *s, void (*quote)(ob *, const char *),
                        const char *a, const char *mid, const char *end)
{
    if (!s->toolkit_path)
        return;
    op(b, a);
    quote(b, s->toolkit_path);
    op(b, mid);
    quote(b, s->toolkit_path);
    op(b, end);
}

/* s with every "%s" in it replaced by var (the templates of a dialect below). */
static void put_sub(ob *b, const char *s, const char *var)
{
    for (const char *p; (p = strstr(s, "%s")) != NULL; s = p + 2) {
        oa(b, s, (size_t)(p - s));
        op(b, var);
    }
    op(b, s);
}

/* What sh, fish and PowerShell each write for a list variable and for the root variables. */
typedef struct {
    const list_style *ls; /* its lists (and its quoting: ls->quote) */
    void (*filter)(ob *, const cudnnctl_env_selection *, const char *var); /* the kept entries */
    const char *set_pre, *set_post; /* around the dirs a variable gets in front ("%s": its name) */
    const char *set_kept;           /* no dirs of its own: the kept entries, or it is unset */
    const char *val_pre, *val_post; /* around a root variable's value */
    /* without a cuDNN: the root variables unset where they name a managed dir */
    void (*drop_roots)(ob *, const cudnnctl_env_selection *, const cudnnctl_build_var *, size_t);
} dialect;

/* A list variable: the entries under a managed dir dropped, dirs (n of them) in front. */
static void put_var(ob *b, const cudnnctl_env_selection *s, const dialect *d, const char *var,
                    char **dirs, size_t n)
{
    d->filter(b, s, var);
    if (!n) {
        put_sub(b, d->set_kept, var);
        return;
    }
    put_sub(b, d->set_pre, var);
    put_list(b, "", dirs, n, d->ls, "");
    put_sub(b, d->set_post, var);
}

/* The root variables set to the selection's cuDNN dirs (those it has). */
static void put_values(ob *b, const cudnnctl_env_selection *s, void (*quote)(ob *, const char *),
                       const char *pre, const char *post)
{
    size_t nv = 0;
    const cudnnctl_build_var *bv = cudnnctl_env_build_vars(&nv);
    for (size_t i = 0; i < nv; i++) {
        const char *val = cudnnctl_env_build_value(s, &bv[i]);
        if (!val)
            continue;
        put_sub(b, pre, bv[i].name);
        quote(b, val);
        put_sub(b, post, bv[i].name);
    }
}

/* What compilers and build systems read (env_build.c): the list variables get the same
 * filtering as PATH; the root variables name the selected cuDNN, or, without one, are unset
 * where they name a managed dir (a user's own value stays). */
static void put_build(ob *b, const cudnnctl_env_selection *s, const dialect *d)
{
    cc_env_list_var lv[CC_ENV_LIST_VARS];
    size_t nl = cc_env_list_vars(s, lv), nv = 0;
    for (size_t i = 0; i < nl; i++)
        put_var(b, s, d, lv[i].name, lv[i].dirs, lv[i].n);
    if (s->cudnn_path) {
        put_values(b, s, d->ls->quote, d->val_pre, d->val_post);
        return;
    }
    const cudnnctl_build_var *bv = cudnnctl_env_build_vars(&nv);
    d->drop_roots(b, s, bv, nv);
}

/* Text for a comment line: control characters as \xNN, so nothing in it (a path, a version read
 * from a toolkit's version.json, a note) can end the comment and start a command. */
static void oc(ob *b, const char *s)
{
    char *p = cc_str_printable(s);
    if (!p) {
        b->fail = 1;
        return;
    }
    op(b, p);
    free(p);
}

static void header(ob *b, const char *c, const cudnnctl_env_selection *s, cudnnctl_shell sh)
{
    opf(b, "%s cudnnctl activation:", c);
    if (s->toolkit_path) {
        op(b, " CUDA ");
        oc(b, s->toolkit_version ? s->toolkit_version : "(version ?)");
        op(b, " at ");
        oc(b, s->toolkit_path);
    }
    if (s->cudnn_path) {
        opf(b, "%s cuDNN ", s->toolkit_path ? "," : "");
        oc(b, s->cudnn_version ? s->cudnn_version : "?");
        op(b, " at ");
        oc(b, s->cudnn_path);
    }
    op(b, "\n");
    switch (sh) {
    case CUDNNCTL_SHELL_FISH:
        opf(b, "%s use: cudnnctl env --shell fish | source  (twice = once)\n", c);
        break;
    case CUDNNCTL_SHELL_PWSH:
        opf(b, "%s use: cudnnctl env --shell pwsh | Out-String | Invoke-Expression\n", c);
        break;
    case CUDNNCTL_SHELL_CMD:
        opf(b,
            "%s use: cudnnctl env --shell cmd > \"%%TEMP%%\\cudnnctl-env.cmd\" && "
            "call \"%%TEMP%%\\cudnnctl-env.cmd\"\n",
            c);
        break;
    default:
        opf(b, "%s use: eval \"$(cudnnctl env --shell %s)\"  (twice = once)\n", c,
            cudnnctl_shell_name(sh));
    }
    for (size_t i = 0; i < s->n_notes; i++) {
        opf(b, "%s note: ", c);
        oc(b, s->notes[i]);
        op(b, "\n");
    }
}

/* ---- POSIX sh (dash, bash, zsh): builtins and parameter expansion only --------------------- */

/* A case on $__cudnnctl_e that runs then when it is a managed dir or lies under one. */
static void sh_managed_case(ob *b, const cudnnctl_env_selection *s, const char *then)
{
    if (!s->n_managed)
        return;
    op(b, "  case $__cudnnctl_e in\n    ");
    for (size_t i = 0; i < s->n_managed; i++) {
        char *m = trimmed(s->managed[i]);
        if (!m) {
            b->fail = 1;
            continue;
        }
        if (i)
            op(b, "|");
        q_sh(b, m);
        op(b, "|");
        q_sh(b, m);
        op(b, "/*");
        free(m);
    }
    opf(b, ") %s ;;\n  esac\n", then);
}

/* The loop that sets __cudnnctl_d=1 when $__cudnnctl_e lies under a dir in CUDNNCTL_ENV (its
 * list in $__cudnnctl_k). */
static const char sh_env_loop[] =
    "  while [ -n \"$__cudnnctl_k\" ]; do\n"
    "    __cudnnctl_x=${__cudnnctl_k%%:*}; __cudnnctl_k=${__cudnnctl_k#*:}\n"
    "    case $__cudnnctl_x in '') ;; *) case $__cudnnctl_e in "
    "\"$__cudnnctl_x\"|\"$__cudnnctl_x\"/*) __cudnnctl_d=1 ;; esac ;; esac\n"
    "  done\n";

static void sh_filter(ob *b, const cudnnctl_env_selection *s, const char *var)
{
    opf(b, "__cudnnctl_r=${%s:+$%s:}; __cudnnctl_n=; __cudnnctl_f=\n", var, var);
    op(b, "while [ -n \"$__cudnnctl_r\" ]; do\n"
          "  __cudnnctl_e=${__cudnnctl_r%%:*}; __cudnnctl_r=${__cudnnctl_r#*:}\n");
    sh_managed_case(b, s, "continue");
    op(b, "  __cudnnctl_k=${CUDNNCTL_ENV:+$CUDNNCTL_ENV:}; __cudnnctl_d=\n");
    op(b, sh_env_loop);
    op(b, "  if [ -z \"$__cudnnctl_d\" ]; then "
          "__cudnnctl_n=$__cudnnctl_n${__cudnnctl_f:+:}$__cudnnctl_e; __cudnnctl_f=1; fi\n"
          "done\n");
}

/* The root variables that lie under a managed dir or a dir in CUDNNCTL_ENV are unset. */
static void sh_drop_roots(ob *b, const cudnnctl_env_selection *s, const cudnnctl_build_var *bv,
                          size_t nv)
{
    op(b, "for __cudnnctl_v in");
    for (size_t i = 0; i < nv; i++)
        opf(b, " %s", bv[i].name);
    op(b, "; do\n  eval \"__cudnnctl_e=\\${$__cudnnctl_v-}\"\n"
          "  [ -n \"$__cudnnctl_e\" ] || continue\n");
    op(b, "  __cudnnctl_d=\n");
    sh_managed_case(b, s, "__cudnnctl_d=1");
    op(b, "  __cudnnctl_k=${CUDNNCTL_ENV:+$CUDNNCTL_ENV:}\n");
    op(b, sh_env_loop);
    op(b, "  if [ -n \"$__cudnnctl_d\" ]; then unset \"$__cudnnctl_v\"; fi\ndone\n");
}

static const dialect sh_dialect = {
    &sh_style,
    sh_filter,
    "%s=",
    "${__cudnnctl_f:+:}$__cudnnctl_n; export %s\n",
    "if [ -n \"$__cudnnctl_f\" ]; then %s=$__cudnnctl_n; export %s; else unset %s; fi\n",
    "%s=",
    "; export %s\n",
    sh_drop_roots};

static void render_sh(ob *b, const cudnnctl_env_selection *s, cudnnctl_shell sh, int ldp)
{
    header(b, "#", s, sh);
    put_toolkit(b, s, q_sh, "CUDA_HOME=", "; export CUDA_HOME\nCUDA_PATH=", "; export CUDA_PATH\n");
    sh_filter(b, s, "PATH");
    if (s->n_bin_dirs) {
        put_list(b, "PATH=", s->bin_dirs, s->n_bin_dirs, &sh_style,
                 "${__cudnnctl_f:+:}$__cudnnctl_n; export PATH\n");
    } else {
        op(b, "PATH=$__cudnnctl_n; export PATH\n");
    }
    put_var(b, s, &sh_dialect, "LD_LIBRARY_PATH", s->lib_dirs, ldp ? s->n_lib_dirs : 0);
    put_build(b, s, &sh_dialect);
    if (s->n_roots) {
        put_list(b, "CUDNNCTL_ENV=", s->roots, s->n_roots, &sh_style, "; export CUDNNCTL_ENV\n");
    } else {
        op(b, "unset CUDNNCTL_ENV\n");
    }
    op(b, "unset __cudnnctl_r __cudnnctl_n __cudnnctl_f __cudnnctl_e __cudnnctl_k "
          "__cudnnctl_d __cudnnctl_x __cudnnctl_v\n");
}

/* ---- fish ------------------------------------------------------------------------------------ */

/* The start of a loop over the dirs to drop, its body run for one the string tested lies under
 * (the string follows: fish_filter's and fish_drop_roots' ends). */
#define FISH_UNDER_DROP                                                                            \
    "    for __cudnnctl_d in $__cudnnctl_drop\n"                                                   \
    "        if test -n \"$__cudnnctl_d\"; and string match -qr -- "                               \
    "'^'(string escape --style=regex -- $__cudnnctl_d)'(/|$)' "

static void fish_filter(ob *b, const cudnnctl_env_selection *s, const char *var)
{
    (void)s;
    opf(b, "set __cudnnctl_keep\nfor __cudnnctl_e in $%s\n", var);
    op(b, "    set -l __cudnnctl_x 0\n" FISH_UNDER_DROP "$__cudnnctl_e\n"
          "            set __cudnnctl_x 1\n"
          "            break\n"
          "        end\n"
          "    end\n"
          "    if test $__cudnnctl_x = 0\n"
          "        set -a __cudnnctl_keep $__cudnnctl_e\n"
          "    end\n"
          "end\n");
}

static void fish_drop_roots(ob *b, const cudnnctl_env_selection *s, const cudnnctl_build_var *bv,
                            size_t nv)
{
    (void)s;
    op(b, "for __cudnnctl_v in");
    for (size_t i = 0; i < nv; i++)
        opf(b, " %s", bv[i].name);
    op(b, "\n"
          "    set -q $__cudnnctl_v; or continue\n" FISH_UNDER_DROP "\"$$__cudnnctl_v\"\n"
          "            set -e $__cudnnctl_v\n"
          "            break\n"
          "        end\n"
          "    end\n"
          "end\n");
}

/* fish keeps the build lists as path variables; LD_LIBRARY_PATH is set as PATH is. */
#define FISH_DIALECT(path)                                                                         \
    {                                                                                              \
        &fish_style, fish_filter, "set -gx" path " %s", " $__cudnnctl_keep\n",                     \
            "if set -q __cudnnctl_keep[1]\n"                                                       \
            "    set -gx" path " %s $__cudnnctl_keep\n"                                            \
            "else if set -q %s\n"                                                                  \
            "    set -e %s\n"                                                                      \
            "end\n",                                                                               \
            "set -gx %s ", "\n", fish_drop_roots                                                   \
    }
static const dialect fish_dialect = FISH_DIALECT(" --path"), fish_plain = FISH_DIALECT("");

static void render_fish(ob *b, const cudnnctl_env_selection *s, int ldp)
{
    header(b, "#", s, CUDNNCTL_SHELL_FISH);
    put_toolkit(b, s, q_fish, "set -gx CUDA_HOME ", "\nset -gx CUDA_PATH ", "\n");
    put_list(b, "set -l __cudnnctl_drop", s->managed, s->n_managed, &fish_style,
             " (string split ':' -- $CUDNNCTL_ENV)\nset -l __cudnnctl_keep\n");
    fish_filter(b, s, "PATH");
    put_list(b, "set -gx PATH", s->bin_dirs, s->n_bin_dirs, &fish_style, " $__cudnnctl_keep\n");
    put_var(b, s, &fish_plain, "LD_LIBRARY_PATH", s->lib_dirs, ldp ? s->n_lib_dirs : 0);
    put_build(b, s, &fish_dialect);
    if (s->n_roots) {
        put_list(b, "set -gx --path CUDNNCTL_ENV", s->roots, s->n_roots, &fish_style, "\n");
    } else {
        op(b, "set -q CUDNNCTL_ENV; and set -e CUDNNCTL_ENV\n");
    }
}

/* ---- PowerShell ------------------------------------------------------------------------------ */

/* The drop dirs that $__cudnnctl_e is, or lies under (a Where-Object pipeline). */
#define PWSH_DROPPING                                                                              \
    "$__cudnnctl_drop | Where-Object { $__cudnnctl_e -eq $_ -or "                                  \
    "$__cudnnctl_e.StartsWith($_ + '\\', [StringComparison]::OrdinalIgnoreCase) -or "              \
    "$__cudnnctl_e.StartsWith($_ + '/', [StringComparison]::OrdinalIgnoreCase) }"

static void pwsh_filter(ob *b, const cudnnctl_env_selection *s, const char *var)
{
    (void)s;
    opf(b,
        "$__cudnnctl_keep = @(if ($env:%s) { $env:%s.Split($__cudnnctl_sep) | "
        "Where-Object { $__cudnnctl_e = $_.TrimEnd('\\', '/'); -not (" PWSH_DROPPING ") } "
        "})\n",
        var, var);
}

static void pwsh_drop_roots(ob *b, const cudnnctl_env_selection *s, const cudnnctl_build_var *bv,
                            size_t nv)
{
    (void)s;
    op(b, "foreach ($__cudnnctl_v in @(");
    for (size_t i = 0; i < nv; i++)
        opf(b, "%s'%s'", i ? ", " : "", bv[i].name);
    op(b, ")) { $__cudnnctl_x = [Environment]::GetEnvironmentVariable($__cudnnctl_v); "
          "if ($__cudnnctl_x) { $__cudnnctl_e = $__cudnnctl_x.TrimEnd('\\', '/'); "
          "if (" PWSH_DROPPING ") { "
          "Remove-Item \"Env:$__cudnnctl_v\" -ErrorAction SilentlyContinue } } }\n");
}

static const dialect pwsh_dialect = {
    &pwsh_style,
    pwsh_filter,
    "$env:%s = (",
    " + $__cudnnctl_keep) -join $__cudnnctl_sep\n",
    "if ($__cudnnctl_keep.Count) { $env:%s = $__cudnnctl_keep -join $__cudnnctl_sep } else { "
    "Remove-Item Env:%s -ErrorAction SilentlyContinue }\n",
    "$env:%s = ",
    "\n",
    pwsh_drop_roots};

static void render_pwsh(ob *b, const cudnnctl_env_selection *s, int ldp)
{
    header(b, "#", s, CUDNNCTL_SHELL_PWSH);
    put_toolkit(b, s, q_pwsh, "$env:CUDA_PATH = ", "\n$env:CUDA_HOME = ", "\n");
    put_list(b, "$__cudnnctl_sep = [IO.Path]::PathSeparator\n$__cudnnctl_drop = ", s->managed,
             s->n_managed, &pwsh_style,
             " + @(if ($env:CUDNNCTL_ENV) { $env:CUDNNCTL_ENV.Split($__cudnnctl_sep) | "
             "Where-Object { $_ } })\n");
    pwsh_filter(b, s, "PATH");
    put_list(b, "$env:PATH = (", s->bin_dirs, s->n_bin_dirs, &pwsh_style,
             " + $__cudnnctl_keep) -join $__cudnnctl_sep\n");
    /* PowerShell on Linux: the same LD_LIBRARY_PATH rules as every other shell */
    if (!s->windows)
        put_var(b, s, &pwsh_dialect, "LD_LIBRARY_PATH", s->lib_dirs, ldp ? s->n_lib_dirs : 0);
    put_build(b, s, &pwsh_dialect);
    if (s->n_roots) {
        put_list(b, "$env:CUDNNCTL_ENV = ", s->roots, s->n_roots, &pwsh_style,
                 " -join $__cudnnctl_sep\n");
    } else {
        op(b, "Remove-Item Env:CUDNNCTL_ENV -ErrorAction SilentlyContinue\n");
    }
    op(b, "Remove-Variable __cudnnctl_sep, __cudnnctl_drop, __cudnnctl_keep, __cudnnctl_e, "
          "__cudnnctl_v, __cudnnctl_x -ErrorAction SilentlyContinue\n");
}

/* ---- cmd.exe (a batch file: `call` it) ------------------------------------------------------- */

/* One exact entry out of a ';'-list variable (var holds ";list;" meanwhile). An entry with '='
 * cannot be named in %VAR:old=new%: it stays (the PATH text says so; the build lists only get
 * it back). */
static void cmd_drop(ob *b, const char *var, const char *entry)
{
    if (strchr(entry, '=')) {
        if (strcmp(var, "PATH") == 0)
            opf(b, "@rem cannot drop an entry with '=' in it: %s\n", entry);
        return;
    }
    /* %VAR:old=new% replaces every (case-insensitive) occurrence; twice catches neighbours */
    for (int k = 0; k < 2; k++) {
        opf(b, "@set \"%s=%%%s:;", var, var);
        q_cmd(b, entry);
        op(b, ";=;%\"\n");
    }
}

/* var without the entries the managed dirs have at subdirs (with and without a trailing '\\'). */
static void cmd_drop_managed(ob *b, const cudnnctl_env_selection *s, const char *var,
                             const char *const *subdirs)
{
    opf(b, "@set \"%s=;%%%s%%;\"\n", var, var);
    for (size_t i = 0; i < s->n_managed; i++) {
        char *m = trimmed(s->managed[i]);
        for (int k = 0; m && subdirs[k]; k++) {
            char *e = *subdirs[k] ? cc_env_join(m, subdirs[k], 1) : cc_strdup(m);
            char *e2 = e ? cc_asprintf("%s\\", e) : NULL;
            if (e && e2) {
                cmd_drop(b, var, e);
                cmd_drop(b, var, e2);
            } else {
                b->fail = 1;
            }
            free(e);
            free(e2);
        }
        free(m);
    }
    opf(b, "@set \"%s=%%%s:~1,-1%%\"\n", var, var);
}

/* The dirs, each quoted and followed by ';' (in front of a list), or joined by ';'. */
static void cmd_dirs(ob *b, char **dirs, size_t n, int in_front)
{
    for (size_t i = 0; i < n; i++) {
        if (i && !in_front)
            op(b, ";");
        q_cmd(b, dirs[i]);
        if (in_front)
            op(b, ";");
    }
}

/* A list variable: the managed dirs' build sub-dirs dropped, the selection's dirs in front;
 * left undefined when nothing is in it. */
static void cmd_list(ob *b, const cudnnctl_env_selection *s, const cc_env_list_var *v)
{
    cmd_drop_managed(b, s, v->name, v->subdirs);
    if (!v->n)
        return;
    opf(b, "@if defined %s (set \"%s=", v->name, v->name);
    cmd_dirs(b, v->dirs, v->n, 1);
    opf(b, "%%%s%%\") else (set \"%s=", v->name, v->name);
    cmd_dirs(b, v->dirs, v->n, 0);
    op(b, "\")\n");
}

/* The build variables (put_build says how); without a cuDNN a root variable goes when it is
 * exactly one of the managed dirs (cmd cannot match a prefix of a path). */
static void cmd_build(ob *b, const cudnnctl_env_selection *s)
{
    cc_env_list_var lv[CC_ENV_LIST_VARS];
    size_t nl = cc_env_list_vars(s, lv), nv = 0;
    for (size_t i = 0; i < nl; i++)
        cmd_list(b, s, &lv[i]);
    if (s->cudnn_path)
        put_values(b, s, q_cmd, "@set \"%s=", "\"\n");
    const cudnnctl_build_var *bv = cudnnctl_env_build_vars(&nv);
    for (size_t m = 0; !s->cudnn_path && m < s->n_managed; m++) {
        char *d = trimmed(s->managed[m]);
        char *inc = d ? cc_env_join(d, "include", 1) : NULL;
        char *lib = d ? cc_env_join(d, "lib", 1) : NULL;
        for (size_t i = 0; inc && lib && i < nv; i++) {
            const char *val = strcmp(bv[i].what, "include") == 0 ? inc
                              : strcmp(bv[i].what, "lib") == 0   ? lib
                                                                 : d;
            if (strchr(val, '"'))
                continue;
            opf(b, "@if /i \"%%%s%%\"==\"", bv[i].name);
            q_cmd(b, val);
            opf(b, "\" set \"%s=\"\n", bv[i].name);
        }
        if (!inc || !lib)
            b->fail = 1;
        free(d);
        free(inc);
        free(lib);
    }
}

static void render_cmd(ob *b, const cudnnctl_env_selection *s)
{
    static const char *const subdirs[] = {"", "bin", "bin\\x64", "libnvvp", "lib\\x64", NULL};
    header(b, "@rem", s, CUDNNCTL_SHELL_CMD);
    put_toolkit(b, s, q_cmd, "@set \"CUDA_PATH=", "\"\n@set \"CUDA_HOME=", "\"\n");
    cmd_drop_managed(b, s, "PATH", subdirs);
    if (s->n_bin_dirs) {
        op(b, "@set \"PATH=");
        cmd_dirs(b, s->bin_dirs, s->n_bin_dirs, 1);
        op(b, "%PATH%\"\n");
    }
    cmd_build(b, s);
    if (s->n_roots) {
        op(b, "@set \"CUDNNCTL_ENV=");
        cmd_dirs(b, s->roots, s->n_roots, 0);
        op(b, "\"\n");
    } else {
        op(b, "@set \"CUDNNCTL_ENV=\"\n");
    }
}

static cudnnctl_err render(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s, cudnnctl_shell sh,
                           unsigned flags, ob *o);

cudnnctl_err cudnnctl_env_render(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 cudnnctl_shell sh, unsigned flags, char **text)
{
    *text = NULL;
    cudnnctl_err rc = cc_env_check_values(ctx, s, sh, (flags & CUDNNCTL_ENV_LD_LIBRARY_PATH) != 0);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    /* a managed dir the shell cannot quote, or holding the list separator, is not dropped from
     * PATH (no entry this text wrote can be under it: cc_env_check_values) */
    cudnnctl_env_selection sel = *s;
    sel.managed = calloc(s->n_managed ? s->n_managed : 1, sizeof(char *));
    if (!sel.managed)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    sel.n_managed = 0;
    char sep = s->windows ? ';' : ':';
    for (size_t i = 0; i < s->n_managed; i++) /* (an entry never holds the separator either) */
        if (!cc_env_unquotable(s->managed[i], sh) && !strchr(s->managed[i], sep))
            sel.managed[sel.n_managed++] = s->managed[i];
    ob o = {{0}, 0};
    rc = render(ctx, &sel, sh, flags, &o);
    free(sel.managed);
    if (rc == CUDNNCTL_E_OK)
        *text = o.b.data;
    return rc;
}

static cudnnctl_err render(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s, cudnnctl_shell sh,
                           unsigned flags, ob *po)
{
    ob o = {{0}, 0};
    int ldp = (flags & CUDNNCTL_ENV_LD_LIBRARY_PATH) != 0;
    switch (sh) {
    case CUDNNCTL_SHELL_SH:
    case CUDNNCTL_SHELL_BASH:
    case CUDNNCTL_SHELL_ZSH:
        render_sh(&o, s, sh, ldp);
        break;
    case CUDNNCTL_SHELL_FISH:
        render_fish(&o, s, ldp);
        break;
    case CUDNNCTL_SHELL_PWSH:
        render_pwsh(&o, s, ldp);
        break;
    case CUDNNCTL_SHELL_CMD:
        render_cmd(&o, s);
        break;
    case CUDNNCTL_SHELL_LMOD:
    case CUDNNCTL_SHELL_TCL:
        if (cc_env_render_module(s, sh, flags, &o.b) != 0)
            o.fail = 1;
        break;
    default:
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "unknown shell %d", (int)sh);
    }
    if (o.fail || !o.b.data) {
        cc_buf_free(&o.b);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    *po = o;
    return CUDNNCTL_E_OK;
}
