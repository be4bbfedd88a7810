/* content_policy.h: what a cuDNN archive may put into a CUDA toolkit tree (docs/security.md,
 * "Content policy"). Applied to every entry, after the path checks and the layout mapping, when
 * the target is a CUDA tree; a prefix keeps the archive's own tree. No I/O. */
#ifndef CC_CONTENT_POLICY_H
#define CC_CONTENT_POLICY_H

#include "extract_check.h"

typedef enum {
    CC_CONTENT_ANY = 0,  /* prefix mode: the archive's tree as it is */
    CC_CONTENT_CUDA_TREE /* only cuDNN's own files (the allowlist below) */
} cc_content_mode;

/* Judge one mapped entry (staged: its staging-relative path, cc_xentry.mapped; link_text: a
 * symlink's target as staged, else NULL). is_zip: a Windows archive. Allowed in a CUDA tree:
 *   Linux (tar, every era): include/cudnn*.h, lib/libcudnn*.so[.N...], lib/libcudnn*.a, LICENSE
 *   Windows (zip):          include/cudnn*.h, bin/cudnn*.dll, lib/cudnn*.lib, LICENSE
 * and the directories include, lib and bin themselves; a symlink only when what it points at is
 * allowed too. (The layout already mapped cuda/lib64, targets/<arch>/lib, lib/x64 and bin/x64
 * onto lib and bin, and NVIDIA_SLA_cuDNN_Support.txt onto LICENSE.) 0 = allowed; -1 = refused
 * with *why (static text) naming the rule. */
int cc_content_allowed(const char *staged, cc_xentry_type type, const char *link_text, int is_zip,
                       const char **why);

/* The allowlist in words, for error messages. */
const char *cc_content_allowlist_text(int is_zip);

/* The policy for entry e (name: as the archive stores it) under mode (cc_content_mode): OK, or
 * CUDNNCTL_E_UNSAFE_ARCHIVE recorded on ctx naming the entry, where it would land, the rule, the
 * allowlist and the fix. The only function here that touches a ctx. */
cudnnctl_err cc_content_check(cudnnctl_ctx *ctx, int mode, const char *name, const cc_xentry *e,
                              int is_zip);

#endif
