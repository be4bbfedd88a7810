/* test_install_api.c: the install API's two halves and its callbacks (issue 10 item 2, issue 12
 * items 4-5): cudnnctl_install_prepare changes nothing a reader of the target sees and release
 * undoes it; commit completes it; the question callback decides a reinstall (default: no); a
 * cancel at every point the library polls leaves the tree as it was (or, when none came, the
 * install is complete); the target lock serialises runs with different state dirs. Where no POSIX
 * symlinks can be made (wine) the same cases run on a Windows CUDA tree (commit_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "commit_fixture.h"
#include "lock.h"

static const char *subs[] = {"libcudnn", "libcudnn_graph", NULL};
static const char *stems_win[] = {"cudnn", "cudnn_graph", NULL};

/* The fixture's tree without its foreign cuDNN (files no receipt owns need --force: policy
 * tests cover those), so a plain install goes through and --force keeps its reinstall meaning.
 * A Linux tree of .so link chains, or a Windows one where no symlinks can be made (wine). */
static void world(fx_world *w)
{
    char *tmp = fx_tmpdir();
    int linux_tree = pff_posix_symlinks(tmp);
    assert_int_equal(linux_tree ? fx_world_make_in(w, tmp) : fx_world_make_win(w, tmp), 0);
    static const char *const foreign[] = {"include/cudnn.h", "lib/libcudnn.so.9", "lib/libcudnn.so",
                                          "lib/libcudnn_adv.so", "lib/libcudnn_adv.so.9"};
    static const char *const foreign_win[] = {"include/cudnn.h", "bin/cudnn64_9.dll"};
    size_t n = linux_tree ? sizeof(foreign) / sizeof(foreign[0]) : 2;
    for (size_t i = 0; i < n; i++) {
        char *p = cc_path_join(w->tree, linux_tree ? foreign[i] : foreign_win[i]);
        assert_int_equal(cc_pf_unlink(p), 0);
        free(p);
    }
    w->fixture = cc_path_join(w->tmp, "fx");
    assert_int_equal(linux_tree ? fx_staging(w->fixture, "9.19.0", subs, 0)
                                : fx_staging_win(w->fixture, "9.19.0", stems_win),
                     0);
}

/* The tree install's plan for that world. */
static void plan(const fx_world *w, fx_plan *fp)
{
    if (w->windows)
        fx_plan_init_win(fp, "9.19.0.56");
    else
        fx_plan_init(fp, "9.19.0.56", CUDNNCTL_TARGET_CUDA_TREE, "/usr/local/cuda");
}

static cudnnctl_err prepare(cudnnctl_ctx *ctx, fx_world *w, const fx_plan *fp, int force,
                            cudnnctl_install_handle **h, cudnnctl_install_result **res)
{
    cudnnctl_install_opts o;
    memset(&o, 0, sizeof(o));
    o.plan = &fp->p;
    o.force = force;
    o.no_env = w->windows; /* leave the wine prefix's Path alone */
    return cc_install_prepare_with(ctx, NULL, NULL, &o, fx_populate, w, h, res);
}

static int graph_there(const fx_world *w)
{
    char *p = cc_path_join(w->tree, w->windows ? "bin/cudnn_graph64_9.dll"
                                               : "lib/libcudnn_graph.so.9.19.0");
    int yes = fx_exists(p);
    free(p);
    return yes;
}

static void prepare_is_invisible_and_release_undoes_it(void **state)
{
    (void)state;
    fx_world w;
    world(&w);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    char *before = fx_snapshot(w.tree);
    fx_plan fp;
    plan(&w, &fp);
    cudnnctl_install_handle *h = NULL;
    cudnnctl_install_result *res = NULL;
    assert_int_equal(prepare(ctx, &w, &fp, 0, &h, &res), CUDNNCTL_E_OK);
    assert_non_null(h);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "prepared");
    assert_false(graph_there(&w)); /* staged, not placed */
    char *lockp = cc_lock_target_path(w.tree);
    assert_true(fx_exists(lockp)); /* the target is locked while prepared */
    cudnnctl_install_release(ctx, h);
    assert_false(fx_exists(lockp));
    char *after = fx_snapshot(w.tree);
    assert_true(fx_same("release after prepare", before, after));
    assert_true(fx_no_leftovers(w.root));
    cudnnctl_install_result_free(res);
    /* prepare + commit = install */
    assert_int_equal(prepare(ctx, &w, &fp, 0, &h, &res), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_install_commit(ctx, h), CUDNNCTL_E_OK);
    cudnnctl_install_release(ctx, h);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "installed");
    assert_non_null(res->receipt_id);
    assert_true(graph_there(&w));
    assert_false(fx_exists(lockp));
    cudnnctl_install_result_free(res);
    free(lockp), free(before), free(after);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

typedef struct {
    int answer, asked;
    cudnnctl_question_kind kind;
    int dflt;
} asker;

static int answer(void *user, const cudnnctl_question *q)
{
    asker *a = user;
    a->asked++;
    a->kind = q->kind;
    a->dflt = q->default_answer;
    assert_non_null(strstr(q->text, "already installed"));
    return a->answer;
}

static void question_decides_reinstall(void **state)
{
    (void)state;
    fx_world w;
    world(&w);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    plan(&w, &fp);
    cudnnctl_install_result *res = NULL;
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    /* no callback: the default (no) */
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "unchanged");
    cudnnctl_install_result_free(res);
    asker a = {0, 0, 0, -1};
    cudnnctl_set_question_cb(ctx, answer, &a);
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "unchanged");
    assert_int_equal(a.asked, 1);
    assert_int_equal(a.kind, CUDNNCTL_Q_REINSTALL);
    assert_int_equal(a.dflt, 0);
    cudnnctl_install_result_free(res);
    a.answer = 1;
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "installed");
    assert_string_equal(res->receipt_id, "000002");
    cudnnctl_install_result_free(res);
    a.answer = 7; /* not an answer: the default */
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_install_outcome_name(res->result), "unchanged");
    cudnnctl_install_result_free(res);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

typedef struct {
    int polls, at;
} canceller;

static int cancel_at(void *user)
{
    canceller *c = user;
    return ++c->polls >= c->at;
}

/* Cancel at the 1st, 2nd, ... poll until a run gets through without one: every cancelled run
 * leaves the tree exactly as it was, with no staging dir, temp name or journal. */
static void cancel_at_every_poll_rolls_back(void **state)
{
    (void)state;
    fx_world w;
    world(&w);
    char *before = fx_snapshot(w.tree);
    char *journal = cc_path_join(w.state, "journal.json");
    fx_plan fp;
    plan(&w, &fp);
    int cancelled = 0;
    for (int at = 1; at < 10000; at++) {
        cudnnctl_ctx *ctx = fx_world_ctx(&w);
        canceller c = {0, at};
        cudnnctl_set_cancel_cb(ctx, cancel_at, &c);
        cudnnctl_install_result *res = NULL;
        cudnnctl_err e = fx_install(ctx, &w, &fp, 0, &res);
        if (e == CUDNNCTL_E_OK) {
            assert_string_equal(cudnnctl_install_outcome_name(res->result), "installed");
            cudnnctl_install_result_free(res);
            cudnnctl_ctx_free(ctx);
            break;
        }
        if (e != CUDNNCTL_E_INTERRUPTED)
            fail_msg("cancel at poll %d: %s (%s)", at, cudnnctl_err_name(e),
                     cudnnctl_last_error(ctx)->detail);
        cancelled++;
        assert_string_equal(cudnnctl_install_outcome_name(res->result), "failed");
        char *now = fx_snapshot(w.tree);
        if (!fx_same("tree after a cancel", before, now))
            fail_msg("cancel at poll %d changed the tree", at);
        free(now);
        assert_true(fx_no_leftovers(w.root));
        assert_false(fx_exists(journal));
        cudnnctl_install_result_free(res);
        cudnnctl_ctx_free(ctx);
    }
    assert_true(cancelled >= 5); /* plan, state, staging, populate, commit plan, commit ops */
    assert_true(graph_there(&w));
    free(before);
    free(journal);
    fx_world_free(&w);
}

static void target_lock_spans_state_dirs(void **state)
{
    (void)state;
    fx_world w;
    world(&w);
    cudnnctl_ctx *holder = fx_world_ctx(&w), *ctx = fx_world_ctx(&w);
    char *other = cc_path_join(w.tmp, "other-state");
    cudnnctl_set_state_dir(holder, other);
    cc_lock lk;
    assert_int_equal(cc_lock_target(holder, w.tree, "test", &lk), CUDNNCTL_E_OK);
    fx_plan fp;
    plan(&w, &fp);
    cudnnctl_install_result *res = NULL;
    cudnnctl_err e = fx_install(ctx, &w, &fp, 0, &res);
    assert_int_equal(e, CUDNNCTL_E_LOCKED);
    assert_int_equal(cudnnctl_err_exit_code(e), 8);
    char *who = cc_asprintf("pid %ld (cudnnctl test) since ", cc_pf_getpid());
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, who));
    assert_false(graph_there(&w));
    cudnnctl_install_result_free(res);
    /* --wait 1: waits about a second, then gives up the same way */
    cudnnctl_set_lock_wait(ctx, 1);
    uint64_t t0 = cc_pf_now_ms();
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_LOCKED);
    assert_true(cc_pf_now_ms() - t0 >= 1000);
    cudnnctl_install_result_free(res);
    cc_lock_release(holder, &lk);
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    char *lockp = cc_lock_target_path(w.tree);
    assert_false(fx_exists(lockp)); /* nothing left beside the target */
    free(lockp), free(who), free(other);
    cudnnctl_ctx_free(holder);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prepare_is_invisible_and_release_undoes_it),
        cmocka_unit_test(question_decides_reinstall),
        cmocka_unit_test(cancel_at_every_poll_rolls_back),
        cmocka_unit_test(target_lock_spans_state_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
