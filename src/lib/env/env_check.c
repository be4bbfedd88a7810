/* env_check.c: what an activation may set (docs/security.md, "Running as root"): every value a
 * shell's text sets must be quotable by that shell (no control character anywhere, no '"' for
 * cmd.exe) and no list entry may hold the list's separator. Refused, never escaped. */
#include <string.h>

#include "envwire_int.h"

/* 1 when the shell's quoting cannot hold v: a control character (no shell gets one raw), or for
 * cmd.exe a '"' (a batch file has no way to quote it inside `set "X=..."`). */
int cc_env_unquotable(const char *v, cudnnctl_shell sh)
{
    return cc_str_ctl(v) || (sh == CUDNNCTL_SHELL_CMD && strchr(v, '"'));
}

/* The first value of a list (PATH, LD_LIBRARY_PATH, CUDNNCTL_ENV) that holds the list's separator:
 * it cannot be one entry (a ':' in a LD_LIBRARY_PATH entry makes two dirs, one relative). */
static const char *split_by_sep(char **v, size_t n, char sep)
{
    for (size_t i = 0; i < n; i++)
        if (strchr(v[i], sep))
            return v[i];
    return NULL;
}

/* The values the text sets must be quotable and, in a list, one entry: refused otherwise (never
 * escaped: a changed path would name another dir). */
cudnnctl_err cc_env_check_values(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 cudnnctl_shell sh, int ldp)
{
    const char *one[] = {s->toolkit_path, s->cudnn_path};
    char **const lists[] = {s->bin_dirs, s->roots, s->lib_dirs};
    const size_t ns[] = {s->n_bin_dirs, s->n_roots, s->n_lib_dirs};
    const char *bad = NULL;
    for (size_t i = 0; i < 2 && !bad; i++)
        if (one[i] && cc_env_unquotable(one[i], sh))
            bad = one[i];
    for (size_t k = 0; k < 3 && !bad; k++)
        for (size_t i = 0; i < ns[k] && !bad; i++)
            if (cc_env_unquotable(lists[k][i], sh))
                bad = lists[k][i];
    if (bad && cc_str_ctl(bad))
        return cc_refuse_ctl_path(ctx, "the activation's directory", bad);
    if (bad)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "the activation's directory %s has a '\"' in it, which a cmd.exe batch file "
                   "cannot quote; fix: rename it, or use --shell pwsh",
                   bad);
    char sep = s->windows ? ';' : ':';
    for (size_t k = 0; k < (ldp ? 3u : 2u) && !bad; k++) /* lib dirs: only in LD_LIBRARY_PATH */
        bad = split_by_sep(lists[k], ns[k], sep);
    /* what builds read (CPATH, LIBRARY_PATH, ...): the same rules for their dirs */
    cc_env_list_var lv[CC_ENV_LIST_VARS];
    size_t nlv = cc_env_list_vars(s, lv);
    for (size_t k = 0; k < nlv && !bad; k++) {
        for (size_t i = 0; i < lv[k].n && !bad; i++)
            if (cc_env_unquotable(lv[k].dirs[i], sh) && cc_str_ctl(lv[k].dirs[i]))
                return cc_refuse_ctl_path(ctx, "the activation's directory", lv[k].dirs[i]);
        bad = split_by_sep(lv[k].dirs, lv[k].n, sep);
    }
    if (bad)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "the activation's directory %s has a '%c' in it, the separator of PATH, "
                   "LD_LIBRARY_PATH, CPATH and CUDNNCTL_ENV: it cannot be one entry of them; fix: "
                   "rename it without '%c' (or install into another prefix)",
                   bad, sep, sep);
    return CUDNNCTL_E_OK;
}

