/* test_select.c: the selection tables — platform, CUDA major/minor, driver floors, --cudnn and
 * --for pins — through cudnnctl_plan_make with hand-built detection results; the compatibility
 * lookups; targets, URLs, steps and the plan's JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "select.h"

static cudnnctl_ctx *ctx;
static cudnnctl_catalog *cat;
static char *tmp; /* a scratch dir under the test's working directory */

static int setup(void **state)
{
    (void)state;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || cudnnctl_catalog_load(ctx, &cat) != 0)
        return -1;
    char *cwd = cc_pf_realpath(".");
    tmp = cwd ? cc_asprintf("%s/cc-select-%llu", cwd, (unsigned long long)cc_pf_now_ms()) : NULL;
    free(cwd);
    return tmp && cc_sys_mkdir_p(ctx, tmp, 0755) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cc_sys_rm_rf(ctx, tmp);
    free(tmp);
    cudnnctl_catalog_free(cat);
    cudnnctl_ctx_free(ctx);
    return 0;
}

/* ---- a detection result made by hand --------------------------------------------------------- */

typedef struct {
    cudnnctl_detect_result r;
    cudnnctl_toolkit tk;
    cudnnctl_driver drv;
} fake_det;

static void fake(fake_det *f, const char *platform, const char *tk_path, const char *tk_version,
                 const char *driver, int driver_cuda)
{
    memset(f, 0, sizeof(*f));
    f->r.platform = (char *)platform;
    if (tk_path) {
        f->tk.path = (char *)tk_path;
        f->tk.version = (char *)tk_version;
        sscanf(tk_version, "%d.%d", &f->tk.major, &f->tk.minor);
        f->tk.active = 1;
        f->r.toolkits = &f->tk;
        f->r.n_toolkits = 1;
    }
    if (driver || driver_cuda) {
        f->drv.version = (char *)driver;
        f->drv.cuda_version = driver_cuda;
        f->r.driver = &f->drv;
    }
}

/* The placeholder detection's active_toolkit returns NULL; the real one returns the active
 * toolkit. Tests that need a detected toolkit pass it through --cuda-home instead, which the
 * plan matches against det->toolkits by path (both paths work with either detection). */

/* ---- the selection table --------------------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *platform, *cuda, *cudnn, *for_pkg, *driver;
    int det_driver_cuda; /* a detected driver known only by cuDriverGetVersion */
    cudnnctl_err err;
    const char *version, *variant; /* expected choice */
    const char *msg;               /* substring of the error detail, or of the reason */
} sel_case;

static const sel_case cases[] = {
    /* the acceptance case: --cudnn 9.13 is release 9.13.0 */
    {"acceptance", "linux-x86_64", "13", "9.13", NULL, NULL, 0, CUDNNCTL_E_OK, "9.13.0.50", "13",
     "release 9.13.0"},
    {"series x", "linux-x86_64", "13", "9.13.x", NULL, NULL, 0, CUDNNCTL_E_OK, "9.13.1.26", "13",
     NULL},
    {"three parts", "linux-x86_64", "13", "9.13.1", NULL, NULL, 0, CUDNNCTL_E_OK, "9.13.1.26", "13",
     NULL},
    {"four parts", "linux-x86_64", "12", "9.1.0.70", NULL, NULL, 0, CUDNNCTL_E_OK, "9.1.0.70", "12",
     NULL},
    {"major only", "linux-x86_64", "13", "9", NULL, NULL, 0, CUDNNCTL_E_OK, "9.27.0.42", "13",
     "newest release matching --cudnn 9"},
    {"newest cuda12", "linux-x86_64", "12", NULL, NULL, NULL, 0, CUDNNCTL_E_OK, "9.27.0.42", "12",
     "newest release that fits"},
    {"newest cuda11", "linux-x86_64", "11", NULL, NULL, NULL, 0, CUDNNCTL_E_OK, "9.10.2.21", "11",
     NULL},
    {"cuda10", "linux-x86_64", "10", NULL, NULL, NULL, 0, CUDNNCTL_E_OK, "8.7.0.84", "10", NULL},
    {"8.x from both manifest shapes", "linux-x86_64", "11", "8.9.7", NULL, NULL, 0, CUDNNCTL_E_OK,
     "8.9.7.29", "11", NULL},
    {"9.15.0 cuda13 is .58", "linux-x86_64", "13", "9.15.0", NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.15.0.58", "13", NULL},
    {"9.11 has no cuda11", "linux-x86_64", "11", "9.11", NULL, NULL, 0, CUDNNCTL_E_NO_MATCH, NULL,
     NULL, "builds of 9.11 there: cuda12"},
    {"no cuda9", "linux-x86_64", "9", NULL, NULL, NULL, 0, CUDNNCTL_E_NO_MATCH, NULL, NULL,
     "no cuDNN build for CUDA 9"},
    {"unknown platform", "linux-x64", "12", NULL, NULL, NULL, 0, CUDNNCTL_E_BAD_PLATFORM, NULL,
     NULL, "linux-x86_64"},
    {"no aarch64 cuda13 after 9.14", "linux-aarch64", "13", NULL, NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.14.0.64", "13", NULL},
    {"ppc64le ends with 9.0.0", "linux-ppc64le", "12", NULL, NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.0.0.312", "12", NULL},
    /* driver floors */
    {"driver floor cuda13", "linux-x86_64", "13", NULL, NULL, "525.60.13", 0,
     CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL,
     "driver 525.60.13 is below 580.65.06, the floor of the cuda13 build: update the driver or "
     "use --cuda 12"},
    {"driver at cuda13 floor", "linux-x86_64", "13", NULL, NULL, "580.65.06", 0, CUDNNCTL_E_OK,
     "9.27.0.42", "13", "driver 580.65.06 meets the cuda13 floor 580.65.06"},
    {"driver floor cuda12", "linux-x86_64", "12", NULL, NULL, "470.82.01", 0,
     CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL,
     "driver 470.82.01 is below 525.60.13, the floor of the cuda12 build: update the driver or "
     "use --cuda 11"},
    {"driver at cuda12 floor", "linux-x86_64", "12", NULL, NULL, "525.60.13", 0, CUDNNCTL_E_OK,
     "9.27.0.42", "12", NULL},
    {"driver floor cuda11, no way down", "linux-x86_64", "11", NULL, NULL, "440.0", 0,
     CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL, "update the driver to 450.80.02"},
    {"driver floor cuda13 with pin 9.11 (no cuda12 alt? there is)", "linux-x86_64", "13", "9.13",
     NULL, "560.35.03", 0, CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL, "use --cuda 12"},
    {"windows floor cuda12", "windows-x86_64", "12", NULL, NULL, "527.40", 0,
     CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL, "below 527.41"},
    {"windows at cuda12 floor", "windows-x86_64", "12", NULL, NULL, "527.41", 0, CUDNNCTL_E_OK,
     "9.27.0.42", "12", NULL},
    {"windows cuda13 floor is R580", "windows-x86_64", "13", NULL, NULL, "580.88", 0, CUDNNCTL_E_OK,
     "9.27.0.42", "13", NULL},
    {"driver known by CUDA version only", "linux-x86_64", "13", NULL, NULL, NULL, 12040,
     CUDNNCTL_E_DRIVER_TOO_OLD, NULL, NULL, "supports CUDA 12.4"},
    {"driver CUDA version suffices", "linux-x86_64", "13", NULL, NULL, NULL, 13000, CUDNNCTL_E_OK,
     "9.27.0.42", "13", NULL},
    /* minor-specific builds (9.27 windows-arm64 _cuda13.4) */
    {"13.4 build for toolkit 13.4", "windows-arm64", "13.4", NULL, NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.27.0.42", "13.4", NULL},
    {"13.4 build for toolkit 13.6", "windows-arm64", "13.6", NULL, NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.27.0.42", "13.4", NULL},
    {"generic build for toolkit 13.0", "windows-arm64", "13.0", NULL, NULL, NULL, 0, CUDNNCTL_E_OK,
     "9.27.0.42", "13", NULL},
    {"generic build when the minor is unknown", "windows-arm64", "13", NULL, NULL, NULL, 0,
     CUDNNCTL_E_OK, "9.27.0.42", "13", NULL},
    {"13.4 needs a 13.4 driver", "windows-arm64", "13.4", NULL, NULL, NULL, 13000, CUDNNCTL_E_OK,
     "9.27.0.42", "13", NULL},
    {"no cuda12 on windows-arm64", "windows-arm64", "12", NULL, NULL, NULL, 0, CUDNNCTL_E_NO_MATCH,
     NULL, NULL, "cuda13 (9.27.0.42)"},
    /* --for pins */
    {"torch 2.9.1 cu130", "linux-x86_64", "13", NULL, "torch==2.9.1", NULL, 0, CUDNNCTL_E_OK,
     "9.13.0.50", "13", "exact release torch==2.9.1+cu130 pins"},
    {"torch 2.9.1 cu12x", "linux-x86_64", "12.8", NULL, "torch==2.9.1", NULL, 0, CUDNNCTL_E_OK,
     "9.10.2.21", "12", NULL},
    {"torch tag fixes CUDA", "linux-x86_64", NULL, NULL, "torch==2.9.1+cu130", NULL, 0,
     CUDNNCTL_E_OK, "9.13.0.50", "13", "torch==2.9.1+cu130 is a CUDA 13.0 build"},
    {"torch tag vs toolkit", "linux-x86_64", "12", NULL, "torch==2.9.1+cu130", NULL, 0,
     CUDNNCTL_E_NO_MATCH, NULL, NULL, "CUDA 13 build and the toolkit is CUDA 12"},
    {"torch 2.6 cu126", "linux-x86_64", "12.6", NULL, "torch==2.6.0", NULL, 0, CUDNNCTL_E_OK,
     "9.5.1.17", "12", NULL},
    {"torch 2.6 cu124", "linux-x86_64", "12.4", NULL, "torch==2.6.0", NULL, 0, CUDNNCTL_E_OK,
     "9.1.0.70", "12", NULL},
    {"torch 2.7 cu118", "linux-x86_64", "11.8", NULL, "torch==2.7.1", NULL, 0, CUDNNCTL_E_OK,
     "9.1.0.70", "11", NULL},
    {"torch 2.12.1 on aarch64 cuda13 (not offered)", "linux-aarch64", "13", NULL, "torch==2.12.1",
     NULL, 0, CUDNNCTL_E_NO_MATCH, NULL, NULL, "needs cuDNN 9.20.0.48"},
    {"torch 2.0 (built with 8.7)", "linux-x86_64", "11", NULL, "torch==2.0.1", NULL, 0,
     CUDNNCTL_E_OK, "8.9.7.29", "11", NULL},
    {"torch 2.8 has no recorded pin", "linux-x86_64", "12", NULL, "torch==2.8.0", NULL, 0,
     CUDNNCTL_E_NO_PIN, NULL, NULL, "no cuDNN pin is recorded for torch 2.8.0"},
    {"tensorflow 2.18 alone", "linux-x86_64", NULL, NULL, "tensorflow==2.18.0", NULL, 0,
     CUDNNCTL_E_OK, "9.27.0.42", "12", "built with cuDNN 9.3"},
    {"tensorflow 2.18 with --cudnn 9.3", "linux-x86_64", NULL, "9.3", "tensorflow==2.18.0", NULL, 0,
     CUDNNCTL_E_OK, "9.3.0.75", "12", NULL},
    {"tensorflow 2.18 vs CUDA 13", "linux-x86_64", "13", NULL, "tensorflow==2.18.0", NULL, 0,
     CUDNNCTL_E_NO_MATCH, NULL, NULL, "cu125 (CUDA 12.5)"},
    {"tensorflow 2.14 needs 8.x >= 8.7", "linux-x86_64", NULL, NULL, "tensorflow[and-cuda]==2.14.1",
     NULL, 0, CUDNNCTL_E_OK, "8.9.7.29", "11", NULL},
    {"tensorflow 2.3 needs cuDNN 7", "linux-x86_64", NULL, NULL, "tensorflow==2.3.0", NULL, 0,
     CUDNNCTL_E_NO_MATCH, NULL, NULL, "needs cuDNN >= 7.6"},
    {"tensorflow with pin below its minimum", "linux-x86_64", "12", "9.1", "tensorflow==2.18.0",
     NULL, 0, CUDNNCTL_E_NO_MATCH, NULL, NULL, "and --cudnn 9.1"},
    {"--for syntax", "linux-x86_64", "12", NULL, "torch", NULL, 0, CUDNNCTL_E_USAGE, NULL, NULL,
     "torch==2.9.1"},
    {"--for unknown package", "linux-x86_64", "12", NULL, "numpy==2.0", NULL, 0, CUDNNCTL_E_USAGE,
     NULL, NULL, "torch and tensorflow"},
    {"--for bad tag", "linux-x86_64", NULL, NULL, "torch==2.9.1+rocm6", NULL, 0, CUDNNCTL_E_USAGE,
     NULL, NULL, "cu130"},
    {"--for unknown build", "linux-x86_64", NULL, NULL, "torch==2.9.1+cu124", NULL, 0,
     CUDNNCTL_E_NO_PIN, NULL, NULL, "cu128 (CUDA 12.8)"},
    /* bad input */
    {"bad --cudnn", "linux-x86_64", "13", "nine", NULL, NULL, 0, CUDNNCTL_E_BAD_VERSION, NULL, NULL,
     "--cudnn nine"},
    {"bad --cuda", "linux-x86_64", "cuda13", NULL, NULL, NULL, 0, CUDNNCTL_E_BAD_VERSION, NULL,
     NULL, "--cuda cuda13"},
    {"bad --driver-version", "linux-x86_64", "13", NULL, NULL, "new", 0, CUDNNCTL_E_BAD_VERSION,
     NULL, NULL, "--driver-version new"},
    {"nothing to go on", "linux-x86_64", NULL, NULL, NULL, NULL, 0, CUDNNCTL_E_NO_TOOLKIT, NULL,
     NULL, "pass --cuda M"},
};

static void selection_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const sel_case *c = &cases[i];
        fake_det f;
        fake(&f, "linux-x86_64", NULL, NULL, NULL, c->det_driver_cuda);
        cudnnctl_selection sel = {0};
        sel.platform = c->platform;
        sel.cuda = c->cuda;
        sel.cudnn = c->cudnn;
        sel.for_pkg = c->for_pkg;
        sel.driver_version = c->driver;
        sel.prefix = "/opt/test-prefix";
        cudnnctl_plan *p = NULL;
        cudnnctl_err e = cudnnctl_plan_make(ctx, cat, &f.r, &sel, &p);
        const char *detail = cudnnctl_last_error(ctx)->detail;
        if (e != c->err)
            fail_msg("case '%s': got %s (%s), expected %s", c->name, cudnnctl_err_name(e),
                     e ? detail : p->archive.cudnn_version, cudnnctl_err_name(c->err));
        if (e != CUDNNCTL_E_OK) {
            assert_null(p);
            if (c->msg && !strstr(detail, c->msg))
                fail_msg("case '%s': error '%s' lacks '%s'", c->name, detail, c->msg);
            continue;
        }
        if (strcmp(p->archive.cudnn_version, c->version) != 0 ||
            strcmp(p->archive.cuda_variant, c->variant) != 0)
            fail_msg("case '%s': chose %s cuda%s, expected %s cuda%s", c->name,
                     p->archive.cudnn_version, p->archive.cuda_variant, c->version, c->variant);
        if (c->msg && !strstr(p->reason, c->msg))
            fail_msg("case '%s': reason '%s' lacks '%s'", c->name, p->reason, c->msg);
        assert_string_equal(p->archive.platform, c->platform);
        cudnnctl_plan_free(p);
    }
}

/* Every candidate on the platform is either chosen or rejected with a reason; other platforms
 * are summarised one line each with their counts. */
static void every_candidate_accounted_for(void **state)
{
    (void)state;
    cudnnctl_selection sel = {0};
    sel.platform = "linux-x86_64";
    sel.cuda = "13";
    sel.cudnn = "9.13";
    sel.prefix = "/opt/p";
    cudnnctl_plan *p = NULL;
    assert_int_equal(cudnnctl_plan_make(ctx, cat, NULL, &sel, &p), CUDNNCTL_E_OK);
    /* the full flavour's archives (the default): the JIT ones are another choice, never a
     * candidate here */
    size_t on_platform = 0, elsewhere = 0, total = 0;
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        if (a->flavor != CUDNNCTL_FLAVOR_FULL)
            continue;
        total++;
        on_platform += strcmp(a->platform, "linux-x86_64") == 0;
    }
    size_t rej_here = 0;
    int saw_patch = 0;
    for (size_t i = 0; i < p->n_rejected; i++) {
        const cudnnctl_rejection *r = &p->rejected[i];
        assert_non_null(r->reason);
        assert_true(strlen(r->reason) > 10);
        assert_non_null(r->kind);
        if (strcmp(r->kind, "platform") == 0) {
            assert_string_not_equal(r->archive->platform, "linux-x86_64");
            elsewhere += r->count;
        } else {
            assert_string_equal(r->archive->platform, "linux-x86_64");
            assert_int_equal(r->count, 1);
            rej_here++;
        }
        if (strcmp(r->archive->cudnn_version, "9.13.1.26") == 0 &&
            strcmp(r->archive->cuda_variant, "13") == 0) {
            assert_string_equal(r->kind, "preference");
            saw_patch = 1;
        }
    }
    assert_int_equal(rej_here + 1, on_platform);
    assert_int_equal(elsewhere + on_platform, total);
    assert_true(saw_patch);
    /* 9.13.1.26 is newer: the plan says how to take it */
    int warned = 0;
    for (size_t i = 0; i < p->n_warnings; i++)
        warned |= strstr(p->warnings[i], "--cudnn 9.13.x") != NULL;
    assert_true(warned);
    cudnnctl_plan_free(p);
}

/* An exact framework pin that is not offered: the nearest newer release, not the newest. */
static void nearest_newer_when_exact_pin_missing(void **state)
{
    (void)state;
    cudnnctl_catalog *c = cc_catalog_new();
    static const char *const files[] = {"redistrib_9.12.0.json", "redistrib_9.13.1.json",
                                        "redistrib_9.14.0.json"};
    for (size_t i = 0; i < 3; i++) {
        char *path = cc_asprintf("%s/data/manifests/cudnn/%s", CUDNNCTL_SOURCE_DIR, files[i]);
        assert_int_equal(cudnnctl_catalog_add_manifest(ctx, c, path), CUDNNCTL_E_OK);
        free(path);
    }
    cudnnctl_selection sel = {0};
    sel.platform = "linux-x86_64";
    sel.for_pkg = "torch==2.9.1+cu130";
    sel.prefix = "/opt/n";
    cudnnctl_plan *p = NULL;
    assert_int_equal(cudnnctl_plan_make(ctx, c, NULL, &sel, &p), CUDNNCTL_E_OK);
    assert_string_equal(p->archive.cudnn_version, "9.13.1.26");
    assert_non_null(strstr(p->reason, "nearest release at or above"));
    int warned = 0;
    for (size_t i = 0; i < p->n_warnings; i++)
        warned |= strstr(p->warnings[i], "pins cuDNN 9.13.0.50, which is not offered") != NULL;
    assert_true(warned);
    for (size_t i = 0; i < p->n_rejected; i++)
        if (strcmp(p->rejected[i].archive->cudnn_version, "9.12.0.46") == 0 &&
            strcmp(p->rejected[i].archive->cuda_variant, "13") == 0)
            assert_string_equal(p->rejected[i].kind, "consumer");
    assert_string_equal(p->consumer, "torch==2.9.1+cu130");
    assert_string_equal(p->consumer_cudnn, "9.13.0.50");
    cudnnctl_plan_free(p);
    /* a --cudnn M.m whose .0 release is absent falls back to the newest patch, with a warning */
    sel.for_pkg = NULL;
    sel.cuda = "13";
    sel.cudnn = "9.13";
    assert_int_equal(cudnnctl_plan_make(ctx, c, NULL, &sel, &p), CUDNNCTL_E_OK);
    assert_string_equal(p->archive.cudnn_version, "9.13.1.26");
    warned = 0;
    for (size_t i = 0; i < p->n_warnings; i++)
        warned |= strstr(p->warnings[i], "release 9.13.0 is not offered") != NULL;
    assert_true(warned);
    cudnnctl_plan_free(p);
    cudnnctl_catalog_free(c);
}

static void compat_lookups(void **state)
{
    (void)state;
    assert_string_equal(cc_compat_driver_floor(11, "linux-x86_64"), "450.80.02");
    assert_string_equal(cc_compat_driver_floor(12, "linux-sbsa"), "525.60.13");
    assert_string_equal(cc_compat_driver_floor(13, "linux-aarch64"), "580.65.06");
    assert_string_equal(cc_compat_driver_floor(11, "windows-x86_64"), "452.39");
    assert_string_equal(cc_compat_driver_floor(12, "windows-x86_64"), "527.41");
    assert_string_equal(cc_compat_driver_floor(13, "windows-arm64"), "580");
    assert_null(cc_compat_driver_floor(9, "linux-x86_64"));
    const cc_toolkit_range *r = cc_compat_toolkit_range("8.9.7.29", 12);
    assert_non_null(r);
    assert_string_equal(r->toolkit_hi, "12.2");
    assert_non_null(cc_compat_toolkit_range("9.10.2.21", 11));
    assert_null(cc_compat_toolkit_range("9.27.0.42", 13));
    /* every pin row names a parseable version and CUDA */
    for (size_t i = 0; i < cc_consumer_pin_count; i++) {
        const cc_consumer_pin *c = &cc_consumer_pins[i];
        cc_version v;
        int M, m;
        assert_int_equal(cc_version_parse(c->ver_lo, &v), 0);
        assert_int_equal(cc_version_parse(c->ver_hi, &v), 0);
        assert_int_equal(cc_version_parse(c->cudnn, &v), 0);
        assert_int_equal(cc_cuda_variant_parse(c->cuda, &M, &m), 0);
        assert_true(cc_version_cmp_str(c->ver_lo, c->ver_hi) <= 0);
        assert_true(c->exact == (v.n == 4)); /* exact pins are full 4-part versions */
    }
    static const struct {
        const char *spec;
        int tk_major, tk_minor;
        const char *label, *cudnn;
        int exact;
    } t[] = {
        {"torch==2.9.1", 13, 0, "torch==2.9.1+cu130", "9.13.0.50", 1},
        {"torch==2.9.1", 12, 9, "torch==2.9.1+cu129", "9.10.2.21", 1},
        {"torch==2.9.1", 12, 4, "torch==2.9.1+cu128", "9.10.2.21", 1}, /* oldest above */
        {"torch==2.9.1", 0, -1, "torch==2.9.1+cu130", "9.13.0.50", 1}, /* newest build */
        {"PyTorch==2.9", 13, -1, "torch==2.9+cu130", "9.13.0.50", 1},
        {"torch==2.7.0+cu128", 0, -1, "torch==2.7.0+cu128", "9.7.1.26", 1},
        {"tensorflow==2.16.2", 0, -1, "tensorflow==2.16.2", "8.9", 0},
        {"tensorflow==2.12.0", 11, 8, "tensorflow==2.12.0", "8.6", 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cc_consumer c;
        cudnnctl_err e = cc_compat_consumer(ctx, t[i].spec, t[i].tk_major, t[i].tk_minor, &c);
        if (e != CUDNNCTL_E_OK)
            fail_msg("%s: %s", t[i].spec, cudnnctl_last_error(ctx)->detail);
        assert_string_equal(c.label, t[i].label);
        assert_string_equal(c.cudnn, t[i].cudnn);
        assert_int_equal(c.exact, t[i].exact);
        cc_consumer_clear(&c);
    }
}

/* ---- targets --------------------------------------------------------------------------------- */

static void mk(const char *rel)
{
    char *p = cc_path_join(tmp, rel);
    assert_int_equal(cc_sys_mkdir_p(ctx, p, 0755), 0);
    free(p);
}

static void touch(const char *rel)
{
    char *p = cc_path_join(tmp, rel);
    assert_int_equal(cc_sys_write_file_atomic(ctx, p, "x", 1, 0644), 0);
    free(p);
}

static cudnnctl_plan *plan_for(const char *platform, const char *cuda, const char *cuda_home,
                               const char *prefix, const char *mirror, const fake_det *f)
{
    cudnnctl_selection sel = {0};
    sel.platform = platform;
    sel.cuda = cuda;
    sel.cudnn = "9.13";
    sel.cuda_home = cuda_home;
    sel.prefix = prefix;
    sel.mirror = mirror;
    cudnnctl_plan *p = NULL;
    cudnnctl_err e = cudnnctl_plan_make(ctx, cat, f ? &f->r : NULL, &sel, &p);
    if (e != CUDNNCTL_E_OK)
        fail_msg("plan: %s", cudnnctl_last_error(ctx)->detail);
    return p;
}

static void targets(void **state)
{
    (void)state;
    assert_int_equal(cudnnctl_set_root(ctx, tmp), CUDNNCTL_E_OK);
    mk("/usr/local/cuda-13.0/lib64");
    mk("/usr/local/cuda-12.4/targets/x86_64-linux/lib");
    touch("/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12");
    mk("/opt/cuda-12.1/lib");
    mk("/win/CUDA/v13.0/bin/x64");

    /* lib64 present */
    fake_det f;
    fake(&f, "linux-x86_64", "/usr/local/cuda-13.0", "13.0", "580.65.06", 13000);
    cudnnctl_plan *p = plan_for(NULL, NULL, "/usr/local/cuda-13.0", NULL, NULL, &f);
    assert_int_equal(p->mode, CUDNNCTL_TARGET_CUDA_TREE);
    assert_string_equal(p->target_path, "/usr/local/cuda-13.0");
    assert_string_equal(p->lib_dir, "/usr/local/cuda-13.0/lib64");
    assert_string_equal(p->include_dir, "/usr/local/cuda-13.0/include");
    assert_null(p->bin_dir);
    assert_string_equal(p->toolkit_version, "13.0");
    assert_string_equal(p->driver_version, "580.65.06");
    assert_string_equal(p->archive.cuda_variant, "13"); /* from the detected toolkit */
    assert_non_null(strstr(p->reason, "toolkit /usr/local/cuda-13.0 is 13.0"));
    int ld = 0;
    for (size_t i = 0; i < p->n_steps; i++)
        if (strcmp(p->step_names[i], "ldconfig") == 0)
            ld = strstr(p->steps[i], "skipped under --root") != NULL;
    assert_true(ld);
    cudnnctl_plan_free(p);

    /* the same tree given through the root's path */
    char *rooted = cc_path_join(tmp, "/usr/local/cuda-13.0");
    p = plan_for(NULL, NULL, rooted, NULL, NULL, &f);
    assert_string_equal(p->target_path, "/usr/local/cuda-13.0");
    cudnnctl_plan_free(p);
    free(rooted);

    /* targets/<arch>/lib where libcudart lives; tested-range warning for 12.4 */
    fake(&f, "linux-x86_64", "/usr/local/cuda-12.4", "12.4", NULL, 0);
    cudnnctl_selection sel = {0};
    sel.cuda_home = "/usr/local/cuda-12.4";
    sel.cudnn = "8.9.7";
    cudnnctl_plan *q = NULL;
    assert_int_equal(cudnnctl_plan_make(ctx, cat, &f.r, &sel, &q), CUDNNCTL_E_OK);
    assert_string_equal(q->lib_dir, "/usr/local/cuda-12.4/targets/x86_64-linux/lib");
    assert_string_equal(q->archive.cudnn_version, "8.9.7.29");
    int range = 0, nodrv = 0;
    for (size_t i = 0; i < q->n_warnings; i++) {
        range |= strstr(q->warnings[i], "lists toolkits 12.0 to 12.2") != NULL;
        nodrv |= strstr(q->warnings[i], "no NVIDIA driver found") != NULL;
    }
    assert_true(range);
    assert_true(nodrv);
    cudnnctl_plan_free(q);

    /* else lib */
    p = plan_for("linux-x86_64", "12", "/opt/cuda-12.1", NULL, NULL, NULL);
    assert_string_equal(p->lib_dir, "/opt/cuda-12.1/lib");
    cudnnctl_plan_free(p);

    /* --cuda against the target tree's toolkit */
    fake(&f, "linux-x86_64", "/usr/local/cuda-12.4", "12.4", NULL, 0);
    sel.cuda = "13";
    sel.cudnn = NULL;
    assert_int_equal(cudnnctl_plan_make(ctx, cat, &f.r, &sel, &q), CUDNNCTL_E_NO_MATCH);
    assert_non_null(strstr(cudnnctl_last_error(ctx)->detail, "does not match the target toolkit"));
    sel.cuda_home = NULL;
    sel.prefix = "/opt/px";
    assert_int_equal(cudnnctl_plan_make(ctx, cat, &f.r, &sel, &q), CUDNNCTL_E_OK);
    assert_int_equal(q->mode, CUDNNCTL_TARGET_PREFIX);
    cudnnctl_plan_free(q);

    /* a missing tree */
    sel.prefix = NULL;
    sel.cuda_home = "/usr/local/cuda-99.9";
    assert_int_equal(cudnnctl_plan_make(ctx, cat, NULL, &sel, &q), CUDNNCTL_E_NOT_FOUND);

    /* prefix mode and a mirror directory */
    p = plan_for("linux-x86_64", "13", NULL, "/opt/cudnn", "/srv/mirror", NULL);
    assert_int_equal(p->mode, CUDNNCTL_TARGET_PREFIX);
    assert_string_equal(p->target_path, "/opt/cudnn");
    assert_string_equal(p->install_dir, "/opt/cudnn/cudnn-9.13.0.50-cuda13");
    assert_string_equal(p->lib_dir, "/opt/cudnn/cudnn-9.13.0.50-cuda13/lib");
    assert_string_equal(p->include_dir, "/opt/cudnn/cudnn-9.13.0.50-cuda13/include");
    assert_string_equal(p->url, "/srv/mirror/cudnn/linux-x86_64/"
                                "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    cudnnctl_plan_free(p);

    /* default target without any toolkit, and a mirror URL */
    p = plan_for("linux-x86_64", "13", NULL, NULL, "http://mirror.local/cudnn/redist", NULL);
    assert_int_equal(p->mode, CUDNNCTL_TARGET_PREFIX);
    assert_string_equal(p->target_path, "/opt/cudnnctl");
    assert_string_equal(p->url, "http://mirror.local/cudnn/redist/cudnn/linux-x86_64/"
                                "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    cudnnctl_plan_free(p);

    /* Windows trees: lib\x64, DLLs in bin\x64 on CUDA 13 */
    p = plan_for("windows-x86_64", "13", "/win/CUDA/v13.0", NULL, NULL, NULL);
    assert_string_equal(p->lib_dir, "/win/CUDA/v13.0/lib/x64");
    assert_string_equal(p->bin_dir, "/win/CUDA/v13.0/bin/x64");
    assert_string_equal(cc_path_base(p->archive.relative_path),
                        "cudnn-windows-x86_64-9.13.0.50_cuda13-archive.zip");
    for (size_t i = 0; i < p->n_steps; i++) {
        assert_string_not_equal(p->step_names[i], "ldconfig");
        if (strcmp(p->step_names[i], "validate") == 0)
            assert_non_null(strstr(p->steps[i], "cudnn64_9.dll"));
    }
    cudnnctl_plan_free(p);
    p = plan_for("windows-x86_64", "13", NULL, "/opt/w", NULL, NULL);
    assert_string_equal(p->bin_dir, "/opt/w/cudnn-9.13.0.50-cuda13/bin");
    cudnnctl_plan_free(p);

    /* a cached archive: nothing to download */
    char *blob = cc_asprintf("%s/blobs/sha256/"
                             "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01",
                             tmp);
    assert_int_equal(cudnnctl_set_cache_dir(ctx, tmp), CUDNNCTL_E_OK);
    char *dir = cc_path_dir(blob);
    assert_int_equal(cc_sys_mkdir_p(ctx, dir, 0755), 0);
    assert_int_equal(cc_sys_write_file_atomic(ctx, blob, "x", 1, 0644), 0);
    p = plan_for("linux-x86_64", "13", NULL, "/opt/c", NULL, NULL);
    assert_string_equal(p->step_names[0], "download");
    assert_non_null(strstr(p->steps[0], "already in the cache"));
    cudnnctl_plan_free(p);
    free(dir);
    free(blob);
    assert_int_equal(cudnnctl_set_cache_dir(ctx, NULL), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_set_root(ctx, NULL), CUDNNCTL_E_OK);
}

static void plan_json_keys(void **state)
{
    (void)state;
    cudnnctl_plan *p = plan_for("linux-x86_64", "13", NULL, "/opt/j", NULL, NULL);
    char *json = NULL;
    assert_int_equal(cudnnctl_plan_json(p, &json), CUDNNCTL_E_OK);
    cJSON *o = cJSON_Parse(json);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "cudnn_version")->valuestring, "9.13.0.50");
    assert_string_equal(cJSON_GetObjectItem(o, "cuda_variant")->valuestring, "13");
    assert_string_equal(cJSON_GetObjectItem(o, "platform")->valuestring, "linux-x86_64");
    cJSON *a = cJSON_GetObjectItem(o, "archive");
    assert_string_equal(cJSON_GetObjectItem(a, "relative_path")->valuestring,
                        "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz");
    assert_string_equal(cJSON_GetObjectItem(a, "sha256")->valuestring,
                        "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01");
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(a, "size")));
    assert_true(cJSON_GetObjectItem(a, "size")->valuedouble == 641302680.0);
    cJSON *t = cJSON_GetObjectItem(o, "target");
    assert_string_equal(cJSON_GetObjectItem(t, "mode")->valuestring, "prefix");
    assert_string_equal(cJSON_GetObjectItem(t, "path")->valuestring, "/opt/j");
    assert_non_null(cJSON_GetObjectItem(t, "lib_dir"));
    assert_non_null(cJSON_GetObjectItem(t, "include_dir"));
    assert_true(cc_str_starts(cJSON_GetObjectItem(o, "url")->valuestring,
                              "https://developer.download.nvidia.com/compute/cudnn/redist/cudnn/"));
    cJSON *steps = cJSON_GetObjectItem(o, "steps");
    assert_int_equal(cJSON_GetArraySize(steps), (int)p->n_steps);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 1), "name")->valuestring,
                        "verify");
    cJSON *rej = cJSON_GetObjectItem(o, "rejected");
    assert_int_equal(cJSON_GetArraySize(rej), (int)p->n_rejected);
    cJSON *r0 = cJSON_GetArrayItem(rej, 0);
    assert_non_null(cJSON_GetObjectItem(r0, "relative_path"));
    assert_non_null(cJSON_GetObjectItem(r0, "reason"));
    assert_true(cJSON_IsString(cJSON_GetObjectItem(o, "reason")));
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(o, "warnings")));
    cJSON_Delete(o);
    cudnnctl_free(json);
    cudnnctl_plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selection_table),
        cmocka_unit_test(every_candidate_accounted_for),
        cmocka_unit_test(nearest_newer_when_exact_pin_missing),
        cmocka_unit_test(compat_lookups),
        cmocka_unit_test(targets),
        cmocka_unit_test(plan_json_keys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
