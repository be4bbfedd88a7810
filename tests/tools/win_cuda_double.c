/* win_cuda_double.c: a TEST DOUBLE of the CUDA runtime DLL (cudart64_12.dll) for the validation
 * tests under wine, where NVIDIA's runtime has no GPU to talk to: it reports runtime 12.4 and no
 * device. The same file, copied, stands in for cublas64_12.dll / cublasLt64_12.dll /
 * nvrtc64_120_0.dll, which validation only loads. Never shipped. */
#include <stddef.h>

#define API __declspec(dllexport)
#define NO_DEVICE 100 /* cudaErrorNoDevice */

API int cudaRuntimeGetVersion(int *v) { *v = 12040; return 0; }
API int cudaDriverGetVersion(int *v) { *v = 0; return 0; }
API int cudaGetDeviceCount(int *n) { *n = 0; return NO_DEVICE; }
API int cudaSetDevice(int d) { (void)d; return NO_DEVICE; }
API int cudaMalloc(void **p, size_t n) { (void)n; *p = NULL; return NO_DEVICE; }
API int cudaFree(void *p) { (void)p; return 0; }
API int cudaMemcpy(void *d, const void *s, size_t n, int k) { (void)d; (void)s; (void)n; (void)k; return NO_DEVICE; }
API int cudaDeviceSynchronize(void) { return NO_DEVICE; }
API const char *cudaGetErrorName(int e) { return e == NO_DEVICE ? "cudaErrorNoDevice" : "cudaError"; }
