/* users.c (linux): who the effective user is by the passwd database (not by $HOME / $USER, which
 * `sudo -E` keeps from the caller), and who owns a file — for the login-shell probe and for fixes
 * that name the owner of a directory. */
#define _GNU_SOURCE
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

char *cc_pf_passwd_home(void)
{
    struct passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_dir && *pw->pw_dir ? strdup(pw->pw_dir) : NULL;
}

char *cc_pf_passwd_name(void)
{
    struct passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_name && *pw->pw_name ? strdup(pw->pw_name) : NULL;
}

int cc_pf_owner(const char *path, uint32_t *uid, char **name)
{
    struct stat st;
    *name = NULL;
    if (stat(path, &st) != 0) {
        cc_pf_errno_();
        return -1;
    }
    *uid = (uint32_t)st.st_uid;
    struct passwd *pw = getpwuid(st.st_uid);
    if (pw && pw->pw_name && *pw->pw_name)
        *name = strdup(pw->pw_name);
    return 0;
}
