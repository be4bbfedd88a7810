/* fuzz_version.c: the version parsers — dotted versions (cc_version_parse, compare, print),
 * --cudnn pins, CUDA variants, and the detect parsers of version texts (version.json,
 * version.txt, nvcc -V, cudnn_version.h defines, driver version lines). Properties: a parsed
 * version prints back to a string that parses to the same version; compare is antisymmetric. */
#include "detect_int.h"
#include "fuzz_common.h"
#include "select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fz_str(data, size);
    cc_version v, w;
    if (cc_version_parse(s, &v) == 0) {
        FZ_CHECK(v.n >= 1 && v.n <= 4);
        char *p = cc_version_str(&v);
        FZ_CHECK(p && cc_version_parse(p, &w) == 0 && cc_version_cmp(&v, &w) == 0);
        FZ_CHECK(cc_version_prefix_match(&v, &w));
        free(p);
        cc_version z;
        if (cc_version_parse("9.19.0.56", &z) == 0)
            FZ_CHECK(cc_version_cmp(&v, &z) == -cc_version_cmp(&z, &v));
    }
    cc_cudnn_pin pin;
    if (cc_cudnn_pin_parse(s, &pin) == 0)
        (void)cc_cudnn_pin_match(&pin, "9.19.0.56");
    int M, m;
    if (cc_cuda_variant_parse(s, &M, &m) == 0)
        FZ_CHECK(M >= 0);
    (void)cc_version_cmp_str(s, "9.19.0.56");
    cc_detect_ver dv;
    int dp;
    (void)cc_detect_parse_version_json(s, &dv, &dp);
    (void)cc_detect_parse_version_txt(s, &dv);
    (void)cc_detect_parse_nvcc(s, &dv);
    (void)cc_detect_parse_cudnn_header(s, &dv);
    (void)cc_detect_parse_cudart_soname(s, &dv);
    long val;
    (void)cc_detect_parse_define(s, "CUDNN_MAJOR", &val);
    char *drv = NULL;
    if (cc_detect_parse_proc_driver(s, &drv) == 0)
        (void)cc_detect_driver_cuda_floor(drv);
    free(drv);
    drv = NULL;
    (void)cc_detect_parse_smi(s, &drv);
    free(drv);
    free(s);
    return 0;
}
