/* env.c (windows): environment variables as UTF-8, UTF-8 command-line arguments, console, clocks,
 * the home directory and the elevation check. */
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

#include <shellapi.h>

/* cc_pf_getenv returns pointers that stay valid like getenv(3)'s: one cached UTF-8 copy per name,
 * replaced (and the old copy kept, never freed) only when the variable changed in between. */
typedef struct envent {
    char *name;
    char *value; /* NULL = unset when last read */
    struct envent *next;
} envent;

static envent *env_head;
static SRWLOCK env_lock = SRWLOCK_INIT;

static wchar_t *get_w(const wchar_t *wname)
{
    DWORD cap = 256;
    for (;;) {
        wchar_t *buf = malloc(cap * sizeof(wchar_t));
        if (!buf)
            return NULL;
        SetLastError(0);
        DWORD n = GetEnvironmentVariableW(wname, buf, cap);
        if (n == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND) {
            free(buf);
            return NULL;
        }
        if (n < cap)
            return buf;
        free(buf);
        cap = n + 1;
    }
}

const char *cc_pf_getenv(const char *name)
{
    wchar_t *wname = cc_w_from_utf8(name);
    if (!wname)
        return NULL;
    wchar_t *wv = get_w(wname);
    free(wname);
    char *v = wv ? cc_w_to_utf8(wv) : NULL;
    free(wv);
    const char *r = NULL;
    AcquireSRWLockExclusive(&env_lock);
    envent *e;
    for (e = env_head; e; e = e->next)
        if (_stricmp(e->name, name) == 0) /* Windows variable names ignore case */
            break;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (e)
            e->name = _strdup(name);
        if (!e || !e->name) {
            free(e);
            free(v);
            goto out;
        }
        e->next = env_head;
        env_head = e;
    }
    if (v && e->value && strcmp(v, e->value) == 0) {
        free(v);
    } else {
        e->value = v; /* the previous copy is deliberately kept alive for earlier callers */
    }
    r = e->value;
out:
    ReleaseSRWLockExclusive(&env_lock);
    return r;
}

int cc_pf_setenv(const char *name, const char *value)
{
    int rc = -1;
    wchar_t *wn = cc_w_from_utf8(name), *wv = value ? cc_w_from_utf8(value) : NULL;
    if (!wn || (value && !wv))
        goto out;
    if (!SetEnvironmentVariableW(wn, wv)) {
        cc_w_last_error(name);
        goto out;
    }
    rc = 0;
out:
    free(wn);
    free(wv);
    return rc;
}

char **cc_pf_args_utf8(int argc, char **argv)
{
    static char **args;
    if (args)
        return args;
    SetConsoleOutputCP(CP_UTF8);
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w || n != argc) { /* a caller that rewrote argv: keep it */
        if (w)
            LocalFree(w);
        return argv;
    }
    char **a = calloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; a && i < n; i++) {
        a[i] = cc_w_to_utf8(w[i]);
        if (!a[i]) {
            for (int j = 0; j < i; j++)
                free(a[j]);
            free(a);
            a = NULL;
        }
    }
    LocalFree(w);
    if (!a)
        return argv;
    args = a;
    return args;
}

int cc_pf_isatty(int fd)
{
    intptr_t h = _get_osfhandle(fd);
    DWORD mode;
    if (h == -1 || h == -2)
        return 0;
    return GetConsoleMode((HANDLE)h, &mode) ? 1 : 0; /* _isatty() also says yes for NUL */
}

int cc_pf_term_cols(int fd)
{
    intptr_t h = _get_osfhandle(fd);
    CONSOLE_SCREEN_BUFFER_INFO info;
    if (h == -1 || h == -2 || !GetConsoleScreenBufferInfo((HANDLE)h, &info))
        return 0;
    return info.srWindow.Right - info.srWindow.Left + 1;
}

static volatile int *g_newline_pending;

static BOOL WINAPI on_ctrl(DWORD type)
{
    (void)type;
    if (g_newline_pending && *g_newline_pending) {
        DWORD n;
        WriteFile(GetStdHandle(STD_ERROR_HANDLE), "\r\n", 2, &n, NULL);
    }
    return FALSE; /* the default handler ends the process */
}

void cc_pf_interrupt_newline(volatile int *pending)
{
    g_newline_pending = pending;
    SetConsoleCtrlHandler(on_ctrl, TRUE);
}

uint64_t cc_pf_now_ms(void)
{
    /* QueryPerformanceCounter: GetTickCount64 moves in 15.6 ms steps */
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (!freq.QuadPart && !QueryPerformanceFrequency(&freq))
        return (uint64_t)GetTickCount64();
    QueryPerformanceCounter(&now);
    return (uint64_t)(now.QuadPart / freq.QuadPart) * 1000u +
           (uint64_t)(now.QuadPart % freq.QuadPart) * 1000u / (uint64_t)freq.QuadPart;
}

int64_t cc_pf_time(void)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    return cc_w_filetime_to_unix(&ft);
}

char *cc_pf_home_dir(void)
{
    const char *h = cc_pf_getenv("USERPROFILE");
    if (h && *h)
        return _strdup(h);
    const char *d = cc_pf_getenv("HOMEDRIVE"), *p = cc_pf_getenv("HOMEPATH");
    if (d && p) {
        char *r = malloc(strlen(d) + strlen(p) + 1);
        if (r) {
            memcpy(r, d, strlen(d));
            memcpy(r + strlen(d), p, strlen(p) + 1);
        }
        return r;
    }
    return _strdup("C:\\");
}

int cc_pf_is_root(void)
{
    HANDLE tok;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
        return 0;
    TOKEN_ELEVATION el = {0};
    DWORD n = 0;
    BOOL ok = GetTokenInformation(tok, TokenElevation, &el, sizeof(el), &n);
    CloseHandle(tok);
    return ok && el.TokenIsElevated;
}

void cc_pf_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

/* Windows has no passwd database: the profile dir and the logon name stand in for it. */
char *cc_pf_passwd_home(void)
{
    return cc_pf_home_dir();
}

char *cc_pf_passwd_name(void)
{
    const char *u = cc_pf_getenv("USERNAME");
    return u && *u ? _strdup(u) : NULL;
}

int cc_pf_owner(const char *path, uint32_t *uid, char **name)
{
    (void)path;
    *uid = 0;
    *name = NULL;
    cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "file owners are ACLs on Windows (not read)");
    return -1;
}
