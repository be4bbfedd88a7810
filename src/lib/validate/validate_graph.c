/* validate_graph.c: the GPU part of validating the JIT flavour, which has no legacy API: a
 * convolution built from backend descriptors (tensors, a convolution, the forward operation, an
 * operation graph), run by an engine whose behaviour notes say runtime compilation (NVRTC, the
 * libcudnn_engines_runtime_compiled library), compared with the CPU reference. Layouts are
 * tried in order (fp32 NCHW, fp32 NHWC, fp16 NHWC) until one has a runtime-compiled engine. */
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
    cc_vd_backend be;
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

/* A tensor of logical dims NCHW (dims[0..3]) in layout NCHW or NHWC. */
static char *tensor(graph_run *g, const variant *v, int64_t uid, const int64_t dims[4],
                    void **out)
{
    char *err = NULL;
    const int64_t c = dims[1], h = dims[2], w = dims[3];
    const int64_t st_nchw[4] = {c * h * w, h * w, w, 1}, st_nhwc[4] = {h * w * c, 1, w * c, c};
    const int dt = v->half ? CC_DNN_DATA_HALF : CC_DNN_DATA_FLOAT;
    const int64_t align = 16;
    void *t = NULL;
    BE("cudnnBackendCreateDescriptor(TENSOR)", new_desc(g, CC_BE_TENSOR, &t));
    BE("cudnnBackendSetAttribute(TENSOR_DATA_TYPE)",
       g->be.SetAttribute(t, CC_BA_TENSOR_DATA_TYPE, CC_BT_DATA_TYPE, 1, &dt));
    BE("cudnnBackendSetAttribute(TENSOR_DIMENSIONS)",
       g->be.SetAttribute(t, CC_BA_TENSOR_DIMS, CC_BT_INT64, 4, dims));
    BE("cudnnBackendSetAttribute(TENSOR_STRIDES)",
       g->be.SetAttribute(t, CC_BA_TENSOR_STRIDES, CC_BT_INT64, 4, v->nhwc ? st_nhwc : st_nchw));
    BE("cudnnBackendSetAttribute(TENSOR_UNIQUE_ID)",
       g->be.SetAttribute(t, CC_BA_TENSOR_UID, CC_BT_INT64, 1, &uid));
    BE("cudnnBackendSetAttribute(TENSOR_BYTE_ALIGNMENT)",
       g->be.SetAttribute(t, CC_BA_TENSOR_ALIGNMENT, CC_BT_INT64, 1, &align));
    BE("cudnnBackendFinalize(TENSOR)", g->be.Finalize(t));
    *out = t;
out:
    return err;
}

/* The convolution descriptor and the forward operation on x, w, y. */
static char *conv_op(graph_run *g, void *x, void *w, void *y, void **op)
{
    char *err = NULL;
    void *conv = NULL;
    const int comp = CC_DNN_DATA_FLOAT, mode = CC_DNN_CROSS_CORRELATION;
    const int64_t dims = 2, one[2] = {1, 1}, pad[2] = {PAD, PAD};
    const float alpha = 1.0f, beta = 0.0f;
    BE("cudnnBackendCreateDescriptor(CONVOLUTION)", new_desc(g, CC_BE_CONVOLUTION, &conv));
    BE("cudnnBackendSetAttribute(CONVOLUTION_SPATIAL_DIMS)",
       g->be.SetAttribute(conv, CC_BA_CONV_SPATIAL_DIMS, CC_BT_INT64, 1, &dims));
    BE("cudnnBackendSetAttribute(CONVOLUTION_COMP_TYPE)",
       g->be.SetAttribute(conv, CC_BA_CONV_COMP_TYPE, CC_BT_DATA_TYPE, 1, &comp));
    BE("cudnnBackendSetAttribute(CONVOLUTION_CONV_MODE)",
       g->be.SetAttribute(conv, CC_BA_CONV_MODE, CC_BT_CONV_MODE, 1, &mode));
    BE("cudnnBackendSetAttribute(CONVOLUTION_PRE_PADDINGS)",
       g->be.SetAttribute(conv, CC_BA_CONV_PRE_PADDINGS, CC_BT_INT64, 2, pad));
    BE("cudnnBackendSetAttribute(CONVOLUTION_POST_PADDINGS)",
       g->be.SetAttribute(conv, CC_BA_CONV_POST_PADDINGS, CC_BT_INT64, 2, pad));
    BE("cudnnBackendSetAttribute(CONVOLUTION_DILATIONS)",
       g->be.SetAttribute(conv, CC_BA_CONV_DILATIONS, CC_BT_INT64, 2, one));
    BE("cudnnBackendSetAttribute(CONVOLUTION_FILTER_STRIDES)",
       g->be.SetAttribute(conv, CC_BA_CONV_FILTER_STRIDES, CC_BT_INT64, 2, one));
    BE("cudnnBackendFinalize(CONVOLUTION)", g->be.Finalize(conv));
    BE("cudnnBackendCreateDescriptor(OPERATION_CONVOLUTION_FORWARD)",
       new_desc(g, CC_BE_OP_CONV_FWD, op));
    BE("cudnnBackendSetAttribute(..._FORWARD_X)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_X, CC_BT_BACKEND_DESCRIPTOR, 1, &x));
    BE("cudnnBackendSetAttribute(..._FORWARD_W)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_W, CC_BT_BACKEND_DESCRIPTOR, 1, &w));
    BE("cudnnBackendSetAttribute(..._FORWARD_Y)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_Y, CC_BT_BACKEND_DESCRIPTOR, 1, &y));
    BE("cudnnBackendSetAttribute(..._FORWARD_CONV_DESC)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_CONV_DESC, CC_BT_BACKEND_DESCRIPTOR, 1, &conv));
    BE("cudnnBackendSetAttribute(..._FORWARD_ALPHA)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_ALPHA, CC_BT_FLOAT, 1, &alpha));
    BE("cudnnBackendSetAttribute(..._FORWARD_BETA)",
       g->be.SetAttribute(*op, CC_BA_CONV_FWD_BETA, CC_BT_FLOAT, 1, &beta));
    BE("cudnnBackendFinalize(OPERATION_CONVOLUTION_FORWARD)", g->be.Finalize(*op));
out:
    return err;
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
    BE("cudnnBackendCreateDescriptor(OPERATIONGRAPH)", new_desc(g, CC_BE_OPERATIONGRAPH, graph));
    BE("cudnnBackendSetAttribute(OPERATIONGRAPH_OPS)",
       g->be.SetAttribute(*graph, CC_BA_OPGRAPH_OPS, CC_BT_BACKEND_DESCRIPTOR, 1, &op));
    BE("cudnnBackendSetAttribute(OPERATIONGRAPH_HANDLE)",
       g->be.SetAttribute(*graph, CC_BA_OPGRAPH_HANDLE, CC_BT_HANDLE, 1, &g->handle));
    BE("cudnnBackendFinalize(OPERATIONGRAPH)", g->be.Finalize(*graph));
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

/* NCHW host data → the device layout (NHWC, fp16) in buf; back for y. */
static void to_layout(const variant *v, const float *src, void *buf, int n, int c, int hw)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < c; k++)
            for (int p = 0; p < hw; p++) {
                size_t from = ((size_t)i * c + k) * hw + p;
                size_t to = v->nhwc ? ((size_t)i * hw + p) * c + k : from;
                if (v->half)
                    ((uint16_t *)buf)[to] = cc_val_f2h(src[from]);
                else
                    ((float *)buf)[to] = src[from];
            }
}

static void from_layout(const variant *v, const void *buf, float *dst, int n, int c, int hw)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < c; k++)
            for (int p = 0; p < hw; p++) {
                size_t to = ((size_t)i * c + k) * hw + p;
                size_t from = v->nhwc ? ((size_t)i * hw + p) * c + k : to;
                dst[to] = v->half ? cc_val_h2f(((const uint16_t *)buf)[from])
                                  : ((const float *)buf)[from];
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
    to_layout(v, g->x, hx, N, C, H * W);
    to_layout(v, g->w, hw, K, C, R * S);
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
    from_layout(v, hy, g->y, N, K, OH * OW);
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
    cc_vd_backend be;
    char *e = NULL;
    memset(&be, 0, sizeof(be));
    /* Without a GPU, show that handle creation fails cleanly (a status, not a crash). */
    if (c->no_gpu && !cc_vd_load_backend(c->dnn.h, &be)) {
        void *handle = NULL;
        cc_val_step(c, "cudnnCreate without a GPU (libcudnn_graph)");
        int st = be.Create(&handle);
        if (st == 0) {
            be.Destroy(handle);
            e = cc_asprintf("%s: cudnnCreate succeeded, compute skipped", why);
        } else {
            char *d = cc_val_dnn_error(c, "cudnnCreate", st);
            e = cc_asprintf("%s: %s", why, d);
            free(d);
        }
    }
    cc_val_check(c, "handle", 0, 1, cc_val_now() - t0, -1, -1, e ? e : why, NULL);
    cc_val_check(c, "graph_conv", 0, 1, 0, -1, -1, why, NULL);
    free(e);
}

void cc_val_graph_compute(cc_val_child *c)
{
    double t0 = cc_val_now();
    graph_run *g = calloc(1, sizeof(*g));
    const char *miss = g ? cc_vd_load_backend(c->dnn.h, &g->be) : "memory";
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
