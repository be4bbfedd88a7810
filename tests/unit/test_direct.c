/* test_direct.c: prefix installs without PREFIX/current (txn/direct.c) through the host seam: a
 * Windows host profile with an in-memory registry and a fake tree under --root (C:\ is ROOT/c).
 * The probe (no trace left; "direct" exactly where this filesystem cannot hold a directory link:
 * never on Linux, always under wine), the record in STATE/direct.json (paths compared as Windows
 * compares them), the selected install (the record's, else the newest live one), the registry
 * Path (the selected install's bin first; every other install's bin dropped, also of installs
 * already gone), switching, and what an uninstall leaves (the next install selected, or nothing of
 * the prefix on Path). Runs on Linux and, cross-built, under wine; the whole cycle through the real
 * binary is tests/windows/test_windows_prefix.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "direct.h"
#include "internal.h"
#include "pf_fixture.h"
#include "winenv.h"

#define PX "C:/lab/px"
#define V90 PX "/cudnn-9.0.0.312-cuda12"
#define V91 PX "/cudnn-9.1.0.70-cuda12"
#define V92 PX "/cudnn-9.2.0.82-cuda12"
#define USER_BIN "%USERPROFILE%\\bin"
#define ENV_HKCU "[{\"kind\":\"registry\",\"key\":\"HKCU\\\\Environment\",\"name\":\"Path\"}]"

typedef struct {
    char *root, *state;
    cudnnctl_ctx *ctx;
    cc_memreg *reg;
    cc_receipt r[2];
    cc_receipts rs;
} fx;

static void receipt(cc_receipt *r, long seq, const char *version, const char *dir)
{
    memset(r, 0, sizeof(*r));
    r->seq = seq;
    r->id = (char *)(seq == 1 ? "000001" : "000002");
    r->mode = CUDNNCTL_TARGET_PREFIX;
    r->direct = 1;
    r->cudnn_version = (char *)version;
    r->target_path = (char *)PX;
    r->install_dir = (char *)dir;
    r->env_json = (char *)ENV_HKCU;
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->root = pff_tmpdir("direct");
    pff_write(f->root, "c/lab/px/cudnn-9.1.0.70-cuda12/bin/cudnn64_9.dll", "MZ");
    pff_write(f->root, "c/lab/px/cudnn-9.2.0.82-cuda12/bin/cudnn64_9.dll", "MZ");
    assert_int_equal(cudnnctl_ctx_new(&f->ctx), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_set_root(f->ctx, f->root), CUDNNCTL_E_OK);
    f->state = pff_join(f->root, "state");
    pff_mkdir_p(f->state);
    assert_int_equal(cudnnctl_set_state_dir(f->ctx, f->state), CUDNNCTL_E_OK);
    f->reg = cc_memreg_new();
    assert_non_null(f->reg);
    cc_host h;
    cc_host_default(&h);
    h.os = CC_HOST_WINDOWS;
    h.native = 0;
    cc_memreg_backend(f->reg, &h.reg);
    cc_host_set(f->ctx, &h);
    receipt(&f->r[0], 1, "9.1.0.70", V91);
    receipt(&f->r[1], 2, "9.2.0.82", V92);
    f->rs.v = f->r;
    f->rs.n = 2;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    cudnnctl_ctx_free(f->ctx);
    cc_memreg_free(f->reg);
    pff_rm_rf(f->root);
    free(f->root);
    free(f->state);
    free(f);
    return 0;
}

static char *path_now(fx *f)
{
    char *v = NULL;
    int type = 0;
    assert_int_equal(cc_host_reg_get(f->ctx, CC_WINENV_USER_KEY, "Path", &v, &type), 0);
    return v;
}

static void set_path(fx *f, const char *v)
{
    assert_int_equal(cc_host_reg_set(f->ctx, CC_WINENV_USER_KEY, "Path", v, CC_PF_REG_EXPAND_SZ), 0);
}

static void assert_path(fx *f, const char *want)
{
    char *v = path_now(f);
    assert_non_null(v);
    assert_string_equal(v, want);
    free(v);
}

/* The probe leaves nothing behind and says "direct" exactly where no directory link can be made
 * here (checked independently with the platform call itself); with the Linux profile it probes
 * nothing and never says so. */
static void probe_leaves_no_trace(void **state)
{
    fx *f = *state;
    char *dir = pff_join(f->root, "probe-here"), *other = pff_join(f->root, "probe-other");
    pff_mkdir_p(dir);
    pff_mkdir_p(other);
    int direct = -1;
    assert_int_equal(cc_direct_probe(f->ctx, dir, &direct), CUDNNCTL_E_OK);
    cc_pf_dir *d = cc_pf_opendir(dir);
    assert_non_null(d);
    assert_null(cc_pf_readdir(d)); /* empty again */
    cc_pf_closedir(d);
    char *t = pff_join(other, "t"), *l = pff_join(other, "l");
    pff_mkdir_p(t);
    int can = cc_pf_symlink_dir("t", l) == 0;
    assert_int_equal(direct, !can);
    if (strcmp(cc_pf_os(), "linux") == 0)
        assert_int_equal(direct, 0);
    assert_int_equal(cudnnctl_set_host_os(f->ctx, "linux"), CUDNNCTL_E_OK);
    direct = -1;
    unsigned long calls = cudnnctl_sys_calls(f->ctx);
    assert_int_equal(cc_direct_probe(f->ctx, dir, &direct), CUDNNCTL_E_OK);
    assert_int_equal(direct, 0);
    assert_int_equal(cudnnctl_sys_calls(f->ctx), calls); /* nothing probed */
    free(t);
    free(l);
    free(dir);
    free(other);
}

/* STATE/direct.json: set, read back under another spelling of the prefix, replaced, forgotten. */
static void record_round_trip(void **state)
{
    fx *f = *state;
    assert_null(cc_direct_recorded(f->ctx, f->state, PX));
    assert_int_equal(cc_direct_record(f->ctx, f->state, PX, "cudnn-9.1.0.70-cuda12"), CUDNNCTL_E_OK);
    char *got = cc_direct_recorded(f->ctx, f->state, "c:\\LAB\\px\\");
    assert_non_null(got);
    assert_string_equal(got, "cudnn-9.1.0.70-cuda12");
    free(got);
    assert_int_equal(cc_direct_record(f->ctx, f->state, "C:\\lab\\px", "cudnn-9.2.0.82-cuda12"),
                     CUDNNCTL_E_OK);
    got = cc_direct_recorded(f->ctx, f->state, PX);
    assert_string_equal(got, "cudnn-9.2.0.82-cuda12");
    free(got);
    char *file = pff_join(f->state, "direct.json"), *text = NULL;
    size_t len = 0;
    assert_int_equal(cc_sys_read_file(f->ctx, file, 4096, &text, &len), 0);
    cJSON *o = cJSON_Parse(text);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "format")->valueint, 1);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "prefixes")), 1);
    cJSON_Delete(o);
    free(text);
    assert_int_equal(cc_direct_record(f->ctx, f->state, PX, NULL), CUDNNCTL_E_OK);
    assert_null(cc_direct_recorded(f->ctx, f->state, PX));
    assert_int_equal(cc_txn_kind(file), CC_OBJ_NONE); /* nothing left to record: no file */
    /* a damaged record counts as none */
    assert_int_equal(cc_sys_write_file_atomic(f->ctx, file, "{not json", 9, 0644), 0);
    assert_null(cc_direct_recorded(f->ctx, f->state, PX));
    assert_ptr_equal(cc_direct_current(f->ctx, f->state, &f->rs, PX), &f->r[1]);
    free(file);
}

/* The selected install: the recorded one, else the newest live one; never another prefix's,
 * never a non-direct one. */
static void current_is_record_then_newest(void **state)
{
    fx *f = *state;
    assert_ptr_equal(cc_direct_current(f->ctx, f->state, &f->rs, PX), &f->r[1]);
    assert_int_equal(cc_direct_record(f->ctx, f->state, PX, "cudnn-9.1.0.70-cuda12"), CUDNNCTL_E_OK);
    assert_ptr_equal(cc_direct_current(f->ctx, f->state, &f->rs, "c:\\lab\\PX"), &f->r[0]);
    assert_null(cc_direct_current(f->ctx, f->state, &f->rs, "C:/lab/other"));
    f->r[0].direct = 0; /* a junction-mode receipt is not this module's */
    assert_ptr_equal(cc_direct_current(f->ctx, f->state, &f->rs, PX), &f->r[1]);
}

/* Path: the install's bin first, every other install's bin dropped — 9.2 on disk, and 9.0 that is
 * gone but still named (a Path an uninstall restored) — the user's entries kept in order. */
static void wire_drops_other_installs(void **state)
{
    fx *f = *state;
    set_path(f, "C:\\lab\\px\\cudnn-9.0.0.312-cuda12\\bin;" USER_BIN
                ";C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;C:\\tools;C:\\lab\\px\\current\\bin");
    cJSON *changes = cJSON_CreateArray();
    int n = 0;
    assert_int_equal(cc_direct_wire(f->ctx, PX, V91, 0, 1, changes, &n), CUDNNCTL_E_OK);
    assert_path(f, "C:\\lab\\px\\cudnn-9.0.0.312-cuda12\\bin;" USER_BIN
                   ";C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;C:\\tools;C:\\lab\\px\\current\\bin");
    assert_int_equal(cc_direct_wire(f->ctx, PX, V91, 0, 0, changes, &n), CUDNNCTL_E_OK);
    assert_path(f, "C:\\lab\\px\\cudnn-9.1.0.70-cuda12\\bin;" USER_BIN ";C:\\tools");
    assert_int_equal(cJSON_GetArraySize(changes), 2); /* the dry run's and the real one */
    assert_int_equal(cc_direct_wire(f->ctx, PX, NULL, 0, 0, changes, &n), CUDNNCTL_E_OK);
    assert_path(f, USER_BIN ";C:\\tools");
    cJSON_Delete(changes);
}

/* use --prefix: switch to 9.1, then again (nothing changes); the uninstall of the selected 9.1
 * selects 9.2; the uninstall of the last one leaves nothing of the prefix on Path. */
static void switch_and_undo(void **state)
{
    fx *f = *state;
    set_path(f, "C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;" USER_BIN);
    cc_strv steps = {0};
    int switched = -1;
    assert_int_equal(cc_direct_switch(f->ctx, f->state, &f->rs, &f->r[0], &switched, &steps),
                     CUDNNCTL_E_OK);
    assert_int_equal(switched, 1);
    assert_int_equal(steps.n, 1);
    assert_path(f, "C:\\lab\\px\\cudnn-9.1.0.70-cuda12\\bin;" USER_BIN);
    assert_ptr_equal(cc_direct_current(f->ctx, f->state, &f->rs, PX), &f->r[0]);
    assert_int_equal(cc_direct_switch(f->ctx, f->state, &f->rs, &f->r[0], &switched, &steps),
                     CUDNNCTL_E_OK);
    assert_int_equal(switched, 0);
    cc_strv_free(&steps);
    /* 9.1 undone (its dir gone, its registry values restored by the uninstall) */
    char *v91 = pff_join(f->root, "c/lab/px/cudnn-9.1.0.70-cuda12");
    pff_rm_rf(v91);
    free(v91);
    set_path(f, USER_BIN);
    cc_strv warnings = {0};
    cc_direct_after_undo(f->ctx, f->state, &f->rs, &f->r[0], &warnings);
    assert_int_equal(warnings.n, 0);
    assert_path(f, "C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;" USER_BIN);
    char *rec = cc_direct_recorded(f->ctx, f->state, PX);
    assert_string_equal(rec, "cudnn-9.2.0.82-cuda12");
    free(rec);
    /* 9.2, the last: its restore put back what was there at its install (9.1's bin) */
    f->rs.v = &f->r[1];
    f->rs.n = 1;
    set_path(f, "C:\\lab\\px\\cudnn-9.1.0.70-cuda12\\bin;" USER_BIN);
    cc_direct_after_undo(f->ctx, f->state, &f->rs, &f->r[1], &warnings);
    assert_int_equal(warnings.n, 0);
    assert_path(f, USER_BIN);
    assert_null(cc_direct_recorded(f->ctx, f->state, PX));
    cc_strv_free(&warnings);
}

/* The uninstall of an install that is not the selected one changes neither Path nor record. */
static void undo_of_another_leaves_selection(void **state)
{
    fx *f = *state;
    set_path(f, "C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;" USER_BIN);
    assert_int_equal(cc_direct_record(f->ctx, f->state, PX, "cudnn-9.2.0.82-cuda12"), CUDNNCTL_E_OK);
    cc_strv warnings = {0};
    cc_direct_after_undo(f->ctx, f->state, &f->rs, &f->r[0], &warnings);
    assert_int_equal(warnings.n, 0);
    assert_path(f, "C:\\lab\\px\\cudnn-9.2.0.82-cuda12\\bin;" USER_BIN);
    char *rec = cc_direct_recorded(f->ctx, f->state, PX);
    assert_string_equal(rec, "cudnn-9.2.0.82-cuda12");
    free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(probe_leaves_no_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(record_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(current_is_record_then_newest, setup, teardown),
        cmocka_unit_test_setup_teardown(wire_drops_other_installs, setup, teardown),
        cmocka_unit_test_setup_teardown(switch_and_undo, setup, teardown),
        cmocka_unit_test_setup_teardown(undo_of_another_leaves_selection, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
