/* fuzz_elf.c: the ELF reader (core/elf.c: class, machine, DT_SONAME from the headers and the
 * dynamic section; cc_elf_read_dyn: DT_NEEDED, RPATH, RUNPATH, PT_INTERP). The input is written to a file, as the reader reads files. */
#include <unistd.h>

#include "elf_info.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char file[64];
    if (!file[0])
        snprintf(file, sizeof(file), "/tmp/cudnnctl-fuzz-elf-%ld.so", (long)getpid());
    FILE *f = fopen(file, "wb");
    FZ_CHECK(f != NULL);
    FZ_CHECK(fwrite(data, 1, size, f) == size);
    fclose(f);
    cc_elf_info info;
    memset(&info, 0, sizeof(info));
    if (cc_elf_read(file, &info) == 0) {
        FZ_CHECK(size >= 52);
        if (info.soname)
            FZ_CHECK(strlen(info.soname) < size);
        cc_elf_info_free(&info);
    }
    free(cc_elf_soname(file));
    /* and the dynamic section's strings (DT_NEEDED, RPATH, RUNPATH) the loader model reads */
    memset(&info, 0, sizeof(info));
    if (cc_elf_read_dyn(file, &info) == 0) {
        for (size_t i = 0; i < info.n_needed; i++)
            FZ_CHECK(info.needed[i] != NULL && strlen(info.needed[i]) < size);
        cc_elf_info_free(&info);
    }
    return 0;
}
