/* safepath.h (linux, private to platform/linux): the walk every write, delete, rename, lock and
 * deletion walk of the library goes through (docs/security.md, "Running as root"). */
#ifndef CC_PF_SAFEPATH_H
#define CC_PF_SAFEPATH_H

#include <sys/stat.h>

/* sp_walk flags */
#define SP_ENFORCE 0x1 /* apply the trust rule to every directory and link walked */
#define SP_FOLLOW 0x2  /* resolve the last component too when it is a (trusted) link */
#define SP_NOFLOOR 0x8 /* internal: walking the --root itself */
#define SP_AS_ROOT 0x4 /* judge as root would: only root's files and dirs are trusted */

/* The trust rule's policy for this process: enforced when the effective user is root. */
int cc_sp_enforcing(void);

/* Open (O_PATH) the directory that holds the last component of path, walking from "/" one
 * component at a time with O_NOFOLLOW: a symbolic link on the way is resolved by the walk itself
 * (and, enforcing, only when its owner is root or the effective user); every directory reached
 * must, enforcing, pass the trust rule. *base is the last component (malloc'd; "." for "/").
 * Returns the directory fd or -1 (errno, or the platform error CUDNNCTL_E_UNTRUSTED naming the
 * component, its owner and mode). */
int cc_sp_parent(const char *path, unsigned flags, char **base);

/* Like cc_sp_parent, then open the last component with openat(oflags | O_NOFOLLOW | O_CLOEXEC).
 * With SP_FOLLOW (reads only) a final link is resolved by the walk first. */
int cc_sp_open(const char *path, int oflags, mode_t mode, unsigned flags);

/* 1 when the directory described by st passes the trust rule (owned by root or the effective
 * user; not writable by group or others unless sticky, group root excepted). */
int cc_sp_dir_trusted(const struct stat *st);
/* 1 when a link (or a file that will be run, loaded or believed) with st may be trusted. */
int cc_sp_owner_trusted(const struct stat *st);

/* Set the platform error to CUDNNCTL_E_UNTRUSTED for path with st ("owned by uid 1000 (alice),
 * mode 0777: writable by others"). */
void cc_sp_distrust(const char *path, const struct stat *st, const char *what);

#endif
