/* pathtrust.c: the trust rule (docs/security.md, "Running as root") over whole directories, for
 * what root is about to load, run or register for every user: cc_pf_trust_check on each object,
 * with "does not exist" counting as trusted when the walk to it was (nobody else can create it
 * there). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pathtrust.h"

int cc_trust_path(const char *path, unsigned flags)
{
    if (cc_pf_trust_check(path, CC_PF_TRUST_OBJECT | flags) == 0)
        return 0;
    return cc_pf_last_error() == CUDNNCTL_E_UNTRUSTED ? -1 : 0;
}

int cc_trust_tree(const char *dir, unsigned flags, int depth)
{
    if (cc_trust_path(dir, flags) != 0)
        return -1;
    cc_pf_stat_t st;
    if (depth <= 0 || cc_pf_stat(dir, &st) != 0 || !st.is_dir)
        return 0;
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *name;
    int rc = 0;
    while (d && rc == 0 && (name = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(dir, name);
        cc_pf_stat_t ls;
        if (!p) {
            cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
            rc = -1;
        } else if (cc_pf_lstat(p, &ls) == 0 && ls.is_dir) {
            rc = cc_trust_tree(p, flags, depth - 1);
        } else {
            rc = cc_trust_path(p, flags);
        }
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    return rc;
}

char *cc_trust_reason(void)
{
    char *t = cc_strdup(cc_pf_last_error_text());
    char *f = t ? strstr(t, "; fix:") : NULL;
    if (f)
        *f = '\0';
    return t;
}

char *cc_trust_owner_name(const char *path)
{
    char *p = cc_strdup(path);
    char *name = NULL;
    while (p && !name) {
        uint32_t uid = 0;
        char *n = NULL;
        if (cc_pf_owner(p, &uid, &n) == 0 && uid != 0)
            name = n ? n : cc_asprintf("#%u", (unsigned)uid);
        else
            free(n);
        char *up = cc_path_dir(p);
        if (up && strcmp(up, p) == 0) { /* "/" */
            free(up);
            up = NULL;
        }
        free(p);
        p = up;
    }
    free(p);
    return name;
}
