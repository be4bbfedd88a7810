/* test_commit_torture.c: curl-style torture of the commit transaction, in-process (one concept:
 * the commit stage's all-or-nothing promise, for install and uninstall, tree and prefix modes;
 * staging is populated directly, so every fault lands in the commit). For every N, the N-th
 * file operation fails — once (the run must roll itself back), or from there on (sticky: the
 * process "dies" there and the next run's recovery settles the journal). After each run the
 * target must be exactly as before or exactly as fully installed, never in between, with no temp
 * names, staging dirs, journal or stray receipts left. The whole `cudnnctl install` through the
 * binary (cache, extraction, staging, commit; the CLI's fault hooks and its "recovered"
 * report): tests/fault/test_install_torture.sh. Where no POSIX symlinks can be made (wine) the
 * tree cases run on a Windows CUDA tree (DLLs, plain files) and the prefix cases on a Windows
 * staging tree in direct mode (no junction can be made there either: no `current`, the probe
 * and the record of txn/direct.c inside the loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commit_fixture.h"
#include "journal.h"

static const char *subs[] = {"libcudnn", "libcudnn_graph", NULL};
static const char *stems_win[] = {"cudnn", "cudnn_graph", NULL};

typedef struct {
    fx_world w;
    char *pristine;    /* copy of ROOT before anything (restored before each run) */
    char *installed;   /* copy of ROOT right after a clean install */
    char *snap_before; /* snapshot of the target before */
    char *snap_after;  /* ... and after a clean install */
    const char *target_rel;
    fx_plan plan;
} torture;

static void restore_root(torture *t, const char *from)
{
    fx_rm_tree(t->w.root);
    assert_int_equal(fx_copy_tree(from, t->w.root), 0);
}

static char *target_snap(torture *t)
{
    char *p = cc_path_join(t->w.root, t->target_rel);
    char *s = fx_snapshot(p);
    free(p);
    return s;
}

static int n_receipts(torture *t)
{
    char *d = cc_path_join(t->w.state, "receipts");
    cc_pf_dir *dir = cc_pf_opendir(d);
    int n = 0;
    const char *nm;
    while (dir && (nm = cc_pf_readdir(dir)) != NULL)
        n++; /* any name counts: stray temp files are failures too */
    cc_pf_closedir(dir);
    free(d);
    return n;
}

static void setup(torture *t, cudnnctl_target_mode mode)
{
    memset(t, 0, sizeof(*t));
    char *tmp = fx_tmpdir_fast();
    if (!pff_posix_symlinks(tmp)) {
        assert_int_equal(fx_world_make_win(&t->w, tmp), 0);
        t->w.fixture = cc_path_join(t->w.tmp, "fixture");
        assert_int_equal(fx_staging_win(t->w.fixture, "9.19.0", stems_win), 0);
        t->target_rel = "CUDA/v13.0";
        fx_plan_init_win(&t->plan, "9.19.0.56");
        if (mode == CUDNNCTL_TARGET_PREFIX) {
            /* no junction either (wine): the prefix install runs in direct mode (direct.h) */
            t->target_rel = "opt";
            char *opt = cc_path_join(t->w.root, "opt");
            pff_mkdir_p(opt);
            free(opt);
            fx_plan_init(&t->plan, "9.19.0.56", mode, "/opt/cudnn");
            t->plan.p.archive.platform = (char *)"windows-x86_64";
            t->plan.p.archive.relative_path = (char *)"cudnn/windows-x86_64/test-archive.zip";
            t->plan.p.url = (char *)"file:///nowhere/test-archive.zip";
        }
    } else {
        assert_int_equal(fx_world_make_in(&t->w, tmp), 0);
        t->w.fixture = cc_path_join(t->w.tmp, "fixture");
        assert_int_equal(fx_staging(t->w.fixture, "9.19.0", subs, 0), 0);
        if (mode == CUDNNCTL_TARGET_PREFIX) {
            t->target_rel = "opt";
            char *opt = cc_path_join(t->w.root, "opt");
            pff_mkdir_p(opt);
            free(opt);
            fx_plan_init(&t->plan, "9.19.0.56", mode, "/opt/cudnn");
        } else {
            t->target_rel = "usr/local/cuda-13.0";
            fx_plan_init(&t->plan, "9.19.0.56", mode, "/usr/local/cuda");
        }
    }
    t->pristine = cc_path_join(t->w.tmp, "pristine");
    t->installed = cc_path_join(t->w.tmp, "installed");
    assert_int_equal(fx_copy_tree(t->w.root, t->pristine), 0);
    t->snap_before = target_snap(t);
    cudnnctl_ctx *ctx = fx_world_ctx(&t->w);
    cudnnctl_install_result *res = NULL;
    /* force: the fixture tree's foreign cuDNN */
    assert_int_equal(fx_install(ctx, &t->w, &t->plan, 1, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    cudnnctl_ctx_free(ctx);
    t->snap_after = target_snap(t);
    assert_int_equal(fx_copy_tree(t->w.root, t->installed), 0);
}

static void teardown(torture *t)
{
    free(t->pristine);
    free(t->installed);
    free(t->snap_before);
    free(t->snap_after);
    fx_world_free(&t->w);
}

/* After a (possibly failed) run and recovery: before or after, nothing in between. */
static int check_settled(torture *t, unsigned long n, const char *what)
{
    char *snap = target_snap(t);
    char *j = cc_path_join(t->w.state, "journal.json");
    int is_before = strcmp(snap, t->snap_before) == 0, is_after = strcmp(snap, t->snap_after) == 0;
    if (!is_before && !is_after) {
        fprintf(stderr, "%s, fault at %lu: the target is half-done\n", what, n);
        fx_same("target (vs fully installed)", t->snap_after, snap);
        fail();
    }
    if (fx_exists(j))
        fail_msg("%s, fault at %lu: journal left after recovery", what, n);
    int want = is_after ? 1 : 0;
    if (n_receipts(t) != want)
        fail_msg("%s, fault at %lu: %d receipt files for a target that is %s", what, n,
                 n_receipts(t), is_after ? "installed" : "untouched");
    free(snap);
    free(j);
    return is_after;
}

/* Settle whatever a dead run left, as the next run would. */
static void recover(torture *t)
{
    cudnnctl_ctx *ctx = fx_world_ctx(&t->w);
    const char *what = NULL;
    cudnnctl_err e = cc_txn_recover(ctx, t->w.state, &what, NULL);
    if (e != CUDNNCTL_E_OK)
        fail_msg("recovery failed: %s", cudnnctl_last_error(ctx)->detail);
    cudnnctl_ctx_free(ctx);
}

static void run_loop(torture *t, int sticky, int uninstall)
{
    const char *what = uninstall ? "uninstall" : "install";
    unsigned long n;
    int seen_before = 0, seen_after = 0, clean = 0;
    for (n = 1; n < 5000 && !clean; n++) {
        restore_root(t, uninstall ? t->installed : t->pristine);
        cudnnctl_ctx *ctx = fx_world_ctx(&t->w);
        cudnnctl_set_fault_sticky(ctx, sticky);
        cudnnctl_set_fault_injection(ctx, n);
        cudnnctl_err e;
        if (uninstall) {
            cudnnctl_uninstall_opts uo = {NULL, NULL, 0, 0};
            cudnnctl_uninstall_result *ur = NULL;
            e = cudnnctl_uninstall(ctx, &uo, &ur);
            cudnnctl_uninstall_result_free(ur);
        } else {
            cudnnctl_install_result *res = NULL;
            e = fx_install(ctx, &t->w, &t->plan, 1, &res);
            cudnnctl_install_result_free(res);
        }
        clean = cudnnctl_sys_calls(ctx) < n; /* the fault was never reached */
        cudnnctl_ctx_free(ctx);
        if (clean && e != CUDNNCTL_E_OK)
            fail_msg("%s without a fault failed (%d)", what, e);
        if (sticky || e == CUDNNCTL_E_JOURNAL)
            recover(t);
        else if (e != CUDNNCTL_E_OK && fx_exists(t->w.state)) {
            char *j = cc_path_join(t->w.state, "journal.json"); /* (freed: the ASan stage) */
            int left = cc_txn_kind(j) != CC_OBJ_NONE;
            free(j);
            if (left)
                fail_msg("%s, one fault at %lu: the run did not roll itself back", what, n);
        }
        int after = check_settled(t, n, what);
        seen_after |= after;
        seen_before |= !after;
        /* past its commit point a run is done, even when bookkeeping failed (JOURNAL) */
        int done = e == CUDNNCTL_E_OK || e == CUDNNCTL_E_JOURNAL;
        if ((uninstall ? !after : after) != done)
            fail_msg("%s, fault at %lu: result %s does not match the tree", what, n,
                     cudnnctl_err_name(e));
    }
    assert_true(clean);
    assert_true(seen_before && seen_after);
    fprintf(stderr, "%s %s: %lu fault points, every one settled\n", what,
            sticky ? "(sticky: crash + recovery)" : "(one fault: in-run rollback)", n - 1);
}

static void tree_install_one_fault(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_CUDA_TREE);
    run_loop(&t, 0, 0);
    teardown(&t);
}

static void tree_install_crash(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_CUDA_TREE);
    run_loop(&t, 1, 0);
    teardown(&t);
}

static void tree_uninstall_one_fault(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_CUDA_TREE);
    run_loop(&t, 0, 1);
    teardown(&t);
}

static void tree_uninstall_crash(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_CUDA_TREE);
    run_loop(&t, 1, 1);
    teardown(&t);
}

static void prefix_install_crash(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_PREFIX);
    run_loop(&t, 1, 0);
    teardown(&t);
}

static void prefix_uninstall_crash(void **state)
{
    (void)state;
    torture t;
    setup(&t, CUDNNCTL_TARGET_PREFIX);
    run_loop(&t, 1, 1);
    teardown(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_install_one_fault),   cmocka_unit_test(tree_install_crash),
        cmocka_unit_test(tree_uninstall_one_fault), cmocka_unit_test(tree_uninstall_crash),
        cmocka_unit_test(prefix_install_crash),     cmocka_unit_test(prefix_uninstall_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
