/* test_install_commit.c: the install pipeline after verification (links, commit, receipt) and
 * uninstall / rollback / list, on hand-made staging trees with real ELF doubles, into a fake
 * CUDA tree and into a prefix under a temp --root. Every check looks at the files on disk.
 * Where no POSIX symlinks can be made (wine) the cases about the transaction, backups, locks and
 * the journal run on a Windows CUDA tree (commit_fixture.h); those about Linux's .so link chains
 * and prefix mode's `current` are skipped there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commit_fixture.h"
#include "lock.h"
#include "receipt.h"

static const char *subs_919[] = {"libcudnn", "libcudnn_graph", "libcudnn_ops", NULL};
static const char *subs_921[] = {"libcudnn", "libcudnn_graph", "libcudnn_ops",
                                 "libcudnn_engines_tensor_ir", NULL};

/* The Linux world (.so link chains), or a skip() where no POSIX symlinks can be made. */
static void linux_world(fx_world *w)
{
    char *tmp = fx_tmpdir();
    if (!pff_posix_symlinks(tmp)) {
        fx_rm(tmp);
        free(tmp);
        print_message("no POSIX symlinks here (wine): the case checks Linux link chains\n");
        skip();
    }
    assert_int_equal(fx_world_make_in(w, tmp), 0);
}

/* The Linux world, or a Windows tree (plain files) where no symlinks can be made. */
static void any_world(fx_world *w)
{
    char *tmp = fx_tmpdir();
    assert_int_equal(pff_posix_symlinks(tmp) ? fx_world_make_in(w, tmp) : fx_world_make_win(w, tmp),
                     0);
}

/* A tree install's plan of that world ("/usr/local/cuda..." for the Linux one). */
static void tree_plan(const fx_world *w, fx_plan *fp, const char *ver4, const char *linux_target)
{
    if (w->windows)
        fx_plan_init_win(fp, ver4);
    else
        fx_plan_init(fp, ver4, CUDNNCTL_TARGET_CUDA_TREE, linux_target);
}

static char *make_fixture(fx_world *w, const char *name, const char *ver3, const char **subs)
{
    char *dir = cc_path_join(w->tmp, name);
    if (!w->windows) {
        assert_int_equal(fx_staging(dir, ver3, subs, 0), 0);
        return dir;
    }
    const char *stems[8] = {NULL};
    for (int i = 0; subs[i] && i < 7; i++)
        stems[i] = subs[i] + 3; /* libcudnn_ops -> cudnn_ops (cudnn_ops64_9.dll) */
    assert_int_equal(fx_staging_win(dir, ver3, stems), 0);
    return dir;
}

/* Whole file (malloc'd) or NULL. */
static char *slurp(const char *path)
{
    char *text = NULL;
    return cc_sys_read_file(fx_ctx(), path, 1 << 24, &text, NULL) == 0 ? text : NULL;
}

/* Whether some file under dir holds @p needle (grep -rq). */
static int tree_holds(const char *dir, const char *needle)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *n;
    int found = 0;
    while (!found && d && (n = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(dir, n);
        cc_pf_stat_t st;
        if (cc_pf_lstat(p, &st) == 0 && st.is_dir && !st.is_link)
            found = tree_holds(p, needle);
        else if (st.is_reg) {
            char *t = slurp(p);
            found = t && strstr(t, needle);
            free(t);
        }
        free(p);
    }
    cc_pf_closedir(d);
    return found;
}

static void assert_link(const char *dir, const char *name, const char *target)
{
    char *p = cc_path_join(dir, name);
    char *t = fx_readlink(p);
    if (!t || strcmp(t, target) != 0)
        fail_msg("%s: link to '%s', want '%s'", p, t ? t : "(none)", target);
    free(t);
    free(p);
}

static void assert_file(const char *dir, const char *name)
{
    char *p = cc_path_join(dir, name);
    cc_pf_stat_t st;
    if (cc_pf_lstat(p, &st) != 0 || !st.is_reg || st.is_link)
        fail_msg("%s is not a regular file", p);
    free(p);
}

static void assert_absent(const char *dir, const char *name)
{
    char *p = cc_path_join(dir, name);
    if (fx_exists(p))
        fail_msg("%s should not exist", p);
    free(p);
}

static void same_bytes(const char *a, const char *b)
{
    assert_int_equal(fx_sh("cmp -s '%s' '%s'", a, b), 0);
}

static void load_receipt(cudnnctl_ctx *ctx, const char *state, const char *id, cc_receipt *r)
{
    char *path = cc_asprintf("%s/receipts/%s.json", state, id);
    char *text = NULL;
    assert_int_equal(cc_sys_read_file(ctx, path, 1 << 24, &text, NULL), 0);
    assert_int_equal(cc_receipt_parse(ctx, text, path, r), CUDNNCTL_E_OK);
    free(text);
    free(path);
}

/* ---- CUDA-tree mode ------------------------------------------------------------------------ */

static void tree_install_then_uninstall_is_byte_exact(void **state)
{
    (void)state;
    fx_world w;
    linux_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    char *before = fx_snapshot(w.tree);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    fx_plan_init(&fp, "9.19.0.56", CUDNNCTL_TARGET_CUDA_TREE, "/usr/local/cuda");
    cudnnctl_install_result *res = NULL;
    /* the tree's foreign (wheel-style) cuDNN is replaced only with force, and listed */
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_CONFLICT);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "/usr/local/cuda-13.0/lib/libcudnn.so.9"));
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--force"));
    cudnnctl_install_result_free(res);
    res = NULL;
    char *refused = fx_snapshot(w.tree);
    assert_string_equal(before, refused);
    free(refused);
    cudnnctl_err e = fx_install(ctx, &w, &fp, 1, &res);
    if (e != CUDNNCTL_E_OK)
        fail_msg("install: %s", cudnnctl_last_error(ctx)->detail);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_INSTALLED);
    int foreign = 0;
    for (size_t i = 0; i < res->n_warnings; i++)
        foreign += strstr(res->warnings[i], "no cudnnctl receipt owns") != NULL;
    assert_int_equal(foreign, (int)res->n_files_replaced);
    assert_true(foreign > 0);
    /* the target was resolved inside --root: /usr/local/cuda -> /usr/local/cuda-13.0 */
    assert_string_equal(res->target_path, "/usr/local/cuda-13.0");
    assert_string_equal(res->lib_dir, "/usr/local/cuda-13.0/lib");
    assert_string_equal(res->receipt_id, "000001");

    char *lib = cc_path_join(w.tree, "lib"), *inc = cc_path_join(w.tree, "include");
    for (int i = 0; subs_919[i]; i++) {
        char *full = cc_asprintf("%s.so.9.19.0", subs_919[i]);
        char *m = cc_asprintf("%s.so.9", subs_919[i]);
        char *dev = cc_asprintf("%s.so", subs_919[i]);
        assert_file(lib, full);
        assert_link(lib, m, full);
        assert_link(lib, dev, m);
        char *a = cc_path_join(lib, full), *b = cc_asprintf("%s/lib/%s", w.fixture, full);
        same_bytes(a, b);
        free(a), free(b), free(full), free(m), free(dev);
    }
    /* the stale sub-library of the same major that this release does not ship is gone */
    assert_absent(lib, "libcudnn_adv.so.9");
    assert_absent(lib, "libcudnn_adv.so");
    /* the toolkit's own files are untouched */
    assert_file(lib, "libcudart.so.13");
    assert_link(lib, "libcudart.so", "libcudart.so.13");
    for (const char *h = "cudnn.h"; h; h = strcmp(h, "cudnn.h") == 0 ? "cudnn_version.h" : NULL) {
        char *a = cc_path_join(inc, h), *b = cc_asprintf("%s/include/%s", w.fixture, h);
        same_bytes(a, b);
        free(a), free(b);
    }
    char *lic = cc_path_join(w.tree, "share/doc/cudnn/LICENSE"),
         *flic = cc_path_join(w.fixture, "LICENSE");
    same_bytes(lic, flic);
    free(lic), free(flic);
    assert_true(fx_no_leftovers(w.tree));

    /* the receipt: every file with its hash, the links, what was replaced and where it is kept */
    cc_receipt r;
    load_receipt(ctx, w.state, "000001", &r);
    assert_string_equal(r.cudnn_version, "9.19.0.56");
    assert_string_equal(r.archive.sha256, fp.sha);
    assert_int_equal(r.mode, CUDNNCTL_TARGET_CUDA_TREE);
    size_t files = 0, links = 0, stale = 0;
    for (size_t i = 0; i < r.n_entries; i++) {
        if (r.entries[i].type == CC_OBJ_LINK) {
            links++;
        } else {
            files++;
            char *real = cc_rooted(ctx, r.entries[i].path);
            char hex[65];
            uint64_t sz;
            assert_int_equal(cc_sha256_file(ctx, real, hex, &sz), 0);
            assert_string_equal(hex, r.entries[i].sha256);
            free(real);
        }
    }
    /* 3 libs, 3 headers, LICENSE, and the build metadata the install stages (docs/build.md):
     * cudnn.pc + one .pc per sub-library (2), CUDNNConfig.cmake, CUDNNConfigVersion.cmake */
    assert_int_equal(files, 3 + 3 + 1 + 3 + 2);
    assert_file(lib, "pkgconfig/cudnn.pc");
    assert_file(lib, "cmake/CUDNN/CUDNNConfig.cmake");
    assert_int_equal(links, 6);
    for (size_t i = 0; i < r.n_replaced; i++) {
        stale += strcmp(r.replaced[i].reason, "stale") == 0;
        char *b = cc_path_join(w.state, r.replaced[i].backup);
        assert_true(fx_exists(b));
        free(b);
    }
    assert_int_equal(stale, 2);            /* libcudnn_adv.so.9 and libcudnn_adv.so */
    assert_int_equal(r.n_replaced, 2 + 3); /* + cudnn.h, libcudnn.so.9, libcudnn.so */
    /* share, share/doc, share/doc/cudnn; lib/pkgconfig, lib/cmake, lib/cmake/CUDNN */
    assert_true(r.dirs_created.n == 6);
    cc_receipt_free(&r);
    cudnnctl_install_result_free(res);

    /* the same again: unchanged, nothing touched */
    char *installed = fx_snapshot(w.tree);
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_OK);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_UNCHANGED);
    cudnnctl_install_result_free(res);
    char *again = fx_snapshot(w.tree);
    assert_true(fx_same("tree after an unchanged install", installed, again));

    /* list */
    cudnnctl_install_list *l = NULL;
    assert_int_equal(cudnnctl_list(ctx, "/usr/local/cuda", &l), CUDNNCTL_E_OK);
    assert_int_equal(l->n_items, 1);
    assert_true(l->items[0].active);
    assert_null(l->pending_journal);
    char *js = NULL;
    assert_int_equal(cudnnctl_install_list_json(l, &js), CUDNNCTL_E_OK);
    assert_non_null(strstr(js, "\"cudnn_version\":\"9.19.0.56\""));
    cudnnctl_free(js);
    cudnnctl_install_list_free(l);

    /* uninstall gives back the tree byte for byte */
    cudnnctl_uninstall_opts uo = {"/usr/local/cuda-13.0", NULL, 0, 0};
    cudnnctl_uninstall_result *ur = NULL;
    e = cudnnctl_uninstall(ctx, &uo, &ur);
    if (e != CUDNNCTL_E_OK)
        fail_msg("uninstall: %s", cudnnctl_last_error(ctx)->detail);
    assert_int_equal(ur->n_removed_ids, 1);
    assert_int_equal(ur->n_files_kept, 0);
    cudnnctl_uninstall_result_free(ur);
    char *after = fx_snapshot(w.tree);
    assert_true(fx_same("tree after uninstall", before, after));
    char *rdir = cc_path_join(w.state, "receipts");
    assert_true(cc_txn_dir_empty(rdir));
    char *bdir = cc_path_join(w.state, "backups/000001");
    assert_false(fx_exists(bdir));
    free(rdir), free(bdir);

    free(before), free(installed), free(again), free(after), free(lib), free(inc);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void modified_file_is_kept(void **state)
{
    (void)state;
    fx_world w;
    any_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    tree_plan(&w, &fp, "9.19.0.56", "/usr/local/cuda");
    cudnnctl_install_result *res = NULL;
    assert_int_equal(fx_install(ctx, &w, &fp, 1, &res), CUDNNCTL_E_OK); /* foreign cuDNN */
    cudnnctl_install_result_free(res);
    char *h = cc_path_join(w.tree, "include/cudnn.h");
    FILE *hf = fopen(h, "ab"); /* binary: no \r added on Windows */
    assert_non_null(hf);
    assert_true(fputs("/* my local edit */\n", hf) >= 0);
    assert_int_equal(fclose(hf), 0);
    char *mine = fx_snapshot(w.tree);
    cudnnctl_uninstall_opts uo = {NULL, NULL, 0, 0}; /* the only target with receipts */
    cudnnctl_uninstall_result *ur = NULL;
    assert_int_equal(cudnnctl_uninstall(ctx, &uo, &ur), CUDNNCTL_E_OK);
    assert_int_equal(ur->n_files_kept, 1);
    assert_string_equal(ur->files_kept[0], w.windows ? "/CUDA/v13.0/include/cudnn.h"
                                                     : "/usr/local/cuda-13.0/include/cudnn.h");
    assert_true(ur->n_warnings >= 2); /* kept + where the original is */
    cudnnctl_uninstall_result_free(ur);
    char *kept = slurp(h);
    assert_non_null(kept);
    size_t kl = strlen(kept), el = strlen("/* my local edit */\n");
    assert_true(kl >= el && strcmp(kept + kl - el, "/* my local edit */\n") == 0); /* tail -1 */
    free(kept);
    /* the original it replaced is kept in the state dir, not lost */
    char *bk = cc_path_join(w.state, "backups/000001");
    assert_true(tree_holds(bk, "older cuDNN header"));
    free(bk);
    /* everything else went back */
    char *lib = cc_path_join(w.tree, w.windows ? "bin" : "lib");
    if (w.windows) {
        assert_file(lib, "cudnn64_9.dll"); /* the foreign DLL it replaced */
        assert_absent(lib, "cudnn_graph64_9.dll");
    } else {
        assert_file(lib, "libcudnn_adv.so.9");
        assert_file(lib, "libcudnn.so.9");
        assert_absent(lib, "libcudnn.so.9.19.0");
    }
    /* the next install does not reuse the id whose backups are still there (force: the
     * foreign cuDNN is back) */
    assert_int_equal(fx_install(ctx, &w, &fp, 1, &res), CUDNNCTL_E_OK);
    assert_string_equal(res->receipt_id, "000002");
    cudnnctl_install_result_free(res);
    free(mine), free(h), free(lib);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void upgrade_downgrade_leave_no_mix_and_roll_back(void **state)
{
    (void)state;
    fx_world w;
    linux_world(&w);
    char *fx921 = make_fixture(&w, "fx921", "9.21.0", subs_921);
    char *fx919 = make_fixture(&w, "fx919", "9.19.0", subs_919);
    char *before = fx_snapshot(w.tree);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan a, b;
    fx_plan_init(&a, "9.21.0.10", CUDNNCTL_TARGET_CUDA_TREE, "/usr/local/cuda-13.0");
    fx_plan_init(&b, "9.19.0.56", CUDNNCTL_TARGET_CUDA_TREE, "/usr/local/cuda-13.0");
    cudnnctl_install_result *res = NULL;
    w.fixture = cc_strdup(fx921);
    assert_int_equal(fx_install(ctx, &w, &a, 1, &res), CUDNNCTL_E_OK); /* foreign cuDNN */
    cudnnctl_install_result_free(res);
    char *lib = cc_path_join(w.tree, "lib");
    assert_link(lib, "libcudnn_engines_tensor_ir.so.9", "libcudnn_engines_tensor_ir.so.9.21.0");
    char *after_a = fx_snapshot(w.tree);

    free(w.fixture);
    w.fixture = cc_strdup(fx919);
    assert_int_equal(fx_install(ctx, &w, &b, 0, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    /* the downgrade leaves no 9.21 file behind */
    assert_int_equal(fx_sh("! ls '%s' | grep -q '9\\.21'", lib), 0);
    assert_absent(lib, "libcudnn_engines_tensor_ir.so.9");
    assert_absent(lib, "libcudnn_engines_tensor_ir.so");
    assert_link(lib, "libcudnn_ops.so.9", "libcudnn_ops.so.9.19.0");

    /* the older install cannot be removed from under the newer one */
    cudnnctl_uninstall_opts uo = {"/usr/local/cuda-13.0", "9.21", 0, 0};
    cudnnctl_uninstall_result *ur = NULL;
    assert_int_equal(cudnnctl_uninstall(ctx, &uo, &ur), CUDNNCTL_E_CONFLICT);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "rollback"));
    cudnnctl_uninstall_result_free(ur);

    /* rollback: exactly as after the 9.21 install, tensor_ir included */
    assert_int_equal(cudnnctl_rollback(ctx, "/usr/local/cuda-13.0", 0, &ur), CUDNNCTL_E_OK);
    assert_string_equal(ur->versions[0], "9.19.0.56");
    cudnnctl_uninstall_result_free(ur);
    char *rolled = fx_snapshot(w.tree);
    assert_true(fx_same("tree after rollback", after_a, rolled));
    /* and again: as before anything */
    assert_int_equal(cudnnctl_rollback(ctx, NULL, 0, &ur), CUDNNCTL_E_OK);
    cudnnctl_uninstall_result_free(ur);
    char *orig = fx_snapshot(w.tree);
    assert_true(fx_same("tree after the second rollback", before, orig));
    assert_int_equal(cudnnctl_rollback(ctx, NULL, 0, &ur), CUDNNCTL_E_NO_RECEIPT);
    cudnnctl_uninstall_result_free(ur);

    free(fx921), free(fx919), free(before), free(after_a), free(rolled), free(orig), free(lib);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void hash_mismatch_leaves_target_untouched(void **state)
{
    (void)state;
    fx_world w;
    any_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    w.fail_populate = 1;
    char *before = fx_snapshot(w.tree);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    tree_plan(&w, &fp, "9.19.0.56", "/usr/local/cuda");
    cudnnctl_install_result *res = NULL;
    cudnnctl_err e = fx_install(ctx, &w, &fp, 0, &res);
    assert_int_equal(e, CUDNNCTL_E_HASH_MISMATCH);
    assert_int_equal(cudnnctl_err_exit_code(e), 3);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_FAILED);
    char *js = NULL;
    assert_int_equal(cudnnctl_install_result_json(res, &js), CUDNNCTL_E_OK);
    assert_non_null(strstr(js, "\"result\":\"failed\""));
    cudnnctl_free(js);
    cudnnctl_install_result_free(res);
    char *after = fx_snapshot(w.tree);
    assert_true(fx_same("tree after a hash mismatch", before, after)); /* staging gone too */
    char *j = cc_path_join(w.state, "journal.json");
    assert_false(fx_exists(j));
    free(j), free(before), free(after);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void lock_held_gives_locked(void **state)
{
    (void)state;
    fx_world w;
    any_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    cudnnctl_ctx *holder = fx_world_ctx(&w), *ctx = fx_world_ctx(&w);
    cc_lock lk;
    assert_int_equal(cc_lock_acquire(holder, w.state, "install", &lk), CUDNNCTL_E_OK);
    /* flock is per open file: a second open in this process conflicts like another process */
    fx_plan fp;
    tree_plan(&w, &fp, "9.19.0.56", "/usr/local/cuda");
    cudnnctl_install_result *res = NULL;
    cudnnctl_err e = fx_install(ctx, &w, &fp, 0, &res);
    assert_int_equal(e, CUDNNCTL_E_LOCKED);
    assert_int_equal(cudnnctl_err_exit_code(e), 8);
    char *pid = cc_asprintf("pid %ld", cc_pf_getpid());
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, pid));
    free(pid);
    cudnnctl_install_result_free(res);
    cc_lock_release(holder, &lk);
    assert_int_equal(fx_install(ctx, &w, &fp, 1, &res), CUDNNCTL_E_OK); /* foreign cuDNN */
    cudnnctl_install_result_free(res);
    cudnnctl_ctx_free(holder);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void read_only_target_is_permission(void **state)
{
    (void)state;
    if (cc_pf_is_root())
        skip(); /* root writes anyway: reported as skipped, never as passed */
    fx_world w;
    linux_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    assert_int_equal(fx_sh("chmod a-w '%s' '%s/lib' '%s/include'", w.tree, w.tree, w.tree), 0);
    char *before = fx_snapshot(w.tree);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    fx_plan_init(&fp, "9.19.0.56", CUDNNCTL_TARGET_CUDA_TREE, "/usr/local/cuda");
    cudnnctl_install_result *res = NULL;
    cudnnctl_err e = fx_install(ctx, &w, &fp, 0, &res);
    assert_int_equal(e, CUDNNCTL_E_PERMISSION);
    assert_int_equal(cudnnctl_err_exit_code(e), 9);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--prefix"));
    cudnnctl_install_result_free(res);
    char *after = fx_snapshot(w.tree);
    assert_true(fx_same("read-only tree", before, after));
    free(before), free(after);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

/* ---- prefix mode --------------------------------------------------------------------------- */

static void prefix_side_by_side_current_and_undo(void **state)
{
    (void)state;
    fx_world w;
    linux_world(&w);
    char *fx919 = make_fixture(&w, "fx919", "9.19.0", subs_919);
    char *fx921 = make_fixture(&w, "fx921", "9.21.0", subs_921);
    char *opt = cc_path_join(w.root, "opt");
    assert_int_equal(fx_sh("mkdir -p '%s'", opt), 0);
    char *before = fx_snapshot(w.root);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan a, b;
    fx_plan_init(&a, "9.19.0.56", CUDNNCTL_TARGET_PREFIX, "/opt/cudnn");
    fx_plan_init(&b, "9.21.0.10", CUDNNCTL_TARGET_PREFIX, "/opt/cudnn");
    cudnnctl_install_result *res = NULL;
    w.fixture = cc_strdup(fx919);
    cudnnctl_err e = fx_install(ctx, &w, &a, 0, &res);
    if (e != CUDNNCTL_E_OK)
        fail_msg("prefix install: %s", cudnnctl_last_error(ctx)->detail);
    assert_string_equal(res->install_dir, "/opt/cudnn/cudnn-9.19.0.56-cuda13");
    cudnnctl_install_result_free(res);
    char *P = cc_path_join(w.root, "opt/cudnn");
    char *A = cc_path_join(P, "cudnn-9.19.0.56-cuda13");
    char *Alib = cc_path_join(A, "lib");
    assert_link(P, "current", "cudnn-9.19.0.56-cuda13");
    assert_link(Alib, "libcudnn.so.9", "libcudnn.so.9.19.0");
    assert_link(Alib, "libcudnn.so", "libcudnn.so.9");
    assert_file(A, "LICENSE");
    assert_file(A, "include/cudnn_version.h");
    assert_true(fx_no_leftovers(P));

    free(w.fixture);
    w.fixture = cc_strdup(fx921);
    assert_int_equal(fx_install(ctx, &w, &b, 0, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    assert_link(P, "current", "cudnn-9.21.0.10-cuda13");
    assert_file(A, "lib/libcudnn.so.9.19.0"); /* side by side */

    cudnnctl_install_list *l = NULL;
    assert_int_equal(cudnnctl_list(ctx, NULL, &l), CUDNNCTL_E_OK);
    assert_int_equal(l->n_items, 2);
    assert_false(l->items[0].active);
    assert_true(l->items[1].active);
    cudnnctl_install_list_free(l);

    /* installing 9.19 again: nothing copied, but current names it again */
    free(w.fixture);
    w.fixture = cc_strdup(fx919);
    char *prefix_before_switch = fx_snapshot(A);
    assert_int_equal(fx_install(ctx, &w, &a, 0, &res), CUDNNCTL_E_OK);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_SWITCHED); /* current moved: said so */
    assert_non_null(res->verified_at);                       /* when it was verified */
    cudnnctl_install_result_free(res);
    assert_link(P, "current", "cudnn-9.19.0.56-cuda13");
    char *prefix_after_switch = fx_snapshot(A);
    assert_true(fx_same("9.19 dir after the switch", prefix_before_switch, prefix_after_switch));
    free(prefix_before_switch);
    free(prefix_after_switch);
    assert_true(fx_no_leftovers(P));
    /* and back to 9.21 the same way */
    free(w.fixture);
    w.fixture = cc_strdup(fx921);
    assert_int_equal(fx_install(ctx, &w, &b, 0, &res), CUDNNCTL_E_OK);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_SWITCHED);
    cudnnctl_install_result_free(res);
    assert_link(P, "current", "cudnn-9.21.0.10-cuda13");
    /* once more: current names it already — unchanged */
    assert_int_equal(fx_install(ctx, &w, &b, 0, &res), CUDNNCTL_E_OK);
    assert_int_equal(res->result, CUDNNCTL_INSTALL_UNCHANGED);
    cudnnctl_install_result_free(res);

    /* rollback: 9.21 gone, current back on 9.19 */
    cudnnctl_uninstall_result *ur = NULL;
    assert_int_equal(cudnnctl_rollback(ctx, "/opt/cudnn", 0, &ur), CUDNNCTL_E_OK);
    cudnnctl_uninstall_result_free(ur);
    assert_link(P, "current", "cudnn-9.19.0.56-cuda13");
    char *B = cc_path_join(P, "cudnn-9.21.0.10-cuda13");
    assert_false(fx_exists(B));
    /* uninstall the last one: the prefix goes away entirely (we created it) */
    cudnnctl_uninstall_opts uo = {"/opt/cudnn", "9.19.0.56", 0, 0};
    assert_int_equal(cudnnctl_uninstall(ctx, &uo, &ur), CUDNNCTL_E_OK);
    cudnnctl_uninstall_result_free(ur);
    char *after = fx_snapshot(w.root);
    /* the state dir itself (var/lib/cudnnctl: receipts/, lock) is new; compare the rest */
    assert_int_equal(fx_sh("rm -rf '%s/var'", w.root), 0);
    free(after);
    after = fx_snapshot(w.root);
    char *before_nostate = before;
    assert_true(fx_same("root after prefix uninstall", before_nostate, after));

    free(fx919), free(fx921), free(opt), free(before), free(after), free(P), free(A), free(Alib),
        free(B);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void prefix_foreign_current_needs_force(void **state)
{
    (void)state;
    fx_world w;
    linux_world(&w);
    w.fixture = make_fixture(&w, "fx919", "9.19.0", subs_919);
    char *P = cc_path_join(w.root, "opt/cudnn");
    assert_int_equal(fx_sh("mkdir -p '%s/mine' && ln -s mine '%s/current'", P, P), 0);
    char *before = fx_snapshot(P);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan fp;
    fx_plan_init(&fp, "9.19.0.56", CUDNNCTL_TARGET_PREFIX, "/opt/cudnn");
    cudnnctl_install_result *res = NULL;
    assert_int_equal(fx_install(ctx, &w, &fp, 0, &res), CUDNNCTL_E_CONFLICT);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "--force"));
    cudnnctl_install_result_free(res);
    char *mid = fx_snapshot(P);
    assert_true(fx_same("prefix after a refused install", before, mid));
    assert_int_equal(fx_install(ctx, &w, &fp, 1, &res), CUDNNCTL_E_OK);
    cudnnctl_install_result_free(res);
    assert_link(P, "current", "cudnn-9.19.0.56-cuda13");
    cudnnctl_uninstall_result *ur = NULL;
    assert_int_equal(cudnnctl_rollback(ctx, "/opt/cudnn", 0, &ur), CUDNNCTL_E_OK);
    cudnnctl_uninstall_result_free(ur);
    char *after = fx_snapshot(P);
    assert_true(fx_same("prefix after rollback", before, after)); /* current -> mine again */
    free(P), free(before), free(mid), free(after);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

static void rollback_after_a_crashed_upgrade_only_settles_it(void **state)
{
    (void)state;
    fx_world w;
    any_world(&w);
    char *fx919 = make_fixture(&w, "fx919", "9.19.0", subs_919);
    char *fx921 = make_fixture(&w, "fx921", "9.21.0", subs_921);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    fx_plan a, b;
    tree_plan(&w, &a, "9.19.0.56", "/usr/local/cuda-13.0");
    tree_plan(&w, &b, "9.21.0.10", "/usr/local/cuda-13.0");
    cudnnctl_install_result *res = NULL;
    w.fixture = cc_strdup(fx919);
    assert_int_equal(fx_install(ctx, &w, &a, 1, &res), CUDNNCTL_E_OK); /* foreign cuDNN */
    cudnnctl_install_result_free(res);
    char *after_a = fx_snapshot(w.tree);
    char *saved = cc_path_join(w.tmp, "saved");
    assert_int_equal(fx_copy_tree(w.root, saved), 0);
    free(w.fixture);
    w.fixture = cc_strdup(fx921);
    /* crash the upgrade (every operation from N on fails) at the first N that leaves a journal
     * in the middle of its renames */
    char *j = cc_path_join(w.state, "journal.json");
    int found = 0;
    for (unsigned long n = 1; n < 2000 && !found; n++) {
        fx_rm_tree(w.root);
        assert_int_equal(fx_copy_tree(saved, w.root), 0);
        cudnnctl_ctx *c2 = fx_world_ctx(&w);
        cudnnctl_set_fault_sticky(c2, 1);
        cudnnctl_set_fault_injection(c2, n);
        cudnnctl_err e = fx_install(c2, &w, &b, 0, &res);
        cudnnctl_install_result_free(res);
        unsigned long calls = cudnnctl_sys_calls(c2);
        cudnnctl_ctx_free(c2);
        assert_true(calls >= n); /* the clean end would mean no mid-commit point exists */
        assert_int_not_equal(e, CUDNNCTL_E_OK);
        /* the journal's "phase": "commit" (any spacing) */
        char *text = slurp(j), *ph = text ? strstr(text, "\"phase\":") : NULL;
        if (ph) {
            ph += 8;
            while (*ph == ' ' || *ph == '\t' || *ph == '\n' || *ph == '\r')
                ph++;
            found = strncmp(ph, "\"commit\"", 8) == 0;
        }
        free(text);
    }
    assert_true(found);
    char *half = fx_snapshot(w.tree);
    assert_false(strcmp(half, after_a) == 0); /* really half-way: some renames happened */
    cudnnctl_uninstall_result *ur = NULL;
    assert_int_equal(cudnnctl_rollback(ctx, NULL, 0, &ur), CUDNNCTL_E_OK);
    assert_string_equal(ur->recovered, "rolled-back");
    assert_int_equal(ur->n_removed_ids, 0); /* 9.19 stays */
    cudnnctl_uninstall_result_free(ur);
    char *now = fx_snapshot(w.tree);
    assert_true(fx_same("tree after rollback of a crashed upgrade", after_a, now));
    cudnnctl_install_list *l = NULL;
    assert_int_equal(cudnnctl_list(ctx, NULL, &l), CUDNNCTL_E_OK);
    assert_int_equal(l->n_items, 1);
    assert_string_equal(l->items[0].cudnn_version, "9.19.0.56");
    cudnnctl_install_list_free(l);
    free(fx919), free(fx921), free(after_a), free(saved), free(j), free(half), free(now);
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

/* ---- durability: what reaches the disk before the rename that makes it live ------------------ */

/* The sys_ops seam records, in order, "sync PATH" for every fsync of a file opened by path and
 * "rename A B" for every rename. */
static cc_strv sync_log;
static char *fd_paths[1024];

static cc_pf_fd rec_open(const char *path, int flags, uint32_t mode)
{
    cc_pf_fd fd = cc_pf_open(path, flags, mode);
    if (fd >= 0 && fd < 1024) {
        free(fd_paths[fd]);
        fd_paths[fd] = cc_strdup(path);
    }
    return fd;
}

static int rec_fsync(cc_pf_fd fd)
{
    if (fd >= 0 && fd < 1024 && fd_paths[fd])
        cc_strv_push_own(&sync_log, cc_asprintf("sync %s", fd_paths[fd]));
    return cc_pf_fsync(fd);
}

static int rec_rename(const char *a, const char *b)
{
    cc_strv_push_own(&sync_log, cc_asprintf("rename %s %s", a, b));
    return cc_pf_rename(a, b);
}

static long log_index(const char *prefix, const char *path)
{
    for (size_t i = 0; i < sync_log.n; i++) {
        size_t n = strlen(prefix);
        if (strncmp(sync_log.v[i], prefix, n) == 0 &&
            strstr(sync_log.v[i] + n, path) == sync_log.v[i] + n)
            return (long)i;
    }
    return -1;
}

static void prefix_commit_syncs_every_staged_file_before_the_rename(void **state)
{
    (void)state;
    fx_world w;
    linux_world(&w);
    char *fx919 = make_fixture(&w, "fx919", "9.19.0", subs_919);
    cudnnctl_ctx *ctx = fx_world_ctx(&w);
    ctx->sys.open = rec_open;
    ctx->sys.fsync = rec_fsync;
    ctx->sys.rename = rec_rename;
    fx_plan a;
    fx_plan_init(&a, "9.19.0.56", CUDNNCTL_TARGET_PREFIX, "/opt/cudnn");
    cudnnctl_install_result *res = NULL;
    w.fixture = cc_strdup(fx919);
    if (fx_install(ctx, &w, &a, 0, &res) != CUDNNCTL_E_OK)
        fail_msg("prefix install: %s", cudnnctl_last_error(ctx)->detail);
    cudnnctl_install_result_free(res);
    /* the rename of the staged tree into PREFIX/cudnn-<ver>-cuda<M> */
    char *V = cc_path_join(w.root, "opt/cudnn/cudnn-9.19.0.56-cuda13");
    long live = -1;
    char *staging = NULL;
    for (size_t i = 0; i < sync_log.n && live < 0; i++) {
        size_t n = strlen(sync_log.v[i]), vn = strlen(V);
        if (strncmp(sync_log.v[i], "rename ", 7) == 0 && n > vn &&
            strcmp(sync_log.v[i] + n - vn, V) == 0 && sync_log.v[i][n - vn - 1] == ' ') {
            live = (long)i;
            staging = cc_strndup(sync_log.v[i] + 7, n - vn - 1 - 7);
        }
    }
    if (live < 0)
        fail_msg("no rename into %s was seen", V);
    /* every regular file of the installed tree was fsync'd (under its staging name) before */
    char *list = cc_asprintf("find '%s' -type f | sort > '%s/files.txt'", V, w.tmp);
    assert_int_equal(fx_sh("%s", list), 0);
    char *lp = cc_path_join(w.tmp, "files.txt");
    FILE *f = fopen(lp, "r");
    assert_non_null(f);
    char line[2048];
    int n_files = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        char *staged = cc_asprintf("%s%s", staging, line + strlen(V));
        long at = log_index("sync ", staged);
        if (at < 0 || at > live)
            fail_msg("%s was not fsync'd before the staged tree went live (%ld vs %ld)", staged, at,
                     live);
        free(staged);
        n_files++;
    }
    fclose(f);
    assert_true(n_files >= 5); /* LICENSE, headers, three libraries */
    free(list), free(lp), free(staging), free(V), free(fx919);
    cc_strv_free(&sync_log);
    for (int i = 0; i < 1024; i++) {
        free(fd_paths[i]);
        fd_paths[i] = NULL;
    }
    cudnnctl_ctx_free(ctx);
    fx_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_install_then_uninstall_is_byte_exact),
        cmocka_unit_test(modified_file_is_kept),
        cmocka_unit_test(upgrade_downgrade_leave_no_mix_and_roll_back),
        cmocka_unit_test(hash_mismatch_leaves_target_untouched),
        cmocka_unit_test(lock_held_gives_locked),
        cmocka_unit_test(read_only_target_is_permission),
        cmocka_unit_test(prefix_side_by_side_current_and_undo),
        cmocka_unit_test(prefix_foreign_current_needs_force),
        cmocka_unit_test(rollback_after_a_crashed_upgrade_only_settles_it),
        cmocka_unit_test(prefix_commit_syncs_every_staged_file_before_the_rename),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
