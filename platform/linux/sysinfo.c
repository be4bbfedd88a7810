/* sysinfo.c (linux): OS identity, the running binary, and default cache/state locations. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

const char *cc_pf_os(void)
{
    return "linux";
}

int cc_pf_is_windows(void)
{
    return 0;
}

const char *cc_pf_machine(void)
{
    static _Thread_local struct utsname u;
    if (uname(&u) != 0)
        return "unknown";
    return u.machine;
}

char cc_pf_path_sep(void)
{
    return '/';
}

const char *cc_pf_exe_suffix(void)
{
    return "";
}

char *cc_pf_self_exe(void)
{
    char *r = realpath("/proc/self/exe", NULL);
    if (!r)
        cc_pf_errno_();
    return r;
}

/* $var/cudnnctl, or ~/fallback_rel/cudnnctl; a relative $var is ignored (the XDG spec says so). */
static char *xdg(const char *var, const char *fallback_rel)
{
    const char *v = getenv(var);
    char *base;
    if (v && v[0] == '/')
        base = strdup(v);
    else {
        char *home = cc_pf_home_dir();
        if (!home)
            return NULL;
        size_t n = strlen(home) + strlen(fallback_rel) + 2;
        base = malloc(n);
        if (base) {
            strcpy(base, home);
            strcat(base, "/");
            strcat(base, fallback_rel);
        }
        free(home);
    }
    if (!base)
        return NULL;
    size_t n = strlen(base) + sizeof("/cudnnctl");
    char *r = malloc(n);
    if (r) {
        strcpy(r, base);
        strcat(r, "/cudnnctl");
    }
    free(base);
    return r;
}

char *cc_pf_default_cache_dir(void)
{
    /* root's cache is the system's (FHS), never under a $HOME or $XDG_CACHE_HOME that sudo -E
     * kept from the calling user: root would believe what that user put there */
    if (geteuid() == 0)
        return strdup("/var/cache/cudnnctl");
    return xdg("XDG_CACHE_HOME", ".cache");
}

char *cc_pf_default_state_dir(void)
{
    if (geteuid() == 0)
        return strdup("/var/lib/cudnnctl");
    return xdg("XDG_STATE_HOME", ".local/state");
}
