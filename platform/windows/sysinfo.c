/* sysinfo.c (windows): OS identity, the running binary, and default cache/state locations
 * (%LOCALAPPDATA%\cudnnctl\cache; %ProgramData%\cudnnctl when elevated, else
 * %LOCALAPPDATA%\cudnnctl\state). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

const char *cc_pf_os(void)
{
    return "windows";
}

int cc_pf_is_windows(void)
{
    return 1;
}

const char *cc_pf_machine(void)
{
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si); /* the machine's, not the emulated one of an x64 exe on Arm */
    switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
        return "x86_64";
    case PROCESSOR_ARCHITECTURE_ARM64:
        return "arm64";
    case PROCESSOR_ARCHITECTURE_INTEL:
        return "x86";
    default:
        return "unknown";
    }
}

char cc_pf_path_sep(void)
{
    return '\\';
}

const char *cc_pf_exe_suffix(void)
{
    return ".exe";
}

char *cc_pf_self_exe(void)
{
    DWORD cap = 260;
    for (;;) {
        wchar_t *buf = malloc(cap * sizeof(wchar_t));
        if (!buf) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            return NULL;
        }
        DWORD n = GetModuleFileNameW(NULL, buf, cap);
        if (n == 0) {
            cc_w_last_error("GetModuleFileNameW");
            free(buf);
            return NULL;
        }
        if (n < cap - 1) {
            cc_w_strip_prefix(buf);
            char *r = cc_w_to_utf8(buf);
            free(buf);
            return r;
        }
        free(buf);
        cap *= 2;
    }
}

/* <%var%>\cudnnctl<suffix>; when var is unset (or relative: a relative %var% would name the
 * working directory): <home><home_rel> or, with no home_rel, dflt. */
static char *under(const char *var, const char *home_rel, const char *dflt, const char *suffix)
{
    const char *base = cc_pf_getenv(var);
    char *own = NULL, *r = NULL;
    if (!base || !*base || !cc_pf_is_abs(base)) {
        char *home = home_rel ? cc_pf_home_dir() : NULL;
        if (home) {
            size_t n = strlen(home) + strlen(home_rel) + 1;
            own = malloc(n);
            if (own)
                snprintf(own, n, "%s%s", home, home_rel);
            free(home);
        } else {
            own = _strdup(dflt);
        }
        if (!own)
            return NULL;
        base = own;
    }
    size_t n = strlen(base) + strlen("\\cudnnctl") + strlen(suffix) + 1;
    r = malloc(n);
    if (r)
        snprintf(r, n, "%s\\cudnnctl%s", base, suffix);
    free(own);
    return r;
}

char *cc_pf_default_cache_dir(void)
{
    return under("LOCALAPPDATA", "\\AppData\\Local", NULL, "\\cache");
}

char *cc_pf_default_state_dir(void)
{
    if (cc_pf_is_root())
        return under("ProgramData", NULL, "C:\\ProgramData", "");
    return under("LOCALAPPDATA", "\\AppData\\Local", NULL, "\\state");
}
