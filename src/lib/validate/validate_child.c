/* validate_child.c: the validation child: load the driver, cuDNN and the CUDA runtime by path,
 * check versions and sub-libraries, run the compute checks, list what was mapped; report each
 * step and check as one marked JSON line (validate_check.c writes them). */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "libnames.h"
#include "validate_vendor.h"

static void fact_str(cc_val_child *c, const char *key, const char *val)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *f = cJSON_AddObjectToObject(o, "facts");
    if (f) {
        if (val)
            cJSON_AddStringToObject(f, key, val);
        else
            cJSON_AddNullToObject(f, key);
    }
    cc_val_emit(c, o);
}

static void fact_num(cc_val_child *c, const char *key, double val)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *f = cJSON_AddObjectToObject(o, "facts");
    if (f)
        cJSON_AddNumberToObject(f, key, val);
    cc_val_emit(c, o);
}

static const char *cu_error(cc_val_child *c, int err)
{
    const char *n = NULL;
    if (c->cu.cuGetErrorName && c->cu.cuGetErrorName(err, &n) != 0)
        n = NULL;
    return n ? n : "CUresult";
}

/* "13.0" from 13000 */
static char *cuda_ver(long v)
{
    return cc_asprintf("%ld.%ld", v / 1000, v % 1000 / 10);
}

/* The release of the loaded kernel module ("580.159.04"), read where Linux publishes it. */
static char *driver_release(void)
{
    cc_pf_fd fd = cc_pf_open("/proc/driver/nvidia/version", CC_PF_O_RDONLY, 0);
    if (fd < 0)
        return NULL;
    char buf[1024];
    long long n = cc_pf_read(fd, buf, sizeof(buf) - 1);
    cc_pf_close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *p = strstr(buf, "Module");
    while (p && *p) {
        while (*p && !(*p >= '0' && *p <= '9'))
            p++;
        const char *s = p;
        int dots = 0;
        while ((*p >= '0' && *p <= '9') || *p == '.')
            dots += *p++ == '.';
        if (dots >= 1 && p > s)
            return cc_strndup(s, (size_t)(p - s));
    }
    return NULL;
}

static void check_driver(cc_val_child *c)
{
    double t0 = cc_val_now();
    const char *drv = cc_ln_driver();
    cc_val_step(c, "dlopen %s (NVIDIA driver, by the loader's name)", drv);
    c->cu.h = cc_pf_dlopen(drv);
    if (!c->cu.h) {
        c->no_gpu = 1;
        char *e = cc_asprintf("%s not found by the loader (%s): no NVIDIA driver on "
                              "this machine, GPU checks skipped; install the NVIDIA driver to run "
                              "them", drv, cc_pf_dlerror());
        cc_val_check(c, "driver", 0, 1, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        return;
    }
    const char *miss = cc_val_load_cuda(&c->cu);
    if (miss) {
        char *e = cc_asprintf("libcuda.so.1 lacks %s: a broken or foreign driver library; "
                              "reinstall the NVIDIA driver", miss);
        cc_val_check(c, "driver", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        return;
    }
    cc_val_step(c, "cuInit (libcuda.so.1)");
    int rc = c->cu.cuInit(0);
    int ver = 0;
    c->cu.cuDriverGetVersion(&ver);
    char *dcv = ver ? cuda_ver(ver) : NULL;
    fact_str(c, "driver_cuda_version", dcv);
    char *rel = driver_release();
    fact_str(c, "driver_version", rel);
    char *detail = cc_asprintf("libcuda.so.1: driver %s, CUDA %s", rel ? rel : "?",
                               dcv ? dcv : "?");
    if (rc == CC_CU_ERROR_NO_DEVICE || rc == CC_CU_ERROR_STUB_LIBRARY) {
        c->no_gpu = 1;
        char *e = cc_asprintf("cuInit: %s (%d): %s; GPU checks skipped", cu_error(c, rc), rc,
                              rc == CC_CU_ERROR_NO_DEVICE ? "no CUDA GPU visible"
                                                          : "libcuda.so.1 is the toolkit's stub, "
                                                            "not a driver");
        cc_val_check(c, "driver", 0, 1, cc_val_now() - t0, -1, -1, e, detail);
        free(e);
    } else if (rc != 0) {
        char *e = cc_asprintf("cuInit: %s (%d): the driver is installed but does not work "
                              "(driver/kernel module mismatch? reboot or reinstall the driver)",
                              cu_error(c, rc), rc);
        cc_val_check(c, "driver", 0, 0, cc_val_now() - t0, -1, -1, e, detail);
        free(e);
    } else {
        int count = 0;
        c->cu.cuDeviceGetCount(&count);
        fact_num(c, "gpu_count", count);
        if (count == 0) {
            c->no_gpu = 1;
            cc_val_check(c, "driver", 0, 1, cc_val_now() - t0, -1, -1,
                         "the driver sees no GPU; GPU checks skipped", detail);
        } else if (c->device < 0 || c->device >= count) {
            char *e = cc_asprintf("--device %d: only %d GPU(s) visible (numbered from 0)",
                                  c->device, count);
            cc_val_check(c, "driver", 0, 0, cc_val_now() - t0, -1, -1, e, detail);
            free(e);
        } else {
            int dev = 0;
            char name[256] = "";
            c->cu.cuDeviceGet(&dev, c->device);
            if (c->cu.cuDeviceGetName)
                c->cu.cuDeviceGetName(name, (int)sizeof(name), dev);
            name[sizeof(name) - 1] = '\0';
            c->cu.cuDeviceGetAttribute(&c->cc_major, CC_CU_ATTR_CC_MAJOR, dev);
            c->cu.cuDeviceGetAttribute(&c->cc_minor, CC_CU_ATTR_CC_MINOR, dev);
            fact_str(c, "gpu_name", name);
            fact_num(c, "compute_capability", c->cc_major * 10 + c->cc_minor);
            c->gpu_ready = 1;
            cc_val_check(c, "driver", 1, 0, cc_val_now() - t0, -1, -1, NULL, detail);
        }
    }
    free(detail);
    free(dcv);
    free(rel);
}

/* The loaded modules whose names start like @p stem's files; on Windows only DLLs (the prefix
 * "cudnn" also matches cudnnctl.exe itself). */
static char **loaded_modules(const char *stem)
{
    char **m = cc_pf_loaded_module_paths(cc_ln_module_prefix(stem));
    if (!m || !cc_ln_windows())
        return m;
    size_t k = 0;
    for (size_t i = 0; m[i]; i++) {
        size_t n = strlen(m[i]);
        if (n > 4 && (strcmp(m[i] + n - 4, ".dll") == 0 || strcmp(m[i] + n - 4, ".DLL") == 0))
            m[k++] = m[i];
        else
            free(m[i]);
    }
    m[k] = NULL;
    return m;
}

/* Where the loaded module <stem>.so* was mapped from (not a longer name: libcublas is not
 * libcublasLt), NULL when none. */
static char *mapped_path(const char *stem)
{
    char **m = loaded_modules(stem);
    char *r = NULL;
    for (size_t i = 0; m && m[i]; i++) {
        if (!r && cc_ln_is(cc_path_base(m[i]), stem))
            r = cc_strdup(m[i]);
        free(m[i]);
    }
    free(m);
    return r;
}

/* Windows: NVIDIA's cudnn64_N.dll finds its sub-DLLs (and zlibwapi.dll, cuBLAS, nvrtc) through
 * the standard search, not beside itself, and ends the process ("Could not locate
 * cudnn_graph64_9.dll") when one is not found: the cuDNN dir and the toolkit dirs go first on
 * this process's PATH. */
static void windows_search_path(cc_val_child *c)
{
    if (!cc_ln_windows())
        return;
    cc_buf b = {0};
    char sep[2] = {cc_pf_path_list_sep(), 0};
    char *nat = cc_path_native(c->lib_dir);
    cc_buf_printf(&b, "%s", nat ? nat : c->lib_dir);
    free(nat);
    for (size_t i = 0; i < c->tk_dirs.n; i++) {
        nat = cc_path_native(c->tk_dirs.v[i]);
        cc_buf_printf(&b, "%s%s", sep, nat ? nat : c->tk_dirs.v[i]);
        free(nat);
    }
    const char *old = cc_pf_getenv("PATH");
    if (old && *old)
        cc_buf_printf(&b, "%s%s", sep, old);
    if (b.data)
        cc_pf_setenv("PATH", b.data);
    fact_str(c, "child_path", b.data);
    cc_buf_free(&b);
}

static int load_cudnn(cc_val_child *c)
{
    double t0 = cc_val_now();
    windows_search_path(c);
    cc_val_step(c, "dlopen %s", c->cudnn_lib);
    c->dnn.h = cc_pf_dlopen(c->cudnn_lib);
    if (!c->dnn.h) {
        char *e = cc_asprintf("dlopen %s failed: %s (a missing dependency such as libz.so.1, or "
                              "a damaged file: reinstall cuDNN)", c->cudnn_lib, cc_pf_dlerror());
        cc_val_check(c, "load_cudnn", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        return -1;
    }
    const char *miss = cc_val_load_cudnn_versions(&c->dnn);
    if (miss) {
        char *e = cc_asprintf("%s has no %s: not a cuDNN library", c->cudnn_lib, miss);
        cc_val_check(c, "load_cudnn", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        return -1;
    }
    cc_val_check(c, "load_cudnn", 1, 0, cc_val_now() - t0, -1, -1, NULL, c->cudnn_lib);
    return 0;
}

static void check_versions(cc_val_child *c)
{
    double t0 = cc_val_now();
    cc_val_step(c, "cudnnGetVersion (%s)", cc_path_base(c->cudnn_lib));
    c->dnn_raw = (long)c->dnn.GetVersion();
    cc_val_decode_cudnn_version(c->dnn_raw, &c->dnn_major, &c->dnn_minor, &c->dnn_patch);
    char *v = cc_asprintf("%d.%d.%d", c->dnn_major, c->dnn_minor, c->dnn_patch);
    fact_str(c, "cudnn_version", v);
    fact_num(c, "cudnn_version_raw", (double)c->dnn_raw);
    if (c->dnn.GetCudartVersion) {
        cc_val_step(c, "cudnnGetCudartVersion");
        long cv = (long)c->dnn.GetCudartVersion();
        char *s = cuda_ver(cv);
        fact_str(c, "cudnn_cudart_version", s);
        free(s);
        c->dnn_cuda_major = (int)(cv / 1000);
    }
    if (c->dnn.GetMaxDeviceVersion) {
        cc_val_step(c, "cudnnGetMaxDeviceVersion");
        c->max_device = (long)c->dnn.GetMaxDeviceVersion();
        fact_num(c, "max_device_version", (double)c->max_device);
    }
    char *err = NULL;
    char *real = cc_pf_realpath(c->cudnn_lib);
    int parts[3];
    int n = real ? cc_val_file_version(real, parts) : 0;
    if (c->dnn_major != c->major)
        err = cc_asprintf("cudnnGetVersion() = %ld (%s) but the file is libcudnn.so.%d: a "
                          "foreign or renamed library", c->dnn_raw, v, c->major);
    else if (n == 3 && (parts[0] != c->dnn_major || parts[1] != c->dnn_minor ||
                        parts[2] != c->dnn_patch))
        err = cc_asprintf("cudnnGetVersion() = %s but %s is named %d.%d.%d: the file was "
                          "replaced or mislinked; reinstall", v, real, parts[0], parts[1],
                          parts[2]);
    char *detail = cc_asprintf("cudnnGetVersion() = %ld → %s", c->dnn_raw, v);
    cc_val_check(c, "cudnn_version", err == NULL, 0, cc_val_now() - t0, -1, -1, err, detail);
    free(detail);
    free(err);
    free(real);
    free(v);
}

static void check_sublibs(cc_val_child *c)
{
    static const char *const v9[][3] = {
        {"sublib_graph", "cudnnGraphVersionCheck", "libcudnn_graph"},
        {"sublib_ops", "cudnnOpsVersionCheck", "libcudnn_ops"},
        {"sublib_cnn", "cudnnCnnVersionCheck", "libcudnn_cnn"},
        {"sublib_adv", "cudnnAdvVersionCheck", "libcudnn_adv"}};
    static const char *const v8[][3] = {
        {"sublib_ops_infer", "cudnnOpsInferVersionCheck", "libcudnn_ops_infer"},
        {"sublib_ops_train", "cudnnOpsTrainVersionCheck", "libcudnn_ops_train"},
        {"sublib_cnn_infer", "cudnnCnnInferVersionCheck", "libcudnn_cnn_infer"},
        {"sublib_cnn_train", "cudnnCnnTrainVersionCheck", "libcudnn_cnn_train"},
        {"sublib_adv_infer", "cudnnAdvInferVersionCheck", "libcudnn_adv_infer"},
        {"sublib_adv_train", "cudnnAdvTrainVersionCheck", "libcudnn_adv_train"}};
    const char *const(*list)[3] = c->dnn_major >= 9 ? v9 : v8;
    size_t n = c->dnn_major >= 9 ? 4 : (c->dnn_major == 8 ? 6 : 0);
    const char *first_bad = NULL; /* later sub-libraries depend on earlier ones (cnn on ops) */
    for (size_t i = 0; i < n; i++) {
        double t0 = cc_val_now();
        if (c->jit && i > 0) { /* asking for them would map another release's (the mix) */
            char *e = cc_asprintf("the JIT flavour has no %s.so.%d (legacy API): not loaded; a "
                                  "program calling the legacy API would take it from wherever "
                                  "the loader finds one (`cudnnctl which` says where)",
                                  list[i][2], c->dnn_major);
            cc_val_check(c, list[i][0], 0, 1, 0, -1, -1, e, NULL);
            free(e);
            continue;
        }
        int (*fn)(void) = NULL;
        char *sub = cc_ln_name(list[i][2], c->dnn_major);
        if (!cc_val_sym(c->dnn.h, list[i][1], &fn, sizeof(fn))) {
            /* 8.x: the set varies by release; 9.x: the shim must have all four */
            char *e = c->dnn_major >= 9
                          ? cc_asprintf("%s has no %s: not a complete cuDNN %d shim",
                                        c->cudnn_lib, list[i][1], c->dnn_major)
                          : cc_asprintf("%s has no %s in this release", c->cudnn_lib,
                                        list[i][1]);
            cc_val_check(c, list[i][0], 0, c->dnn_major < 9, cc_val_now() - t0, -1, -1, e,
                         NULL);
            free(e);
            free(sub);
            continue;
        }
        cc_val_step(c, "%s (loads %s)", list[i][1], sub);
        int st = fn();
        char *where = mapped_path(list[i][2]);
        char *detail = where ? cc_asprintf("%s mapped from %s", sub, where) : NULL;
        if (st == 0) {
            cc_val_check(c, list[i][0], 1, 0, cc_val_now() - t0, -1, -1, NULL, detail);
        } else {
            char *call = cc_val_dnn_error(c, list[i][1], st);
            char *e = where ? cc_asprintf("%s: %s (mapped from %s) does not match libcudnn "
                                          "%d.%d.%d; put the complete cuDNN %d.%d.%d set (every "
                                          "libcudnn*.so.%d from one archive) into %s and remove "
                                          "stale sub-libraries", call, sub, where, c->dnn_major,
                                          c->dnn_minor, c->dnn_patch, c->dnn_major, c->dnn_minor,
                                          c->dnn_patch, c->dnn_major, c->lib_dir)
                            : cc_asprintf("%s: %s could not be loaded (missing from %s, or one "
                                          "of its own dependencies failed); install the complete "
                                          "cuDNN %d.%d.%d set there", call, sub, c->lib_dir,
                                          c->dnn_major, c->dnn_minor, c->dnn_patch);
            if (first_bad) {
                char *e2 = cc_asprintf("%s (it depends on %s.so.%d, which failed its own check "
                                       "above: fix that one first)", e, first_bad, c->dnn_major);
                free(e);
                e = e2;
            } else {
                first_bad = list[i][2];
            }
            cc_val_check(c, list[i][0], 0, 0, cc_val_now() - t0, -1, -1, e, detail);
            free(e);
            free(call);
        }
        free(detail);
        free(where);
        free(sub);
    }
}

/* Find <stem>.so.<major> in the toolkit dirs; *path gets the absolute file. */
static int find_in_toolkit(cc_val_child *c, const char *stem, int major, char **path)
{
    for (size_t i = 0; i < c->tk_dirs.n; i++) {
        char *name = NULL;
        if (cc_val_find_soname(c->tk_dirs.v[i], stem, major, &name) >= 0) {
            *path = cc_path_join(c->tk_dirs.v[i], name);
            free(name);
            return 0;
        }
    }
    *path = NULL;
    return -1;
}

static void check_cudart(cc_val_child *c)
{
    double t0 = cc_val_now();
    char *path = NULL;
    int want = c->dnn_cuda_major > 0 ? c->dnn_cuda_major : -1;
    if (find_in_toolkit(c, "libcudart", want, &path) != 0 && want >= 0)
        find_in_toolkit(c, "libcudart", -1, &path);
    if (!path) {
        cc_buf b = {0};
        for (size_t i = 0; i < c->tk_dirs.n; i++)
            cc_buf_printf(&b, "%s%s", i ? ", " : "", c->tk_dirs.v[i]);
        char *e = cc_asprintf("no libcudart.so.%s found (looked in %s): pass --cuda-home with the "
                              "CUDA %s toolkit", want >= 0 ? "<cuDNN's CUDA major>" : "<M>",
                              b.data ? b.data : "no toolkit dir", want >= 0 ? "matching" : "");
        cc_buf_free(&b);
        cc_val_check(c, "load_cudart", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        return;
    }
    cc_val_step(c, "dlopen %s", path);
    c->rt.h = cc_pf_dlopen(path);
    const char *miss = c->rt.h ? cc_val_load_cudart(&c->rt) : NULL;
    if (!c->rt.h || miss) {
        char *e = !c->rt.h ? cc_asprintf("dlopen %s failed: %s", path, cc_pf_dlerror())
                           : cc_asprintf("%s lacks %s: not a CUDA runtime", path, miss);
        cc_val_check(c, "load_cudart", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        free(path);
        c->rt.h = NULL;
        return;
    }
    fact_str(c, "cudart_lib", path);
    cc_val_check(c, "load_cudart", 1, 0, cc_val_now() - t0, -1, -1, NULL, path);

    t0 = cc_val_now();
    cc_val_step(c, "cudaRuntimeGetVersion (%s)", cc_path_base(path));
    int rv = 0;
    c->rt.cudaRuntimeGetVersion(&rv);
    char *rs = cuda_ver(rv);
    fact_str(c, "cudart_version", rs);
    char *err = NULL;
    if (c->dnn_cuda_major > 0 && rv / 1000 != c->dnn_cuda_major)
        err = cc_asprintf("cuDNN %d.%d.%d was built for CUDA %d (cudnnGetCudartVersion) but %s is "
                          "CUDA %s: install the cuDNN variant for CUDA %d, or point --cuda-home "
                          "at a CUDA %d toolkit", c->dnn_major, c->dnn_minor, c->dnn_patch,
                          c->dnn_cuda_major, path, rs, rv / 1000, c->dnn_cuda_major);
    char *detail = cc_asprintf("cudaRuntimeGetVersion() = %d; cuDNN built with CUDA %d", rv,
                               c->dnn_cuda_major);
    cc_val_check(c, "cudart_major", err == NULL, 0, cc_val_now() - t0, -1, -1, err, detail);
    free(detail);
    free(err);
    free(rs);
    free(path);
}

/* cuDNN dlopens cuBLAS(Lt) and nvrtc by name at first use: make them resolvable from the
 * toolkit (a preload by absolute path is found by name later) or check the loader finds them. */
static void check_dlopened_deps(cc_val_child *c)
{
    int major = c->dnn_cuda_major;
    if (major <= 0)
        return;
    static const char *const groups[2][3] = {{"cublas", "libcublasLt", "libcublas"},
                                             {"nvrtc", "libnvrtc", NULL}};
    for (int g = 0; g < 2; g++) {
        double t0 = cc_val_now();
        cc_buf detail = {0};
        char *err = NULL;
        for (int k = 1; k < 3 && groups[g][k] && !err; k++) {
            char *path = NULL;
            char *soname = cc_ln_name(groups[g][k], major);
            void *h = NULL;
            if (find_in_toolkit(c, groups[g][k], major, &path) == 0) {
                cc_val_step(c, "dlopen %s (preload for cuDNN)", path);
                h = cc_pf_dlopen_ex(path, CC_PF_DL_LAZY);
            } else {
                cc_val_step(c, "dlopen %s (by name, as cuDNN will)", soname);
                h = cc_pf_dlopen_ex(soname, CC_PF_DL_LAZY);
                if (h) {
                    free(path);
                    path = mapped_path(groups[g][k]);
                }
            }
            if (!h)
                err = cc_asprintf("%s not found in the toolkit dirs nor by the loader (%s): cuDNN "
                                  "loads it at the first operation; install CUDA %d's %s or pass "
                                  "--cuda-home", soname, cc_pf_dlerror(), major, groups[g][0]);
            else
                cc_buf_printf(&detail, "%s%s", detail.len ? ", " : "", path ? path : soname);
            free(path);
            free(soname);
        }
        cc_val_check(c, groups[g][0], err == NULL, 0, cc_val_now() - t0, -1, -1, err,
                     detail.data);
        cc_buf_free(&detail);
        free(err);
    }
}

static void check_device(cc_val_child *c)
{
    double t0 = cc_val_now();
    cc_val_step(c, "cudaSetDevice(%d) (libcudart)", c->device);
    int rc = c->rt.cudaSetDevice(c->device);
    char *err = NULL;
    if (rc != 0)
        err = cc_asprintf("cudaSetDevice(%d): %s (%d): the CUDA runtime cannot use the GPU (the "
                          "driver may be older than CUDA %d needs)", c->device,
                          cc_val_rt_error(c, rc), rc, c->dnn_cuda_major);
    else if (c->max_device > 0 && (long)(c->cc_major * 100 + c->cc_minor * 10) > c->max_device)
        err = cc_asprintf("the GPU is SM %d.%d but cuDNN %d.%d.%d supports up to SM %ld.%ld "
                          "(cudnnGetMaxDeviceVersion): install a newer cuDNN", c->cc_major,
                          c->cc_minor, c->dnn_major, c->dnn_minor, c->dnn_patch,
                          c->max_device / 100, c->max_device % 100 / 10);
    char *detail = cc_asprintf("device %d: SM %d.%d; cuDNN max SM %ld.%ld", c->device, c->cc_major,
                               c->cc_minor, c->max_device / 100, c->max_device % 100 / 10);
    cc_val_check(c, "device", err == NULL, 0, cc_val_now() - t0, -1, -1, err, detail);
    if (err)
        c->gpu_ready = 0;
    free(err);
    free(detail);
}

static void report_modules(cc_val_child *c, cJSON *arr, const char *prefix)
{
    char **m = loaded_modules(prefix);
    for (size_t i = 0; m && m[i]; i++) {
        cJSON *o = cJSON_CreateObject();
        char *real = cc_pf_realpath(m[i]);
        cJSON_AddStringToObject(o, "path", m[i]);
        cJSON_AddStringToObject(o, "realpath", real ? real : m[i]);
        cJSON_AddItemToArray(arr, o);
        free(real);
        free(m[i]);
    }
    free(m);
    (void)c;
}

static void check_loaded(cc_val_child *c)
{
    double t0 = cc_val_now();
    char **m = loaded_modules("libcudnn");
    char *target_real = cc_pf_realpath(c->lib_dir);
    cc_buf bad = {0};
    size_t n = 0;
    for (size_t i = 0; m && m[i]; i++, n++) {
        char *real = cc_pf_realpath(m[i]);
        char *ms = cc_strdup(m[i]);
        cc_path_slashes(ms); /* Windows module names use '\\' */
        char *dir = ms ? cc_path_dir(ms) : NULL;
        free(ms);
        char *dir_real = dir ? cc_pf_realpath(dir) : NULL;
        char *why = cc_val_judge_module(m[i], real, dir_real, target_real, c->dnn_major,
                                        c->dnn_minor, c->dnn_patch);
        if (why)
            cc_buf_printf(&bad, "%s%s", bad.len ? "; " : "", why);
        free(why);
        free(dir_real);
        free(dir);
        free(real);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "loaded");
    report_modules(c, arr, "libcudnn");
    cJSON *ven = cJSON_AddArrayToObject(o, "vendor");
    const char *vendor[] = {cc_ln_windows() ? "nvcuda" : "libcuda.so", "libcudart", "libcublas",
                            "libnvrtc"};
    for (int i = 0; i < 4; i++)
        report_modules(c, ven, vendor[i]);
    cc_val_emit(c, o);
    char *err = bad.len ? cc_asprintf("%s. Some other cuDNN was picked up: install the complete "
                                      "set into %s (the loader falls back to ld.so.cache for "
                                      "what is missing there)", bad.data, c->lib_dir)
                        : NULL;
    char *detail = cc_asprintf("%zu libcudnn* file(s) mapped, all checked against %s", n,
                               target_real ? target_real : c->lib_dir);
    cc_val_check(c, "loaded_from", err == NULL, 0, cc_val_now() - t0, -1, -1, err, detail);
    free(detail);
    free(err);
    cc_buf_free(&bad);
    free(target_real);
    for (size_t i = 0; m && m[i]; i++)
        free(m[i]);
    free(m);
}

/* The JIT flavour: nothing it does not ship got mapped (the legacy API, the precompiled engines,
 * the heuristic), from here or elsewhere: the mix the shim or libcudnn_graph makes when the
 * loader finds another release's. */
static void check_no_legacy(cc_val_child *c)
{
    static const char *const legacy[] = {"libcudnn_ops",       "libcudnn_cnn",
                                         "libcudnn_adv",       "libcudnn_engines_precompiled",
                                         "libcudnn_heuristic", "libcudnn_engines_tensor_ir",
                                         "libcudnn_ext"};
    double t0 = cc_val_now();
    cc_buf bad = {0};
    for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
        char *where = mapped_path(legacy[i]);
        if (where)
            cc_buf_printf(&bad, "%s%s", bad.len ? ", " : "", where);
        free(where);
    }
    char *err = bad.len ? cc_asprintf("the JIT flavour's validation mapped %s: a sub-library the "
                                      "JIT flavour does not ship, so another release's (a mixed "
                                      "cuDNN); keep other cuDNN 9 copies out of the loader's "
                                      "path for this install",
                                      bad.data)
                        : NULL;
    cc_val_check(c, "jit_no_legacy", err == NULL, 0, cc_val_now() - t0, -1, -1, err,
                 "no sub-library outside the JIT set (libcudnn_ops/_cnn/_adv, the precompiled "
                 "engines, heuristic) was mapped");
    free(err);
    cc_buf_free(&bad);
}

static cudnnctl_err parse_request(cc_val_child *c, const char *req)
{
    cJSON *j = cJSON_Parse(req);
    cudnnctl_err e = CUDNNCTL_E_OK;
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(j, "lib_dir");
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(j, "cudnn_lib");
    const cJSON *maj = cJSON_GetObjectItemCaseSensitive(j, "major");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(j, "device");
    const cJSON *tk = cJSON_GetObjectItemCaseSensitive(j, "toolkit_dirs");
    if (!cJSON_IsString(lib) || !cJSON_IsString(so) || !cJSON_IsNumber(maj)) {
        e = CC_ERR(c->ctx, CUDNNCTL_E_PARSE,
                   "__validate-child: malformed request on stdin (it is started by cudnnctl "
                   "validate, not by hand)");
        goto out;
    }
    c->lib_dir = cc_strdup(lib->valuestring);
    c->cudnn_lib = cc_strdup(so->valuestring);
    c->major = maj->valueint;
    c->device = cJSON_IsNumber(dev) ? dev->valueint : 0;
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(j, "flavor");
    c->jit = cJSON_IsString(fl) && strcmp(fl->valuestring, "jit") == 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, tk)
    {
        if (cJSON_IsString(it))
            cc_strv_push(&c->tk_dirs, it->valuestring);
    }
    if (!c->lib_dir || !c->cudnn_lib)
        e = CC_ERR(c->ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    cJSON_Delete(j);
    return e;
}

cudnnctl_err cudnnctl_validate_child(cudnnctl_ctx *ctx, const char *request_json,
                                     cudnnctl_validate_emit_cb emit, void *user)
{
    cc_val_child c;
    memset(&c, 0, sizeof(c));
    c.ctx = ctx;
    c.emit = emit;
    c.user = user;
    cudnnctl_err e = parse_request(&c, request_json ? request_json : "");
    if (e != CUDNNCTL_E_OK)
        goto out;
    cc_pf_crash_notify("\n" CC_VAL_MARK "{\"crash\":\"", "\"}\n");
    double t0 = cc_val_now();
    fact_str(&c, "child_ld_library_path", cc_pf_getenv("LD_LIBRARY_PATH"));

    check_driver(&c);
    if (load_cudnn(&c) == 0) {
        check_versions(&c);
        check_sublibs(&c);
        check_cudart(&c);
        check_dlopened_deps(&c);
        if (c.gpu_ready && c.rt.h)
            check_device(&c);
        const char *skip = c.no_gpu ? "no GPU / driver"
                           : c.gpu_ready && c.rt.h
                               ? NULL
                               : "the GPU part could not start (see the failed checks)";
        if (c.jit) /* no legacy API: the graph API, a runtime-compiled engine */
            skip ? cc_val_graph_skip(&c, skip) : cc_val_graph_compute(&c);
        else
            skip ? cc_val_compute_skip(&c, skip) : cc_val_compute(&c);
        check_loaded(&c);
        if (c.jit)
            check_no_legacy(&c);
    }
    fact_num(&c, "no_gpu", c.no_gpu);
    fact_num(&c, "child_seconds", cc_val_now() - t0);
    cc_val_emit(&c, cJSON_CreateRaw("{\"done\":true}"));
out:
    free(c.lib_dir);
    free(c.cudnn_lib);
    cc_strv_free(&c.tk_dirs);
    return e;
}
