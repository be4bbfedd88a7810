/* test_env_render.c: shell names, and the pwsh / cmd activation text for a Windows selection
 * against golden files (tests/golden/env_pwsh.txt, env_cmd.txt; regenerate with
 * CUDNNCTL_UPDATE_GOLDEN=1 after a deliberate change). Portable: runs in the Windows build too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "envwire_int.h"

static void shell_names(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int ok;
        cudnnctl_shell sh;
    } cases[] = {
        {"sh", 1, CUDNNCTL_SHELL_SH},
        {"/bin/dash", 1, CUDNNCTL_SHELL_SH},
        {"bash", 1, CUDNNCTL_SHELL_BASH},
        {"-bash", 1, CUDNNCTL_SHELL_BASH},
        {"/usr/bin/zsh", 1, CUDNNCTL_SHELL_ZSH},
        {"fish", 1, CUDNNCTL_SHELL_FISH},
        {"pwsh", 1, CUDNNCTL_SHELL_PWSH},
        {"powershell.exe", 1, CUDNNCTL_SHELL_PWSH},
        {"C:\\Windows\\cmd.exe", 1, CUDNNCTL_SHELL_CMD},
        {"tcsh", 0, CUDNNCTL_SHELL_SH},
        {"", 0, CUDNNCTL_SHELL_SH},
        {"bashx", 0, CUDNNCTL_SHELL_SH},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cudnnctl_shell sh = CUDNNCTL_SHELL_SH;
        cudnnctl_err e = cudnnctl_shell_parse(cases[i].in, &sh);
        assert_int_equal(e == CUDNNCTL_E_OK, cases[i].ok);
        if (cases[i].ok)
            assert_int_equal(sh, cases[i].sh);
    }
    assert_string_equal(cudnnctl_shell_name(CUDNNCTL_SHELL_FISH), "fish");
    assert_string_equal(cudnnctl_shell_name(CUDNNCTL_SHELL_CMD), "cmd");
}

/* A Windows selection: toolkits v12.4 and v13.0, a cuDNN install in a prefix. */
static cudnnctl_env_selection *windows_selection(cudnnctl_ctx *ctx)
{
    cudnnctl_toolkit w[2];
    memset(w, 0, sizeof(w));
    w[0].path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
    w[0].version = "12.4";
    w[0].major = 12;
    w[0].minor = 4;
    w[1].path = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0";
    w[1].version = "13.0";
    w[1].major = 13;
    cudnnctl_detect_result det = {0};
    det.toolkits = w;
    det.n_toolkits = 2;
    cudnnctl_env_inputs in = {&det, NULL, 0};
    cudnnctl_env_selection *s = NULL;
    assert_int_equal(cudnnctl_env_select(ctx, &in, "13.0", 0, &s), CUDNNCTL_E_OK);
    /* the cuDNN part as a prefix scan on Windows would give it */
    const char *cd = "C:\\ProgramData\\cudnnctl\\cudnn-9.19.0.56-cuda13";
    s->cudnn_path = cc_strdup(cd);
    s->cudnn_version = cc_strdup("9.19.0.56");
    s->cudnn_cuda_major = 13;
    s->prefix = cc_strdup("C:\\ProgramData\\cudnnctl");
    s->bin_dirs = realloc(s->bin_dirs, sizeof(char *) * (s->n_bin_dirs + 2));
    s->bin_dirs[s->n_bin_dirs++] = cc_env_join(cd, "bin", 1);
    s->bin_dirs[s->n_bin_dirs++] = cc_env_join(cd, "bin\\x64", 1);
    s->roots = realloc(s->roots, sizeof(char *) * (s->n_roots + 1));
    s->roots[s->n_roots++] = cc_strdup(cd);
    s->managed = realloc(s->managed, sizeof(char *) * (s->n_managed + 2));
    s->managed[s->n_managed++] = cc_strdup("C:\\ProgramData\\cudnnctl");
    s->managed[s->n_managed++] = cc_strdup(cd);
    /* the build variables again, now that the selection has its cuDNN */
    cc_env_build_free(s);
    assert_int_equal(cc_env_build_dirs(ctx, s), CUDNNCTL_E_OK);
    return s;
}

static void check_golden(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/golden/%s", CUDNNCTL_SOURCE_DIR, name);
    const char *upd = getenv("CUDNNCTL_UPDATE_GOLDEN");
    if (upd && *upd == '1') {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("golden file %s missing (CUDNNCTL_UPDATE_GOLDEN=1 writes it)", path);
    static char want[65536];
    size_t n = fread(want, 1, sizeof(want) - 1, f);
    want[n] = '\0';
    fclose(f);
    if (strcmp(want, text) != 0)
        fail_msg("%s differs from the golden file:\n--- got ---\n%s--- want ---\n%s", name, text,
                 want);
}

static void pwsh_and_cmd_golden(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    /* a state dir with no receipts: the host's own installs must not leak into the golden text */
    const char *no_state = strcmp(cc_pf_os(), "windows") == 0 ? "C:/cudnnctl-test-no-state"
                                                              : "/nonexistent/cudnnctl-test-no-state";
    assert_int_equal(cudnnctl_set_state_dir(ctx, no_state), CUDNNCTL_E_OK);
    cudnnctl_env_selection *s = windows_selection(ctx);
    char *t = NULL;
    assert_int_equal(cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_PWSH, 0, &t), CUDNNCTL_E_OK);
    /* what the golden must contain in any case */
    assert_non_null(strstr(t, "$env:CUDA_PATH = 'C:\\Program Files\\NVIDIA GPU Computing "
                              "Toolkit\\CUDA\\v13.0'"));
    assert_non_null(strstr(t, "\\v13.0\\bin\\x64'"));
    assert_non_null(strstr(t, "cudnn-9.19.0.56-cuda13\\bin\\x64'"));
    assert_null(strstr(t, "LD_LIBRARY_PATH"));
    check_golden("env_pwsh.txt", t);
    cudnnctl_free(t);
    assert_int_equal(
        cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_CMD, CUDNNCTL_ENV_LD_LIBRARY_PATH, &t),
        CUDNNCTL_E_OK);
    assert_non_null(strstr(t, "@set \"PATH=%PATH:;C:\\Program Files\\NVIDIA GPU Computing "
                              "Toolkit\\CUDA\\v12.4\\bin;=;%\""));
    assert_non_null(strstr(t, "@set \"CUDA_PATH=C:\\Program Files\\NVIDIA GPU Computing "
                              "Toolkit\\CUDA\\v13.0\"\n"));
    assert_null(strstr(t, "LD_LIBRARY_PATH"));
    check_golden("env_cmd.txt", t);
    cudnnctl_free(t);
    cudnnctl_env_selection_free(s);
    cudnnctl_ctx_free(ctx);
}

/* A hand-made Linux selection (the strings are owned: cudnnctl_env_selection_free frees them). */
static cudnnctl_env_selection *linux_selection(const char *lib, const char *managed)
{
    cudnnctl_env_selection *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    s->toolkit_path = cc_strdup("/usr/local/cuda-13.0");
    s->toolkit_version = cc_strdup("13.0\ntouch PWNED\n"); /* as a hostile version.json gives */
    s->toolkit_major = 13;
    s->cudnn_cuda_major = -1;
    s->bin_dirs = calloc(1, sizeof(char *));
    s->bin_dirs[s->n_bin_dirs++] = cc_strdup("/usr/local/cuda-13.0/bin");
    s->lib_dirs = calloc(1, sizeof(char *));
    s->lib_dirs[s->n_lib_dirs++] = cc_strdup(lib);
    s->roots = calloc(1, sizeof(char *));
    s->roots[s->n_roots++] = cc_strdup("/usr/local/cuda-13.0");
    s->managed = calloc(2, sizeof(char *));
    s->managed[s->n_managed++] = cc_strdup("/usr/local/cuda-13.0");
    s->managed[s->n_managed++] = cc_strdup(managed);
    s->notes = calloc(1, sizeof(char *));
    s->notes[s->n_notes++] = cc_strdup("a note\r\ntouch PWNED2 \x1b[2J");
    return s;
}

/* issue 18: no raw control character anywhere in any shell's text, comments included: what is
 * only shown is escaped (\xNN), a managed dir that cannot be quoted is left out, a dir the text
 * would set is refused (exit 2), so is one holding the list separator, and cmd.exe refuses a '"'
 * it cannot quote. */
static void control_characters(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    cudnnctl_env_selection *s =
        linux_selection("/usr/local/cuda-13.0/lib64", "/opt/x\ntouch PWNED3");
    for (int sh = CUDNNCTL_SHELL_SH; sh <= CUDNNCTL_SHELL_CMD; sh++) {
        char *t = NULL;
        assert_int_equal(
            cudnnctl_env_render(ctx, s, (cudnnctl_shell)sh, CUDNNCTL_ENV_LD_LIBRARY_PATH, &t),
            CUDNNCTL_E_OK);
        for (const char *p = t; *p; p++)
            if (((unsigned char)*p < 0x20 && *p != '\n') || (unsigned char)*p == 0x7f)
                fail_msg("%s: raw control byte 0x%02x at %d:\n%s", cudnnctl_shell_name(sh),
                         (unsigned char)*p, (int)(p - t), t);
        assert_null(strstr(t, "\ntouch PWNED"));
        assert_non_null(strstr(t, "13.0\\x0atouch PWNED\\x0a"));
        assert_non_null(strstr(t, "a note\\x0d\\x0atouch PWNED2 \\x1b[2J"));
        assert_null(strstr(t, "PWNED3")); /* the unquotable managed dir is left out */
        cudnnctl_free(t);
    }
    cudnnctl_env_selection_free(s);
    /* a dir the text would set: refused, nothing rendered */
    s = linux_selection("/opt/p\x1b]0;x\a/lib", "/opt/p");
    for (int sh = CUDNNCTL_SHELL_SH; sh <= CUDNNCTL_SHELL_CMD; sh++) {
        char *t = (char *)"x";
        assert_int_equal(cudnnctl_env_render(ctx, s, (cudnnctl_shell)sh, 0, &t), CUDNNCTL_E_USAGE);
        assert_null(t);
        assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "\\x1b"));
    }
    cudnnctl_env_selection_free(s);
    /* a ':' (the list separator) in a dir that goes into LD_LIBRARY_PATH / CUDNNCTL_ENV */
    s = linux_selection("/opt/a:b/lib", "/opt/p");
    char *t0 = NULL;
    assert_int_equal(
        cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_SH, CUDNNCTL_ENV_LD_LIBRARY_PATH, &t0),
        CUDNNCTL_E_USAGE);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "has a ':' in it"));
    assert_int_equal(cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_SH, 0, &t0), CUDNNCTL_E_OK);
    cudnnctl_free(t0);
    free(s->roots[0]);
    s->roots[0] = cc_strdup("/opt/a:b");
    assert_int_equal(cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_FISH, 0, &t0), CUDNNCTL_E_USAGE);
    cudnnctl_env_selection_free(s);
    s = linux_selection("/opt/a\"&calc&\"b/lib", "/opt/p");
    char *t = NULL;
    assert_int_equal(cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_CMD, 0, &t), CUDNNCTL_E_USAGE);
    assert_int_equal(cudnnctl_env_render(ctx, s, CUDNNCTL_SHELL_BASH, 0, &t), CUDNNCTL_E_OK);
    cudnnctl_free(t);
    cudnnctl_env_selection_free(s);
    cudnnctl_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shell_names),
        cmocka_unit_test(pwsh_and_cmd_golden),
        cmocka_unit_test(control_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
