/* test_child_stop.c: how cc_pf_start / cc_pf_finish / cc_pf_cancel / cc_pf_run treat a child
 * whose start-up is a shell's (Linux; the Windows halves only run cc_pf_run).
 *  - a stopped child's scripts run their EXIT traps: a lock they hold is released. Found in CI:
 *    the login probe's SIGKILL left pyenv's rehash lock (~/.pyenv/shims/.pyenv-shim) behind and
 *    every later login shell waited pyenv's 60 s on it, so the probe timed out everywhere after;
 *  - CC_PF_CHILD_FD34: what the start-up runs reads /dev/null, not the input (a `cat` there
 *    waited for the input, then ate it) and writes nowhere near the output;
 *  - the end line: a background process the start-up left holding the output pipe does not
 *    hold up finish until the timeout. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform.h"

static char dir[] = "/tmp/cudnnctl-child-stop.XXXXXX";

static int setup(void **state)
{
    (void)state;
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int exists(const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

static void wait_for(const char *name)
{
    for (int i = 0; i < 1000 && !exists(name); i++)
        usleep(10000);
    assert_true(exists(name));
}

/* A script that takes a lock, releases it in an EXIT trap, and works on for 60 s: pyenv
 * rehash's pattern. Run under an outer shell (bash -c), as a login shell's start-up runs it. */
static char *lock_script(void)
{
    char *s = NULL;
    assert_true(asprintf(&s,
                         "bash -c 'trap \"rm -f %s/lock\" EXIT; touch %s/lock; sleep 60'; "
                         "echo after",
                         dir, dir) > 0);
    return s;
}

static void cancel_runs_exit_traps(void **state)
{
    (void)state;
    char *s = lock_script();
    const char *argv[] = {"/bin/bash", "-c", s, NULL};
    cc_pf_child *c = cc_pf_start(argv, NULL, 0);
    assert_non_null(c);
    wait_for("lock");
    uint64_t t0 = cc_pf_now_ms();
    cc_pf_cancel(c);
    assert_true(cc_pf_now_ms() - t0 < 2500); /* the grace period at most */
    assert_false(exists("lock"));            /* the trap ran: SIGKILL alone left it */
    free(s);
}

static void timeout_runs_exit_traps(void **state)
{
    (void)state;
    char *s = lock_script();
    const char *argv[] = {"/bin/bash", "-c", s, NULL};
    char *out = NULL;
    size_t len = 0;
    int status = 0;
    assert_int_equal(cc_pf_run(argv, NULL, NULL, 1500, 0, &out, &len, &status), 0);
    assert_int_equal(status, -1);
    assert_false(exists("lock"));
    free(out);
    free(s);
}

/* A child that ignores SIGHUP and SIGTERM is killed after the grace period. */
static void stubborn_child_is_killed(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/bash", "-c", "trap '' HUP TERM; sleep 60 & wait; wait", NULL};
    cc_pf_child *c = cc_pf_start(argv, NULL, 0);
    assert_non_null(c);
    usleep(200000);
    uint64_t t0 = cc_pf_now_ms();
    cc_pf_cancel(c);
    uint64_t took = cc_pf_now_ms() - t0;
    assert_true(took >= 1900 && took < 5000);
}

/* FD34 and the end line: the start-up reads its stdin (/dev/null: at once), leaves a process
 * behind that holds every fd it had, and the report still comes whole and at once. */
static void fd34_and_end_line(void **state)
{
    (void)state;
    char *s = NULL;
    assert_true(asprintf(&s,
                         "cat > %s/stdin.seen; sleep 30 & echo $! > %s/bg.pid; "
                         "read -r x <&3; echo \"got $x\" >&4; echo END >&4; exec 3<&- 4>&-",
                         dir, dir) > 0);
    const char *argv[] = {"/bin/bash", "-c", s, NULL};
    cc_pf_child *c = cc_pf_start(argv, NULL, CC_PF_CHILD_FD34);
    assert_non_null(c);
    wait_for("stdin.seen"); /* cat ended before any input was sent: its stdin is not the pipe */
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    uint64_t t0 = cc_pf_now_ms();
    assert_int_equal(cc_pf_finish(c, "libcudnn.so.9\n", 20000, "END", &out, &len, &status), 0);
    assert_true(cc_pf_now_ms() - t0 < 5000); /* not the background sleep's 30 s */
    assert_string_equal(out, "got libcudnn.so.9\nEND\n");
    assert_int_equal(status, 0);
    struct stat st;
    char p[512];
    snprintf(p, sizeof(p), "%s/stdin.seen", dir);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_size, 0);
    free(out);
    free(s);
    /* the background sleep by its pid (a pattern could hit another test's sleep) */
    snprintf(p, sizeof(p), "%s/bg.pid", dir);
    FILE *f = fopen(p, "r");
    int bg = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%d", &bg), 1);
    fclose(f);
    assert_true(bg > 0);
    kill(bg, SIGTERM);
}

/* Without the end line, the same child's finish waits for EOF: the timeout (what the login probe
 * did when a start-up file left a daemon holding its output). */
static void without_end_line_eof_waits(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/bash", "-c", "sleep 31 & read -r x <&3; echo \"$x\" >&4", NULL};
    cc_pf_child *c = cc_pf_start(argv, NULL, CC_PF_CHILD_FD34);
    assert_non_null(c);
    char *out = NULL;
    size_t len = 0;
    int status = 0;
    assert_int_equal(cc_pf_finish(c, "x\n", 1500, NULL, &out, &len, &status), 0);
    assert_int_equal(status, -1);
    assert_string_equal(out, "x\n");
    free(out);
}

/* CC_PF_CHILD_BACKGROUND: the child and what it starts run 10 nice levels below the caller (the
 * 19th field of /proc/PID/stat), and its session's autogroup is 10 too where the kernel has them;
 * without the flag the child's niceness is the caller's. */
static int child_nice(unsigned flags, char autogroup[128])
{
    const char *argv[] = {"/bin/sh", "-c",
                          "sh -c 'cut -d\" \" -f19 /proc/$$/stat'; "
                          "cat /proc/self/autogroup 2>/dev/null || echo none",
                          NULL};
    cc_pf_child *c = cc_pf_start(argv, NULL, flags);
    assert_non_null(c);
    char *out = NULL;
    size_t len = 0;
    int status = -5;
    assert_int_equal(cc_pf_finish(c, "", 10000, NULL, &out, &len, &status), 0);
    assert_int_equal(status, 0);
    int nice = -100;
    assert_int_equal(sscanf(out, "%d\n%127[^\n]", &nice, autogroup), 2);
    free(out);
    return nice;
}

static void background_child_runs_nicer(void **state)
{
    (void)state;
    errno = 0;
    int mine = getpriority(PRIO_PROCESS, 0);
    assert_int_equal(errno, 0);
    char ag[128] = "";
    assert_int_equal(child_nice(0, ag), mine);
    int want = mine + 10 > 19 ? 19 : mine + 10;
    assert_int_equal(child_nice(CC_PF_CHILD_BACKGROUND, ag), want);
    if (strcmp(ag, "none") != 0) /* "/autogroup-N nice 10" */
        assert_non_null(strstr(ag, "nice 10"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(cancel_runs_exit_traps, setup, teardown),
        cmocka_unit_test_setup_teardown(timeout_runs_exit_traps, setup, teardown),
        cmocka_unit_test_setup_teardown(stubborn_child_is_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(fd34_and_end_line, setup, teardown),
        cmocka_unit_test_setup_teardown(without_end_line_eof_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(background_child_runs_nicer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
