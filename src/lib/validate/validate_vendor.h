/* validate_vendor.h: our own prototypes of the few driver, CUDA runtime and cuDNN functions the
 * validation child calls, as tables filled by dlsym (no CUDA header or library at build time). */
#ifndef CC_VALIDATE_VENDOR_H
#define CC_VALIDATE_VENDOR_H

#include <stddef.h>
#include <stdint.h>

/* Values copied from cuda.h / driver_types.h / cudnn_*.h (stable across CUDA 11-13, cuDNN 8-9). */
enum {
    CC_CU_ERROR_STUB_LIBRARY = 34,
    CC_CU_ERROR_NO_DEVICE = 100,
    CC_CU_ATTR_CC_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cudaDevAttr... */
    CC_CU_ATTR_CC_MINOR = 76,
    CC_CUDA_MEMCPY_H2D = 1,
    CC_CUDA_MEMCPY_D2H = 2,
    CC_DNN_DATA_FLOAT = 0,
    CC_DNN_DATA_HALF = 2,
    CC_DNN_NCHW = 0,
    CC_DNN_CROSS_CORRELATION = 1,
    CC_DNN_FWD_IMPLICIT_GEMM = 0,
    CC_DNN_FWD_IMPLICIT_PRECOMP_GEMM = 1,
    CC_DNN_DEFAULT_MATH = 0,
    CC_DNN_TENSOR_OP_MATH = 1,
    CC_DNN_ACTIVATION_RELU = 1,
    CC_DNN_NOT_PROPAGATE_NAN = 0,
    CC_DNN_POOLING_MAX = 0
};

/* Each table's functions, once: X(return type, symbol prefix, name, parameters, required).
 * The symbol is the prefix followed by the name (the table's member); a required one missing
 * fails the load, an optional one stays NULL. The tables' members and the loads
 * (validate_vendor.c) are made from these lists, in their order. */

/* libcuda.so.1 */
#define CC_VD_CUDA_FUNCS(X)                                                                        \
    X(int, "", cuInit, (unsigned), 1)                                                              \
    X(int, "", cuDriverGetVersion, (int *), 1)                                                     \
    X(int, "", cuDeviceGetCount, (int *), 1)                                                       \
    X(int, "", cuDeviceGet, (int *, int), 1)                                                       \
    X(int, "", cuDeviceGetAttribute, (int *, int, int), 1)                                         \
    X(int, "", cuDeviceGetName, (char *, int, int), 0)                                             \
    X(int, "", cuGetErrorName, (int, const char **), 0)

/* libcudart.so.<M> */
#define CC_VD_CUDART_FUNCS(X)                                                                      \
    X(int, "", cudaRuntimeGetVersion, (int *), 1)                                                  \
    X(int, "", cudaDriverGetVersion, (int *), 1)                                                   \
    X(int, "", cudaGetDeviceCount, (int *), 1)                                                     \
    X(int, "", cudaSetDevice, (int), 1)                                                            \
    X(int, "", cudaMalloc, (void **, size_t), 1)                                                   \
    X(int, "", cudaFree, (void *), 1)                                                              \
    X(int, "", cudaMemcpy, (void *, const void *, size_t, int), 1)                                 \
    X(int, "", cudaDeviceSynchronize, (void), 1)                                                   \
    X(const char *, "", cudaGetErrorName, (int), 0)

/* libcudnn.so.<M>: versions (GetMaxDeviceVersion and GetLastErrorString are 9.x) ... */
#define CC_VD_CUDNN_VERSION_FUNCS(X)                                                               \
    X(size_t, "cudnn", GetVersion, (void), 1)                                                      \
    X(size_t, "cudnn", GetCudartVersion, (void), 0)                                                \
    X(size_t, "cudnn", GetMaxDeviceVersion, (void), 0)                                             \
    X(const char *, "cudnn", GetErrorString, (int), 0)                                             \
    X(void, "cudnn", GetLastErrorString, (char *, size_t), 0)

/* ... and the legacy API the compute checks use. */
#define CC_VD_CUDNN_COMPUTE_FUNCS(X)                                                               \
    X(int, "cudnn", Create, (void **), 1)                                                          \
    X(int, "cudnn", Destroy, (void *), 1)                                                          \
    X(int, "cudnn", CreateTensorDescriptor, (void **), 1)                                          \
    X(int, "cudnn", SetTensor4dDescriptor, (void *, int, int, int, int, int, int), 1)              \
    X(int, "cudnn", DestroyTensorDescriptor, (void *), 1)                                          \
    X(int, "cudnn", CreateFilterDescriptor, (void **), 1)                                          \
    X(int, "cudnn", SetFilter4dDescriptor, (void *, int, int, int, int, int, int), 1)              \
    X(int, "cudnn", DestroyFilterDescriptor, (void *), 1)                                          \
    X(int, "cudnn", CreateConvolutionDescriptor, (void **), 1)                                     \
    X(int, "cudnn", SetConvolution2dDescriptor, (void *, int, int, int, int, int, int, int, int),  \
      1)                                                                                           \
    X(int, "cudnn", SetConvolutionMathType, (void *, int), 1)                                      \
    X(int, "cudnn", GetConvolution2dForwardOutputDim,                                              \
      (void *, void *, void *, int *, int *, int *, int *), 1)                                     \
    X(int, "cudnn", GetConvolutionForwardWorkspaceSize,                                            \
      (void *, void *, void *, void *, void *, int, size_t *), 1)                                  \
    X(int, "cudnn", ConvolutionForward,                                                            \
      (void *, const void *, void *, const void *, void *, const void *, void *, int, void *,      \
       size_t, const void *, void *, void *),                                                      \
      1)                                                                                           \
    X(int, "cudnn", DestroyConvolutionDescriptor, (void *), 1)                                     \
    X(int, "cudnn", CreateActivationDescriptor, (void **), 1)                                      \
    X(int, "cudnn", SetActivationDescriptor, (void *, int, int, double), 1)                        \
    X(int, "cudnn", ActivationForward,                                                             \
      (void *, void *, const void *, void *, const void *, const void *, void *, void *), 1)       \
    X(int, "cudnn", DestroyActivationDescriptor, (void *), 1)                                      \
    X(int, "cudnn", CreatePoolingDescriptor, (void **), 1)                                         \
    X(int, "cudnn", SetPooling2dDescriptor, (void *, int, int, int, int, int, int, int, int), 1)   \
    X(int, "cudnn", PoolingForward,                                                                \
      (void *, void *, const void *, void *, const void *, const void *, void *, void *), 1)       \
    X(int, "cudnn", DestroyPoolingDescriptor, (void *), 1)

/* libcudnn.so.<M>: the graph API (through the shim, served by libcudnn_graph). */
#define CC_VD_BACKEND_FUNCS(X)                                                                     \
    X(int, "cudnn", Create, (void **), 1)                                                          \
    X(int, "cudnn", Destroy, (void *), 1)                                                          \
    X(int, "cudnnBackend", CreateDescriptor, (int, void **), 1)                                    \
    X(int, "cudnnBackend", DestroyDescriptor, (void *), 1)                                         \
    X(int, "cudnnBackend", Finalize, (void *), 1)                                                  \
    X(int, "cudnnBackend", SetAttribute, (void *, int, int, int64_t, const void *), 1)             \
    X(int, "cudnnBackend", GetAttribute, (void *, int, int, int64_t, int64_t *, void *), 1)        \
    X(int, "cudnnBackend", Execute, (void *, void *, void *), 1)

/* A table member: a pointer to the function. */
#define CC_VD_MEMBER(ret, prefix, name, params, required) ret(*name) params;

typedef struct {
    void *h;
    CC_VD_CUDA_FUNCS(CC_VD_MEMBER)
} cc_val_cuda;

typedef struct {
    void *h;
    CC_VD_CUDART_FUNCS(CC_VD_MEMBER)
} cc_val_cudart;

typedef struct {
    void *h;
    CC_VD_CUDNN_VERSION_FUNCS(CC_VD_MEMBER)
    CC_VD_CUDNN_COMPUTE_FUNCS(CC_VD_MEMBER)
} cc_val_cudnn;

/* The graph (backend) API, cudnn_graph.h of 9.x (the same numbers since 8.0's cudnn_backend.h):
 * descriptor types, attribute names and types, and the enum values used. */
enum {
    CC_BE_CONVOLUTION = 1, CC_BE_ENGINE = 2, CC_BE_ENGINECFG = 3, CC_BE_EXECUTION_PLAN = 5,
    CC_BE_OP_CONV_FWD = 10, CC_BE_OPERATIONGRAPH = 15, CC_BE_VARIANT_PACK = 16, CC_BE_TENSOR = 17,
    CC_BT_HANDLE = 0, CC_BT_DATA_TYPE = 1, CC_BT_INT64 = 3, CC_BT_FLOAT = 4, CC_BT_VOID_PTR = 6,
    CC_BT_CONV_MODE = 7, CC_BT_BACKEND_DESCRIPTOR = 15, CC_BT_BEHAVIOR_NOTE = 19,
    CC_BA_CONV_COMP_TYPE = 100, CC_BA_CONV_MODE = 101, CC_BA_CONV_DILATIONS = 102,
    CC_BA_CONV_FILTER_STRIDES = 103, CC_BA_CONV_POST_PADDINGS = 104, CC_BA_CONV_PRE_PADDINGS = 105,
    CC_BA_CONV_SPATIAL_DIMS = 106, CC_BA_ENGINECFG_ENGINE = 300, CC_BA_PLAN_HANDLE = 400,
    CC_BA_PLAN_ENGINE_CONFIG = 401, CC_BA_PLAN_WORKSPACE_SIZE = 402, CC_BA_CONV_FWD_ALPHA = 700,
    CC_BA_CONV_FWD_BETA = 701, CC_BA_CONV_FWD_CONV_DESC = 702, CC_BA_CONV_FWD_W = 703,
    CC_BA_CONV_FWD_X = 704, CC_BA_CONV_FWD_Y = 705, CC_BA_OPGRAPH_HANDLE = 800,
    CC_BA_OPGRAPH_OPS = 801, CC_BA_OPGRAPH_ENGINE_COUNT = 802, CC_BA_TENSOR_ALIGNMENT = 900,
    CC_BA_TENSOR_DATA_TYPE = 901, CC_BA_TENSOR_DIMS = 902, CC_BA_TENSOR_STRIDES = 903,
    CC_BA_TENSOR_UID = 906, CC_BA_VP_UIDS = 1000, CC_BA_VP_POINTERS = 1001, CC_BA_VP_WORKSPACE = 1003,
    CC_BA_ENGINE_OPGRAPH = 1300, CC_BA_ENGINE_GLOBAL_INDEX = 1301, CC_BA_ENGINE_BEHAVIOR = 1305,
    CC_BN_RUNTIME_COMPILATION = 0
};

typedef struct {
    CC_VD_BACKEND_FUNCS(CC_VD_MEMBER)
} cc_val_backend;

/* Store dlsym(h, name) into a function-pointer slot (memcpy: ISO C has no object-to-function
 * pointer conversion). Returns 1 when found. */
int cc_val_sym(void *h, const char *name, void *slot, size_t slot_size);
#define CC_VD_SYM(h, tbl, field, name)                                                             \
    cc_val_sym((h), (name), (void *)&(tbl)->field, sizeof((tbl)->field))

/* Fill the tables; return the name of the first required symbol missing, or NULL. Optional
 * symbols stay NULL. */
const char *cc_val_load_cuda(cc_val_cuda *t);
const char *cc_val_load_cudart(cc_val_cudart *t);
const char *cc_val_load_cudnn_versions(cc_val_cudnn *t);     /* GetVersion etc. */
const char *cc_val_load_cudnn_compute(cc_val_cudnn *t);      /* the legacy API */
const char *cc_val_load_backend(void *h, cc_val_backend *t); /* the graph API */

/* The child's state, shared by validate_child.c and validate_compute.c. */
#include "validate_int.h"

struct cc_val_child {
    cudnnctl_ctx *ctx;
    cudnnctl_validate_emit_cb emit;
    void *user;
    /* request */
    char *lib_dir, *cudnn_lib;
    int major;
    cc_strv tk_dirs;
    int device;
    /* what was found */
    cc_val_cuda cu;
    cc_val_cudart rt;
    cc_val_cudnn dnn;
    int no_gpu;     /* no driver / no device: compute is skipped, not failed */
    int gpu_ready;  /* driver, device and cudart usable */
    int cc_major, cc_minor;
    long dnn_raw;
    int dnn_major, dnn_minor, dnn_patch;
    int dnn_cuda_major; /* from cudnnGetCudartVersion, 0 when unknown */
    long max_device;    /* cudnnGetMaxDeviceVersion, 0 when unknown */
    int jit;            /* the request's flavour: the JIT one has no legacy API */
};

/* validate_check.c: one report line (CC_VAL_MARK + obj as JSON) through c->emit; takes obj. */
struct cJSON;
void cc_val_emit(cc_val_child *c, struct cJSON *obj);
/* Name of a cuDNN status, with cuDNN's last error text when it has one (malloc'd). */
char *cc_val_dnn_error(cc_val_child *c, const char *call, int status);
/* Name of a CUDA runtime error (static or cudart-owned). */
const char *cc_val_rt_error(cc_val_child *c, int err);
/* The skipped "handle" check (timed from t0): with create (the table's cudnnCreate, loaded
 * although there is no GPU), its status shows that creation fails cleanly; then destroy. */
void cc_val_skip_handle(cc_val_child *c, const char *why, double t0, int (*create)(void **),
                        int (*destroy)(void *));
/* cudnnCreate, then every compute check (convolutions, ReLU, max pooling). */
void cc_val_compute(cc_val_child *c);
/* The same checks reported as skipped, with why. */
void cc_val_compute_skip(cc_val_child *c, const char *why);
/* The JIT flavour (validate_graph.c): cudnnCreate, then a convolution built from backend
 * descriptors and run by an engine with the runtime-compilation note, against the CPU
 * reference; and its skip. */
void cc_val_graph_compute(cc_val_child *c);
void cc_val_graph_skip(cc_val_child *c, const char *why);

#endif
