/* ldso.c (linux): this machine's dynamic loader and CPU, asked for the loader model — the loader's
 * own report (`ld.so --list-diagnostics`, once per process), the C library's version, and the x86
 * CPU features the way glibc's ld.so counts them usable. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "platform.h"

/* The ABI's path of the loader (PT_INTERP of every program of this machine). */
#if defined(__x86_64__)
#define LDSO_PATH "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define LDSO_PATH "/lib/ld-linux-aarch64.so.1"
#else
#define LDSO_PATH NULL
#endif

static pthread_once_t g_diag_once = PTHREAD_ONCE_INIT;
static char *g_diag; /* NULL: no answer */

static void ask_loader(void)
{
    const char *ldso = LDSO_PATH;
    if (!ldso || access(ldso, X_OK) != 0)
        return;
    /* the environment is inherited: GLIBC_TUNABLES (glibc.cpu.hwcaps=-AVX2, ...) changes what the
     * loader decides, for it as for the programs started from here */
    const char *argv[] = {ldso, "--list-diagnostics", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = -1;
    if (cc_pf_run(argv, NULL, NULL, 10000, 0, &out, &len, &status) != 0)
        return;
    /* glibc < 2.34 refuses the option (exit 1, "unrecognized option") */
    if (status == 0 && out && strstr(out, "dl_platform="))
        g_diag = out;
    else
        free(out);
}

const char *cc_pf_ldso_diagnostics(void)
{
    pthread_once(&g_diag_once, ask_loader);
    return g_diag;
}

const char *cc_pf_libc_version(void)
{
#if defined(__GLIBC__)
    return gnu_get_libc_version();
#else
    return NULL;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
static unsigned xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return lo;
}

/* Bits of cpuid leaves 1 (ecx), 7.0 (ebx) and 0x80000001 (ecx) glibc's update_active copies. */
static uint32_t usable_bits(unsigned c1, unsigned b7, unsigned c81, unsigned xcr)
{
    uint32_t u = 0;
#define BIT(reg, n, flag) ((reg) & (1u << (n)) ? (flag) : 0u)
    u |= BIT(c1, 0, CC_PF_CPU_SSE3) | BIT(c1, 9, CC_PF_CPU_SSSE3) | BIT(c1, 19, CC_PF_CPU_SSE4_1) |
         BIT(c1, 20, CC_PF_CPU_SSE4_2) | BIT(c1, 23, CC_PF_CPU_POPCNT) |
         BIT(c1, 13, CC_PF_CPU_CMPXCHG16B) | BIT(c1, 22, CC_PF_CPU_MOVBE) |
         BIT(c81, 0, CC_PF_CPU_LAHF64) | BIT(c81, 5, CC_PF_CPU_LZCNT) | BIT(b7, 3, CC_PF_CPU_BMI1) |
         BIT(b7, 8, CC_PF_CPU_BMI2);
    /* AVX and what depends on it: the OS saves XMM and YMM (OSXSAVE, XCR0 bits 1-2) */
    if ((c1 & (1u << 27)) && (xcr & 0x6u) == 0x6u && (c1 & (1u << 28))) {
        u |= CC_PF_CPU_AVX | BIT(b7, 5, CC_PF_CPU_AVX2) | BIT(c1, 12, CC_PF_CPU_FMA) |
             BIT(c1, 29, CC_PF_CPU_F16C);
    }
    /* AVX-512: also opmask and both ZMM halves (XCR0 bits 5-7), and AVX512F itself */
    if ((c1 & (1u << 27)) && (xcr & 0xe6u) == 0xe6u && (b7 & (1u << 16))) {
        u |= CC_PF_CPU_AVX512F | BIT(b7, 17, CC_PF_CPU_AVX512DQ) | BIT(b7, 26, CC_PF_CPU_AVX512PF) |
             BIT(b7, 27, CC_PF_CPU_AVX512ER) | BIT(b7, 28, CC_PF_CPU_AVX512CD) |
             BIT(b7, 30, CC_PF_CPU_AVX512BW) | BIT(b7, 31, CC_PF_CPU_AVX512VL);
    }
#undef BIT
    return u;
}

int cc_pf_cpu_x86(cc_pf_cpu *cpu)
{
    unsigned max, a, b, c, d;
    memset(cpu, 0, sizeof(*cpu));
    if (!__get_cpuid(0, &max, &b, &c, &d))
        return -1;
    memcpy(cpu->vendor, &b, 4); /* "GenuineIntel", "AuthenticAMD", ...: ebx, edx, ecx */
    memcpy(cpu->vendor + 4, &d, 4);
    memcpy(cpu->vendor + 8, &c, 4);
    unsigned c1 = 0, b7 = 0, c81 = 0;
    if (__get_cpuid(1, &a, &b, &c, &d))
        c1 = c;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        b7 = b;
    }
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
        c81 = c;
    cpu->usable = usable_bits(c1, b7, c81, (c1 & (1u << 27)) ? xcr0() : 0);
    return 0;
}
#else
int cc_pf_cpu_x86(cc_pf_cpu *cpu)
{
    memset(cpu, 0, sizeof(*cpu));
    return -1; /* no cpuid on this CPU */
}
#endif
