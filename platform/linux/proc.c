/* proc.c (linux): running a child with captured output and a timeout; as root, only a program
 * that passes the trust rule. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
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

/* CC_PF_CHILD_BACKGROUND, in the child after setsid: 10 nice levels down, and its new session's
 * autogroup too (CONFIG_SCHED_AUTOGROUP: a session of its own would otherwise weigh as much as
 * the caller's whole session). Raising niceness needs no privilege; where it fails the child runs
 * as before. */
static void lower_priority(void)
{
    errno = 0;
    int cur = getpriority(PRIO_PROCESS, 0);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, 0, cur + 10 > 19 ? 19 : cur + 10);
    int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)!write(fd, "10", 2);
        close(fd);
    }
}

static void child_exec(const char *const *argv, const char *const *env, int in_fd, int out_fd,
                       unsigned flags)
{
    /* a new session: no controlling terminal (an interactive `bash -i` child would otherwise
     * take the terminal's job control and stop on SIGTTOU, and nothing it runs can read the
     * user's keyboard), and its own process group, so a timeout can stop grandchildren too */
    setsid();
    if (flags & CC_PF_CHILD_BACKGROUND)
        lower_priority();
    int dn = open("/dev/null", O_RDWR);
    if (flags & CC_PF_CHILD_FD34) {
        /* above 4 first (a pipe end may already be 3 or 4, and dup2 onto itself would keep its
         * close-on-exec), then 3 and 4; what the child's start-up runs sees /dev/null on 0-2 */
        int a = in_fd >= 0 ? fcntl(in_fd, F_DUPFD, 10) : dup(dn);
        int b = fcntl(out_fd, F_DUPFD, 10);
        dup2(dn, 0);
        dup2(dn, 1);
        dup2(dn, 2);
        dup2(a, 3);
        dup2(b, 4);
        close(a);
        close(b);
    } else {
        dup2(in_fd >= 0 ? in_fd : dn, 0);
        dup2(out_fd, 1);
        dup2((flags & CC_PF_CHILD_MERGE_STDERR) ? out_fd : dn, 2);
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
static pid_t spawn_child(const char *const *argv, const char *const *env, unsigned flags,
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
        child_exec(argv, env, ip[0], op[1], flags);
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

/* Does the output end with the line end_line ("END\n", at the start or after a newline)? */
static int ends_with_line(const char *buf, size_t len, const char *end_line)
{
    size_t n = strlen(end_line);
    if (len < n + 1 || buf[len - 1] != '\n' || memcmp(buf + len - 1 - n, end_line, n) != 0)
        return 0;
    return len == n + 1 || buf[len - n - 2] == '\n';
}

/* Read the output until EOF, the line end_line (NULL: none; a child whose start-up left a
 * background process holding the pipe never gives EOF) or the deadline (0: none); 1 when the
 * deadline passed first. */
static int read_output(int fd, uint64_t deadline, const char *end_line, char **bufp,
                       size_t *lenp)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int timed_out = 0;
    for (;;) {
        int64_t left = (int64_t)(deadline - cc_pf_now_ms());
        if (deadline && left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, deadline ? (int)left : -1);
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
        if (end_line && ends_with_line(buf, len, end_line))
            break;
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

/* Is a process of session sid still running (not a zombie: one whose parent died waits for
 * init to reap it, and still counts for kill(-sid, 0))? */
static int session_running(pid_t sid)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int found = 0;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        char *p = strrchr(buf, ')'), state = 0;
        int session = 0; /* after the name: state, ppid, pgrp, session */
        if (p && sscanf(p + 1, " %c %*d %*d %d", &state, &session) == 2)
            found = session == sid && state != 'Z' && state != 'X';
    }
    if (d)
        closedir(d);
    return found;
}

/* Signal the session and give it until `until` to end; 1 when nothing of it runs any more. */
static int signal_and_wait(pid_t pid, int sig, uint64_t until, int *reaped, int *ws)
{
    kill(-pid, sig);
    if (!*reaped)
        kill(pid, sig); /* in case it had not reached setsid() yet */
    for (;;) {
        if (!*reaped && waitpid(pid, ws, WNOHANG) == pid)
            *reaped = 1;
        if (*reaped && !session_running(pid))
            return 1;
        if (cc_pf_now_ms() >= until)
            return 0;
        cc_pf_sleep_ms(10);
    }
}

/* Stop a child's session as a closed terminal does: SIGHUP alone first (a shell's start-up
 * scripts run their EXIT traps, so a lock they hold, pyenv's rehash lock for one, is released;
 * SIGKILL left it behind and every later login shell waited 60 s on it; a second signal during
 * the trap cut it short), SIGTERM for what ignores that, SIGKILL for what is left after
 * STOP_GRACE_MS; the child reaped. *ws its wait status. */
#define STOP_GRACE_MS 2000
static void stop_session(pid_t pid, int *ws)
{
    int reaped = 0;
    uint64_t t0 = cc_pf_now_ms();
    if (signal_and_wait(pid, SIGHUP, t0 + STOP_GRACE_MS / 2, &reaped, ws) ||
        signal_and_wait(pid, SIGTERM, t0 + STOP_GRACE_MS, &reaped, ws))
        return;
    kill(-pid, SIGKILL);
    if (!reaped) {
        kill(pid, SIGKILL);
        while (waitpid(pid, ws, 0) < 0 && errno == EINTR)
            ;
    }
}

/* Wait for the child until the deadline (0: none); 1 reaped (*ws), 0 not by then. A child
 * that closed its output exits at once, as a rule: the polls start at 1 ms, so a run does not
 * pay a fixed sleep for it. */
static int wait_until(pid_t pid, uint64_t deadline, int *ws)
{
    for (unsigned nap = 1;; nap = nap < 8 ? nap * 2 : nap) {
        pid_t r = waitpid(pid, ws, deadline ? WNOHANG : 0);
        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1; /* not ours to wait for: nothing to stop */
        if (deadline && cc_pf_now_ms() >= deadline)
            return 0;
        if (deadline)
            cc_pf_sleep_ms(nap);
    }
}

/* Read to EOF (or end_line) or the timeout, reap; stopped (stop_session) on timeout; the
 * output and status as cc_pf_run says. */
static void collect_child(pid_t pid, int out_r, unsigned timeout_ms, const char *end_line,
                          char **out, size_t *out_len, int *status)
{
    char *buf = NULL;
    size_t len = 0;
    uint64_t deadline = timeout_ms ? cc_pf_now_ms() + timeout_ms : 0;
    int timed_out = read_output(out_r, deadline, end_line, &buf, &len);
    close(out_r);
    int ws = 0;
    if (timed_out || !wait_until(pid, deadline, &ws)) {
        timed_out = 1;
        stop_session(pid, &ws);
    }
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
    pid_t pid = spawn_child(run ? run : argv, env, merge_stderr ? CC_PF_CHILD_MERGE_STDERR : 0,
                            stdin_data != NULL, &in_w, &out_r);
    argv_run_free(run);
    if (pid < 0)
        return -1;
    feed_stdin(in_w, stdin_data);
    collect_child(pid, out_r, timeout_ms, NULL, out, out_len, status);
    return 0;
}

struct cc_pf_child {
    pid_t pid;
    int in_w, out_r;
};

cc_pf_child *cc_pf_start(const char *const *argv, const char *const *env, unsigned flags)
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
    c->pid = spawn_child(run ? run : argv, env, flags, 1, &c->in_w, &c->out_r);
    argv_run_free(run);
    if (c->pid < 0) {
        free(c);
        return NULL;
    }
    return c;
}

int cc_pf_finish(cc_pf_child *c, const char *stdin_data, unsigned timeout_ms,
                 const char *end_line, char **out, size_t *out_len, int *status)
{
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    feed_stdin(c->in_w, stdin_data ? stdin_data : "");
    collect_child(c->pid, c->out_r, timeout_ms, end_line, out, out_len, status);
    free(c);
    return 0;
}

void cc_pf_cancel(cc_pf_child *c)
{
    if (!c)
        return;
    close(c->in_w);
    close(c->out_r);
    int ws = 0;
    stop_session(c->pid, &ws);
    free(c);
}
