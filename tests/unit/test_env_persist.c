/* test_env_persist.c: persistent wiring under a fake root: the user's env files and marked rc
 * lines (added once, replaced in place, removed; symlinked rc files edited through the link),
 * /etc/profile.d, /etc/fish/conf.d and /etc/ld.so.conf.d (+ the ldconfig note under --root). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "envwire_fixture.h"
#include "envwire_int.h"

static const char bashrc[] = "# my bashrc\nalias ll='ls -l'\nexport EDITOR=vi";

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static cudnnctl_env_selection *select_124(fx_t *f)
{
    cudnnctl_env_inputs in = {&f->det, NULL, 0};
    cudnnctl_env_selection *s = NULL;
    assert_int_equal(cudnnctl_env_select(f->ctx, &in, "12.4", 0, &s), CUDNNCTL_E_OK);
    return s;
}

static int user_setup(void **state)
{
    if (fx_setup(state) != 0)
        return -1;
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("ZDOTDIR");
    setenv("SHELL", "/bin/bash", 1);
    return 0;
}

static void user_lines_once_and_removed(void **state)
{
    fx_t *f = *state;
    fx_write(f, "/home/u/.bashrc", bashrc);
    fx_write(f, "/home/u/.zshrc", "# zsh\n");
    cudnnctl_env_selection *s = select_124(f);
    cudnnctl_persist_opts o = {0, 0};
    for (int round = 0; round < 2; round++) {
        cudnnctl_changes ch = {0};
        assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_OK);
        cudnnctl_changes_free(&ch);
    }
    const char *b = fx_read(f, "/home/u/.bashrc");
    assert_true(cc_str_starts(b, "# my bashrc\nalias ll='ls -l'\nexport EDITOR=vi\n"));
    assert_int_equal(count(b, "# added by cudnnctl"), 1);
    assert_non_null(strstr(b, ". \"$HOME/.config/cudnnctl/env.sh\""));
    assert_int_equal(count(fx_read(f, "/home/u/.zshrc"), "# added by cudnnctl"), 1);
    assert_false(fx_exists(f, "/home/u/.config/fish/config.fish")); /* fish not in use */
    const char *env = fx_read(f, "/home/u/.config/cudnnctl/env.sh");
    assert_non_null(strstr(env, "CUDA_HOME='/usr/local/cuda-12.4'"));
    assert_null(strstr(env, "LD_LIBRARY_PATH='")); /* never a persistent library path */
    assert_non_null(strstr(fx_read(f, "/home/u/.config/cudnnctl/env.fish"), "set -gx PATH"));
    /* a user edit around the line survives; a changed selection replaces it in place */
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s# after\n", fx_read(f, "/home/u/.bashrc"));
    fx_write(f, "/home/u/.bashrc", buf);
    o.shells = 1u << CUDNNCTL_SHELL_FISH;
    cudnnctl_changes ch = {0};
    assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_OK);
    cudnnctl_changes_free(&ch);
    assert_int_equal(count(fx_read(f, "/home/u/.config/fish/config.fish"), "# added by cudnnctl"),
                     1);
    assert_non_null(strstr(fx_read(f, "/home/u/.config/fish/config.fish"),
                           "source \"$HOME/.config/cudnnctl/env.fish\""));
    /* remove: every marked line, the env files; the rest byte for byte */
    cudnnctl_persist_opts r = {0, 0};
    assert_int_equal(cudnnctl_env_unpersist(f->ctx, &r, &ch), CUDNNCTL_E_OK);
    assert_true(ch.n >= 5);
    cudnnctl_changes_free(&ch);
    snprintf(buf, sizeof(buf), "%s\n# after\n", bashrc);
    assert_string_equal(fx_read(f, "/home/u/.bashrc"), buf);
    assert_string_equal(fx_read(f, "/home/u/.zshrc"), "# zsh\n");
    assert_false(fx_exists(f, "/home/u/.config/cudnnctl/env.sh"));
    assert_false(fx_exists(f, "/home/u/.config/cudnnctl"));
    /* removing again is a no-op */
    assert_int_equal(cudnnctl_env_unpersist(f->ctx, &r, &ch), CUDNNCTL_E_OK);
    assert_int_equal(ch.n, 0);
    cudnnctl_changes_free(&ch);
    cudnnctl_env_selection_free(s);
}

static void symlinked_rc_stays_a_link(void **state)
{
    fx_t *f = *state;
    fx_write(f, "/home/u/dotfiles/bashrc", bashrc);
    fx_link(f, "/home/u/.bashrc", "dotfiles/bashrc");
    cudnnctl_env_selection *s = select_124(f);
    cudnnctl_persist_opts o = {0, 1u << CUDNNCTL_SHELL_BASH};
    cudnnctl_changes ch = {0};
    assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_OK);
    cudnnctl_changes_free(&ch);
    assert_string_equal(fx_readlink(f, "/home/u/.bashrc"), "dotfiles/bashrc");
    assert_int_equal(count(fx_read(f, "/home/u/dotfiles/bashrc"), "# added by cudnnctl"), 1);
    cudnnctl_env_selection_free(s);
    /* pwsh / cmd have no rc line here */
    o.shells = 1u << CUDNNCTL_SHELL_PWSH;
    s = select_124(f);
    assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_UNSUPPORTED);
    cudnnctl_changes_free(&ch);
    cudnnctl_env_selection_free(s);
}

static void system_wiring(void **state)
{
    fx_t *f = *state;
    fx_install(f, "9.19.0.56", 12);
    fx_mkdir(f, "/etc/fish");
    fx_write(f, "/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf", "/usr/local/cuda-13.0/lib64\n");
    fx_write(f, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "/usr/local/lib\n");
    fx_link(f, "/usr/local/cuda-12.4/lib", "lib64");
    const char *prefixes[] = {"/opt/cudnn"};
    cudnnctl_env_inputs in = {&f->det, prefixes, 1};
    cudnnctl_env_selection *s = NULL;
    assert_int_equal(cudnnctl_env_select(f->ctx, &in, "12.4", 0, &s), CUDNNCTL_E_OK);
    cudnnctl_persist_opts o = {CUDNNCTL_PERSIST_SYSTEM, 0};
    cudnnctl_changes ch = {0};
    assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_OK);
    const char *p = fx_read(f, "/etc/profile.d/cudnnctl.sh");
    assert_non_null(strstr(p, "PATH='/usr/local/cuda-12.4/bin'"));
    assert_non_null(strstr(fx_read(f, "/etc/fish/conf.d/cudnnctl.fish"), "set -gx CUDA_HOME"));
    const char *c = fx_read(f, "/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf");
    assert_non_null(
        strstr(c, "\n/opt/cudnn/cudnn-9.19.0.56-cuda12/lib\n/usr/local/cuda-12.4/lib64\n"));
    assert_false(fx_exists(f, "/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf"));
    assert_string_equal(fx_read(f, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf"), "/usr/local/lib\n");
    int ldconfig_noted = 0;
    for (size_t i = 0; i < ch.n; i++)
        if (strcmp(ch.v[i].path, "ldconfig") == 0 && strcmp(ch.v[i].action, "keep") == 0 &&
            strstr(ch.v[i].detail, "ldconfig -r "))
            ldconfig_noted = 1;
    assert_true(ldconfig_noted);
    char *j = NULL;
    assert_int_equal(cudnnctl_changes_json(&ch, &j), CUDNNCTL_E_OK);
    assert_non_null(strstr(j, "{\"action\":\"write\",\"path\":\"/etc/profile.d/cudnnctl.sh\""));
    cudnnctl_free(j);
    cudnnctl_changes_free(&ch);
    cudnnctl_persist_opts r = {CUDNNCTL_PERSIST_SYSTEM, 0};
    assert_int_equal(cudnnctl_env_unpersist(f->ctx, &r, &ch), CUDNNCTL_E_OK);
    cudnnctl_changes_free(&ch);
    assert_false(fx_exists(f, "/etc/profile.d/cudnnctl.sh"));
    assert_false(fx_exists(f, "/etc/fish/conf.d/cudnnctl.fish"));
    assert_false(fx_exists(f, "/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf"));
    assert_true(fx_exists(f, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf"));
    cudnnctl_env_selection_free(s);
}

/* Fail the N-th file operation of a user persist, for every N: .bashrc is the old text or the
 * old text plus one line, never anything else, and no temporary file stays. */
static void fault_every_call(void **state)
{
    fx_t *f = *state;
    cudnnctl_env_selection *s = select_124(f);
    cudnnctl_persist_opts o = {0, 1u << CUDNNCTL_SHELL_BASH};
    cudnnctl_changes ch = {0};
    fx_write(f, "/home/u/.bashrc", bashrc);
    assert_int_equal(cudnnctl_env_persist(f->ctx, s, &o, &ch), CUDNNCTL_E_OK);
    unsigned long calls = cudnnctl_sys_calls(f->ctx);
    cudnnctl_changes_free(&ch);
    char with_line[4096];
    snprintf(with_line, sizeof(with_line), "%s", fx_read(f, "/home/u/.bashrc"));
    for (unsigned long n = 1; n <= calls; n++) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s/home/u/.config'", f->root);
        assert_int_equal(system(cmd), 0);
        fx_write(f, "/home/u/.bashrc", bashrc);
        cudnnctl_set_fault_injection(f->ctx, n);
        cudnnctl_err e = cudnnctl_env_persist(f->ctx, s, &o, &ch);
        cudnnctl_set_fault_injection(f->ctx, 0);
        cudnnctl_changes_free(&ch);
        const char *b = fx_read(f, "/home/u/.bashrc");
        if (strcmp(b, bashrc) != 0 && strcmp(b, with_line) != 0)
            fail_msg("fault at call %lu: .bashrc is '%s'", n, b);
        if (e == CUDNNCTL_E_OK)
            assert_string_equal(b, with_line);
        snprintf(cmd, sizeof(cmd), "find '%s' -name '*.tmp-*' | grep -q .", f->root);
        if (system(cmd) == 0)
            fail_msg("fault at call %lu left a temporary file", n);
    }
    cudnnctl_env_selection_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(user_lines_once_and_removed, user_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(symlinked_rc_stays_a_link, user_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(system_wiring, user_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(fault_every_call, user_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
