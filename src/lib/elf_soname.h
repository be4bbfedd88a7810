/* elf_soname.h: read the SONAME of an ELF shared object (no libelf; a bounded header walk).
 * Not named elf.h: src/lib is on the include path and that would shadow the system <elf.h>. */
#ifndef CC_ELF_H
#define CC_ELF_H

#include "cudnnctl/cudnnctl.h"

/* *soname = malloc'd DT_SONAME, or NULL when the object has none. Not an ELF file, or a
 * truncated / inconsistent one → CUDNNCTL_E_PARSE naming the file. */
cudnnctl_err cc_elf_soname(cudnnctl_ctx *ctx, const char *path, char **soname);

#endif
