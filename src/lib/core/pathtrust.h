/* pathtrust.h: the trust rule over files and whole directories (pathtrust.c; docs/security.md,
 * "Running as root"). Flags: 0 (the effective user's rule) or CC_PF_TRUST_AS_ROOT. */
#ifndef CC_PATHTRUST_H
#define CC_PATHTRUST_H

/* 0 when path passes (or does not exist and the walk to it passed); -1 when it, a dir above it or
 * a link on the way fails: the platform error (CUDNNCTL_E_UNTRUSTED) names it. */
int cc_trust_path(const char *path, unsigned flags);
/* The same for dir and everything below it, depth levels down (files and dirs). */
int cc_trust_tree(const char *dir, unsigned flags, int depth);
/* The platform error's text without its generic fix (callers give the fix that fits). */
char *cc_trust_reason(void);
/* The first owner other than root of path or a dir above it ("alice", "#1234"), NULL when root
 * owns them all: the user who could have written there, who may load it without risk. */
char *cc_trust_owner_name(const char *path);

#endif
