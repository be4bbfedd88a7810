/* test_use.c: switching toolkits under a fake root: plain /usr/local/cuda link, missing link,
 * real directory refused, alternatives state written like update-alternatives, /usr/local/cuda-M,
 * prefix `current`, ld.so.conf.d rewrite, and a reader process that never sees the link missing
 * while it is flipped 200 times. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "envwire_fixture.h"
#include "envwire_int.h"

static cudnnctl_use_result *use(fx_t *f, const char *v, cudnnctl_err want)
{
    const char *prefixes[] = {"/opt/cudnn"};
    cudnnctl_env_inputs in = {&f->det, prefixes, 1};
    cudnnctl_use_result *r = NULL;
    cudnnctl_err e = cudnnctl_use(f->ctx, &in, v, 0, &r);
    if (e != want)
        fail_msg("use %s: got %s (%s), want %s", v, cudnnctl_err_name(e),
                 cudnnctl_last_error(f->ctx)->detail, cudnnctl_err_name(want));
    return r;
}

static void plain_link(void **state)
{
    fx_t *f = *state;
    cudnnctl_use_result *r = use(f, "12.4", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/usr/local/cuda"), "cuda-12.4");
    assert_string_equal(r->previous, "/usr/local/cuda-13.0");
    assert_int_equal(r->mechanism, CUDNNCTL_MECH_LINK);
    assert_int_equal(r->changed, 1);
    cudnnctl_use_result_free(r);
    r = use(f, "12.4", CUDNNCTL_E_OK);
    assert_int_equal(r->changed, 0);
    cudnnctl_use_result_free(r);
    r = use(f, "13.0", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/usr/local/cuda"), "cuda-13.0");
    char *j = NULL;
    assert_int_equal(cudnnctl_use_result_json(r, &j), CUDNNCTL_E_OK);
    assert_non_null(strstr(j, "\"previous\":\"/usr/local/cuda-12.4\""));
    assert_non_null(strstr(j, "\"changed\":true"));
    cudnnctl_free(j);
    cudnnctl_use_result_free(r);
    /* no temporary link left behind */
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "ls -a '%s/usr/local' | grep -q cudnnctl", f->root);
    assert_int_not_equal(system(cmd), 0);
}

static void missing_dir_unknown(void **state)
{
    fx_t *f = *state;
    char p[1024];
    fx_path(f, p, sizeof(p), "/usr/local/cuda");
    unlink(p);
    cudnnctl_use_result *r = use(f, "11.8", CUDNNCTL_E_OK);
    assert_null(r->previous);
    assert_string_equal(fx_readlink(f, "/usr/local/cuda"), "cuda-11.8");
    cudnnctl_use_result_free(r);
    use(f, "10.2", CUDNNCTL_E_NO_TOOLKIT);
    assert_non_null(strstr(cudnnctl_last_error(f->ctx)->detail, "12.4 (/usr/local/cuda-12.4)"));
    unlink(p);
    fx_mkdir(f, "/usr/local/cuda/bin");
    use(f, "12.4", CUDNNCTL_E_ENV);
    assert_non_null(strstr(cudnnctl_last_error(f->ctx)->detail, "real directory"));
    assert_true(fx_exists(f, "/usr/local/cuda/bin")); /* untouched */
}

static void major_link_follows(void **state)
{
    fx_t *f = *state;
    fx_toolkit(f, 3, 12, 6);
    f->det.n_toolkits = 4;
    fx_link(f, "/usr/local/cuda-12", "/usr/local/cuda-12.4");
    fx_mkdir(f, "/usr/local/cuda-13/bin"); /* a real dir: never touched */
    cudnnctl_use_result *r = use(f, "12.6", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/usr/local/cuda-12"), "cuda-12.6");
    cudnnctl_use_result_free(r);
    r = use(f, "13.0", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/usr/local/cuda-12"), "cuda-12.6");
    assert_true(fx_exists(f, "/usr/local/cuda-13/bin"));
    cudnnctl_use_result_free(r);
    f->det.n_toolkits = 3;
    free(f->tk[3].path);
    free(f->tk[3].version);
    free(f->tk[3].lib_dir);
    free(f->tk[3].origin);
}

static const char alt_state[] = "auto\n/usr/local/cuda\ncudax\n/usr/local/cuda-x\n\n"
                                "/usr/local/cuda-12.4\n124\n/usr/local/cuda-12.4/bin\n"
                                "/usr/local/cuda-13.0\n130\n\n\n";

static void alternatives_rooted(void **state)
{
    fx_t *f = *state;
    fx_mkdir(f, "/etc/alternatives");
    fx_write(f, "/var/lib/dpkg/alternatives/cuda", alt_state);
    fx_link(f, "/etc/alternatives/cuda", "/usr/local/cuda-13.0");
    fx_link(f, "/usr/local/cuda", "/etc/alternatives/cuda");
    cudnnctl_use_result *r = use(f, "12.4", CUDNNCTL_E_OK);
    assert_int_equal(r->mechanism, CUDNNCTL_MECH_ALTERNATIVES);
    assert_string_equal(r->previous, "/usr/local/cuda-13.0");
    /* the links and state update-alternatives --set would leave */
    assert_string_equal(fx_readlink(f, "/usr/local/cuda"), "/etc/alternatives/cuda");
    assert_string_equal(fx_readlink(f, "/etc/alternatives/cuda"), "/usr/local/cuda-12.4");
    assert_string_equal(fx_readlink(f, "/etc/alternatives/cudax"), "/usr/local/cuda-12.4/bin");
    assert_string_equal(fx_readlink(f, "/usr/local/cuda-x"), "/etc/alternatives/cudax");
    assert_true(cc_str_starts(fx_read(f, "/var/lib/dpkg/alternatives/cuda"), "manual\n"));
    assert_string_equal(fx_read(f, "/var/lib/dpkg/alternatives/cuda") + 6, alt_state + 4);
    cudnnctl_use_result_free(r);
    /* back: 13.0 has no cudax slave, so the slave links go */
    r = use(f, "13.0", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/etc/alternatives/cuda"), "/usr/local/cuda-13.0");
    assert_false(fx_exists(f, "/etc/alternatives/cudax"));
    assert_false(fx_exists(f, "/usr/local/cuda-x"));
    cudnnctl_use_result_free(r);
    /* not registered: refused with the command that registers it */
    use(f, "11.8", CUDNNCTL_E_ENV);
    const char *d = cudnnctl_last_error(f->ctx)->detail;
    assert_non_null(strstr(d, "update-alternatives --install /usr/local/cuda cuda "
                              "/usr/local/cuda-11.8"));
    assert_string_equal(fx_readlink(f, "/etc/alternatives/cuda"), "/usr/local/cuda-13.0");
}

static void prefix_current_and_ldconf(void **state)
{
    fx_t *f = *state;
    fx_install(f, "9.19.0.56", 12);
    fx_install(f, "9.19.0.56", 13);
    fx_link(f, "/opt/cudnn/current", "cudnn-9.19.0.56-cuda13");
    fx_write(f, "/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf", "/usr/local/cuda-13.0/lib64\n");
    fx_write(f, "/etc/ld.so.conf.d/other.conf", "/opt/other\n");
    cudnnctl_use_result *r = use(f, "12.4", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/opt/cudnn/current"), "cudnn-9.19.0.56-cuda12");
    assert_string_equal(r->cudnn_path, "/opt/cudnn/cudnn-9.19.0.56-cuda12");
    assert_false(fx_exists(f, "/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf"));
    const char *conf = fx_read(f, "/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf");
    assert_non_null(strstr(conf, "\n/opt/cudnn/cudnn-9.19.0.56-cuda12/lib\n"
                                 "/usr/local/cuda-12.4/lib64\n"));
    assert_string_equal(fx_read(f, "/etc/ld.so.conf.d/other.conf"), "/opt/other\n");
    cudnnctl_use_result_free(r);
    /* 11.8 has no cuDNN in the prefix: current stays, a note says how to get one */
    r = use(f, "11.8", CUDNNCTL_E_OK);
    assert_string_equal(fx_readlink(f, "/opt/cudnn/current"), "cudnn-9.19.0.56-cuda12");
    assert_int_equal(r->n_notes, 1);
    assert_non_null(strstr(r->notes[0], "cudnnctl install --cuda 11 --prefix /opt/cudnn"));
    cudnnctl_use_result_free(r);
}

/* A child lstat()s and stat()s the link as fast as it can while 200 switches run. */
static void never_missing(void **state)
{
    fx_t *f = *state;
    char p[1024];
    fx_path(f, p, sizeof(p), "/usr/local/cuda");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        unsigned long checks = 0, missing = 0;
        struct stat st;
        char stop[1024];
        fx_path(f, stop, sizeof(stop), "/stop");
        while (access(stop, F_OK) != 0) {
            if (lstat(p, &st) != 0 || stat(p, &st) != 0)
                missing++;
            checks++;
        }
        char msg[64];
        int n = snprintf(msg, sizeof(msg), "%lu %lu", checks, missing);
        if (write(fds[1], msg, (size_t)n) != n)
            _exit(2);
        _exit(0);
    }
    close(fds[1]);
    for (int i = 0; i < 200; i++) {
        cudnnctl_use_result *r = use(f, i % 2 ? "13.0" : "12.4", CUDNNCTL_E_OK);
        assert_int_equal(r->changed, 1);
        cudnnctl_use_result_free(r);
    }
    fx_write(f, "/stop", "");
    char msg[64] = {0};
    assert_true(read(fds[0], msg, sizeof(msg) - 1) > 0);
    int status = 0;
    waitpid(pid, &status, 0);
    unsigned long checks = 0, missing = 0;
    assert_int_equal(sscanf(msg, "%lu %lu", &checks, &missing), 2);
    print_message("reader: %lu checks during 200 switches, %lu missing\n", checks, missing);
    assert_true(checks > 200);
    assert_int_equal(missing, 0);
}

/* No temporary link of ours anywhere under /usr/local, /etc/alternatives, /opt/cudnn. */
static int leftovers(fx_t *f)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "find '%s' -name '*.cudnnctl-*' -o -name '*.tmp-*' | grep -q .",
             f->root);
    return system(cmd) == 0;
}

/* Fail the N-th file operation of a switch, for every N: the link always exists and leads to
 * the old or the new toolkit, nothing temporary stays, and a clean retry succeeds. */
static void fault_every_call(void **state)
{
    fx_t *f = *state;
    fx_install(f, "9.19.0.56", 12);
    fx_install(f, "9.19.0.56", 13);
    fx_link(f, "/opt/cudnn/current", "cudnn-9.19.0.56-cuda13");
    fx_write(f, "/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf", "/usr/local/cuda-13.0/lib64\n");
    cudnnctl_use_result *r = use(f, "12.4", CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(f->ctx);
    cudnnctl_use_result_free(r);
    assert_true(calls > 5);
    int failed = 0;
    for (unsigned long n = 1; n <= calls + 1; n++) {
        r = use(f, "13.0", CUDNNCTL_E_OK);
        cudnnctl_use_result_free(r);
        const char *prefixes[] = {"/opt/cudnn"};
        cudnnctl_env_inputs in = {&f->det, prefixes, 1};
        cudnnctl_set_fault_injection(f->ctx, n);
        cudnnctl_err e = cudnnctl_use(f->ctx, &in, "12.4", 0, &r);
        cudnnctl_set_fault_injection(f->ctx, 0);
        cudnnctl_use_result_free(r);
        r = NULL;
        if (e != CUDNNCTL_E_OK)
            failed++;
        const char *l = fx_readlink(f, "/usr/local/cuda");
        if (strcmp(l, "cuda-12.4") != 0 && strcmp(l, "cuda-13.0") != 0)
            fail_msg("fault at call %lu: /usr/local/cuda -> '%s'", n, l);
        if (e == CUDNNCTL_E_OK)
            assert_string_equal(l, "cuda-12.4");
        if (leftovers(f))
            fail_msg("fault at call %lu left a temporary file", n);
        r = use(f, "12.4", CUDNNCTL_E_OK); /* a clean retry finishes the job */
        assert_string_equal(fx_readlink(f, "/usr/local/cuda"), "cuda-12.4");
        assert_string_equal(fx_readlink(f, "/opt/cudnn/current"), "cudnn-9.19.0.56-cuda12");
        assert_true(fx_exists(f, "/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf"));
        cudnnctl_use_result_free(r);
    }
    print_message("use 12.4: %lu file operations, %d injected failures reported\n", calls, failed);
    assert_true(failed > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(plain_link, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(missing_dir_unknown, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(major_link_follows, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(alternatives_rooted, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(prefix_current_and_ldconf, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(never_missing, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(fault_every_call, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
