/* untrusted.c: the one shape of a refusal to run, as root, what another user could change
 * (docs/security.md, "Running as root"): what was refused, why (the platform's trust text), and a
 * fix that works — the same command as the user who owns it, or the platform's own chmod. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* path as one shell word: as it is when it is plain, else in single quotes */
static char *sh_word(const char *path)
{
    if (*path && strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "/._+-=:,@%") == strlen(path))
        return cc_strdup(path);
    cc_buf b = {0};
    int bad = cc_buf_printf(&b, "'");
    for (const char *p = path; *p && !bad; p++)
        bad = *p == '\'' ? cc_buf_printf(&b, "'\\''") : cc_buf_printf(&b, "%c", *p);
    if (bad || cc_buf_printf(&b, "'")) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
}

cudnnctl_err cc_untrusted_refusal(cudnnctl_ctx *ctx, const char *what, const char *cmd,
                                  const char *path)
{
    const char *owner = cc_pf_untrusted_owner();
    char *why = cc_strdup(cc_pf_last_error_text());
    char *word = path ? sh_word(path) : NULL;
    if (!why || (path && !word)) {
        free(why);
        free(word);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (!*owner || !cmd) { /* a directory root owns but others may write: the platform's chmod */
        cc_set_error(ctx, CUDNNCTL_E_UNTRUSTED, __func__, __FILE__, __LINE__, "%s: %s", what, why);
    } else {
        char *fix = strstr(why, "; fix:"); /* another user's: run it as them, not as root */
        if (fix)
            *fix = '\0';
        cc_set_error(ctx, CUDNNCTL_E_UNTRUSTED, __func__, __FILE__, __LINE__,
                     "%s: %s; fix: run it as %s, who owns it, not as root: sudo -u %s %s%s%s", what,
                     why, owner, owner, cmd, word ? " " : "", word ? word : "");
    }
    free(why);
    free(word);
    return CUDNNCTL_E_UNTRUSTED;
}
