/* env_trust.c: what may be registered for every user (docs/security.md, "Running as root").
 * /etc/ld.so.conf.d makes every program load from a lib dir (setuid ones included, which ignore
 * LD_LIBRARY_PATH but not the loader cache), /etc/profile.d puts bin dirs in front of every login
 * shell's PATH, root's included. So a dir is registered only when it, every dir above it and
 * every file in it pass the trust rule as root applies it: nobody but root can have put anything
 * there, nor can later. */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"

#include "pathtrust.h"

#define DEPTH 3 /* lib/, lib/glibc-hwcaps/, lib/glibc-hwcaps/x86-64-v3/: the loader looks there */

/* Under --root the image is its owner's (a user may build one): the rule for the effective user.
 * Otherwise only root's files: what `sudo` would accept, whoever asks. */
static unsigned rule_for(const cudnnctl_ctx *ctx)
{
    return ctx->root ? 0u : (unsigned)CC_PF_TRUST_AS_ROOT;
}

int cudnnctl_env_system_ok(cudnnctl_ctx *ctx, const char *dir)
{
    char *real = dir ? cc_rooted(ctx, dir) : NULL;
    int ok = real && cc_trust_tree(real, rule_for(ctx), DEPTH) == 0;
    free(real);
    return ok;
}

static cudnnctl_err refuse(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s, const char *what,
                           const char *dir)
{
    char *why = cc_trust_reason();
    char *shown = cc_str_printable(dir);
    const char *sudo = cc_pf_is_root() ? "" : "sudo ";
    char *fix =
        s->cudnn_version && s->cudnn_cuda_major > 0
            ? cc_asprintf("install into a root-owned prefix and wire that instead: %scudnnctl "
                          "install --prefix /opt/cudnnctl --cudnn %s --cuda %d && %scudnnctl env "
                          "--persist --system --prefix /opt/cudnnctl",
                          sudo, s->cudnn_version, s->cudnn_cuda_major, sudo)
            : cc_strdup("install it where only root can write (a root-owned dir such as "
                        "/usr/local or /opt; cudnnctl install --prefix /opt/cudnnctl for cuDNN) "
                        "and wire that instead");
    cudnnctl_err rc = CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
                             "%s would register %s for every user (/etc/ld.so.conf.d, "
                             "/etc/profile.d: root and setuid programs load from it), but %s; "
                             "nothing was written; fix: %s",
                             what, shown ? shown : dir, why ? why : "it fails the trust rule",
                             fix ? fix : "install into a root-owned prefix");
    free(why);
    free(shown);
    free(fix);
    return rc;
}

cudnnctl_err cc_env_trust_system(cudnnctl_ctx *ctx, const cudnnctl_env_selection *s,
                                 const char *what)
{
    char **const lists[] = {s->lib_dirs, s->bin_dirs};
    const size_t ns[] = {s->n_lib_dirs, s->n_bin_dirs};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < ns[k]; i++) {
            char *real = cc_rooted(ctx, lists[k][i]);
            if (!real)
                CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            int bad = cc_trust_tree(real, rule_for(ctx), DEPTH) != 0;
            free(real);
            if (bad)
                return refuse(ctx, s, what, lists[k][i]);
        }
    return CUDNNCTL_E_OK;
}
