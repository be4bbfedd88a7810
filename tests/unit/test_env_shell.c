/* test_env_shell.c: the sh activation text evaluated by dash for a toolkit dir with awkward
 * characters (quotes, spaces, glob characters), twice. POSIX only (a fake root, dash). The
 * portable checks (shell names, pwsh / cmd goldens) are in test_env_render.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "envwire_fixture.h"
#include "envwire_int.h"

/* Render for a toolkit dir with awkward characters, evaluate it twice in dash, read PATH. */
static void sh_quoting_in_dash(void **state)
{
    fx_t *f = *state;
    fx_mkdir(f, "/opt/it's a [cuda]*/bin");
    fx_write(f, "/opt/it's a [cuda]*/version.json",
             "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.8.20250101\"}}");
    cudnnctl_env_inputs in = {&f->det, NULL, 0};
    cudnnctl_env_selection *s = NULL;
    assert_int_equal(cudnnctl_env_select(f->ctx, &in, "/opt/it's a [cuda]*", 0, &s), CUDNNCTL_E_OK);
    assert_string_equal(s->toolkit_version, "12.8"); /* a build date is not a patch */
    char *t = NULL;
    assert_int_equal(cudnnctl_env_render(f->ctx, s, CUDNNCTL_SHELL_SH, 0, &t), CUDNNCTL_E_OK);
    char script[300];
    snprintf(script, sizeof(script), "%.200s/act.sh", f->root);
    FILE *fp = fopen(script, "w");
    assert_non_null(fp);
    fputs(t, fp);
    fclose(fp);
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof(cmd),
             "env -u CUDNNCTL_ENV PATH='/bin:/opt/it'\"'\"'s a [cuda]*/bin/x:/usr/bin' dash -c "
             "'. \"%s\"; a=$PATH; . \"%s\"; [ \"$a\" = \"$PATH\" ] || echo DIFF; "
             "printf \"%%s|%%s|%%s\" \"$PATH\" \"$CUDA_HOME\" \"$CUDNNCTL_ENV\"'",
             script, script);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    assert_string_equal(out, "/opt/it's a [cuda]*/bin:/bin:/usr/bin|/opt/it's a [cuda]*|"
                             "/opt/it's a [cuda]*");
    cudnnctl_free(t);
    cudnnctl_env_selection_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(sh_quoting_in_dash, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
