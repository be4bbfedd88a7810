/* validate_trust.c: what validation may load as root (docs/security.md, "Running as root"). The
 * child dlopens the target's libcudnn (which loads its sub-libraries from the same dir) and the
 * toolkit's libcudart, cuBLAS and nvrtc: their constructors run as the user who validates. As
 * root that is refused when another user could have written any of those files or a dir above
 * them; the fix is to validate as that user, who risks nothing by loading their own files. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pathtrust.h"
#include "validate_int.h"

#define DEPTH 3 /* the lib dir, and its glibc-hwcaps subdirs the loader prefers */

static cudnnctl_err refuse(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *o, const char *dir)
{
    char *why = cc_trust_reason();
    char *owner = cc_trust_owner_name(dir);
    char *shown = cc_unrooted(ctx, dir);
    const char *target = o->target ? o->target : shown ? shown : dir;
    char *root = ctx->root ? cc_asprintf(" --root %s", ctx->root) : cc_strdup("");
    const char *u = owner ? owner : "nobody";
    cudnnctl_err rc =
        CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
               "validating %s as root would load its libraries and run their code as root, but %s; "
               "nothing was loaded; fix: validate it as %s, who loads it without risk: runuser -u "
               "%s -- cudnnctl%s validate %s%s%s",
               shown ? shown : dir, why ? why : "it fails the trust rule",
               owner ? "its owner" : "an unprivileged user", u, root ? root : "", target,
               o->cuda_home ? " --cuda-home " : "", o->cuda_home ? o->cuda_home : "");
    free(why);
    free(owner);
    free(shown);
    free(root);
    return rc;
}

cudnnctl_err cc_val_trust(cudnnctl_ctx *ctx, const cudnnctl_validate_opts *o,
                          const cc_val_target *t)
{
    if (!cc_pf_is_root())
        return CUDNNCTL_E_OK;
    if (cc_trust_tree(t->lib_dir, 0, DEPTH) != 0 || cc_trust_path(t->cudnn_lib, 0) != 0)
        return refuse(ctx, o, t->lib_dir);
    for (size_t i = 0; i < t->toolkit_dirs.n; i++)
        if (cc_trust_tree(t->toolkit_dirs.v[i], 0, 1) != 0)
            return refuse(ctx, o, t->toolkit_dirs.v[i]);
    return CUDNNCTL_E_OK;
}
