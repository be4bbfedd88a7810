/* proc.c (windows): running a child process (CreateProcessW) with captured output and a timeout.
 * The child runs in a job object so a timeout kills its descendants too (like the Linux process
 * group); only the three standard handles are inherited (PROC_THREAD_ATTRIBUTE_HANDLE_LIST). */
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"

/* ---- command line quoting (the rules of CommandLineToArgvW and the MS C runtime) ----------------- */
typedef struct {
    wchar_t *p;
    size_t len, cap;
    int oom;
} wbuf;

static void wb_put(wbuf *b, const wchar_t *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        wchar_t *np = realloc(b->p, nc * sizeof(wchar_t));
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n * sizeof(wchar_t));
    b->len += n;
    b->p[b->len] = L'\0';
}

static void wb_rep(wbuf *b, wchar_t c, size_t n)
{
    while (n--)
        wb_put(b, &c, 1);
}

static void quote_arg(wbuf *b, const wchar_t *a)
{
    if (*a && !wcspbrk(a, L" \t\n\v\"")) {
        wb_put(b, a, wcslen(a));
        return;
    }
    wb_put(b, L"\"", 1);
    for (const wchar_t *p = a;; p++) {
        size_t bs = 0;
        while (*p == L'\\') {
            p++;
            bs++;
        }
        if (!*p) { /* backslashes before the closing quote are doubled */
            wb_rep(b, L'\\', bs * 2);
            break;
        }
        if (*p == L'"') { /* ... and before a literal quote: doubled plus one */
            wb_rep(b, L'\\', bs * 2 + 1);
            wb_put(b, L"\"", 1);
        } else {
            wb_rep(b, L'\\', bs);
            wb_put(b, p, 1);
        }
    }
    wb_put(b, L"\"", 1);
}

/* ---- output reader thread ------------------------------------------------------------------------ */
typedef struct {
    HANDLE h;
    char *buf;
    size_t len, cap;
} reader;

static unsigned __stdcall reader_main(void *arg)
{
    reader *r = arg;
    for (;;) {
        if (r->len + 4096 > r->cap) {
            size_t nc = r->cap ? r->cap * 2 : 8192;
            char *nb = realloc(r->buf, nc + 1);
            if (!nb)
                break;
            r->buf = nb;
            r->cap = nc;
        }
        DWORD got = 0;
        if (!ReadFile(r->h, r->buf + r->len, (DWORD)(r->cap - r->len), &got, NULL) || got == 0)
            break; /* ERROR_BROKEN_PIPE: every writer has closed its end */
        r->len += got;
    }
    return 0;
}

static HANDLE open_nul(DWORD access, SECURITY_ATTRIBUTES *sa)
{
    return CreateFileW(L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE, sa, OPEN_EXISTING, 0, NULL);
}

int cc_pf_run(const char *const *argv, const char *const *env, const char *stdin_data,
              unsigned timeout_ms, int merge_stderr, char **out, size_t *out_len, int *status)
{
    int rc = -1;
    wbuf cmd = {0}, envb = {0};
    HANDLE out_r = NULL, out_w = NULL, in_r = NULL, in_w = NULL, err_w = NULL, job = NULL;
    HANDLE thread = NULL;
    LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
    PROCESS_INFORMATION pi = {0};
    reader *rd = NULL;
    int timed_out = 0, leak_reader = 0;
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    *status = -1;

    for (size_t i = 0; argv[i]; i++) {
        wchar_t *a = cc_w_from_utf8(argv[i]);
        if (!a)
            goto out;
        if (i)
            wb_put(&cmd, L" ", 1);
        quote_arg(&cmd, a);
        free(a);
    }
    if (env) {
        for (size_t i = 0; env[i]; i++) {
            wchar_t *e = cc_w_from_utf8(env[i]);
            if (!e)
                goto out;
            wb_put(&envb, e, wcslen(e) + 1);
            free(e);
        }
        wb_put(&envb, L"\0", 1);
    }
    if (cmd.oom || envb.oom || !cmd.p) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        goto out;
    }

    SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
    if (!CreatePipe(&out_r, &out_w, &sa, 65536)) {
        cc_w_last_error("CreatePipe");
        goto out;
    }
    SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0);
    if (stdin_data) {
        if (!CreatePipe(&in_r, &in_w, &sa, (DWORD)strlen(stdin_data) + 4096)) {
            cc_w_last_error("CreatePipe");
            goto out;
        }
        SetHandleInformation(in_w, HANDLE_FLAG_INHERIT, 0);
    } else {
        in_r = open_nul(GENERIC_READ, &sa);
    }
    if (!merge_stderr)
        err_w = open_nul(GENERIC_WRITE, &sa);
    if (in_r == INVALID_HANDLE_VALUE || err_w == INVALID_HANDLE_VALUE) {
        cc_w_last_error("open NUL");
        goto out;
    }

    STARTUPINFOEXW si;
    memset(&si, 0, sizeof(si));
    si.StartupInfo.cb = sizeof(si.StartupInfo);
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = in_r;
    si.StartupInfo.hStdOutput = out_w;
    si.StartupInfo.hStdError = merge_stderr ? out_w : err_w;
    HANDLE inherit[3] = {in_r, out_w, err_w};
    DWORD ninherit = merge_stderr ? 2 : 3;
    SIZE_T asz = 0;
    DWORD cflags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW;
    InitializeProcThreadAttributeList(NULL, 1, 0, &asz);
    attrs = asz ? HeapAlloc(GetProcessHeap(), 0, asz) : NULL;
    if (attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &asz) &&
        UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
                                  ninherit * sizeof(HANDLE), NULL, NULL)) {
        si.StartupInfo.cb = sizeof(si);
        si.lpAttributeList = attrs;
        cflags |= EXTENDED_STARTUPINFO_PRESENT;
    } else if (attrs) { /* without the list every inheritable handle is inherited: still correct */
        HeapFree(GetProcessHeap(), 0, attrs);
        attrs = NULL;
    }

    if (!CreateProcessW(NULL, cmd.p, NULL, NULL, TRUE, cflags, env ? envb.p : NULL, NULL,
                        &si.StartupInfo, &pi)) {
        /* like exec failing in the Linux child: the run happened, the program did not */
        cc_w_last_error(argv[0]);
        *status = 127;
        rc = 0;
        if (out) {
            *out = calloc(1, 1);
            if (!*out)
                rc = -1;
        }
        goto out;
    }
    job = CreateJobObjectW(NULL, NULL);
    if (job && !AssignProcessToJobObject(job, pi.hProcess)) {
        CloseHandle(job); /* nested jobs unsupported here: the timeout kills the child only */
        job = NULL;
    }
    ResumeThread(pi.hThread);
    /* our copies of the child's ends: the reader sees EOF once the child side is closed */
    CloseHandle(out_w);
    out_w = NULL;
    CloseHandle(in_r);
    in_r = NULL;
    if (err_w) {
        CloseHandle(err_w);
        err_w = NULL;
    }

    rd = calloc(1, sizeof(*rd));
    if (!rd) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        TerminateProcess(pi.hProcess, 1);
        goto out;
    }
    rd->h = out_r;
    thread = (HANDLE)_beginthreadex(NULL, 0, reader_main, rd, 0, NULL);
    if (!thread) {
        cc_w_last_error("_beginthreadex");
        TerminateProcess(pi.hProcess, 1);
        goto out;
    }
    if (in_w) { /* small inputs only (scripts, JSON requests): the pipe buffer holds them */
        const char *p = stdin_data;
        size_t n = strlen(p);
        while (n > 0) {
            DWORD put = 0;
            if (!WriteFile(in_w, p, n > 65536 ? 65536 : (DWORD)n, &put, NULL) || put == 0)
                break;
            p += put;
            n -= put;
        }
        CloseHandle(in_w);
        in_w = NULL;
    }

    HANDLE both[2] = {pi.hProcess, thread};
    DWORD wr = WaitForMultipleObjects(2, both, TRUE, timeout_ms ? timeout_ms : INFINITE);
    if (wr == WAIT_TIMEOUT) {
        timed_out = 1;
        if (job)
            TerminateJobObject(job, 1);
        TerminateProcess(pi.hProcess, 1);
        WaitForSingleObject(pi.hProcess, 5000);
        if (WaitForSingleObject(thread, 2000) == WAIT_TIMEOUT) {
            CancelSynchronousIo(thread); /* a process outside the job still holds the pipe */
            if (WaitForSingleObject(thread, 3000) == WAIT_TIMEOUT)
                leak_reader = 1;
        }
    } else if (wr == WAIT_FAILED) {
        cc_w_last_error("WaitForMultipleObjects");
        if (job)
            TerminateJobObject(job, 1);
        TerminateProcess(pi.hProcess, 1);
        leak_reader = WaitForSingleObject(thread, 5000) == WAIT_TIMEOUT;
        goto out;
    }
    DWORD code = 0;
    if (timed_out)
        *status = -1;
    else if (!GetExitCodeProcess(pi.hProcess, &code))
        *status = -2;
    else if (code >= 0xC0000000u && code <= 0xCFFFFFFFu)
        *status = -2; /* an NTSTATUS exception (access violation, ...): the crash of a signal */
    else
        *status = (int)code;
    if (out && !leak_reader) {
        if (!rd->buf)
            rd->buf = calloc(1, 1);
        else
            rd->buf[rd->len] = '\0';
        if (!rd->buf) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            goto out;
        }
        *out = rd->buf;
        if (out_len)
            *out_len = rd->len;
        rd->buf = NULL;
    } else if (out) {
        *out = calloc(1, 1);
    }
    rc = 0;
out:
    if (thread)
        CloseHandle(thread);
    if (rd && !leak_reader) {
        free(rd->buf);
        free(rd);
    }
    if (out_r && !leak_reader)
        CloseHandle(out_r);
    if (out_w)
        CloseHandle(out_w);
    if (in_r && in_r != INVALID_HANDLE_VALUE)
        CloseHandle(in_r);
    if (in_w)
        CloseHandle(in_w);
    if (err_w && err_w != INVALID_HANDLE_VALUE)
        CloseHandle(err_w);
    if (pi.hThread)
        CloseHandle(pi.hThread);
    if (pi.hProcess)
        CloseHandle(pi.hProcess);
    if (job)
        CloseHandle(job);
    if (attrs) {
        DeleteProcThreadAttributeList(attrs);
        HeapFree(GetProcessHeap(), 0, attrs);
    }
    free(cmd.p);
    free(envb.p);
    return rc;
}
