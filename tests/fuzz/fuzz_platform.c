/* fuzz_platform.c: the name and platform parsers — archive file names (version, platform and
 * CUDA variant; the top directory NVIDIA packs under), platform keys from uname fields, library
 * file names (libcudnn*.so.M.m.p, cudnn64_9.dll, *.lib), dist-info names and shell names.
 * Input: fields separated by '\n'. */
#include "catalog_model.h"
#include "detect_int.h"
#include "fuzz_common.h"
#include "archive_name.h"
#include "install_internal.h"
#include "layout.h"
#include "links.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fz_str(data, size);
    char *f[3] = {s, "", ""};
    fz_split(s, '\n', f, 3);
    char *ver = NULL, *plat = NULL, *cuda = NULL;
    if (cc_archive_name_parse(f[0], &ver, &plat, &cuda) == 0) {
        cc_version v;
        FZ_CHECK(ver && plat && cuda && cc_version_parse(ver, &v) == 0);
    }
    free(ver);
    free(plat);
    free(cuda);
    char *top = cc_layout_expected_top(f[0]);
    if (top) {
        FZ_CHECK(!strchr(top, '/') && strcmp(top, "..") != 0 && strcmp(top, ".") != 0);
        FZ_CHECK(cc_layout_top_plausible(top) || strcmp(top, "cuda") == 0);
    }
    free(top);
    free(cc_cuda_variant_from_name(f[0]));
    free(cc_cudnn_version_from_name(f[0]));
    char *key = cc_detect_platform_key(f[0], f[1], f[2][0] == '1');
    free(key);
    char *stem = NULL;
    cc_version lv;
    if (cc_detect_parse_libname(f[0], &stem, &lv) == 0)
        FZ_CHECK(stem != NULL);
    free(stem);
    (void)cc_detect_parse_dist_info(f[0], "nvidia_cudnn", &lv);
    cc_libname ln;
    if (cc_lib_classify(f[0], &ln))
        FZ_CHECK(memchr(ln.stem, '\0', sizeof(ln.stem)) != NULL);
    cudnnctl_shell sh;
    (void)cudnnctl_shell_parse(f[0], &sh);
    (void)cc_detect_glob(f[1], f[0]);
    free(s);
    return 0;
}
