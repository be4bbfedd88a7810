/* write_fix.c: the fix for a place that could not be written, as things are there — a file in
 * the way, a read-only file system, root refused, or a user without the rights — so that
 * "run as root (sudo)" is said only to someone who is not root and whom root would help. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

char *cc_deepest_existing(const char *path, cc_pf_stat_t *st)
{
    char *p = cc_strdup(path);
    while (p && (cc_pf_stat(p, st) != 0 || !st->exists)) {
        char *up = cc_path_dir(p);
        if (!up || strcmp(up, p) == 0) {
            free(up);
            free(p);
            return NULL;
        }
        free(p);
        p = up;
    }
    return p;
}

char *cc_write_fix(const cudnnctl_ctx *ctx, const char *real_path, const char *choose)
{
    cc_pf_stat_t st;
    char *have = cc_deepest_existing(real_path, &st);
    char *shown = have ? cc_unrooted(ctx, have) : NULL;
    const char *at = shown ? shown : real_path;
    char *fix;
    if (have && !st.is_dir)
        fix = cc_asprintf("%s is a file, not a directory: move it out of the way, or choose "
                          "another place with %s",
                          at, choose);
    else if (have && cc_pf_fs_readonly(have) == 1)
        fix = cc_asprintf("%s is on a read-only file system: remount it read-write, or choose "
                          "a place on a writable one with %s",
                          at, choose);
    else if (cc_pf_is_root())
        fix = cc_asprintf("root was refused too (an immutable attribute, a read-only bind mount "
                          "or a security policy such as SELinux or AppArmor: check `lsattr -d "
                          "%s` and the mount), or choose another place with %s",
                          at, choose);
    else
        fix = cc_asprintf("run as root (sudo) for system locations, or choose a place you own "
                          "with %s",
                          choose);
    free(have);
    free(shown);
    return fix;
}
