/* fuzz_receipt.c: the receipt reader (cc_receipt_parse). Property: a receipt it accepts writes
 * back (cc_receipt_to_json) to JSON that reads again to the same JSON (a fixed point). */
#include "fuzz_common.h"
#include "receipt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cudnnctl_ctx *ctx = fz_ctx();
    char *s = fz_str(data, size);
    cc_receipt r, r2;
    if (cc_receipt_parse(ctx, s, "fuzz", &r) == CUDNNCTL_E_OK) {
        char *j1 = NULL, *j2 = NULL;
        FZ_CHECK(r.id && r.cudnn_version && r.target_path);
        if (cc_receipt_to_json(ctx, &r, &j1) == CUDNNCTL_E_OK) {
            FZ_CHECK(cc_receipt_parse(ctx, j1, "fuzz-again", &r2) == CUDNNCTL_E_OK);
            FZ_CHECK(cc_receipt_to_json(ctx, &r2, &j2) == CUDNNCTL_E_OK);
            FZ_CHECK(strcmp(j1, j2) == 0);
            cc_receipt_free(&r2);
        }
        free(j1);
        free(j2);
        cc_receipt_free(&r);
    }
    free(s);
    cc_clear_error(ctx);
    return 0;
}
