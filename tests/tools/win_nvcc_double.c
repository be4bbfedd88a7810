/* win_nvcc_double.c: TEST DOUBLE of nvcc.exe for the Windows detect tests (copied into a fake CUDA
 * tree as bin\nvcc.exe). Prints nvcc's --version banner for the release named by the
 * CUDNNCTL_NVCC_DOUBLE_RELEASE environment variable (default 12.4, V12.4.131). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *rel = getenv("CUDNNCTL_NVCC_DOUBLE_RELEASE");
    if (!rel || !*rel)
        rel = "12.4";
    if (argc < 2 || strcmp(argv[1], "--version") != 0) {
        fprintf(stderr, "nvcc test double: only --version\n");
        return 1;
    }
    printf("nvcc: NVIDIA (R) Cuda compiler driver\n"
           "Copyright (c) 2005-2024 NVIDIA Corporation\n"
           "Cuda compilation tools, release %s, V%s.131\n"
           "Build cuda_%s.r%s/compiler.0_0\n",
           rel, rel, rel, rel);
    return 0;
}
