/* validate_graph.c: the GPU part of validating the JIT flavour, which has no legacy API: a
 * convolution built from backend descriptors (tensors, a convolution, the forward operation, an
 * operation graph), run by an engine whose behaviour notes say runtime compilation (NVRTC, the
 * libcudnn_engines_runtime_compiled library), compared with the CPU reference. Layouts are
 * tried in order (fp32 NCHW, fp32 NHWC, fp16 NHWC) until one has a runtime-compiled engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate_vendor.h"

#define MAX_DESC 64
#define TOL_FP32 1e-4
#define TOL_FP16 1e-2

typedef struct {
    const char *name;
    int nhwc, half;
} variant;

static const variant variants[] = {
    {"fp32 NCHW", 0, 0}, {"fp32 NHWC", 1, 0}, {"fp16 NHWC, fp32 compute", 1, 1}};

/* 1x8x8x8 * 8x8x3x3, pad 1, stride 1 -> 1x8x8x8: channels a multiple of 8 for the fp16 case */
enum { N = 1, C = 8, H = 8, W = 8, K = 8, R = 3, S = 3, PAD = 1, OH = 8, OW = 8 };
enum { UID_X = 'x', UID_W = 'w', UID_Y = 'y' };

typedef struct {
    cc_val_child *c;
    cc_val_backend be;
    void *handle;
    void *desc[MAX_DESC];
    int n_desc;
    void *dev[4]; /* x, w, y, workspace */
    float x[N * C * H * W], w[K * C * R * S], y[N * K * OH * OW];
    double ref[N * K * OH * OW];
} graph_run;

#define BE(call_text, expr)                                                                        \
    do {                                                                                           \
        int st_ = (expr);                                                                          \
        if (st_ != 0) {                                                                            \
            err = cc_val_dnn_error(g->c, call_text, st_);                                          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int new_desc(graph_run *g, int type, void **out)
{
    *out = NULL;
    if (g->n_desc >= MAX_DESC)
        return -1;
    int st = g->be.CreateDescriptor(type, out);
    if (st == 0)
        g->desc[g->n_desc++] = *out;
    return st;
}

static void free_descs(graph_run *g)
{
    while (g->n_desc > 0)
        g->be.DestroyDescriptor(g->desc[--g->n_desc]);
}

/* One attribute of a backend descriptor: its name in the error text, id, type, count, value. */
typedef struct {
    const char *name;
    int attr, type;
    int64_t n;
    const void *val;
} attr_row;

/* A descriptor of type (what: its name in the error text) in *out, the n attributes set, then
 * finalised. NULL, or the error (malloc'd) of the call that failed. */
static char *make_desc(graph_run *g, int type, const char *what, const attr_row *a, size_t n,
                       void **out)
{
    char call[96];
    int st = new_desc(g, type, out);
    snprintf(call, sizeof(call), "cudnnBackendCreateDescriptor(%s)", what);
    for (size_t i = 0; st == 0 && i < n; i++) {
        st = g->be.SetAttribute(*out, a[i].attr, a[i].type, a[i].n, a[i].val);
        if (st != 0)
            snprintf(call, sizeof(call), "cudnnBackendSetAttribute(%s)", a[i].name);
    }
    if (st == 0 && (st = g->be.Finalize(*out)) != 0)
        snprintf(call, sizeof(call), "cudnnBackendFinalize(%s)", what);
    return st != 0 ? cc_val_dnn_error(g->c, call, st) : NULL;
}

/* A tensor of logical dims NCHW (dims[0..3]) in layout NCHW or NHWC. */
static char *tensor(graph_run *g, const variant *v, int64_t uid, const int64_t dims[4],
                    void **out)
{
    const int64_t c = dims[1], h = dims[2], w = dims[3];
    const int64_t st_nchw[4] = {c * h * w, h * w, w, 1}, st_nhwc[4] = {h * w * c, 1, w * c, c};
    const int dt = v->half ? CC_DNN_DATA_HALF : CC_DNN_DATA_FLOAT;
    const int64_t align = 16;
    const attr_row a[] = {
        {"TENSOR_DATA_TYPE", CC_BA_TENSOR_DATA_TYPE, CC_BT_DATA_TYPE, 1, &dt},
        {"TENSOR_DIMENSIONS", CC_BA_TENSOR_DIMS, CC_BT_INT64, 4, dims},
        {"TENSOR_STRIDES", CC_BA_TENSOR_STRIDES, CC_BT_INT64, 4, v->nhwc ? st_nhwc : st_nchw},
        {"TENSOR_UNIQUE_ID", CC_BA_TENSOR_UID, CC_BT_INT64, 1, &uid},
        {"TENSOR_BYTE_ALIGNMENT", CC_BA_TENSOR_ALIGNMENT, CC_BT_INT64, 1, &align}};
    return make_desc(g, CC_BE_TENSOR, "TENSOR", a, sizeof(a) / sizeof(a[0]), out);
}

/* The convolution descriptor and the forward operation on x, w, y. */
static char *conv_op(graph_run *g, void *x, void *w, void *y, void **op)
{
    void *conv = NULL;
    const int comp = CC_DNN_DATA_FLOAT, mode = CC_DNN_CROSS_CORRELATION;
    const int64_t dims = 2, one[2] = {1, 1}, pad[2] = {PAD, PAD};
    const float alpha = 1.0f, beta = 0.0f;
    const attr_row ca[] = {
        {"CONVOLUTION_SPATIAL_DIMS", CC_BA_CONV_SPATIAL_DIMS, CC_BT_INT64, 1, &dims},
        {"CONVOLUTION_COMP_TYPE", CC_BA_CONV_COMP_TYPE, CC_BT_DATA_TYPE, 1, &comp},
        {"CONVOLUTION_CONV_MODE", CC_BA_CONV_MODE, CC_BT_CONV_MODE, 1, &mode},
        {"CONVOLUTION_PRE_PADDINGS", CC_BA_CONV_PRE_PADDINGS, CC_BT_INT64, 2, pad},
        {"CONVOLUTION_POST_PADDINGS", CC_BA_CONV_POST_PADDINGS, CC_BT_INT64, 2, pad},
        {"CONVOLUTION_DILATIONS", CC_BA_CONV_DILATIONS, CC_BT_INT64, 2, one},
        {"CONVOLUTION_FILTER_STRIDES", CC_BA_CONV_FILTER_STRIDES, CC_BT_INT64, 2, one}};
    const attr_row oa[] = {
        {"..._FORWARD_X", CC_BA_CONV_FWD_X, CC_BT_BACKEND_DESCRIPTOR, 1, &x},
        {"..._FORWARD_W", CC_BA_CONV_FWD_W, CC_BT_BACKEND_DESCRIPTOR, 1, &w},
        {"..._FORWARD_Y", CC_BA_CONV_FWD_Y, CC_BT_BACKEND_DESCRIPTOR, 1, &y},
        {"..._FORWARD_CONV_DESC", CC_BA_CONV_FWD_CONV_DESC, CC_BT_BACKEND_DESCRIPTOR, 1, &conv},
        {"..._FORWARD_ALPHA", CC_BA_CONV_FWD_ALPHA, CC_BT_FLOAT, 1, &alpha},
        {"..._FORWARD_BETA", CC_BA_CONV_FWD_BETA, CC_BT_FLOAT, 1, &beta}};
    char *err =
        make_desc(g, CC_BE_CONVOLUTION, "CONVOLUTION", ca, sizeof(ca) / sizeof(ca[0]), &conv);
    return err ? err
               : make_desc(g, CC_BE_OP_CONV_FWD, "OPERATION_CONVOLUTION_FORWARD", oa,
                           sizeof(oa) / sizeof(oa[0]), op);
}

/* The operation graph of one convolution in layout v; *count: the engines cuDNN has for it. */
static char *build_graph(graph_run *g, const variant *v, void **graph, int64_t *count)
{
    char *err = NULL;
    void *x = NULL, *w = NULL, *y = NULL, *op = NULL;
    const int64_t dx[4] = {N, C, H, W}, dw[4] = {K, C, R, S}, dy[4] = {N, K, OH, OW};
    if ((err = tensor(g, v, UID_X, dx, &x)) || (err = tensor(g, v, UID_W, dw, &w)) ||
        (err = tensor(g, v, UID_Y, dy, &y)) || (err = conv_op(g, x, w, y, &op)))
        return err;
    const attr_row a[] = {
        {"OPERATIONGRAPH_OPS", CC_BA_OPGRAPH_OPS, CC_BT_BACKEND_DESCRIPTOR, 1, &op},
        {"OPERATIONGRAPH_HANDLE", CC_BA_OPGRAPH_HANDLE, CC_BT_HANDLE, 1, &g->handle}};
    if ((err = make_desc(g, CC_BE_OPERATIONGRAPH, "OPERATIONGRAPH", a, sizeof(a) / sizeof(a[0]),
                         graph)))
        return err;
    *count = 0;
    BE("cudnnBackendGetAttribute(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT)",
       g->be.GetAttribute(*graph, CC_BA_OPGRAPH_ENGINE_COUNT, CC_BT_INT64, 1, NULL, count));
out:
    return err;
}

/* Engine idx for the graph, if it finalises and is runtime-compiled; its execution plan. 0: a
 * plan; 1: not such an engine (or it declined the graph). */
static int rc_plan(graph_run *g, void *graph, int64_t idx, void **plan)
{
    void *eng = NULL, *cfg = NULL;
    int notes[16];
    int64_t n = 0;
    if (new_desc(g, CC_BE_ENGINE, &eng) != 0 ||
        g->be.SetAttribute(eng, CC_BA_ENGINE_OPGRAPH, CC_BT_BACKEND_DESCRIPTOR, 1, &graph) != 0 ||
        g->be.SetAttribute(eng, CC_BA_ENGINE_GLOBAL_INDEX, CC_BT_INT64, 1, &idx) != 0 ||
        g->be.Finalize(eng) != 0 ||
        g->be.GetAttribute(eng, CC_BA_ENGINE_BEHAVIOR, CC_BT_BEHAVIOR_NOTE, 16, &n, notes) != 0)
        return 1;
    int rc = 0;
    for (int64_t i = 0; i < n && i < 16; i++)
        rc |= notes[i] == CC_BN_RUNTIME_COMPILATION;
    if (!rc)
        return 1;
    cc_val_step(g->c, "graph: engine %lld is runtime-compiled: engine config, execution plan "
                      "(NVRTC compiles its kernel)", (long long)idx);
    if (new_desc(g, CC_BE_ENGINECFG, &cfg) != 0 ||
        g->be.SetAttribute(cfg, CC_BA_ENGINECFG_ENGINE, CC_BT_BACKEND_DESCRIPTOR, 1, &eng) != 0 ||
        g->be.Finalize(cfg) != 0 || new_desc(g, CC_BE_EXECUTION_PLAN, plan) != 0 ||
        g->be.SetAttribute(*plan, CC_BA_PLAN_HANDLE, CC_BT_HANDLE, 1, &g->handle) != 0 ||
        g->be.SetAttribute(*plan, CC_BA_PLAN_ENGINE_CONFIG, CC_BT_BACKEND_DESCRIPTOR, 1, &cfg) !=
            0 ||
        g->be.Finalize(*plan) != 0)
        return 1;
    return 0;
}

/* Between NCHW host data (fp32) and the device layout (NHWC, fp16) in buf: host into buf when
 * to_dev, else buf back into host. */
static void layout_copy(const variant *v, float *host, void *buf, int to_dev, int n, int c, int hw)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < c; k++)
            for (int p = 0; p < hw; p++) {
                size_t h = ((size_t)i * c + k) * hw + p;
                size_t d = v->nhwc ? ((size_t)i * hw + p) * c + k : h;
                if (to_dev && v->half)
                    ((uint16_t *)buf)[d] = cc_val_f2h(host[h]);
                else if (to_dev)
                    ((float *)buf)[d] = host[h];
                else
                    host[h] =
                        v->half ? cc_val_h2f(((const uint16_t *)buf)[d]) : ((const float *)buf)[d];
            }
}

#define RT(call_text, expr)                                                                        \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != 0) {                                                                            \
            err = cc_asprintf("%s: %s (%d)", call_text, cc_val_rt_error(g->c, rc_), rc_);          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static void free_descs_from(graph_run *g, int mark)
{
    while (g->n_desc > mark)
        g->be.DestroyDescriptor(g->desc[--g->n_desc]);
}

static void free_dev(graph_run *g)
{
    for (int i = 0; i < 4; i++)
        if (g->dev[i])
            g->c->rt.cudaFree(g->dev[i]);
    memset(g->dev, 0, sizeof(g->dev));
}

/* Buffers in the variant's layout, the variant pack, the run, the result back (NCHW, float). */
static char *execute(graph_run *g, const variant *v, void *plan, int64_t *ws)
{
    char *err = NULL;
    const size_t es = v->half ? 2 : 4, nx = N * C * H * W, nw = K * C * R * S, ny = N * K * OH * OW;
    void *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hy = malloc(ny * 4), *vp = NULL;
    if (!hx || !hw || !hy) {
        err = cc_strdup("out of host memory");
        goto out;
    }
    *ws = 0;
    BE("cudnnBackendGetAttribute(EXECUTION_PLAN_WORKSPACE_SIZE)",
       g->be.GetAttribute(plan, CC_BA_PLAN_WORKSPACE_SIZE, CC_BT_INT64, 1, NULL, ws));
    layout_copy(v, g->x, hx, 1, N, C, H * W);
    layout_copy(v, g->w, hw, 1, K, C, R * S);
    cc_val_step(g->c, "graph: cudaMalloc / cudaMemcpy (libcudart)");
    RT("cudaMalloc", g->c->rt.cudaMalloc(&g->dev[0], nx * es));
    RT("cudaMalloc", g->c->rt.cudaMalloc(&g->dev[1], nw * es));
    RT("cudaMalloc", g->c->rt.cudaMalloc(&g->dev[2], ny * es));
    if (*ws > 0)
        RT("cudaMalloc", g->c->rt.cudaMalloc(&g->dev[3], (size_t)*ws));
    RT("cudaMemcpy", g->c->rt.cudaMemcpy(g->dev[0], hx, nx * es, CC_CUDA_MEMCPY_H2D));
    RT("cudaMemcpy", g->c->rt.cudaMemcpy(g->dev[1], hw, nw * es, CC_CUDA_MEMCPY_H2D));
    const int64_t uids[3] = {UID_X, UID_W, UID_Y};
    void *ptrs[3] = {g->dev[0], g->dev[1], g->dev[2]};
    BE("cudnnBackendCreateDescriptor(VARIANT_PACK)", new_desc(g, CC_BE_VARIANT_PACK, &vp));
    BE("cudnnBackendSetAttribute(VARIANT_PACK_UNIQUE_IDS)",
       g->be.SetAttribute(vp, CC_BA_VP_UIDS, CC_BT_INT64, 3, uids));
    BE("cudnnBackendSetAttribute(VARIANT_PACK_DATA_POINTERS)",
       g->be.SetAttribute(vp, CC_BA_VP_POINTERS, CC_BT_VOID_PTR, 3, ptrs));
    BE("cudnnBackendSetAttribute(VARIANT_PACK_WORKSPACE)",
       g->be.SetAttribute(vp, CC_BA_VP_WORKSPACE, CC_BT_VOID_PTR, 1, &g->dev[3]));
    BE("cudnnBackendFinalize(VARIANT_PACK)", g->be.Finalize(vp));
    cc_val_step(g->c, "graph: cudnnBackendExecute (runtime-compiled engine)");
    BE("cudnnBackendExecute", g->be.Execute(g->handle, plan, vp));
    RT("cudaDeviceSynchronize", g->c->rt.cudaDeviceSynchronize());
    RT("cudaMemcpy", g->c->rt.cudaMemcpy(hy, g->dev[2], ny * es, CC_CUDA_MEMCPY_D2H));
    layout_copy(v, g->y, hy, 0, N, K, OH * OW);
out:
    free(hx);
    free(hw);
    free(hy);
    return err;
}

/* One layout: its graph, the first runtime-compiled engine that takes it, the run. *found: an
 * engine ran (err then says whether the result was right). */
static char *try_variant(graph_run *g, const variant *v, int *found, char **detail,
                         double *max_abs, cc_buf *tried)
{
    void *graph = NULL, *plan = NULL;
    int64_t count = 0, ws = 0, idx = 0;
    int mark = g->n_desc;
    *found = 0;
    cc_val_step(g->c, "graph: %s convolution from backend descriptors (libcudnn_graph)", v->name);
    char *err = build_graph(g, v, &graph, &count);
    if (err) {
        cc_buf_printf(tried, "%s%s: %s", tried->len ? "; " : "", v->name, err);
        free(err);
        free_descs_from(g, mark);
        return NULL;
    }
    for (idx = 0; idx < count && !*found; idx++) {
        int m = g->n_desc;
        if (rc_plan(g, graph, idx, &plan) == 0)
            *found = 1;
        else
            free_descs_from(g, m);
    }
    if (!*found) {
        cc_buf_printf(tried, "%s%s: %lld engines, none runtime-compiled for it",
                      tried->len ? "; " : "", v->name, (long long)count);
        free_descs_from(g, mark);
        return NULL;
    }
    err = execute(g, v, plan, &ws);
    double tol = v->half ? TOL_FP16 : TOL_FP32;
    if (!err && !cc_val_compare(g->y, g->ref, N * K * OH * OW, tol, max_abs))
        err = cc_asprintf("the GPU result of the runtime-compiled convolution differs from the "
                          "CPU reference: max |err| %g > %g x (1 + |ref|)", *max_abs, tol);
    *detail = cc_asprintf("engine %lld of %lld (runtime compilation), %s, %dx%dx%dx%d * "
                          "%dx%dx%dx%d pad %d -> %dx%dx%dx%d, workspace %lld bytes",
                          (long long)(idx - 1), (long long)count, v->name, N, C, H, W, K, C, R, S,
                          PAD, N, K, OH, OW, (long long)ws);
    free_dev(g);
    free_descs_from(g, mark);
    return err;
}

static void graph_check(graph_run *g)
{
    double t0 = cc_val_now(), max_abs = -1;
    char *err = NULL, *detail = NULL;
    cc_buf tried = {0};
    int found = 0;
    cc_val_fill(g->x, sizeof(g->x) / sizeof(g->x[0]), 41u);
    cc_val_fill(g->w, sizeof(g->w) / sizeof(g->w[0]), 43u);
    cc_val_ref_conv(g->x, g->w, g->ref, N, C, H, W, K, R, S, PAD, 1, OH, OW);
    for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]) && !found; i++)
        err = try_variant(g, &variants[i], &found, &detail, &max_abs, &tried);
    if (!found)
        err = cc_asprintf("no runtime-compiled engine ran the convolution (%s): the JIT library "
                          "compiles its kernels with NVRTC at run time; check that CUDA %d's "
                          "libnvrtc is installed (the nvrtc check above) and that the GPU is "
                          "supported",
                          tried.data ? tried.data : "no layout tried", g->c->dnn_cuda_major);
    cc_val_check(g->c, "graph_conv", err == NULL, 0, cc_val_now() - t0, max_abs,
                 detail && strstr(detail, "fp16") ? TOL_FP16 : TOL_FP32, err, detail);
    free(err);
    free(detail);
    cc_buf_free(&tried);
}

void cc_val_graph_skip(cc_val_child *c, const char *why)
{
    double t0 = cc_val_now();
    cc_val_backend be;
    memset(&be, 0, sizeof(be));
    int loaded = c->no_gpu && !cc_val_load_backend(c->dnn.h, &be);
    cc_val_skip_handle(c, why, t0, loaded ? be.Create : NULL, be.Destroy);
    cc_val_check(c, "graph_conv", 0, 1, 0, -1, -1, why, NULL);
}

void cc_val_graph_compute(cc_val_child *c)
{
    double t0 = cc_val_now();
    graph_run *g = calloc(1, sizeof(*g));
    const char *miss = g ? cc_val_load_backend(c->dnn.h, &g->be) : "memory";
    if (miss) {
        char *e = cc_asprintf("%s has no %s: not a cuDNN with the graph API", c->cudnn_lib, miss);
        cc_val_check(c, "handle", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        cc_val_check(c, "graph_conv", 0, 1, 0, -1, -1, "no cuDNN handle", NULL);
        free(e);
        free(g);
        return;
    }
    g->c = c;
    cc_val_step(c, "cudnnCreate (libcudnn_graph; initialises CUDA on the GPU)");
    int st = g->be.Create(&g->handle);
    if (st != 0) {
        char *d = cc_val_dnn_error(c, "cudnnCreate", st);
        cc_val_check(c, "handle", 0, 0, cc_val_now() - t0, -1, -1, d, NULL);
        cc_val_check(c, "graph_conv", 0, 1, 0, -1, -1, "no cuDNN handle", NULL);
        free(d);
        free(g);
        return;
    }
    cc_val_check(c, "handle", 1, 0, cc_val_now() - t0, -1, -1, NULL, "cudnnCreate");
    graph_check(g);
    free_dev(g);
    free_descs(g);
    cc_val_step(c, "cudnnDestroy");
    g->be.Destroy(g->handle);
    free(g);
}
