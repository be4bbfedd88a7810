/* fuzz_journal.c: the install journal reader (cc_txn_load of STATE/journal.json). Only reading:
 * recovery acts on the paths a journal names, which a fuzzer must never do. The input is written
 * as journal.json into a private state dir. */
#include <unistd.h>

#include "fuzz_common.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64], file[96];
    cudnnctl_ctx *ctx = fz_ctx();
    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/cudnnctl-fuzz-journal-%ld", (long)getpid());
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
        FZ_CHECK(system(cmd) == 0);
        snprintf(file, sizeof(file), "%s/journal.json", dir);
    }
    FILE *f = fopen(file, "wb");
    FZ_CHECK(f != NULL);
    FZ_CHECK(fwrite(data, 1, size, f) == size);
    fclose(f);
    cc_txn *t = NULL;
    if (cc_txn_load(ctx, dir, &t) == CUDNNCTL_E_OK && t) {
        FZ_CHECK(t->id && t->kind);
        (void)cc_phase_name(t->phase);
        for (size_t i = 0; i < t->n_ops; i++)
            FZ_CHECK(t->ops[i].dst != NULL);
    }
    cc_txn_free(t);
    cc_clear_error(ctx);
    return 0;
}
