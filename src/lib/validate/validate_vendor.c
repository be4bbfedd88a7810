/* validate_vendor.c: fill the driver / CUDA runtime / cuDNN function tables with dlsym. */
#include <string.h>

#include "platform.h"
#include "validate_vendor.h"

int cc_vd_sym(void *h, const char *name, void *slot, size_t slot_size)
{
    void *s = h ? cc_pf_dlsym(h, name) : NULL;
    memcpy(slot, &s, slot_size < sizeof(s) ? slot_size : sizeof(s));
    return s != NULL;
}

#define REQ(h, t, f, n)                                                                            \
    do {                                                                                           \
        if (!CC_VD_SYM(h, t, f, n))                                                                \
            return n;                                                                              \
    } while (0)
#define OPT(h, t, f, n) (void)CC_VD_SYM(h, t, f, n)

const char *cc_vd_load_cuda(cc_vd_cuda *t)
{
    REQ(t->h, t, cuInit, "cuInit");
    REQ(t->h, t, cuDriverGetVersion, "cuDriverGetVersion");
    REQ(t->h, t, cuDeviceGetCount, "cuDeviceGetCount");
    REQ(t->h, t, cuDeviceGet, "cuDeviceGet");
    REQ(t->h, t, cuDeviceGetAttribute, "cuDeviceGetAttribute");
    OPT(t->h, t, cuDeviceGetName, "cuDeviceGetName");
    OPT(t->h, t, cuGetErrorName, "cuGetErrorName");
    return NULL;
}

const char *cc_vd_load_cudart(cc_vd_cudart *t)
{
    REQ(t->h, t, cudaRuntimeGetVersion, "cudaRuntimeGetVersion");
    REQ(t->h, t, cudaDriverGetVersion, "cudaDriverGetVersion");
    REQ(t->h, t, cudaGetDeviceCount, "cudaGetDeviceCount");
    REQ(t->h, t, cudaSetDevice, "cudaSetDevice");
    REQ(t->h, t, cudaMalloc, "cudaMalloc");
    REQ(t->h, t, cudaFree, "cudaFree");
    REQ(t->h, t, cudaMemcpy, "cudaMemcpy");
    REQ(t->h, t, cudaDeviceSynchronize, "cudaDeviceSynchronize");
    OPT(t->h, t, cudaGetErrorName, "cudaGetErrorName");
    return NULL;
}

const char *cc_vd_load_cudnn_versions(cc_vd_cudnn *t)
{
    REQ(t->h, t, GetVersion, "cudnnGetVersion");
    OPT(t->h, t, GetCudartVersion, "cudnnGetCudartVersion");
    OPT(t->h, t, GetMaxDeviceVersion, "cudnnGetMaxDeviceVersion");
    OPT(t->h, t, GetErrorString, "cudnnGetErrorString");
    OPT(t->h, t, GetLastErrorString, "cudnnGetLastErrorString");
    return NULL;
}

const char *cc_vd_load_cudnn_compute(cc_vd_cudnn *t)
{
    REQ(t->h, t, Create, "cudnnCreate");
    REQ(t->h, t, Destroy, "cudnnDestroy");
    REQ(t->h, t, CreateTensorDescriptor, "cudnnCreateTensorDescriptor");
    REQ(t->h, t, SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor");
    REQ(t->h, t, DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor");
    REQ(t->h, t, CreateFilterDescriptor, "cudnnCreateFilterDescriptor");
    REQ(t->h, t, SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor");
    REQ(t->h, t, DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor");
    REQ(t->h, t, CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor");
    REQ(t->h, t, SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor");
    REQ(t->h, t, SetConvolutionMathType, "cudnnSetConvolutionMathType");
    REQ(t->h, t, GetConvolution2dForwardOutputDim, "cudnnGetConvolution2dForwardOutputDim");
    REQ(t->h, t, GetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize");
    REQ(t->h, t, ConvolutionForward, "cudnnConvolutionForward");
    REQ(t->h, t, DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor");
    REQ(t->h, t, CreateActivationDescriptor, "cudnnCreateActivationDescriptor");
    REQ(t->h, t, SetActivationDescriptor, "cudnnSetActivationDescriptor");
    REQ(t->h, t, ActivationForward, "cudnnActivationForward");
    REQ(t->h, t, DestroyActivationDescriptor, "cudnnDestroyActivationDescriptor");
    REQ(t->h, t, CreatePoolingDescriptor, "cudnnCreatePoolingDescriptor");
    REQ(t->h, t, SetPooling2dDescriptor, "cudnnSetPooling2dDescriptor");
    REQ(t->h, t, PoolingForward, "cudnnPoolingForward");
    REQ(t->h, t, DestroyPoolingDescriptor, "cudnnDestroyPoolingDescriptor");
    return NULL;
}

const char *cc_vd_load_backend(void *h, cc_vd_backend *t)
{
    REQ(h, t, Create, "cudnnCreate");
    REQ(h, t, Destroy, "cudnnDestroy");
    REQ(h, t, CreateDescriptor, "cudnnBackendCreateDescriptor");
    REQ(h, t, DestroyDescriptor, "cudnnBackendDestroyDescriptor");
    REQ(h, t, Finalize, "cudnnBackendFinalize");
    REQ(h, t, SetAttribute, "cudnnBackendSetAttribute");
    REQ(h, t, GetAttribute, "cudnnBackendGetAttribute");
    REQ(h, t, Execute, "cudnnBackendExecute");
    return NULL;
}
