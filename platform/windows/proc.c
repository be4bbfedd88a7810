/* proc.c (windows): running a child process (CreateProcessW) with captured output and a timeout.
 * The child runs in a job object so a timeout kills its descendants too (like the Linux process
 * group); only the three standard handles are inherited (PROC_THREAD_ATTRIBUTE_HANDLE_LIST). */
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win.h"
#include "grow.h"

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
        if (cc_grow(&b->p, &b->cap, b->len + n + 1, sizeof(wchar_t)) != 0) {
            b->oom = 1;
            return;
        }
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
            if (cc_grow(&r->buf, NULL, nc + 1, 1) != 0)
                break;
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

/* ---- one run ------------------------------------------------------------------------------ */
typedef struct {
    wbuf cmd, envb;
    HANDLE out_r, out_w, in_r, in_w, err_w, job, thread;
    LPPROC_THREAD_ATTRIBUTE_LIST attrs;
    PROCESS_INFORMATION pi;
    reader *rd;
    int timed_out, leak_reader;
} run_state;

/* The quoted command line and the environment block (NUL-separated, NUL-terminated). */
static int build_cmdline(run_state *st, const char *const *argv, const char *const *env)
{
    for (size_t i = 0; argv[i]; i++) {
        wchar_t *a = cc_w_from_utf8(argv[i]);
        if (!a)
            return -1;
        if (i)
            wb_put(&st->cmd, L" ", 1);
        quote_arg(&st->cmd, a);
        free(a);
    }
    if (env) {
        for (size_t i = 0; env[i]; i++) {
            wchar_t *e = cc_w_from_utf8(env[i]);
            if (!e)
                return -1;
            wb_put(&st->envb, e, wcslen(e) + 1);
            free(e);
        }
        wb_put(&st->envb, L"\0", 1);
    }
    if (st->cmd.oom || st->envb.oom || !st->cmd.p) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        return -1;
    }
    return 0;
}

/* The child's standard handles: a pipe for output, a pipe or NUL for input, NUL or the output
 * pipe for stderr. */
static int make_pipes(run_state *st, SECURITY_ATTRIBUTES *sa, const char *stdin_data,
                      int merge_stderr)
{
    if (!CreatePipe(&st->out_r, &st->out_w, sa, 65536)) {
        cc_w_last_error("CreatePipe");
        return -1;
    }
    SetHandleInformation(st->out_r, HANDLE_FLAG_INHERIT, 0);
    if (stdin_data) {
        if (!CreatePipe(&st->in_r, &st->in_w, sa, (DWORD)strlen(stdin_data) + 4096)) {
            cc_w_last_error("CreatePipe");
            return -1;
        }
        SetHandleInformation(st->in_w, HANDLE_FLAG_INHERIT, 0);
    } else {
        st->in_r = open_nul(GENERIC_READ, sa);
    }
    if (!merge_stderr)
        st->err_w = open_nul(GENERIC_WRITE, sa);
    if (st->in_r == INVALID_HANDLE_VALUE || st->err_w == INVALID_HANDLE_VALUE) {
        cc_w_last_error("open NUL");
        return -1;
    }
    return 0;
}

/* Start the child suspended, inheriting only its three standard handles where the attribute list
 * works; it resumes inside a job object. */
static BOOL spawn(run_state *st, const char *const *env, int merge_stderr)
{
    STARTUPINFOEXW si;
    memset(&si, 0, sizeof(si));
    si.StartupInfo.cb = sizeof(si.StartupInfo);
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = st->in_r;
    si.StartupInfo.hStdOutput = st->out_w;
    si.StartupInfo.hStdError = merge_stderr ? st->out_w : st->err_w;
    HANDLE inherit[3] = {st->in_r, st->out_w, st->err_w};
    DWORD ninherit = merge_stderr ? 2 : 3;
    SIZE_T asz = 0;
    DWORD cflags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW;
    InitializeProcThreadAttributeList(NULL, 1, 0, &asz);
    st->attrs = asz ? HeapAlloc(GetProcessHeap(), 0, asz) : NULL;
    if (st->attrs && InitializeProcThreadAttributeList(st->attrs, 1, 0, &asz) &&
        UpdateProcThreadAttribute(st->attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
                                  ninherit * sizeof(HANDLE), NULL, NULL)) {
        si.StartupInfo.cb = sizeof(si);
        si.lpAttributeList = st->attrs;
        cflags |= EXTENDED_STARTUPINFO_PRESENT;
    } else if (st->attrs) {
        /* without the list every inheritable handle is inherited: still correct */
        HeapFree(GetProcessHeap(), 0, st->attrs);
        st->attrs = NULL;
    }
    return CreateProcessW(NULL, st->cmd.p, NULL, NULL, TRUE, cflags, env ? st->envb.p : NULL, NULL,
                          &si.StartupInfo, &st->pi);
}

/* Put the started child in a job, resume it and close our copies of its ends: the reader sees
 * EOF once the child side is closed. */
static void resume_child(run_state *st)
{
    st->job = CreateJobObjectW(NULL, NULL);
    if (st->job && !AssignProcessToJobObject(st->job, st->pi.hProcess)) {
        CloseHandle(st->job); /* nested jobs unsupported here: the timeout kills the child only */
        st->job = NULL;
    }
    ResumeThread(st->pi.hThread);
    CloseHandle(st->out_w);
    st->out_w = NULL;
    CloseHandle(st->in_r);
    st->in_r = NULL;
    if (st->err_w) {
        CloseHandle(st->err_w);
        st->err_w = NULL;
    }
}

/* The reader thread, then the input: small inputs only (scripts, JSON requests), the pipe buffer
 * holds them. */
static int start_io(run_state *st, const char *stdin_data)
{
    st->rd = calloc(1, sizeof(*st->rd));
    if (!st->rd) {
        cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
        TerminateProcess(st->pi.hProcess, 1);
        return -1;
    }
    st->rd->h = st->out_r;
    st->thread = (HANDLE)_beginthreadex(NULL, 0, reader_main, st->rd, 0, NULL);
    if (!st->thread) {
        cc_w_last_error("_beginthreadex");
        TerminateProcess(st->pi.hProcess, 1);
        return -1;
    }
    if (st->in_w) {
        const char *p = stdin_data;
        size_t n = strlen(p);
        while (n > 0) {
            DWORD put = 0;
            if (!WriteFile(st->in_w, p, n > 65536 ? 65536 : (DWORD)n, &put, NULL) || put == 0)
                break;
            p += put;
            n -= put;
        }
        CloseHandle(st->in_w);
        st->in_w = NULL;
    }
    return 0;
}

/* Wait for the child and the reader; on a timeout kill the job and give the reader a moment. */
static int wait_child(run_state *st, unsigned timeout_ms)
{
    HANDLE both[2] = {st->pi.hProcess, st->thread};
    DWORD wr = WaitForMultipleObjects(2, both, TRUE, timeout_ms ? timeout_ms : INFINITE);
    if (wr == WAIT_TIMEOUT) {
        st->timed_out = 1;
        if (st->job)
            TerminateJobObject(st->job, 1);
        TerminateProcess(st->pi.hProcess, 1);
        WaitForSingleObject(st->pi.hProcess, 5000);
        if (WaitForSingleObject(st->thread, 2000) == WAIT_TIMEOUT) {
            CancelSynchronousIo(st->thread); /* a process outside the job still holds the pipe */
            if (WaitForSingleObject(st->thread, 3000) == WAIT_TIMEOUT)
                st->leak_reader = 1;
        }
    } else if (wr == WAIT_FAILED) {
        cc_w_last_error("WaitForMultipleObjects");
        if (st->job)
            TerminateJobObject(st->job, 1);
        TerminateProcess(st->pi.hProcess, 1);
        st->leak_reader = WaitForSingleObject(st->thread, 5000) == WAIT_TIMEOUT;
        return -1;
    }
    return 0;
}

/* The exit status and the captured output. */
static int collect(run_state *st, char **out, size_t *out_len, int *status)
{
    DWORD code = 0;
    if (st->timed_out)
        *status = -1;
    else if (!GetExitCodeProcess(st->pi.hProcess, &code))
        *status = -2;
    else if (code >= 0xC0000000u && code <= 0xCFFFFFFFu)
        *status = -2; /* an NTSTATUS exception (access violation, ...): the crash of a signal */
    else
        *status = (int)code;
    reader *rd = st->rd;
    if (out && !st->leak_reader) {
        if (!rd->buf)
            rd->buf = calloc(1, 1);
        else
            rd->buf[rd->len] = '\0';
        if (!rd->buf) {
            cc_w_set_error(ERROR_NOT_ENOUGH_MEMORY, NULL);
            return -1;
        }
        *out = rd->buf;
        if (out_len)
            *out_len = rd->len;
        rd->buf = NULL;
    } else if (out) {
        *out = calloc(1, 1);
    }
    return 0;
}

static void run_free(run_state *st)
{
    if (st->thread)
        CloseHandle(st->thread);
    if (st->rd && !st->leak_reader) {
        free(st->rd->buf);
        free(st->rd);
    }
    if (st->out_r && !st->leak_reader)
        CloseHandle(st->out_r);
    if (st->out_w)
        CloseHandle(st->out_w);
    if (st->in_r && st->in_r != INVALID_HANDLE_VALUE)
        CloseHandle(st->in_r);
    if (st->in_w)
        CloseHandle(st->in_w);
    if (st->err_w && st->err_w != INVALID_HANDLE_VALUE)
        CloseHandle(st->err_w);
    if (st->pi.hThread)
        CloseHandle(st->pi.hThread);
    if (st->pi.hProcess)
        CloseHandle(st->pi.hProcess);
    if (st->job)
        CloseHandle(st->job);
    if (st->attrs) {
        DeleteProcThreadAttributeList(st->attrs);
        HeapFree(GetProcessHeap(), 0, st->attrs);
    }
    free(st->cmd.p);
    free(st->envb.p);
}

int cc_pf_run(const char *const *argv, const char *const *env, const char *stdin_data,
              unsigned timeout_ms, int merge_stderr, char **out, size_t *out_len, int *status)
{
    int rc = -1;
    run_state st;
    memset(&st, 0, sizeof(st));
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    *status = -1;
    SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
    if (build_cmdline(&st, argv, env) != 0 || make_pipes(&st, &sa, stdin_data, merge_stderr) != 0)
        goto out;
    if (!spawn(&st, env, merge_stderr)) {
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
    resume_child(&st);
    if (start_io(&st, stdin_data) == 0 && wait_child(&st, timeout_ms) == 0 &&
        collect(&st, out, out_len, status) == 0)
        rc = 0;
out:
    run_free(&st);
    return rc;
}

/* Windows: no login shell to overlap; start keeps the arguments, finish runs the child then. */
struct cc_pf_child {
    char **argv, **env;
    int merge_stderr;
};

static char **strv_dup(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **d = v ? calloc(n + 1, sizeof(*d)) : NULL;
    for (size_t i = 0; d && i < n; i++)
        if (!(d[i] = strdup(v[i]))) {
            for (size_t k = 0; k < i; k++)
                free(d[k]);
            free(d);
            return NULL;
        }
    return d;
}

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

cc_pf_child *cc_pf_start(const char *const *argv, const char *const *env, unsigned flags)
{
    cc_pf_child *c = calloc(1, sizeof(*c));
    if (c && (c->argv = strv_dup(argv)) != NULL && (!env || (c->env = strv_dup(env)) != NULL)) {
        c->merge_stderr = (flags & CC_PF_CHILD_MERGE_STDERR) != 0; /* CC_PF_CHILD_FD34: not here */
        return c;
    }
    if (c) {
        strv_free(c->argv);
        free(c);
    }
    cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
    return NULL;
}

int cc_pf_finish(cc_pf_child *c, const char *stdin_data, unsigned timeout_ms,
                 const char *end_line, char **out, size_t *out_len, int *status)
{
    (void)end_line; /* the child ran to its end (cc_pf_run) */
    int rc = cc_pf_run((const char *const *)c->argv, (const char *const *)c->env,
                       stdin_data ? stdin_data : "", timeout_ms, c->merge_stderr, out, out_len,
                       status);
    cc_pf_cancel(c);
    return rc;
}

void cc_pf_cancel(cc_pf_child *c)
{
    if (!c)
        return;
    strv_free(c->argv);
    strv_free(c->env);
    free(c);
}
