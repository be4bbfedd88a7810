/* conv_floor.c: the floor for `cudnnctl validate` — a bare C process that loads cuDNN and the
 * CUDA runtime by path, runs one convolution on the GPU (the PyTorch check's shape: 4x3x32x32,
 * 16 filters 3x3, padding 1) and checks it against the CPU. No headers from NVIDIA: the few
 * entry points are declared here with the ABI of cuDNN 9 / CUDA 12+.
 *   conv_floor LIBCUDNN LIBCUDART      exit 0 when the result matches */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *h_t;
#define N 4
#define C 3
#define H 32
#define W 32
#define K 16

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "conv_floor: %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: conv_floor LIBCUDNN LIBCUDART\n");
        return 2;
    }
    void *rt = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
    void *dnn = rt ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (!rt || !dnn) {
        fprintf(stderr, "conv_floor: %s\n", dlerror());
        return 2;
    }
    int (*cudaMalloc)(void **, size_t) = sym(rt, "cudaMalloc");
    int (*cudaMemcpy)(void *, const void *, size_t, int) = sym(rt, "cudaMemcpy");
    int (*cudaDeviceSynchronize)(void) = sym(rt, "cudaDeviceSynchronize");
    int (*create)(h_t *) = sym(dnn, "cudnnCreate");
    int (*tdesc)(h_t *) = sym(dnn, "cudnnCreateTensorDescriptor");
    int (*tset)(h_t, int, int, int, int, int, int) = sym(dnn, "cudnnSetTensor4dDescriptor");
    int (*fdesc)(h_t *) = sym(dnn, "cudnnCreateFilterDescriptor");
    int (*fset)(h_t, int, int, int, int, int, int) = sym(dnn, "cudnnSetFilter4dDescriptor");
    int (*cdesc)(h_t *) = sym(dnn, "cudnnCreateConvolutionDescriptor");
    int (*cset)(h_t, int, int, int, int, int, int, int, int) =
        sym(dnn, "cudnnSetConvolution2dDescriptor");
    int (*fwd)(h_t, const void *, h_t, const void *, h_t, const void *, h_t, int, void *, size_t,
               const void *, h_t, void *) = sym(dnn, "cudnnConvolutionForward");

    static float x[N * C * H * W], w[K * C * 9], y[N * K * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)((i * 7) % 13 - 6) / 8.0f;
    for (int i = 0; i < K * C * 9; i++)
        w[i] = (float)((i * 5) % 11 - 5) / 8.0f;
    h_t hd, xd, yd, fd, cd;
    void *dx, *dw, *dy;
    const float one = 1.0f, zero = 0.0f;
    /* NCHW = 0, FLOAT = 0, CROSS_CORRELATION = 1, IMPLICIT_GEMM = 0, H2D = 1, D2H = 2 */
    if (create(&hd) || tdesc(&xd) || tdesc(&yd) || fdesc(&fd) || cdesc(&cd) ||
        tset(xd, 0, 0, N, C, H, W) || tset(yd, 0, 0, N, K, H, W) ||
        fset(fd, 0, 0, K, C, 3, 3) || cset(cd, 1, 1, 1, 1, 1, 1, 1, 0) ||
        cudaMalloc(&dx, sizeof(x)) || cudaMalloc(&dw, sizeof(w)) || cudaMalloc(&dy, sizeof(y)) ||
        cudaMemcpy(dx, x, sizeof(x), 1) || cudaMemcpy(dw, w, sizeof(w), 1) ||
        fwd(hd, &one, xd, dx, fd, dw, cd, 0, NULL, 0, &zero, yd, dy) ||
        cudaDeviceSynchronize() || cudaMemcpy(y, dy, sizeof(y), 2)) {
        fprintf(stderr, "conv_floor: a CUDA or cuDNN call failed\n");
        return 1;
    }
    double maxerr = 0;
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++) {
                    double s = 0;
                    for (int c = 0; c < C; c++)
                        for (int a = 0; a < 3; a++)
                            for (int b = 0; b < 3; b++) {
                                int ii = i + a - 1, jj = j + b - 1;
                                if (ii >= 0 && ii < H && jj >= 0 && jj < W)
                                    s += x[((n * C + c) * H + ii) * W + jj] *
                                         w[((k * C + c) * 3 + a) * 3 + b];
                            }
                    double e = fabs(s - y[((n * K + k) * H + i) * W + j]);
                    if (e > maxerr)
                        maxerr = e;
                }
    printf("conv_floor: one conv 4x3x32x32 * 16x3x3x3, max |err| %g\n", maxerr);
    return maxerr < 1e-3 ? 0 : 1;
}
