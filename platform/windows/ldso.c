/* ldso.c (windows): the loader model's questions about a glibc loader and the CPU have no answer
 * here (there is no ld.so; the model of the Linux loader then decides without them). */
#include <string.h>

#include "platform.h"

const char *cc_pf_ldso_diagnostics(void)
{
    return NULL;
}

const char *cc_pf_libc_version(void)
{
    return NULL;
}

int cc_pf_cpu_x86(cc_pf_cpu *cpu)
{
    memset(cpu, 0, sizeof(*cpu));
    return -1;
}
