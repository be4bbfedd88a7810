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

/* libcuda.so.1 */
typedef struct {
    void *h;
    int (*cuInit)(unsigned);
    int (*cuDriverGetVersion)(int *);
    int (*cuDeviceGetCount)(int *);
    int (*cuDeviceGet)(int *, int);
    int (*cuDeviceGetName)(char *, int, int);
    int (*cuDeviceGetAttribute)(int *, int, int);
    int (*cuGetErrorName)(int, const char **);
} cc_vd_cuda;

/* libcudart.so.<M> */
typedef struct {
    void *h;
    int (*cudaRuntimeGetVersion)(int *);
    int (*cudaDriverGetVersion)(int *);
    int (*cudaGetDeviceCount)(int *);
    int (*cudaSetDevice)(int);
    int (*cudaMalloc)(void **, size_t);
    int (*cudaFree)(void *);
    int (*cudaMemcpy)(void *, const void *, size_t, int);
    int (*cudaDeviceSynchronize)(void);
    const char *(*cudaGetErrorName)(int);
} cc_vd_cudart;

/* libcudnn.so.<M>: versions and the legacy API the compute checks use. */
typedef struct {
    void *h;
    size_t (*GetVersion)(void);
    size_t (*GetCudartVersion)(void);
    size_t (*GetMaxDeviceVersion)(void); /* 9.x */
    const char *(*GetErrorString)(int);
    void (*GetLastErrorString)(char *, size_t); /* 9.x */
    int (*Create)(void **);
    int (*Destroy)(void *);
    int (*CreateTensorDescriptor)(void **);
    int (*SetTensor4dDescriptor)(void *, int, int, int, int, int, int);
    int (*DestroyTensorDescriptor)(void *);
    int (*CreateFilterDescriptor)(void **);
    int (*SetFilter4dDescriptor)(void *, int, int, int, int, int, int);
    int (*DestroyFilterDescriptor)(void *);
    int (*CreateConvolutionDescriptor)(void **);
    int (*SetConvolution2dDescriptor)(void *, int, int, int, int, int, int, int, int);
    int (*SetConvolutionMathType)(void *, int);
    int (*GetConvolution2dForwardOutputDim)(void *, void *, void *, int *, int *, int *, int *);
    int (*GetConvolutionForwardWorkspaceSize)(void *, void *, void *, void *, void *, int,
                                              size_t *);
    int (*ConvolutionForward)(void *, const void *, void *, const void *, void *, const void *,
                              void *, int, void *, size_t, const void *, void *, void *);
    int (*DestroyConvolutionDescriptor)(void *);
    int (*CreateActivationDescriptor)(void **);
    int (*SetActivationDescriptor)(void *, int, int, double);
    int (*ActivationForward)(void *, void *, const void *, void *, const void *, const void *,
                             void *, void *);
    int (*DestroyActivationDescriptor)(void *);
    int (*CreatePoolingDescriptor)(void **);
    int (*SetPooling2dDescriptor)(void *, int, int, int, int, int, int, int, int);
    int (*PoolingForward)(void *, void *, const void *, void *, const void *, const void *,
                          void *, void *);
    int (*DestroyPoolingDescriptor)(void *);
} cc_vd_cudnn;

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

/* libcudnn.so.<M>: the graph API (through the shim, served by libcudnn_graph). */
typedef struct {
    int (*Create)(void **);
    int (*Destroy)(void *);
    int (*CreateDescriptor)(int, void **);
    int (*DestroyDescriptor)(void *);
    int (*Finalize)(void *);
    int (*SetAttribute)(void *, int, int, int64_t, const void *);
    int (*GetAttribute)(void *, int, int, int64_t, int64_t *, void *);
    int (*Execute)(void *, void *, void *);
} cc_vd_backend;

/* Store dlsym(h, name) into a function-pointer slot (memcpy: ISO C has no object-to-function
 * pointer conversion). Returns 1 when found. */
int cc_vd_sym(void *h, const char *name, void *slot, size_t slot_size);
#define CC_VD_SYM(h, tbl, field, name) cc_vd_sym((h), (name), (void *)&(tbl)->field, sizeof((tbl)->field))

/* Fill the tables; return the name of the first required symbol missing, or NULL. Optional
 * symbols stay NULL. */
const char *cc_vd_load_cuda(cc_vd_cuda *t);
const char *cc_vd_load_cudart(cc_vd_cudart *t);
const char *cc_vd_load_cudnn_versions(cc_vd_cudnn *t); /* GetVersion etc. */
const char *cc_vd_load_cudnn_compute(cc_vd_cudnn *t);  /* the legacy API */
const char *cc_vd_load_backend(void *h, cc_vd_backend *t); /* the graph API */

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
    cc_vd_cuda cu;
    cc_vd_cudart rt;
    cc_vd_cudnn dnn;
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
