/* validate_compute.c: the GPU part of validation: a cuDNN handle, fp32 convolutions on three
 * shapes, an fp16 tensor-op convolution, ReLU and max pooling, each against a CPU reference. */
#include <stdlib.h>
#include <string.h>

#include "validate_vendor.h"

#define TOL_FP32 1e-4
#define TOL_FP16 1e-2

typedef struct {
    const char *name;
    int n, c, h, w, k, r, s, pad, stride;
    int half; /* fp16 data, tensor-op math, IMPLICIT_PRECOMP_GEMM */
} conv_case;

static const conv_case conv_cases[] = {
    {"conv_fp32_a", 1, 3, 8, 8, 4, 3, 3, 1, 1, 0},
    {"conv_fp32_b", 2, 8, 16, 16, 16, 5, 5, 0, 1, 0},
    {"conv_fp32_c", 1, 1, 7, 7, 1, 1, 1, 0, 2, 0},
    {"conv_fp16_tensor_op", 2, 16, 16, 16, 32, 3, 3, 1, 1, 1},
};
#define N_CONV (sizeof(conv_cases) / sizeof(conv_cases[0]))

/* Device buffers and descriptors of one check, released in one place. */
typedef struct {
    void *dev[4];
    void *tensor[3];
    void *filter, *conv, *act, *pool;
} res;

static void res_free(cc_val_child *c, res *r)
{
    for (int i = 0; i < 4; i++)
        if (r->dev[i])
            c->rt.cudaFree(r->dev[i]);
    for (int i = 0; i < 3; i++)
        if (r->tensor[i])
            c->dnn.DestroyTensorDescriptor(r->tensor[i]);
    if (r->filter)
        c->dnn.DestroyFilterDescriptor(r->filter);
    if (r->conv)
        c->dnn.DestroyConvolutionDescriptor(r->conv);
    if (r->act)
        c->dnn.DestroyActivationDescriptor(r->act);
    if (r->pool)
        c->dnn.DestroyPoolingDescriptor(r->pool);
}

/* Run a cuDNN call; on failure set *err (naming the call and cuDNN's reason) and go to out. */
#define DNN(call_text, expr)                                                                       \
    do {                                                                                           \
        int st_ = (expr);                                                                          \
        if (st_ != 0) {                                                                            \
            err = cc_val_dnn_error(c, call_text, st_);                                             \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define RT(call_text, expr)                                                                        \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != 0) {                                                                            \
            err = cc_asprintf("%s: %s (%d)", call_text, cc_val_rt_error(c, rc_), rc_);             \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static void *to_half(const float *v, size_t n)
{
    uint16_t *h = malloc(n * sizeof(uint16_t) + 1);
    for (size_t i = 0; h && i < n; i++)
        h[i] = cc_val_f2h(v[i]);
    return h;
}

/* The host side of one convolution: inputs, the CPU reference, the result, and their fp16
 * copies. */
typedef struct {
    int oh, ow;
    size_t nx, nw, ny;
    float *x, *w, *y;
    double *ref;
    void *hx, *hw, *hy;
} conv_host;

static void conv_host_free(conv_host *b)
{
    free(b->x);
    free(b->w);
    free(b->y);
    free(b->ref);
    free(b->hx);
    free(b->hw);
    free(b->hy);
}

/* Inputs filled, the CPU reference computed; NULL, else what failed. */
static char *conv_host_init(const conv_case *cs, conv_host *b)
{
    b->oh = (cs->h + 2 * cs->pad - cs->r) / cs->stride + 1;
    b->ow = (cs->w + 2 * cs->pad - cs->s) / cs->stride + 1;
    b->nx = (size_t)cs->n * cs->c * cs->h * cs->w;
    b->nw = (size_t)cs->k * cs->c * cs->r * cs->s;
    b->ny = (size_t)cs->n * cs->k * b->oh * b->ow;
    b->x = malloc(b->nx * sizeof(float));
    b->w = malloc(b->nw * sizeof(float));
    b->y = malloc(b->ny * sizeof(float));
    b->ref = malloc(b->ny * sizeof(double));
    if (!b->x || !b->w || !b->y || !b->ref)
        return cc_strdup("out of host memory");
    cc_val_fill(b->x, b->nx, 1u + (uint32_t)cs->c);
    cc_val_fill(b->w, b->nw, 7u + (uint32_t)cs->k);
    cc_val_ref_conv(b->x, b->w, b->ref, cs->n, cs->c, cs->h, cs->w, cs->k, cs->r, cs->s, cs->pad,
                    cs->stride, b->oh, b->ow);
    if (cs->half) {
        b->hx = to_half(b->x, b->nx);
        b->hw = to_half(b->w, b->nw);
        b->hy = malloc(b->ny * sizeof(uint16_t));
        if (!b->hx || !b->hw || !b->hy)
            return cc_strdup("out of host memory");
    }
    return NULL;
}

/* The tensor, filter and convolution descriptors; cuDNN's output dims must be ours. */
static char *conv_descriptors(cc_val_child *c, const conv_case *cs, const conv_host *b, res *r)
{
    char *err = NULL;
    const int dt = cs->half ? CC_DNN_DATA_HALF : CC_DNN_DATA_FLOAT;
    cc_val_step(c, "%s: descriptors (libcudnn_ops / libcudnn_cnn)", cs->name);
    DNN("cudnnCreateTensorDescriptor", c->dnn.CreateTensorDescriptor(&r->tensor[0]));
    DNN("cudnnCreateTensorDescriptor", c->dnn.CreateTensorDescriptor(&r->tensor[1]));
    DNN("cudnnCreateFilterDescriptor", c->dnn.CreateFilterDescriptor(&r->filter));
    DNN("cudnnCreateConvolutionDescriptor", c->dnn.CreateConvolutionDescriptor(&r->conv));
    DNN("cudnnSetTensor4dDescriptor",
        c->dnn.SetTensor4dDescriptor(r->tensor[0], CC_DNN_NCHW, dt, cs->n, cs->c, cs->h, cs->w));
    DNN("cudnnSetFilter4dDescriptor",
        c->dnn.SetFilter4dDescriptor(r->filter, dt, CC_DNN_NCHW, cs->k, cs->c, cs->r, cs->s));
    DNN("cudnnSetConvolution2dDescriptor",
        c->dnn.SetConvolution2dDescriptor(r->conv, cs->pad, cs->pad, cs->stride, cs->stride, 1, 1,
                                          CC_DNN_CROSS_CORRELATION, CC_DNN_DATA_FLOAT));
    DNN("cudnnSetConvolutionMathType",
        c->dnn.SetConvolutionMathType(r->conv,
                                      cs->half ? CC_DNN_TENSOR_OP_MATH : CC_DNN_DEFAULT_MATH));
    int dn = 0, dc = 0, dh = 0, dw = 0;
    DNN("cudnnGetConvolution2dForwardOutputDim",
        c->dnn.GetConvolution2dForwardOutputDim(r->conv, r->tensor[0], r->filter, &dn, &dc, &dh,
                                                &dw));
    if (dn != cs->n || dc != cs->k || dh != b->oh || dw != b->ow) {
        err = cc_asprintf("cudnnGetConvolution2dForwardOutputDim gave %dx%dx%dx%d, expected "
                          "%dx%dx%dx%d",
                          dn, dc, dh, dw, cs->n, cs->k, b->oh, b->ow);
        goto out;
    }
    DNN("cudnnSetTensor4dDescriptor",
        c->dnn.SetTensor4dDescriptor(r->tensor[1], CC_DNN_NCHW, dt, cs->n, cs->k, b->oh, b->ow));
out:
    return err;
}

/* Device buffers, the forward convolution and the result back in b->y (as float). */
static char *conv_forward(cc_val_child *c, void *handle, const conv_case *cs, int algo,
                          conv_host *b, res *r)
{
    char *err = NULL;
    const size_t esz = cs->half ? 2 : 4;
    /* fp16 runs IMPLICIT_PRECOMP_GEMM with tensor-op math. Asking the heuristics first cost
     * 0.14 s of a 0.63 s validate on an H200 and returned this very algorithm (1) there:
     * docs/validation-h200.md, "validate speed". cuDNN still loads libcudnn_heuristic and both
     * engine libraries for the run, and loaded_from checks where they came from. */
    size_t ws = 0;
    DNN("cudnnGetConvolutionForwardWorkspaceSize",
        c->dnn.GetConvolutionForwardWorkspaceSize(handle, r->tensor[0], r->filter, r->conv,
                                                  r->tensor[1], algo, &ws));
    cc_val_step(c, "%s: cudaMalloc / cudaMemcpy (libcudart)", cs->name);
    RT("cudaMalloc", c->rt.cudaMalloc(&r->dev[0], b->nx * esz));
    RT("cudaMalloc", c->rt.cudaMalloc(&r->dev[1], b->nw * esz));
    RT("cudaMalloc", c->rt.cudaMalloc(&r->dev[2], b->ny * esz));
    if (ws)
        RT("cudaMalloc", c->rt.cudaMalloc(&r->dev[3], ws));
    RT("cudaMemcpy", c->rt.cudaMemcpy(r->dev[0], cs->half ? b->hx : (void *)b->x, b->nx * esz,
                                      CC_CUDA_MEMCPY_H2D));
    RT("cudaMemcpy", c->rt.cudaMemcpy(r->dev[1], cs->half ? b->hw : (void *)b->w, b->nw * esz,
                                      CC_CUDA_MEMCPY_H2D));
    const float one = 1.0f, zero = 0.0f; /* float scaling for float and half data */
    cc_val_step(c, "%s: cudnnConvolutionForward algo %d (libcudnn_cnn, engines)", cs->name, algo);
    DNN("cudnnConvolutionForward",
        c->dnn.ConvolutionForward(handle, &one, r->tensor[0], r->dev[0], r->filter, r->dev[1],
                                  r->conv, algo, r->dev[3], ws, &zero, r->tensor[1], r->dev[2]));
    cc_val_step(c, "%s: cudaMemcpy back (libcudart)", cs->name);
    RT("cudaMemcpy", c->rt.cudaMemcpy(cs->half ? b->hy : (void *)b->y, r->dev[2], b->ny * esz,
                                      CC_CUDA_MEMCPY_D2H));
    if (cs->half)
        for (size_t i = 0; i < b->ny; i++)
            b->y[i] = cc_val_h2f(((uint16_t *)b->hy)[i]);
out:
    return err;
}

static void conv_check(cc_val_child *c, void *handle, const conv_case *cs)
{
    double t0 = cc_val_now();
    res r;
    memset(&r, 0, sizeof(r));
    conv_host b;
    memset(&b, 0, sizeof(b));
    double max_abs = -1;
    int algo = cs->half ? CC_DNN_FWD_IMPLICIT_PRECOMP_GEMM : CC_DNN_FWD_IMPLICIT_GEMM;
    double tol = cs->half ? TOL_FP16 : TOL_FP32;
    char *err = conv_host_init(cs, &b);
    if (!err)
        err = conv_descriptors(c, cs, &b, &r);
    if (!err)
        err = conv_forward(c, handle, cs, algo, &b, &r);
    if (!err && !cc_val_compare(b.y, b.ref, b.ny, tol, &max_abs)) {
        err = cc_asprintf("the GPU result differs from the CPU reference: max |err| %g > %g x "
                          "(1 + |ref|): cuDNN computes wrong results on this GPU (driver/cuDNN "
                          "mismatch or a faulty GPU)", max_abs, tol);
    }
    char *detail = cc_asprintf(
        "%dx%dx%dx%d * %dx%dx%dx%d pad %d stride %d -> %dx%dx%dx%d, %s, algo %d%s", cs->n, cs->c,
        cs->h, cs->w, cs->k, cs->c, cs->r, cs->s, cs->pad, cs->stride, cs->n, cs->k, b.oh, b.ow,
        cs->half ? "fp16" : "fp32", algo, cs->half ? ", tensor-op math" : "");
    res_free(c, &r);
    cc_val_check(c, cs->name, err == NULL, 0, cc_val_now() - t0, max_abs, tol, err, detail);
    free(err);
    free(detail);
    conv_host_free(&b);
}

/* ReLU (activation) or 2x2 max pooling on a 1x4x8x8 fp32 tensor. */
static void pointwise_check(cc_val_child *c, void *handle, int pool)
{
    const char *name = pool ? "maxpool" : "relu";
    double t0 = cc_val_now();
    res r;
    memset(&r, 0, sizeof(r));
    char *err = NULL;
    double max_abs = -1;
    const int n = 1, ch = 4, h = 8, w = 8, win = 2;
    const int oh = pool ? h / win : h, ow = pool ? w / win : w;
    const size_t nx = (size_t)n * ch * h * w, ny = (size_t)n * ch * oh * ow;
    float *x = malloc(nx * sizeof(float)), *y = malloc(ny * sizeof(float));
    double *ref = malloc(ny * sizeof(double));
    if (!x || !y || !ref) {
        err = cc_strdup("out of host memory");
        goto out;
    }
    cc_val_fill(x, nx, pool ? 31u : 17u);
    if (pool)
        cc_val_ref_maxpool(x, ref, n, ch, h, w, win, oh, ow);
    else
        cc_val_ref_relu(x, ref, nx);
    cc_val_step(c, "%s: descriptors (libcudnn_ops)", name);
    DNN("cudnnCreateTensorDescriptor", c->dnn.CreateTensorDescriptor(&r.tensor[0]));
    DNN("cudnnCreateTensorDescriptor", c->dnn.CreateTensorDescriptor(&r.tensor[1]));
    DNN("cudnnSetTensor4dDescriptor",
        c->dnn.SetTensor4dDescriptor(r.tensor[0], CC_DNN_NCHW, CC_DNN_DATA_FLOAT, n, ch, h, w));
    DNN("cudnnSetTensor4dDescriptor",
        c->dnn.SetTensor4dDescriptor(r.tensor[1], CC_DNN_NCHW, CC_DNN_DATA_FLOAT, n, ch, oh, ow));
    if (pool) {
        DNN("cudnnCreatePoolingDescriptor", c->dnn.CreatePoolingDescriptor(&r.pool));
        DNN("cudnnSetPooling2dDescriptor",
            c->dnn.SetPooling2dDescriptor(r.pool, CC_DNN_POOLING_MAX, CC_DNN_NOT_PROPAGATE_NAN,
                                          win, win, 0, 0, win, win));
    } else {
        DNN("cudnnCreateActivationDescriptor", c->dnn.CreateActivationDescriptor(&r.act));
        DNN("cudnnSetActivationDescriptor",
            c->dnn.SetActivationDescriptor(r.act, CC_DNN_ACTIVATION_RELU,
                                           CC_DNN_NOT_PROPAGATE_NAN, 0.0));
    }
    cc_val_step(c, "%s: cudaMalloc / cudaMemcpy (libcudart)", name);
    RT("cudaMalloc", c->rt.cudaMalloc(&r.dev[0], nx * sizeof(float)));
    RT("cudaMalloc", c->rt.cudaMalloc(&r.dev[1], ny * sizeof(float)));
    RT("cudaMemcpy", c->rt.cudaMemcpy(r.dev[0], x, nx * sizeof(float), CC_CUDA_MEMCPY_H2D));
    const float one = 1.0f, zero = 0.0f;
    if (pool) {
        cc_val_step(c, "%s: cudnnPoolingForward (libcudnn_ops)", name);
        DNN("cudnnPoolingForward", c->dnn.PoolingForward(handle, r.pool, &one, r.tensor[0],
                                                         r.dev[0], &zero, r.tensor[1], r.dev[1]));
    } else {
        cc_val_step(c, "%s: cudnnActivationForward (libcudnn_ops)", name);
        DNN("cudnnActivationForward",
            c->dnn.ActivationForward(handle, r.act, &one, r.tensor[0], r.dev[0], &zero,
                                     r.tensor[1], r.dev[1]));
    }
    cc_val_step(c, "%s: cudaMemcpy back (libcudart)", name);
    RT("cudaMemcpy", c->rt.cudaMemcpy(y, r.dev[1], ny * sizeof(float), CC_CUDA_MEMCPY_D2H));
    if (!cc_val_compare(y, ref, ny, TOL_FP32, &max_abs))
        err = cc_asprintf("the GPU result differs from the CPU reference: max |err| %g > %g x "
                          "(1 + |ref|)", max_abs, TOL_FP32);
out:
    res_free(c, &r);
    cc_val_check(c, name, err == NULL, 0, cc_val_now() - t0, max_abs, TOL_FP32, err,
                 pool ? "1x4x8x8 fp32, max 2x2 stride 2 -> 1x4x4x4" : "1x4x8x8 fp32, ReLU");
    free(err);
    free(x);
    free(y);
    free(ref);
}

static void skip_all(cc_val_child *c, const char *why, int from)
{
    for (size_t i = 0; i < N_CONV; i++)
        if ((int)i >= from)
            cc_val_check(c, conv_cases[i].name, 0, 1, 0, -1, -1, why, NULL);
    cc_val_check(c, "relu", 0, 1, 0, -1, -1, why, NULL);
    cc_val_check(c, "maxpool", 0, 1, 0, -1, -1, why, NULL);
}

void cc_val_compute_skip(cc_val_child *c, const char *why)
{
    double t0 = cc_val_now();
    int loaded = c->no_gpu &&
                 cc_val_sym(c->dnn.h, "cudnnCreate", &c->dnn.Create, sizeof(c->dnn.Create)) &&
                 cc_val_sym(c->dnn.h, "cudnnDestroy", &c->dnn.Destroy, sizeof(c->dnn.Destroy));
    cc_val_skip_handle(c, why, t0, loaded ? c->dnn.Create : NULL, c->dnn.Destroy);
    skip_all(c, why, 0);
}

void cc_val_compute(cc_val_child *c)
{
    double t0 = cc_val_now();
    const char *miss = cc_val_load_cudnn_compute(&c->dnn);
    if (miss) {
        char *e = cc_asprintf("%s has no %s: the legacy API is missing", c->cudnn_lib, miss);
        cc_val_check(c, "handle", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        skip_all(c, "no cuDNN handle", 0);
        return;
    }
    void *handle = NULL;
    cc_val_step(c, "cudnnCreate (libcudnn_graph; initialises CUDA on the GPU)");
    int st = c->dnn.Create(&handle);
    if (st != 0) {
        char *d = cc_val_dnn_error(c, "cudnnCreate", st);
        char *e = cc_asprintf("%s: the driver is too old for this cuDNN's CUDA %d, or the GPU's "
                              "architecture is not supported", d, c->dnn_cuda_major);
        cc_val_check(c, "handle", 0, 0, cc_val_now() - t0, -1, -1, e, NULL);
        free(e);
        free(d);
        skip_all(c, "no cuDNN handle", 0);
        return;
    }
    cc_val_check(c, "handle", 1, 0, cc_val_now() - t0, -1, -1, NULL, "cudnnCreate");
    for (size_t i = 0; i < N_CONV; i++) {
        if (conv_cases[i].half && c->cc_major < 7) {
            cc_val_check(c, conv_cases[i].name, 0, 1, 0, -1, -1,
                         "the GPU has no tensor cores (SM < 7.0)", NULL);
            continue;
        }
        conv_check(c, handle, &conv_cases[i]);
    }
    pointwise_check(c, handle, 0);
    pointwise_check(c, handle, 1);
    cc_val_step(c, "cudnnDestroy");
    c->dnn.Destroy(handle);
}
