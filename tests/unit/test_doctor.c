/* test_doctor.c: doctor's rules on hand-built detect results (and, for the checks that read
 * links and listings, small trees under a temporary --root): each case plants one condition and
 * names the codes that must appear and those that must not; plus the code table (unique names,
 * every code documented in docs/doctor.md), ordering by severity and the JSON keys. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cudnnctl/cudnnctl.h"

static char root[256];

/* ---- a scratch root ---------------------------------------------------------------------- */

static void mk(const char *rel)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; *s++ = '/') {
        *s = '\0';
        mkdir(p, 0755);
    }
    mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
    char p[1024], d[1024];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    snprintf(d, sizeof(d), "%s", rel);
    char *slash = strrchr(d, '/');
    if (slash && slash != d) {
        *slash = '\0';
        mk(d);
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void ln(const char *target, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    unlink(p);
    assert_int_equal(symlink(target, p), 0);
}

static void rm_tree(const char *path)
{
    char cmd[1100];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* ---- building detect results -------------------------------------------------------------- */

static char *sd(const char *s)
{
    return s ? strdup(s) : NULL;
}

static cudnnctl_detect_result *det_new(void)
{
    cudnnctl_detect_result *r = calloc(1, sizeof(*r));
    r->platform = sd("linux-x86_64");
    return r;
}

static cudnnctl_toolkit *add_tk(cudnnctl_detect_result *r, const char *path, int major, int minor,
                                int active)
{
    r->toolkits = realloc(r->toolkits, (r->n_toolkits + 1) * sizeof(*r->toolkits));
    cudnnctl_toolkit *t = &r->toolkits[r->n_toolkits++];
    memset(t, 0, sizeof(*t));
    char v[32], lib[512];
    snprintf(v, sizeof(v), "%d.%d", major, minor);
    snprintf(lib, sizeof(lib), "%s/lib64", path);
    t->path = sd(path);
    t->version = sd(v);
    t->major = major;
    t->minor = minor;
    t->patch = -1;
    t->lib_dir = sd(lib);
    t->origin = sd("system");
    t->active = active;
    return t;
}

static void set_driver(cudnnctl_detect_result *r, const char *version, int cuda, int estimated)
{
    r->driver = calloc(1, sizeof(*r->driver));
    r->driver->version = sd(version);
    r->driver->cuda_version = cuda;
    r->driver->cuda_version_estimated = estimated;
    r->driver->source = sd("/proc/driver/nvidia/version");
}

static void push(char ***v, size_t *n, const char *s)
{
    *v = realloc(*v, (*n + 1) * sizeof(char *));
    (*v)[(*n)++] = sd(s);
}

/* libs: space-separated base names */
static cudnnctl_cudnn_copy *add_cu(cudnnctl_detect_result *r, const char *path, const char *version,
                                   const char *origin, const char *libs)
{
    r->cudnn = realloc(r->cudnn, (r->n_cudnn + 1) * sizeof(*r->cudnn));
    cudnnctl_cudnn_copy *c = &r->cudnn[r->n_cudnn++];
    memset(c, 0, sizeof(*c));
    c->path = sd(path);
    c->version = sd(version);
    sscanf(version, "%d.%d.%d", &c->major, &c->minor, &c->patch);
    c->origin = sd(origin);
    c->version_source = sd("file-name");
    char buf[2048];
    snprintf(buf, sizeof(buf), "%s", libs ? libs : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        push(&c->libs, &c->n_libs, tok);
    return c;
}

/* A complete cuDNN 9 set of real file names of one version ("9.19.0"), or wheel style (".so.9"). */
static const char *set9(const char *ver)
{
    static char buf[2048];
    static const char *stems[] = {"libcudnn",
                                  "libcudnn_graph",
                                  "libcudnn_ops",
                                  "libcudnn_cnn",
                                  "libcudnn_adv",
                                  "libcudnn_engines_precompiled",
                                  "libcudnn_engines_runtime_compiled",
                                  "libcudnn_heuristic"};
    buf[0] = '\0';
    for (size_t i = 0; i < 8; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof(buf) - n, "%s%s.so.%s", n ? " " : "", stems[i], ver);
    }
    return buf;
}

/* ---- running doctor ----------------------------------------------------------------------- */

typedef struct {
    cudnnctl_ctx *ctx;
    cudnnctl_doctor_result *res;
} fx;

static cudnnctl_doctor_result *run(cudnnctl_ctx *ctx, cudnnctl_detect_result *d)
{
    cudnnctl_doctor_result *res = NULL;
    assert_int_equal(cudnnctl_doctor(ctx, d, NULL, &res), CUDNNCTL_E_OK);
    assert_non_null(res);
    cudnnctl_detect_result_free(d);
    return res;
}

static const cudnnctl_finding *find(const cudnnctl_doctor_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_findings; i++)
        if (strcmp(r->findings[i].code, code) == 0)
            return &r->findings[i];
    return NULL;
}

static void dump(const cudnnctl_doctor_result *r)
{
    for (size_t i = 0; i < r->n_findings; i++)
        print_message("  %s %s: %s\n", cudnnctl_severity_name(r->findings[i].severity),
                      r->findings[i].code, r->findings[i].message);
}

/* expect: space-separated codes that must be there; absent: codes that must not */
static void expect(const cudnnctl_doctor_result *r, const char *want, const char *absent)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", want ? want : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        if (!find(r, tok)) {
            print_message("missing %s in:\n", tok);
            dump(r);
            fail();
        }
    snprintf(buf, sizeof(buf), "%s", absent ? absent : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        if (find(r, tok)) {
            print_message("unexpected %s in:\n", tok);
            dump(r);
            fail();
        }
    for (size_t i = 0; i < r->n_findings; i++) {
        assert_true(strlen(r->findings[i].message) > 10);
        assert_true(strlen(r->findings[i].fix) > 5);
    }
}

static int setup(void **state)
{
    snprintf(root, sizeof(root), "/tmp/cc-doctor-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    fx *f = calloc(1, sizeof(*f));
    if (cudnnctl_ctx_new(&f->ctx) != CUDNNCTL_E_OK ||
        cudnnctl_set_root(f->ctx, root) != CUDNNCTL_E_OK)
        return -1;
    unsetenv("LD_LIBRARY_PATH");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    cudnnctl_doctor_result_free(f->res);
    cudnnctl_ctx_free(f->ctx);
    free(f);
    rm_tree(root);
    return 0;
}

#define RUN(d) (f->res = run(f->ctx, (d)))

/* ---- cases -------------------------------------------------------------------------------- */

static void t_empty_machine(void **state)
{
    fx *f = *state;
    RUN(det_new());
    expect(f->res, "NO_TOOLKIT NO_DRIVER NO_CUDNN", "DRIVER_TOO_OLD");
    assert_int_equal(f->res->n_errors, 0);
    assert_int_equal(find(f->res, "NO_CUDNN")->severity, CUDNNCTL_SEV_INFO);
}

static void t_healthy(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/usr/local/cuda-13.0/lib64", "9.19.0", "cuda-tree", set9("9.19.0"));
    c->in_loader_path = 1;
    RUN(d);
    assert_int_equal(f->res->n_findings, 0);
}

static void t_toolkit_disagree(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    cudnnctl_toolkit *t = add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    t->sources_disagree = 1;
    t->readings = calloc(2, sizeof(*t->readings));
    t->n_readings = 2;
    t->readings[0] = (cudnnctl_version_reading){CUDNNCTL_SRC_VERSION_JSON, sd("12.4.1"), 1};
    t->readings[1] = (cudnnctl_version_reading){CUDNNCTL_SRC_NVCC, sd("12.6.20"), 0};
    push(&t->problems, &t->n_problems, "version sources disagree: ...");
    push(&t->problems, &t->n_problems, "/usr/local/cuda-12.4/bin/nvcc is not executable: not run");
    RUN(d);
    expect(f->res, "TOOLKIT_VERSION_DISAGREE TOOLKIT_PROBLEM", "NO_TOOLKIT");
    const cudnnctl_finding *x = find(f->res, "TOOLKIT_VERSION_DISAGREE");
    assert_non_null(strstr(x->message, "nvcc says 12.6.20"));
    /* the disagreement is reported once, not again as a generic problem */
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "TOOLKIT_PROBLEM") == 0;
    assert_int_equal(n, 1);
}

static const struct {
    const char *driver;
    int cuda, estimated, tk_major;
    int too_old;
} driver_cases[] = {
    {"550.54.15", 12040, 0, 13, 1}, /* R550 under CUDA 13 (floor 580.65.06) */
    {"580.65.06", 13000, 0, 13, 0}, /* exactly the floor */
    {"580.159.04", 13000, 0, 13, 0}, {"525.60.13", 12000, 0, 12, 0}, /* CUDA 12 floor */
    {"470.82.01", 11040, 0, 12, 1},  {NULL, 12020, 0, 13, 1}, /* only cuDriverGetVersion known */
    {NULL, 12020, 1, 13, 0}, /* an estimate (lower bound) proves nothing */
    {NULL, 13000, 0, 13, 0},
};

static void t_driver_floor(void **state)
{
    fx *f = *state;
    for (size_t i = 0; i < sizeof(driver_cases) / sizeof(driver_cases[0]); i++) {
        cudnnctl_detect_result *d = det_new();
        add_tk(d, "/usr/local/cuda", driver_cases[i].tk_major, 0, 1);
        set_driver(d, driver_cases[i].driver, driver_cases[i].cuda, driver_cases[i].estimated);
        cudnnctl_doctor_result *r = run(f->ctx, d);
        if (driver_cases[i].too_old != (find(r, "DRIVER_TOO_OLD") != NULL)) {
            print_message("driver case %zu (%s)\n", i, driver_cases[i].driver);
            dump(r);
            fail();
        }
        if (driver_cases[i].too_old)
            assert_int_equal(find(r, "DRIVER_TOO_OLD")->severity, CUDNNCTL_SEV_ERROR);
        assert_null(find(r, "NO_DRIVER"));
        cudnnctl_doctor_result_free(r);
    }
}

static void t_driver_floor_of_cudnn_variant(void **state)
{
    /* toolkit 12 is fine with R550, but a cu13 wheel needs R580 */
    fx *f = *state;
    mk("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib");
    mk("/venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info");
    mk("/venv/lib/python3.11/site-packages/nvidia_cublas-13.1.0.3.dist-info");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    set_driver(d, "550.54.15", 12040, 0);
    add_cu(d, "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", "9.19.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, "DRIVER_TOO_OLD", "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(find(f->res, "DRIVER_TOO_OLD")->message, "CUDA 13"));
}

static void t_mixed_sublibs(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.8", 12, 8, 1);
    char libs[4096];
    snprintf(libs, sizeof(libs), "%s libcudnn_engines_tensor_ir.so.9.23.0", set9("9.20.0"));
    /* one sub-library from another release */
    char *p = strstr(libs, "libcudnn_ops.so.9.20.0");
    memcpy(p, "libcudnn_ops.so.9.14.0", 22);
    cudnnctl_cudnn_copy *c = add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.20.0", "system", libs);
    push(&c->problems, &c->n_problems,
         "sub-libraries in /usr/lib/x86_64-linux-gnu disagree in "
         "version (...)");
    RUN(d);
    expect(f->res, "CUDNN_MIXED_SUBLIBS", "CUDNN_PROBLEM CUDNN_INCOMPLETE");
    const cudnnctl_finding *x = find(f->res, "CUDNN_MIXED_SUBLIBS");
    assert_int_equal(x->severity, CUDNNCTL_SEV_ERROR);
    assert_non_null(strstr(x->message, "9.14.0: libcudnn_ops.so.9.14.0"));
    assert_non_null(strstr(x->message, "9.23.0: libcudnn_engines_tensor_ir.so.9.23.0"));
    assert_string_equal(x->path, "/usr/lib/x86_64-linux-gnu");
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "CUDNN_MIXED_SUBLIBS") == 0;
    assert_int_equal(n, 1);
}

static void t_incomplete_and_missing_sublibs(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    add_cu(d, "/opt/a/lib", "9.19.0", "prefix",
           "libcudnn.so.9.19.0 libcudnn_ops.so.9.19.0 libcudnn_cnn.so.9.19.0");
    add_cu(d, "/opt/b/lib", "8.9.7", "prefix",
           "libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7");
    RUN(d);
    expect(f->res, "CUDNN_INCOMPLETE CUDNN_SUBLIB_MISSING", NULL);
    int graph = 0, shim8 = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_INCOMPLETE") != 0)
            continue;
        graph |= strstr(x->message, "libcudnn_graph.so.9") != NULL;
        shim8 |= strstr(x->message, "libcudnn.so.8") != NULL;
    }
    assert_true(graph);
    assert_true(shim8);
}

static void t_headers(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/usr/local/cuda-13.0/lib64", "9.14.0", "cuda-tree", set9("9.14.0"));
    c->header_version = sd("9.19.0");
    c->include_dir = sd("/usr/local/cuda-13.0/include");
    push(&c->problems, &c->n_problems,
         "headers in /usr/local/cuda-13.0/include say cuDNN 9.19.0 "
         "but the libraries in /x are 9.14.0: ...");
    cudnnctl_cudnn_copy *h = add_cu(d, "/usr/include", "8.9.7", "system", NULL);
    h->include_dir = sd("/usr/include");
    h->header_version = sd("8.9.7");
    push(&h->problems, &h->n_problems,
         "cuDNN 8.9.7 headers in /usr/include have no libcudnn "
         "libraries beside them");
    RUN(d);
    expect(f->res, "CUDNN_HEADER_MISMATCH CUDNN_HEADERS_ONLY", "CUDNN_PROBLEM");
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++)
        n += strcmp(f->res->findings[i].code, "CUDNN_HEADER_MISMATCH") == 0;
    assert_int_equal(n, 1);
}

static void t_detect_problem_texts(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", set9("9.19.0"));
    push(&c->problems, &c->n_problems, "/x/lib/libcudnn_ops.so.9.19.0 has no SONAME");
    push(&c->problems, &c->n_problems, "dist-info in /s says cuDNN 9.19.0.56 but the copy is 9.1");
    push(&c->problems, &c->n_problems,
         "only the major version of /x/lib is known (no versioned file names, headers or "
         "dist-info)");
    push(&c->problems, &c->n_problems, "something detect learned later");
    RUN(d);
    expect(f->res, "CUDNN_BAD_LIBRARY CUDNN_DIST_INFO_MISMATCH CUDNN_VERSION_UNKNOWN CUDNN_PROBLEM",
           NULL);
    assert_non_null(strstr(find(f->res, "CUDNN_PROBLEM")->message, "learned later"));
}

static void t_loader_conflict(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.8", 12, 8, 1);
    /* (add_cu may move the array: set each copy's flags before adding the next) */
    add_cu(d, "/usr/local/cuda-12.8/lib64", "9.8.0", "cuda-tree", set9("9.8.0"))->in_loader_path =
        1;
    add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.14.0", "system", set9("9.14.0"))->in_loader_path = 1;
    /* another major does not conflict: the SONAMEs differ */
    add_cu(d, "/opt/cudnn8/lib", "8.9.7", "prefix",
           "libcudnn.so.8.9.7 libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7 "
           "libcudnn_cnn_infer.so.8.9.7 libcudnn_cnn_train.so.8.9.7 "
           "libcudnn_adv_infer.so.8.9.7 libcudnn_adv_train.so.8.9.7")
        ->in_loader_path = 1;
    RUN(d);
    expect(f->res, "CUDNN_LOADER_CONFLICT", "CUDNN_IN_LD_LIBRARY_PATH");
    const cudnnctl_finding *x = find(f->res, "CUDNN_LOADER_CONFLICT");
    assert_non_null(strstr(x->message, "9.8.0"));
    assert_non_null(strstr(x->message, "9.14.0"));
    assert_null(strstr(x->message, "8.9.7"));
}

static void t_ld_library_path(void **state)
{
    fx *f = *state;
    /* alone on LD_LIBRARY_PATH: a warning */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, "/opt/cudnn/lib", "9.14.0", "ld-path", set9("9.14.0"));
    c->in_loader_path = c->in_ld_library_path = 1;
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN_IN_LD_LIBRARY_PATH", "CUDNN_LD_LIBRARY_PATH_OVERRIDE");
    cudnnctl_doctor_result_free(r);
    /* and a framework's bundled 9.19 wheel: it gets swapped -> error (pytorch#119989) */
    d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    c = add_cu(d, "/opt/cudnn/lib", "9.14.0", "ld-path", set9("9.14.0"));
    c->in_loader_path = c->in_ld_library_path = 1;
    add_cu(d, "/venv/site-packages/nvidia/cudnn/lib", "9.19.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, "CUDNN_LD_LIBRARY_PATH_OVERRIDE", "CUDNN_IN_LD_LIBRARY_PATH");
    const cudnnctl_finding *x = find(f->res, "CUDNN_LD_LIBRARY_PATH_OVERRIDE");
    assert_int_equal(x->severity, CUDNNCTL_SEV_ERROR);
    assert_non_null(strstr(x->message, "/venv/site-packages/nvidia/cudnn/lib"));
    assert_non_null(strstr(x->fix, "LD_LIBRARY_PATH"));
}

static void t_wheel_variant(void **state)
{
    fx *f = *state;
    const char *site = "/usr/lib/python3/dist-packages";
    char p[512];
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    mk(p);
    snprintf(p, sizeof(p), "%s/nvidia_cudnn_cu12-9.1.0.70.dist-info", site);
    mk(p);
    /* cu12 wheel, CUDA 13 toolkit, no CUDA wheels beside it: mismatch (pykeio/ort#548) */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    add_cu(d, p, "9.1.0", "wheel", set9("9"));
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN_CUDA_MAJOR_MISMATCH", NULL);
    const cudnnctl_finding *x = find(r, "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(x->message, "CUDA 12"));
    assert_non_null(strstr(x->message, "libcublasLt.so.12"));
    assert_non_null(strstr(x->fix, "--cuda 13"));
    cudnnctl_doctor_result_free(r);
    /* with the cu12 cuBLAS wheel beside it (a PyTorch venv) the wheel brings its own CUDA */
    snprintf(p, sizeof(p), "%s/nvidia_cublas_cu12-12.4.5.8.dist-info", site);
    mk(p);
    d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    add_cu(d, p, "9.1.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, NULL, "CUDNN_CUDA_MAJOR_MISMATCH DRIVER_TOO_OLD");
}

static void t_tree_and_prefix_variant(void **state)
{
    fx *f = *state;
    /* a cu12 cuDNN inside a CUDA 13 tree (dist-info of the tree), and a prefix for CUDA 12 */
    mk("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu12-9.10.2.21.dist-info");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    add_cu(d, "/usr/local/cuda-13.0/lib64", "9.10.2", "cuda-tree", set9("9.10.2"));
    add_cu(d, "/opt/cudnn/cudnn-9.8.0.87-cuda12/lib", "9.8.0", "prefix", set9("9.8.0"));
    add_cu(d, "/opt/cudnn/cudnn-9.19.0.56-cuda13/lib", "9.19.0", "prefix", set9("9.19.0"));
    RUN(d);
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_CUDA_MAJOR_MISMATCH") != 0)
            continue;
        n++;
        assert_true(strstr(x->path, "cuda-13.0/lib64") || strstr(x->path, "cuda12/lib"));
    }
    assert_int_equal(n, 2);
}

static void t_dpkg_variant(void **state)
{
    /* NVIDIA's libcudnn9-cuda-12 deb under a CUDA 13 toolkit (multiarch list name too) */
    fx *f = *state;
    mk("/usr/lib/x86_64-linux-gnu");
    put("/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.list",
        "/.\n/usr\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0\n"
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9\n");
    put("/var/lib/dpkg/info/libcudnn9-cuda-13.list", "/usr/lib/other/libcudnn.so.9.19.0\n");
    put("/var/lib/dpkg/info/libcudnn9-cuda-13.md5sums", "x\n");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.14.0", "system", set9("9.14.0"))->in_loader_path = 1;
    RUN(d);
    expect(f->res, "CUDNN_CUDA_MAJOR_MISMATCH", NULL);
    const cudnnctl_finding *x = find(f->res, "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(x->message, "Debian package"));
    assert_non_null(strstr(x->message, "built for CUDA 12"));
}

static void t_cuda_links(void **state)
{
    fx *f = *state;
    mk("/usr/local/cuda-13.0/bin");
    mk("/usr/local/not-a-toolkit");
    ln("/usr/local/cuda-12.4", "/usr/local/cuda");        /* dangling */
    ln("/usr/local/not-a-toolkit", "/usr/local/cuda-12"); /* no toolkit there */
    ln("/usr/local/cuda-13.0", "/usr/local/cuda-13");     /* fine */
    cudnnctl_detect_result *d = det_new();
    cudnnctl_toolkit *t = add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    push(&t->aliases, &t->n_aliases, "/usr/local/cuda-13");
    RUN(d);
    expect(f->res, "CUDA_LINK_DANGLING CUDA_LINK_NOT_TOOLKIT", NULL);
    assert_string_equal(find(f->res, "CUDA_LINK_DANGLING")->path, "/usr/local/cuda");
    assert_string_equal(find(f->res, "CUDA_LINK_NOT_TOOLKIT")->path, "/usr/local/cuda-12");
    for (size_t i = 0; i < f->res->n_findings; i++)
        assert_null(strstr(f->res->findings[i].message, "/usr/local/cuda-13 "));
}

static void t_so_chains(void **state)
{
    fx *f = *state;
    const char *dir = "/opt/c/lib";
    mk(dir);
    mk("/opt/c/include");
    put("/opt/c/lib/libcudnn.so.9.19.0", "x");
    /* libcudnn.so.9 missing entirely */
    put("/opt/c/lib/libcudnn_ops.so.9.19.0", "x");
    put("/opt/c/lib/libcudnn_ops.so.9.14.0", "x");
    ln("libcudnn_ops.so.9.14.0", "/opt/c/lib/libcudnn_ops.so.9"); /* the old one */
    put("/opt/c/lib/libcudnn_cnn.so.9.19.0", "x");
    ln("libcudnn_cnn.so.9.19.1", "/opt/c/lib/libcudnn_cnn.so.9"); /* dangling */
    put("/opt/c/lib/libcudnn_graph.so.9.19.0", "x");
    put("/opt/c/lib/libcudnn_graph.so.9", "a copy"); /* a file shadowing the chain */
    put("/opt/c/lib/libcudnn_adv.so.9.19.0", "x");
    ln("libcudnn_adv.so.9.19.0", "/opt/c/lib/libcudnn_adv.so.9");
    ln("libcudnn_adv.so.9.1.0", "/opt/c/lib/libcudnn_adv.so"); /* dev link dangling */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, dir, "9.19.0", "prefix",
                                    "libcudnn.so.9.19.0 libcudnn_ops.so.9.19.0 "
                                    "libcudnn_ops.so.9.14.0 libcudnn_cnn.so.9.19.0 "
                                    "libcudnn_graph.so.9.19.0 libcudnn_graph.so.9 "
                                    "libcudnn_adv.so.9.19.0");
    c->include_dir = sd("/opt/c/include");
    c->header_version = sd("9.19.0");
    RUN(d);
    expect(f->res,
           "CUDNN_SONAME_LINK_MISSING CUDNN_SONAME_LINK_BROKEN CUDNN_SONAME_FILE_SHADOWS "
           "CUDNN_DEV_LINK_MISSING CUDNN_DEV_LINK_BROKEN CUDNN_MIXED_SUBLIBS",
           NULL);
    assert_string_equal(find(f->res, "CUDNN_SONAME_LINK_MISSING")->path,
                        "/opt/c/lib/libcudnn.so.9");
    assert_string_equal(find(f->res, "CUDNN_SONAME_FILE_SHADOWS")->path,
                        "/opt/c/lib/libcudnn_graph.so.9");
    assert_string_equal(find(f->res, "CUDNN_DEV_LINK_MISSING")->path, "/opt/c/lib/libcudnn.so");
    assert_string_equal(find(f->res, "CUDNN_DEV_LINK_BROKEN")->path, "/opt/c/lib/libcudnn_adv.so");
    int ops = 0, cnn = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_SONAME_LINK_BROKEN") != 0 &&
            strcmp(x->code, "CUDNN_SONAME_LINK_DANGLING") != 0)
            continue;
        ops |= strcmp(x->path, "/opt/c/lib/libcudnn_ops.so.9") == 0 &&
               strcmp(x->code, "CUDNN_SONAME_LINK_BROKEN") == 0 &&
               strstr(x->message, "another file") != NULL;
        cnn |= strcmp(x->path, "/opt/c/lib/libcudnn_cnn.so.9") == 0 &&
               strcmp(x->code, "CUDNN_SONAME_LINK_DANGLING") == 0 &&
               strstr(x->message, "does not exist") != NULL && x->command &&
               strstr(x->command, "ln -sfn libcudnn_cnn.so.9.19.0 ") != NULL;
    }
    assert_true(ops);
    assert_true(cnn);
    /* the correct libcudnn_adv.so.9 link is not reported */
    for (size_t i = 0; i < f->res->n_findings; i++)
        if (f->res->findings[i].path)
            assert_string_not_equal(f->res->findings[i].path, "/opt/c/lib/libcudnn_adv.so.9");
}

static void t_good_chains_and_wheels(void **state)
{
    fx *f = *state;
    /* a correct tarball chain with absolute links, and a wheel (only .so.9, no .so) */
    mk("/opt/ok/lib");
    mk("/opt/ok/include");
    put("/opt/ok/lib/libcudnn.so.9.19.0", "x");
    ln("/opt/ok/lib/libcudnn.so.9.19.0", "/opt/ok/lib/libcudnn.so.9");
    ln("libcudnn.so.9", "/opt/ok/lib/libcudnn.so");
    put("/opt/ok/lib/libcudnn_graph.so.9.19.0", "x");
    ln("libcudnn_graph.so.9.19.0", "/opt/ok/lib/libcudnn_graph.so.9");
    mk("/w/nvidia/cudnn/lib");
    put("/w/nvidia/cudnn/lib/libcudnn.so.9", "x");
    put("/w/nvidia/cudnn/lib/libcudnn_graph.so.9", "x");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/opt/ok/lib", "9.19.0", "prefix", "libcudnn.so.9.19.0 libcudnn_graph.so.9.19.0");
    c->include_dir = sd("/opt/ok/include");
    c = add_cu(d, "/w/nvidia/cudnn/lib", "9.19.0", "wheel", "libcudnn.so.9 libcudnn_graph.so.9");
    c->include_dir = sd("/w/nvidia/cudnn/include");
    RUN(d);
    expect(f->res, NULL,
           "CUDNN_SONAME_LINK_MISSING CUDNN_SONAME_LINK_BROKEN CUDNN_SONAME_FILE_SHADOWS "
           "CUDNN_DEV_LINK_MISSING CUDNN_DEV_LINK_BROKEN");
}

static void t_cudnn8_dlopen_names(void **state)
{
    fx *f = *state;
    mk("/opt/c8/lib");
    mk("/usr/lib/x86_64-linux-gnu");
    mk("/usr/lib/aarch64-linux-gnu");
    put("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "x");
    put("/usr/lib/aarch64-linux-gnu/libcuda.so.1", "x");
    mk("/usr/local/cuda-12.4/lib64");
    put("/usr/local/cuda-12.4/lib64/libnvrtc.so.12", "x");
    const char *libs = "libcudnn.so.8.9.7 libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7 "
                       "libcudnn_cnn_infer.so.8.9.7 libcudnn_cnn_train.so.8.9.7 "
                       "libcudnn_adv_infer.so.8.9.7 libcudnn_adv_train.so.8.9.7";
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO", NULL);
    assert_non_null(strstr(find(r, "CUDNN8_NO_LIBCUDA_SO")->fix, "libcuda.so.1"));
    assert_non_null(strstr(find(r, "CUDNN8_NO_LIBNVRTC_SO")->fix, "libnvrtc.so.12"));
    cudnnctl_doctor_result_free(r);
    /* the private links the fix names make both go away */
    ln("/usr/local/cuda-12.4/lib64/libnvrtc.so.12", "/opt/c8/lib/libnvrtc.so");
    put("/opt/c8/lib/libcuda.so.1", "x");
    ln("libcuda.so.1", "/opt/c8/lib/libcuda.so");
    d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    r = run(f->ctx, d);
    expect(r, NULL, "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO");
    cudnnctl_doctor_result_free(r);
    /* found through LD_LIBRARY_PATH too (a host path under the root) */
    char gone[1024];
    snprintf(gone, sizeof(gone), "%s/opt/c8/lib/libcuda.so", root);
    assert_int_equal(unlink(gone), 0);
    mk("/drv");
    put("/drv/libcuda.so", "x");
    char llp[1024];
    snprintf(llp, sizeof(llp), "%s/drv", root);
    setenv("LD_LIBRARY_PATH", llp, 1);
    d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    RUN(d);
    unsetenv("LD_LIBRARY_PATH");
    expect(f->res, NULL, "CUDNN8_NO_LIBCUDA_SO");
}

static void t_order_and_json(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new(); /* info + warnings */
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", "libcudnn_ops.so.9.19.0");
    (void)c;
    RUN(d);
    for (size_t i = 1; i < f->res->n_findings; i++)
        assert_true(f->res->findings[i - 1].severity >= f->res->findings[i].severity);
    assert_true(f->res->n_errors >= 1); /* incomplete */
    char *json = NULL;
    assert_int_equal(cudnnctl_doctor_result_json(f->res, &json), CUDNNCTL_E_OK);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    cJSON *arr = cJSON_GetObjectItem(j, "findings");
    assert_int_equal(cJSON_GetArraySize(arr), (int)f->res->n_findings);
    cJSON *x = cJSON_GetArrayItem(arr, 0);
    const char *keys[] = {"code", "severity", "message", "fix"};
    for (size_t i = 0; i < 4; i++)
        assert_true(cJSON_IsString(cJSON_GetObjectItem(x, keys[i])));
    assert_string_equal(cJSON_GetObjectItem(x, "severity")->valuestring, "error");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    assert_int_equal((int)cJSON_GetObjectItem(j, "errors")->valuedouble, (int)f->res->n_errors);
    cJSON_Delete(j);
    cudnnctl_free(json);
}

static void t_malformed_input(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    cudnnctl_cudnn_copy *c = add_cu(d, "/x/lib", "9.19.0", "prefix", set9("9.19.0"));
    free(c->version);
    c->version = NULL;
    cudnnctl_doctor_result *r = NULL;
    assert_int_equal(cudnnctl_doctor(f->ctx, d, NULL, &r), CUDNNCTL_E_USAGE);
    assert_null(r);
    cudnnctl_detect_result_free(d);
}

static void t_code_table_documented(void **state)
{
    (void)state;
    size_t n = 0;
    const cudnnctl_doctor_code *codes = cudnnctl_doctor_codes(&n);
    assert_true(n >= 30);
    char path[1024];
    snprintf(path, sizeof(path), "%s/docs/doctor.md", CUDNNCTL_SOURCE_DIR);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char doc[256 * 1024];
    size_t len = fread(doc, 1, sizeof(doc) - 1, fp);
    fclose(fp);
    doc[len] = '\0';
    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++)
            assert_string_not_equal(codes[i].code, codes[k].code);
        char heading[128];
        snprintf(heading, sizeof(heading), "### %s ", codes[i].code);
        if (!strstr(doc, heading)) {
            print_message("docs/doctor.md has no section \"%s(severity)\"\n", heading);
            fail();
        }
        /* the documented severity matches the table */
        char sev[160];
        snprintf(sev, sizeof(sev), "### %s (%s)", codes[i].code,
                 cudnnctl_severity_name(codes[i].severity));
        if (!strstr(doc, sev)) {
            print_message("docs/doctor.md: \"%s\" not found\n", sev);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_empty_machine, setup, teardown),
        cmocka_unit_test_setup_teardown(t_healthy, setup, teardown),
        cmocka_unit_test_setup_teardown(t_toolkit_disagree, setup, teardown),
        cmocka_unit_test_setup_teardown(t_driver_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(t_driver_floor_of_cudnn_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_mixed_sublibs, setup, teardown),
        cmocka_unit_test_setup_teardown(t_incomplete_and_missing_sublibs, setup, teardown),
        cmocka_unit_test_setup_teardown(t_headers, setup, teardown),
        cmocka_unit_test_setup_teardown(t_detect_problem_texts, setup, teardown),
        cmocka_unit_test_setup_teardown(t_loader_conflict, setup, teardown),
        cmocka_unit_test_setup_teardown(t_ld_library_path, setup, teardown),
        cmocka_unit_test_setup_teardown(t_wheel_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_tree_and_prefix_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_dpkg_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_cuda_links, setup, teardown),
        cmocka_unit_test_setup_teardown(t_so_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(t_good_chains_and_wheels, setup, teardown),
        cmocka_unit_test_setup_teardown(t_cudnn8_dlopen_names, setup, teardown),
        cmocka_unit_test_setup_teardown(t_order_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(t_malformed_input, setup, teardown),
        cmocka_unit_test(t_code_table_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
