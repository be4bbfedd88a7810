/* test_winpolicy.c: the Windows policy (detect_windows.c, detect_wincudnn.c, winenv.c,
 * use_windows.c) run through the host seam: a Windows host profile with an in-memory registry and
 * environment, and a fake tree under --root where C:\ is ROOT/c and D:\ is ROOT/d. Runs on Linux
 * (the point of the seam) and, cross-built, under wine. Without the seam none of it can run on
 * Linux: with the default (Linux) profile detect finds none of these toolkits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "internal.h"
#include "pf_fixture.h"
#include "winenv.h"

#define TK "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
#define TK_DIR "c/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
#define CUDNN_DIR "c/Program Files/NVIDIA/CUDNN"
#define REG_CUDA "HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA"

typedef struct {
    const char *names[16];
    const char *values[16];
    size_t n;
} fake_env;

static const char *fake_getenv(void *user, const char *name)
{
    fake_env *e = user;
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->names[i], name) == 0)
            return e->values[i];
    return NULL;
}

typedef struct {
    char *root;
    cudnnctl_ctx *ctx;
    cc_memreg *reg;
    fake_env env;
} fx;

static void env_set(fx *f, const char *name, const char *value)
{
    f->env.names[f->env.n] = name;
    f->env.values[f->env.n++] = value;
}

static const char *cudnn_h(int maj, int min, int pat)
{
    static char buf[160];
    snprintf(buf, sizeof(buf),
             "#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define CUDNN_PATCHLEVEL %d\n", maj,
             min, pat);
    return buf;
}

/* Three toolkits (12.4 by CUDA_PATH, 13.0 in the default dir with bin\x64, 11.8 on D: known only
 * to the registry), cuDNN 9.1 copied into 12.4's bin, and NVIDIA's cuDNN installer layout
 * (v9.1\bin\12.4 with its header, v9.1\bin\11.8 without). */
static int setup(void **state)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->root = pff_tmpdir("winpolicy");
    pff_write(f->root, TK_DIR "/v12.4/include/cuda.h", "#define CUDA_VERSION 12040\n");
    pff_write(f->root, TK_DIR "/v12.4/bin/cudart64_12.dll", "MZ");
    pff_write(f->root, TK_DIR "/v12.4/bin/cudnn64_9.dll", "MZ");
    pff_write(f->root, TK_DIR "/v12.4/bin/cudnn_ops64_9.dll", "MZ");
    pff_write(f->root, TK_DIR "/v12.4/include/cudnn_version.h", cudnn_h(9, 1, 0));
    pff_write(f->root, TK_DIR "/v13.0/include/cuda.h", "#define CUDA_VERSION 13000\n");
    pff_write(f->root, TK_DIR "/v13.0/bin/x64/cudart64_13.dll", "MZ");
    pff_write(f->root, "d/CUDA/v11.8/include/cuda.h", "#define CUDA_VERSION 11080\n");
    pff_write(f->root, "d/CUDA/v11.8/bin/cudart64_110.dll", "MZ");
    pff_write(f->root, CUDNN_DIR "/v9.1/bin/12.4/cudnn64_9.dll", "MZ");
    pff_write(f->root, CUDNN_DIR "/v9.1/bin/12.4/cudnn_graph64_9.dll", "MZ");
    pff_write(f->root, CUDNN_DIR "/v9.1/include/12.4/cudnn_version.h", cudnn_h(9, 1, 0));
    pff_write(f->root, CUDNN_DIR "/v9.1/lib/12.4/x64/cudnn.lib", "lib");
    pff_write(f->root, CUDNN_DIR "/v9.1/bin/11.8/cudnn64_9.dll", "MZ");
    assert_int_equal(cudnnctl_ctx_new(&f->ctx), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_set_root(f->ctx, f->root), CUDNNCTL_E_OK);
    char *sd = pff_join(f->root, "state");
    assert_int_equal(cudnnctl_set_state_dir(f->ctx, sd), CUDNNCTL_E_OK);
    free(sd);
    f->reg = cc_memreg_new();
    assert_non_null(f->reg);
    env_set(f, "CUDA_PATH", TK "\\v12.4");
    env_set(f, "ProgramW6432", "C:\\Program Files");
    env_set(f, "USERPROFILE", "C:\\Users\\ana");
    env_set(f, "PATH", "C:\\Windows;C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4\\");
    cc_host h;
    cc_host_default(&h);
    h.os = CC_HOST_WINDOWS;
    h.native = 0;
    h.env_get = fake_getenv;
    h.env_user = &f->env;
    cc_memreg_backend(f->reg, &h.reg);
    cc_host_set(f->ctx, &h);
    assert_int_equal(
        cc_host_reg_set(f->ctx, REG_CUDA "\\v11.8", "InstallDir", "D:\\CUDA\\v11.8", CC_PF_REG_SZ),
        0);
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
    free(f);
    return 0;
}

static const cudnnctl_toolkit *tk_of(const cudnnctl_detect_result *r, const char *ver)
{
    for (size_t i = 0; i < r->n_toolkits; i++)
        if (r->toolkits[i].version && strcmp(r->toolkits[i].version, ver) == 0)
            return &r->toolkits[i];
    return NULL;
}

static const cudnnctl_cudnn_copy *copy_at(const cudnnctl_detect_result *r, const char *path)
{
    for (size_t i = 0; i < r->n_cudnn; i++)
        if (strcmp(r->cudnn[i].path, path) == 0)
            return &r->cudnn[i];
    return NULL;
}

static int has_problem(const cudnnctl_cudnn_copy *c, const char *needle)
{
    for (size_t i = 0; i < c->n_problems; i++)
        if (strstr(c->problems[i], needle))
            return 1;
    return 0;
}

static void rooted_drive_paths(void **state)
{
    fx *f = *state;
    char *r = cc_rooted(f->ctx, "C:\\Program Files\\X\\bin");
    char *want = pff_join(f->root, "c/Program Files/X/bin");
    assert_string_equal(r, want);
    char *back = cc_unrooted(f->ctx, r);
    assert_string_equal(back, "C:/Program Files/X/bin");
    free(r);
    free(want);
    free(back);
    r = cc_rooted(f->ctx, "d:/CUDA");
    want = pff_join(f->root, "d/CUDA");
    assert_string_equal(r, want);
    free(r);
    free(want);
    assert_true(cc_host_is_abs(f->ctx, "C:\\x"));
    assert_false(cc_host_is_abs(f->ctx, "x\\y"));
    assert_string_equal(cc_host_os_name(f->ctx), "windows");
}

static void memreg_semantics(void **state)
{
    fx *f = *state;
    char *v = NULL;
    int type = 0;
    assert_int_equal(cc_host_reg_set(f->ctx, "HKEY_CURRENT_USER\\Environment", "Path",
                                     "%USERPROFILE%\\bin", CC_PF_REG_EXPAND_SZ),
                     0);
    assert_int_equal(cc_host_reg_get(f->ctx, "HKCU\\environment", "PATH", &v, &type), 0);
    assert_string_equal(v, "%USERPROFILE%\\bin");
    assert_int_equal(type, CC_PF_REG_EXPAND_SZ);
    free(v);
    char *x = cc_host_expand_env(f->ctx, "%USERPROFILE%\\bin;%NOPE%");
    assert_string_equal(x, "C:\\Users\\ana\\bin;%NOPE%");
    free(x);
    char **keys = cc_host_reg_subkeys(
        f->ctx, "HKEY_LOCAL_MACHINE\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA");
    assert_non_null(keys);
    assert_string_equal(keys[0], "v11.8");
    assert_null(keys[1]);
    free(keys[0]);
    free(keys);
    assert_int_equal(cc_host_reg_delete(f->ctx, "HKCU\\Environment", "Path"), 0);
    assert_int_equal(cc_host_reg_get(f->ctx, "HKCU\\Environment", "Path", &v, &type), 0);
    assert_null(v);
    assert_int_equal(type, CC_PF_REG_NONE);
}

static void detect_windows_tree(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *r = NULL;
    assert_int_equal(cudnnctl_detect(f->ctx, &r), CUDNNCTL_E_OK);
    assert_string_equal(r->platform, "windows-x86_64");
    assert_int_equal(r->n_toolkits, 3);
    assert_string_equal(r->toolkits[0].version, "13.0"); /* newest first */
    const cudnnctl_toolkit *t12 = tk_of(r, "12.4"), *t11 = tk_of(r, "11.8"),
                           *t13 = tk_of(r, "13.0");
    assert_non_null(t12);
    assert_non_null(t11);
    assert_string_equal(t12->path, TK "\\v12.4");
    assert_true(t12->active);
    assert_string_equal(t12->active_reason, "CUDA_PATH");
    assert_string_equal(t11->path, "D:\\CUDA\\v11.8");
    assert_string_equal(t11->found_via, "registry");
    assert_string_equal(t13->found_via, "default install dir");
    assert_string_equal(t13->lib_dir, TK "\\v13.0\\bin\\x64");
    /* cuDNN copied into the 12.4 tree: 9.1.0 from its header, zlibwapi.dll missing */
    const cudnnctl_cudnn_copy *tree = copy_at(r, TK "\\v12.4\\bin");
    assert_non_null(tree);
    assert_string_equal(tree->origin, "cuda-tree");
    assert_string_equal(tree->version, "9.1.0");
    assert_false(tree->in_loader_path);
    assert_true(has_problem(tree, "zlibwapi.dll"));
    /* NVIDIA's installer: one copy per CUDA version, on PATH or not */
    const cudnnctl_cudnn_copy *i124 =
        copy_at(r, "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4");
    assert_non_null(i124);
    assert_string_equal(i124->origin, "nvidia-installer");
    assert_string_equal(i124->cuda_version, "12.4");
    assert_string_equal(i124->version, "9.1.0");
    assert_string_equal(i124->version_source, "header");
    assert_string_equal(i124->include_dir, "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\include\\12.4");
    assert_true(i124->in_loader_path);
    assert_int_equal(i124->n_libs, 2);
    const cudnnctl_cudnn_copy *i118 =
        copy_at(r, "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\11.8");
    assert_non_null(i118);
    assert_string_equal(i118->cuda_version, "11.8");
    assert_string_equal(i118->version, "9.1");
    assert_string_equal(i118->version_source, "install-dir");
    assert_false(i118->in_loader_path);
    char *json = NULL;
    assert_int_equal(cudnnctl_detect_result_json(r, &json), CUDNNCTL_E_OK);
    cJSON *doc = cJSON_Parse(json), *c;
    int seen = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cudnn")) seen +=
        cJSON_GetStringValue(cJSON_GetObjectItem(c, "cuda_version")) &&
        strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "cuda_version")), "12.4") == 0;
    assert_int_equal(seen, 1);
    cJSON_Delete(doc);
    cudnnctl_free(json);
    cudnnctl_detect_result_free(r);
}

/* The same tree with the machine's own (Linux) profile: nothing of it is found. */
static void detect_without_the_seam(void **state)
{
    fx *f = *state;
    if (strcmp(cc_pf_os(), "windows") == 0)
        skip(); /* the native profile is the Windows one there */
    cc_host h;
    cc_host_default(&h);
    cc_host_set(f->ctx, &h);
    cudnnctl_detect_result *r = NULL;
    assert_int_equal(cudnnctl_detect(f->ctx, &r), CUDNNCTL_E_OK);
    assert_null(tk_of(r, "12.4"));
    assert_null(copy_at(r, "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4"));
    cudnnctl_detect_result_free(r);
}

static char *reg(fx *f, const char *key, const char *name, int *type)
{
    char *v = NULL;
    int t = 0;
    assert_int_equal(cc_host_reg_get(f->ctx, key, name, &v, &t), 0);
    if (type)
        *type = t;
    return v;
}

static void use_switches_registry(void **state)
{
    fx *f = *state;
    assert_int_equal(cc_host_reg_set(f->ctx, CC_WINENV_USER_KEY, "Path",
                                     "%USERPROFILE%\\bin;" TK "\\v12.4\\bin;C:\\Tools",
                                     CC_PF_REG_EXPAND_SZ),
                     0);
    cudnnctl_use_result *u = NULL;
    assert_int_equal(cudnnctl_use(f->ctx, NULL, "13.0", 0, &u), CUDNNCTL_E_OK);
    assert_int_equal(u->mechanism, CUDNNCTL_MECH_REGISTRY);
    assert_true(u->changed);
    int type = 0;
    char *v = reg(f, CC_WINENV_USER_KEY, "CUDA_PATH", NULL);
    assert_string_equal(v, TK "\\v13.0");
    free(v);
    v = reg(f, CC_WINENV_USER_KEY, "CUDA_PATH_V13_0", NULL);
    assert_string_equal(v, TK "\\v13.0");
    free(v);
    v = reg(f, CC_WINENV_USER_KEY, "Path", &type);
    assert_string_equal(v, TK "\\v13.0\\bin;" TK "\\v13.0\\bin\\x64;%USERPROFILE%\\bin;C:\\Tools");
    assert_int_equal(type, CC_PF_REG_EXPAND_SZ); /* the type is kept */
    free(v);
    assert_int_equal(cc_memreg_broadcasts(f->reg), 1);
    cudnnctl_use_result_free(u);
    /* again: nothing changes, nothing is broadcast */
    assert_int_equal(cudnnctl_use(f->ctx, NULL, "13.0", 0, &u), CUDNNCTL_E_OK);
    assert_false(u->changed);
    assert_int_equal(cc_memreg_broadcasts(f->reg), 1);
    cudnnctl_use_result_free(u);
    /* --system: the machine environment */
    assert_int_equal(cudnnctl_use(f->ctx, NULL, "11.8", CUDNNCTL_USE_SYSTEM, &u), CUDNNCTL_E_OK);
    v = reg(f, CC_WINENV_SYSTEM_KEY, "CUDA_PATH", NULL);
    assert_string_equal(v, "D:\\CUDA\\v11.8");
    free(v);
    v = reg(f, CC_WINENV_USER_KEY, "CUDA_PATH", NULL); /* the user's value untouched */
    assert_string_equal(v, TK "\\v13.0");
    free(v);
    cudnnctl_use_result_free(u);
    assert_int_equal(cudnnctl_use(f->ctx, NULL, "10.2", 0, &u), CUDNNCTL_E_NO_TOOLKIT);
}

static void winenv_apply_restore(void **state)
{
    fx *f = *state;
    const char *orig = "%USERPROFILE%\\bin;C:\\Windows";
    assert_int_equal(cc_host_reg_set(f->ctx, CC_WINENV_USER_KEY, "Path", orig, CC_PF_REG_EXPAND_SZ),
                     0);
    const char *bins[] = {TK "\\v12.4\\bin", "C:\\cudnn\\bin", TK "\\v12.4\\bin"};
    cc_winenv_want w = {0};
    w.toolkit = TK "\\v12.4";
    w.version = "12.4";
    w.bins = bins;
    w.n_bins = 3;
    cJSON *changes = cJSON_CreateArray();
    int n = 0;
    assert_int_equal(cc_winenv_apply(f->ctx, &w, changes, &n), CUDNNCTL_E_OK);
    assert_int_equal(n, 3); /* CUDA_PATH, CUDA_PATH_V12_4, Path */
    char *v = reg(f, CC_WINENV_USER_KEY, "Path", NULL);
    assert_string_equal(v, TK "\\v12.4\\bin;C:\\cudnn\\bin;%USERPROFILE%\\bin;C:\\Windows");
    free(v);
    /* the user adds an entry after the install: the restore keeps it */
    assert_int_equal(
        cc_host_reg_set(f->ctx, CC_WINENV_USER_KEY, "Path",
                        TK "\\v12.4\\bin;C:\\cudnn\\bin;%USERPROFILE%\\bin;C:\\Windows;C:\\New",
                        CC_PF_REG_EXPAND_SZ),
        0);
    cc_strv warn = {0};
    int restored = 0;
    assert_int_equal(cc_winenv_restore(f->ctx, changes, &warn, &restored), CUDNNCTL_E_OK);
    assert_int_equal(restored, 3);
    int type = 0;
    v = reg(f, CC_WINENV_USER_KEY, "Path", &type);
    assert_string_equal(v, "%USERPROFILE%\\bin;C:\\Windows;C:\\New");
    assert_int_equal(type, CC_PF_REG_EXPAND_SZ);
    free(v);
    assert_null(reg(f, CC_WINENV_USER_KEY, "CUDA_PATH", NULL));
    assert_null(reg(f, CC_WINENV_USER_KEY, "CUDA_PATH_V12_4", NULL));
    assert_int_equal(warn.n, 0);
    cc_strv_free(&warn);
    cJSON_Delete(changes);
}

static const cudnnctl_finding *finding(const cudnnctl_doctor_result *d, const char *code,
                                       const char *path)
{
    for (size_t i = 0; i < d->n_findings; i++)
        if (strcmp(d->findings[i].code, code) == 0 && d->findings[i].path &&
            strcmp(d->findings[i].path, path) == 0)
            return &d->findings[i];
    return NULL;
}

/* doctor's cuDNN checks on the Windows tree, from Linux: the DLL names of the profile's OS */
static void doctor_windows_names(void **state)
{
    fx *f = *state;
    cudnnctl_doctor_opts o = {0};
    cudnnctl_doctor_result *d = NULL;
    assert_int_equal(cudnnctl_doctor(f->ctx, NULL, &o, &d), CUDNNCTL_E_OK);
    const char *inst = "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4";
    const cudnnctl_finding *sub = finding(d, "CUDNN_SUBLIB_MISSING", inst);
    assert_non_null(sub);
    assert_non_null(strstr(sub->message, "cudnn_ops64_9.dll"));
    assert_null(strstr(sub->message, ".so"));
    /* the installer copy has cudnn_graph64_9.dll: not incomplete; the 12.4 tree's copy has none */
    assert_null(finding(d, "CUDNN_INCOMPLETE", inst));
    const cudnnctl_finding *inc = finding(d, "CUDNN_INCOMPLETE", TK "\\v12.4\\bin");
    assert_non_null(inc);
    assert_non_null(strstr(inc->message, "cudnn_graph64_9.dll"));
    cudnnctl_doctor_result_free(d);
}

/* What an install puts on Path: a CUDA tree's bin dirs and cuDNN's; a prefix install the
 * junction's PREFIX\current\bin, never the versioned dir (switching needs no registry rewrite). */
static void install_path_entries(void **state)
{
    fx *f = *state;
    char *tk = cc_rooted(f->ctx, TK "\\v13.0"), *pfx_cur = cc_rooted(f->ctx, "C:\\cudnn\\current");
    char *vbin = cc_rooted(f->ctx, "C:\\cudnn\\cudnn-9.1.0.70-cuda12\\bin");
    cc_strv v = {0};
    assert_int_equal(cc_winenv_install_bins(f->ctx, 0, NULL, pfx_cur, vbin, &v), CUDNNCTL_E_OK);
    assert_int_equal(v.n, 1);
    assert_string_equal(v.v[0], "C:\\cudnn\\current\\bin");
    cc_strv_free(&v);
    assert_int_equal(cc_winenv_install_bins(f->ctx, 1, tk, NULL, tk, &v), CUDNNCTL_E_OK);
    assert_int_equal(v.n, 3);
    assert_string_equal(v.v[0],
                        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin");
    assert_string_equal(v.v[1],
                        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin\\x64");
    cc_strv_free(&v);
    free(tk);
    free(pfx_cur);
    free(vbin);
}

static void public_host_os(void **state)
{
    fx *f = *state;
    assert_int_equal(cudnnctl_set_host_os(f->ctx, "windows"), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_host_os(f->ctx), "windows");
    assert_int_equal(cudnnctl_set_host_os(f->ctx, "beos"), CUDNNCTL_E_USAGE);
    assert_int_equal(cudnnctl_set_host_os(f->ctx, NULL), CUDNNCTL_E_OK);
    assert_string_equal(cudnnctl_host_os(f->ctx), cc_pf_os());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rooted_drive_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(memreg_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(detect_windows_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(detect_without_the_seam, setup, teardown),
        cmocka_unit_test_setup_teardown(use_switches_registry, setup, teardown),
        cmocka_unit_test_setup_teardown(winenv_apply_restore, setup, teardown),
        cmocka_unit_test_setup_teardown(doctor_windows_names, setup, teardown),
        cmocka_unit_test_setup_teardown(install_path_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(public_host_os, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
