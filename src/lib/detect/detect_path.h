/* detect_path.h: root-aware reading of the machine (detect_path.c): every path is resolved
 * under the context's --root, symlink by symlink, re-rooting absolute link targets. Shared with
 * the stages that look at the same tree (diagnose). */
#ifndef CC_DETECT_PATH_H
#define CC_DETECT_PATH_H

#include "internal.h"

/* Resolve every symlink of an absolute root-relative path, component by component, re-rooting
 * absolute link targets. Returns the resolved root-relative path (malloc'd) and *missing = 1
 * when some component does not exist (the rest is then appended unresolved). NULL on a link
 * loop, a relative path, or OOM. */
char *cc_detect_resolve(const cudnnctl_ctx *ctx, const char *path, int *missing);
/* The host path of a root-relative path that exists after resolution (malloc'd), else NULL. */
char *cc_detect_host(const cudnnctl_ctx *ctx, const char *path);
/* stat after resolution; st->exists = 0 when absent. */
void cc_detect_stat(const cudnnctl_ctx *ctx, const char *path, cc_pf_stat_t *st);
/* Read at most max bytes of a file (NUL-terminated, malloc'd). 0 ok, -1 absent/unreadable. */
int cc_detect_read(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data);
/* The same, with the byte count (for files holding NUL bytes). */
int cc_detect_read_n(const cudnnctl_ctx *ctx, const char *path, size_t max, char **data,
                     size_t *len);
/* Entries of a directory starting with prefix (NULL: all), sorted (names only). 0 ok, -1 not a
 * readable directory. */
int cc_detect_list(const cudnnctl_ctx *ctx, const char *dir, const char *prefix, cc_strv *names);
/* "a -> b -> c" for a path whose last component is a link chain; NULL when it is no link. */
char *cc_detect_link_chain(const cudnnctl_ctx *ctx, const char *path, int *dangling);
/* An environment value taken as a root-relative absolute path (a host path under the root is
 * unrooted first); NULL when unset, empty or relative. */
char *cc_detect_env_path(const cudnnctl_ctx *ctx, const char *value);
/* The dirs the dynamic loader searches (ld.so.conf, its cache, the defaults) and the
 * LD_LIBRARY_PATH dirs, resolved under --root (detect_sites.c). 0 ok, -1 out of memory. */
int cc_detect_loader_dirs(cudnnctl_ctx *ctx, cc_strv *loader, cc_strv *ld_library_path);
/* Whether detect may run the program at host path `host` (docs/security.md, "Running as
 * root"): never one under --root, whoever runs (a tree being examined, not trusted), and as root
 * only one that passes the trust rule. 1 = yes; 0 = no, *why (malloc'd) says why; -1 OOM. */
int cc_detect_may_run(const cudnnctl_ctx *ctx, const char *host, char **why);
/* Lexically clean an absolute path: no "//", ".", trailing '/' (".." kept). */
char *cc_detect_clean(const char *path);

#endif
