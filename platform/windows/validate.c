/* validate.c (windows): what the validation child needs beyond dl.c: loads with flags (no meaning
 * on Windows: every load binds at once and exports stay per module), the module paths as loaded,
 * and crash notes (an unhandled-exception filter) for the parent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win.h"

void *cc_pf_dlopen_ex(const char *path, unsigned flags)
{
    (void)flags;
    return cc_pf_dlopen(path);
}

char **cc_pf_loaded_module_paths(const char *prefix)
{
    /* GetModuleFileNameExW gives the path the loader opened (links are not resolved) */
    return cc_pf_loaded_modules(prefix);
}

/* Lines are built before any crash: the filter only calls WriteFile. */
static const char *const crash_names[] = {"SIGSEGV", "SIGILL", "SIGFPE", "SIGABRT"};
#define N_CRASH ((int)(sizeof(crash_names) / sizeof(crash_names[0])))
static char *crash_lines[N_CRASH];

static LONG WINAPI on_crash(EXCEPTION_POINTERS *ep)
{
    DWORD code = ep && ep->ExceptionRecord ? ep->ExceptionRecord->ExceptionCode : 0;
    int i;
    switch (code) {
    case EXCEPTION_ACCESS_VIOLATION:
    case EXCEPTION_IN_PAGE_ERROR:
    case EXCEPTION_STACK_OVERFLOW:
    case EXCEPTION_ARRAY_BOUNDS_EXCEEDED:
    case EXCEPTION_DATATYPE_MISALIGNMENT:
        i = 0;
        break;
    case EXCEPTION_ILLEGAL_INSTRUCTION:
    case EXCEPTION_PRIV_INSTRUCTION:
        i = 1;
        break;
    case EXCEPTION_INT_DIVIDE_BY_ZERO:
    case EXCEPTION_INT_OVERFLOW:
    case EXCEPTION_FLT_DIVIDE_BY_ZERO:
    case EXCEPTION_FLT_INVALID_OPERATION:
    case EXCEPTION_FLT_OVERFLOW:
        i = 2;
        break;
    default:
        i = 3;
    }
    const char *p = crash_lines[i];
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    if (p && out && out != INVALID_HANDLE_VALUE) {
        DWORD n = (DWORD)strlen(p), put = 0;
        WriteFile(out, p, n, &put, NULL);
    }
    return EXCEPTION_CONTINUE_SEARCH; /* the process then dies the usual way */
}

void cc_pf_crash_notify(const char *before, const char *after)
{
    for (int i = 0; i < N_CRASH; i++) {
        size_t n = strlen(before) + strlen(crash_names[i]) + strlen(after) + 1;
        char *line = malloc(n);
        if (!line)
            continue;
        snprintf(line, n, "%s%s%s", before, crash_names[i], after);
        free(crash_lines[i]);
        crash_lines[i] = line;
    }
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX); /* no WER dialog */
    SetUnhandledExceptionFilter(on_crash);
}

char cc_pf_path_list_sep(void)
{
    return ';';
}
