/* proc.c (linux): running a child with captured output and a timeout; as root, only a program
 * that passes the trust rule. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "grow.h"
#include "safepath.h"

void cc_pf_errno_(void);

int cc_pf_term_cols(int fd)
{
    struct winsize ws;
    if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0)
        return 0;
    return ws.ws_col;
}

static volatile int *g_newline_pending;

static void on_interrupt(int sig)
{
    if (g_newline_pending && *g_newline_pending) {
        ssize_t w = write(2, "\n", 1);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void cc_pf_interrupt_newline(volatile int *pending)
{
    g_newline_pending = pending;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static void child_exec(const char *const *argv, const char *const *env, int in_fd, int out_fd,
                       int merge_stderr)
{
    /* a new session: no controlling terminal (an interactive `bash -i` child would otherwise
     * take the terminal's job control and stop on SIGTTOU, and nothing it runs can read the
     * user's keyboard), and its own process group, so a timeout can kill grandchildren too */
    setsid();
    if (in_fd < 0)
        in_fd = open("/dev/null", O_RDONLY);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    if (merge_stderr)
        dup2(out_fd, 2);
    else {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
    }
    if (env)
        execvpe(argv[0], (char *const *)argv, (char *const *)env);
    else
        execvp(argv[0], (char *const *)argv);
    _exit(127);
}

/* Fork the child in its own session with a pipe for its output and, when it gets input, one for
 * that (else its stdin is /dev/null); the parent's ends in *in_w (-1: none) and *out_r. -1 when
 * it cannot. */
static pid_t spawn_child(const char *const *argv, const char *const *env, int merge_stderr,
                         int with_input, int *in_w, int *out_r)
{
    int op[2], ip[2] = {-1, -1};
    if (pipe2(op, O_CLOEXEC) != 0) {
        cc_pf_errno_();
        return -1;
    }
    if (with_input && pipe2(ip, O_CLOEXEC) != 0) {
        cc_pf_errno_();
        close(op[0]);
        close(op[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        cc_pf_errno_();
        close(op[0]);
        close(op[1]);
        if (with_input) {
            close(ip[0]);
            close(ip[1]);
        }
        return -1;
    }
    if (pid == 0)
        child_exec(argv, env, ip[0], op[1], merge_stderr);
    close(op[1]);
    if (with_input)
        close(ip[0]);
    *in_w = ip[1];
    *out_r = op[0];
    return pid;
}

/* Write the input and close it: small inputs only (scripts, JSON requests), a pipe buffer holds
 * them. */
static void feed_stdin(int fd, const char *stdin_data)
{
    if (fd < 0)
        return;
    if (stdin_data) {
        size_t n = strlen(stdin_data);
        signal(SIGPIPE, SIG_IGN);
        while (n > 0) {
            ssize_t w = write(fd, stdin_data, n);
            if (w <= 0)
                break;
            stdin_data += w;
            n -= (size_t)w;
        }
    }
    close(fd);
}

/* Read the output until EOF or the timeout (0: none); 1 when it timed out. */
static int read_output(int fd, unsigned timeout_ms, char **bufp, size_t *lenp)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    uint64_t deadline = cc_pf_now_ms() + timeout_ms;
    int timed_out = 0;
    for (;;) {
        int64_t left = (int64_t)(deadline - cc_pf_now_ms());
        if (timeout_ms && left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, timeout_ms ? (int)left : -1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0) {
            timed_out = 1;
            break;
        }
        if (len + 4096 > cap) {
            size_t nc = cap ? cap * 2 : 8192;
            if (cc_grow(&buf, NULL, nc + 1, 1) != 0)
                break;
            cap = nc;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    *bufp = buf;
    *lenp = len;
    return timed_out;
}

/* ---- what root may run (docs/security.md, "Running as root") ------------------------------ */

/* The first executable regular file called name in $PATH, searched as execvp does (glibc's
 * default path when PATH is unset; an empty entry is the working directory). NULL: none. */
static char *search_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    for (const char *s = path;;) {
        const char *e = strchr(s, ':');
        int n = e ? (int)(e - s) : (int)strlen(s);
        char *cand = NULL;
        struct stat st;
        if (asprintf(&cand, "%.*s/%s", n ? n : 1, n ? s : ".", name) < 0)
            return NULL;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        if (!e)
            return NULL;
        s = e + 1;
    }
}

static int is_self(const char *path)
{
    char *a = realpath(path, NULL), *b = realpath("/proc/self/exe", NULL);
    int same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

/* As root, what argv[0] names (a path, or the first match on PATH, which under `sudo -E` may hold
 * another user's directories) is run only when it passes the trust rule: it and every directory
 * on its way are owned by root (or the effective user) and writable by nobody else; otherwise
 * CUDNNCTL_E_UNTRUSTED and nothing runs. The match found is what is executed (no second PATH
 * search). Our own binary runs as /proc/self/exe: the image already running, whatever its path
 * holds now. Not root: *exe = NULL, argv[0] is run as given. */
static int exe_to_run(const char *name, char **exe)
{
    *exe = NULL;
    if (!cc_sp_enforcing())
        return 0;
    int searched = !strchr(name, '/');
    char *cand = searched ? search_path(name) : strdup(name);
    if (!cand)
        return 0; /* nothing to run: the exec fails (exit 127) as it always did */
    if (is_self(cand)) {
        free(cand);
        *exe = strdup("/proc/self/exe");
        return *exe ? 0 : -1;
    }
    if (cc_pf_trust_check(cand, CC_PF_TRUST_OBJECT) != 0) {
        char text[2048];
        snprintf(text, sizeof(text), "refusing to run %s as root: %s%s", cand,
                 cc_pf_last_error_text(),
                 searched ? "; it was the first '" : "");
        if (searched) {
            size_t n = strlen(text);
            snprintf(text + n, sizeof(text) - n,
                     "%s' on PATH: run cudnnctl with a PATH of root's own directories (plain "
                     "sudo, without -E, uses root's secure_path)",
                     name);
        }
        cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
        free(cand);
        return -1;
    }
    *exe = cand;
    return 0;
}

/* argv as it is run: argv[0] replaced by the program the trust rule checked (exe_to_run). 0 ok
 * (*run NULL: argv as given), -1 refused or out of memory. */
static int argv_to_run(const char *const *argv, const char ***run)
{
    char *exe = NULL;
    *run = NULL;
    if (exe_to_run(argv[0], &exe) != 0)
        return -1;
    if (!exe)
        return 0;
    size_t argc = 0;
    while (argv[argc])
        argc++;
    const char **r = calloc(argc + 2, sizeof(*r));
    if (!r) {
        free(exe);
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
        return -1;
    }
    memcpy(r, argv, argc * sizeof(*r));
    r[0] = exe; /* the program that was checked, by its path */
    *run = r;
    return 0;
}

static void argv_run_free(const char **run)
{
    if (run)
        free((char *)run[0]);
    free(run);
}

/* Read to EOF or the timeout, kill on timeout, reap; the output and status as cc_pf_run says. */
static void collect_child(pid_t pid, int out_r, unsigned timeout_ms, char **out, size_t *out_len,
                          int *status)
{
    char *buf = NULL;
    size_t len = 0;
    int timed_out = read_output(out_r, timeout_ms, &buf, &len);
    close(out_r);
    if (timed_out) {
        kill(-pid, SIGKILL); /* its session's group: grandchildren too */
        kill(pid, SIGKILL);  /* in case it had not reached setsid() yet */
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        *status = -1;
    else if (WIFEXITED(ws))
        *status = WEXITSTATUS(ws);
    else
        *status = -2;
    if (out) {
        if (!buf)
            buf = calloc(1, 1);
        else
            buf[len] = '\0';
        *out = buf;
        if (out_len)
            *out_len = len;
    } else {
        free(buf);
    }
}

int cc_pf_run(const char *const *argv, const char *const *env, const char *stdin_data,
              unsigned timeout_ms, int merge_stderr, char **out, size_t *out_len, int *status)
{
    int in_w = -1, out_r = -1;
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    const char **run = NULL;
    if (argv_to_run(argv, &run) != 0)
        return -1;
    pid_t pid = spawn_child(run ? run : argv, env, merge_stderr, stdin_data != NULL, &in_w,
                            &out_r);
    argv_run_free(run);
    if (pid < 0)
        return -1;
    feed_stdin(in_w, stdin_data);
    collect_child(pid, out_r, timeout_ms, out, out_len, status);
    return 0;
}

struct cc_pf_child {
    pid_t pid;
    int in_w, out_r;
};

cc_pf_child *cc_pf_start(const char *const *argv, const char *const *env, int merge_stderr)
{
    cc_pf_child *c = calloc(1, sizeof(*c));
    const char **run = NULL;
    if (!c) {
        cc_pf_set_error(CUDNNCTL_E_NOMEM, "out of memory");
        return NULL;
    }
    if (argv_to_run(argv, &run) != 0) {
        free(c);
        return NULL;
    }
    c->pid = spawn_child(run ? run : argv, env, merge_stderr, 1, &c->in_w, &c->out_r);
    argv_run_free(run);
    if (c->pid < 0) {
        free(c);
        return NULL;
    }
    return c;
}

int cc_pf_finish(cc_pf_child *c, const char *stdin_data, unsigned timeout_ms, char **out,
                 size_t *out_len, int *status)
{
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    feed_stdin(c->in_w, stdin_data ? stdin_data : "");
    collect_child(c->pid, c->out_r, timeout_ms, out, out_len, status);
    free(c);
    return 0;
}

void cc_pf_cancel(cc_pf_child *c)
{
    if (!c)
        return;
    kill(-c->pid, SIGKILL);
    kill(c->pid, SIGKILL);
    close(c->in_w);
    close(c->out_r);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    free(c);
}
