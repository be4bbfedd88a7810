/* ldhost.c: what the modelled loader expands $PLATFORM to and which glibc-hwcaps subdirs it tries
 * first in every dir. This machine's loader is asked (`ld.so --list-diagnostics`, glibc >= 2.34,
 * once per process: platform/); without that answer it is decided from the glibc version and the
 * CPU features the way that glibc decides; for another machine's files (--root) it is assumed,
 * and the facts say so and from what.
 *
 * glibc's rules, from its source:
 *  - $PLATFORM is GLRO(dl_platform) (elf/dl-load.c, _dl_dst_substitute: `is_dst (input,
 *    "PLATFORM")` → `repl = GLRO(dl_platform)`; a NULL value drops the whole element). It starts as
 *    the kernel's AT_PLATFORM ("x86_64", "aarch64").
 *  - x86-64, glibc >= 2.26 (commit 1432d38ea0, BZ #21391; unchanged in 2.36 and up to 2.42 and
 *    master — glibc 2.37 removed the legacy hwcaps *subdirs*, not this), sysdeps/x86/
 *    cpu-features.c, init_cpu_features (2.36: lines 771-803): only when the vendor is
 *    "GenuineIntel" (arch_kind_intel), AVX512CD+AVX512ER+AVX512PF usable → "xeon_phi"; else
 *    AVX2+FMA+BMI1+BMI2+LZCNT+MOVBE+POPCNT usable → "haswell". glibc 2.26 itself set it to NULL
 *    first (fixed in 2.27 by 4d916f0f12, BZ #22299): no $PLATFORM at all on other CPUs.
 *  - AArch64: AT_PLATFORM, never replaced (sysdeps/aarch64/dl-machine.h, dl_platform_init).
 *  - glibc-hwcaps (glibc >= 2.33, x86-64 only of the machines modelled): x86-64-v4, -v3, -v2 where
 *    the CPU reaches that ISA level (sysdeps/x86_64/dl-hwcaps-subdirs.c, _dl_hwcaps_subdirs_active;
 *    levels: sysdeps/x86/get-isa-level.h).
 *  - `--list-diagnostics` (elf/dl-diagnostics.c, _dl_print_diagnostics, 2.36 lines 233-247) prints
 *    dl_platform="…" (0x0 when NULL), dl_hwcaps_subdirs="x86-64-v4:x86-64-v3:x86-64-v2" and
 *    dl_hwcaps_subdirs_active=0x7 (bit i: the i-th of that list), version.version="2.36". */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "keyline.h"
#include "ldmodel.h"
#include "platform.h"

static char *g_facts; /* cudnnctl_set_loader_facts: the stand-in for this machine; NULL = none */

void cudnnctl_set_loader_facts(const char *text)
{
    free(g_facts);
    g_facts = text && *text ? cc_strdup(text) : NULL;
}

static const struct {
    const char *name;
    uint32_t bit;
} FEATURES[] = {
    {"sse3", CC_PF_CPU_SSE3},         {"ssse3", CC_PF_CPU_SSSE3},
    {"sse4_1", CC_PF_CPU_SSE4_1},     {"sse4_2", CC_PF_CPU_SSE4_2},
    {"popcnt", CC_PF_CPU_POPCNT},     {"cmpxchg16b", CC_PF_CPU_CMPXCHG16B},
    {"lahf64", CC_PF_CPU_LAHF64},     {"movbe", CC_PF_CPU_MOVBE},
    {"lzcnt", CC_PF_CPU_LZCNT},       {"bmi1", CC_PF_CPU_BMI1},
    {"bmi2", CC_PF_CPU_BMI2},         {"avx", CC_PF_CPU_AVX},
    {"avx2", CC_PF_CPU_AVX2},         {"fma", CC_PF_CPU_FMA},
    {"f16c", CC_PF_CPU_F16C},         {"avx512f", CC_PF_CPU_AVX512F},
    {"avx512cd", CC_PF_CPU_AVX512CD}, {"avx512er", CC_PF_CPU_AVX512ER},
    {"avx512pf", CC_PF_CPU_AVX512PF}, {"avx512bw", CC_PF_CPU_AVX512BW},
    {"avx512dq", CC_PF_CPU_AVX512DQ}, {"avx512vl", CC_PF_CPU_AVX512VL},
};
#define N_FEATURES (sizeof(FEATURES) / sizeof(FEATURES[0]))

#define HASWELL                                                                                    \
    (CC_PF_CPU_AVX2 | CC_PF_CPU_FMA | CC_PF_CPU_BMI1 | CC_PF_CPU_BMI2 | CC_PF_CPU_LZCNT |          \
     CC_PF_CPU_MOVBE | CC_PF_CPU_POPCNT)
#define XEON_PHI (CC_PF_CPU_AVX512CD | CC_PF_CPU_AVX512ER | CC_PF_CPU_AVX512PF)
#define ISA_V2                                                                                     \
    (CC_PF_CPU_SSE3 | CC_PF_CPU_SSSE3 | CC_PF_CPU_SSE4_1 | CC_PF_CPU_SSE4_2 | CC_PF_CPU_POPCNT |   \
     CC_PF_CPU_CMPXCHG16B | CC_PF_CPU_LAHF64)
#define ISA_V3                                                                                     \
    (ISA_V2 | CC_PF_CPU_AVX | CC_PF_CPU_AVX2 | CC_PF_CPU_F16C | CC_PF_CPU_FMA | CC_PF_CPU_LZCNT |  \
     CC_PF_CPU_MOVBE)
#define ISA_V4                                                                                     \
    (ISA_V3 | CC_PF_CPU_AVX512F | CC_PF_CPU_AVX512BW | CC_PF_CPU_AVX512CD | CC_PF_CPU_AVX512DQ |   \
     CC_PF_CPU_AVX512VL)

/* The next token of *s between separators (cut in place); NULL at the end. */
static char *next_token(char **s, const char *seps)
{
    char *t = *s + strspn(*s, seps);
    if (!*t)
        return NULL;
    size_t n = strcspn(t, seps);
    *s = t[n] ? t + n + 1 : t + n;
    t[n] = '\0';
    return t;
}

uint32_t cc_ld_cpu_features_parse(const char *names)
{
    uint32_t u = 0;
    char *copy = cc_strdup(names ? names : ""), *p = copy;
    for (char *t; p && (t = next_token(&p, " ,")) != NULL;)
        for (size_t i = 0; i < N_FEATURES; i++)
            if (strcmp(t, FEATURES[i].name) == 0)
                u |= FEATURES[i].bit;
    free(copy);
    return u;
}

/* The value of `key=` at the start of a line of a --list-diagnostics text: a "quoted" string
 * (glibc escapes \\ \" and \ooo), or as written (0x...). *found = 0 when there is no such line.
 * NULL for 0x0, the way glibc prints a NULL string. */
char *cc_ld_diag_value(const char *text, const char *key, int *found)
{
    size_t n = 0;
    const char *v = cc_str_key_line(text, key, "\n", &n);
    *found = v != NULL;
    if (!v)
        return NULL;
    if (*v != '"')
        return n == 3 && strncmp(v, "0x0", 3) == 0 ? NULL : cc_strndup(v, n);
    cc_buf b = {0};
    for (size_t i = 1; i < n && v[i] != '"'; i++) {
        char c = v[i];
        if (c == '\\' && i + 1 < n && v[i + 1] >= '0' && v[i + 1] <= '7' && i + 3 < n) {
            c = (char)(((v[i + 1] - '0') << 6) | ((v[i + 2] - '0') << 3) | (v[i + 3] - '0'));
            i += 3;
        } else if (c == '\\' && i + 1 < n) {
            c = v[++i];
        }
        cc_buf_append(&b, &c, 1);
    }
    return b.data ? b.data : cc_strdup("");
}

void cc_ld_host_free(cc_ld_host *h)
{
    free(h->glibc);
    free(h->platform);
    cc_strv_free(&h->hwcaps);
    free(h->source);
    memset(h, 0, sizeof(*h));
}

int cc_ld_host_from_diagnostics(const char *text, cc_ld_host *h)
{
    int found = 0;
    memset(h, 0, sizeof(*h));
    char *plat = text ? cc_ld_diag_value(text, "dl_platform", &found) : NULL;
    if (!found)
        return -1;
    h->platform = plat;
    h->glibc = cc_ld_diag_value(text, "version.version", &found);
    char *subdirs = cc_ld_diag_value(text, "dl_hwcaps_subdirs", &found);
    char *active = cc_ld_diag_value(text, "dl_hwcaps_subdirs_active", &found);
    unsigned long mask = active ? strtoul(active, NULL, 16) : 0;
    int i = 0;
    for (char *p = subdirs, *t; p && (t = next_token(&p, ":")) != NULL; i++)
        if (i < 32 && (mask & (1ul << i)))
            cc_strv_push(&h->hwcaps, t);
    free(subdirs);
    free(active);
    return 0;
}

/* $PLATFORM on x86-64 (the rules at the top). *why: the reason, static. */
static const char *x86_platform(const char *glibc, const cc_pf_cpu *cpu, const char **why)
{
    if (glibc && cc_version_cmp_str(glibc, "2.26") < 0) {
        *why = "AT_PLATFORM: glibc before 2.26 never replaces it";
        return "x86_64";
    }
    int intel = cpu && strcmp(cpu->vendor, "GenuineIntel") == 0;
    if (intel && (cpu->usable & XEON_PHI) == XEON_PHI) {
        *why = "an Intel CPU with AVX512CD, AVX512ER and AVX512PF usable "
               "(sysdeps/x86/cpu-features.c, init_cpu_features)";
        return "xeon_phi";
    }
    if (intel && (cpu->usable & HASWELL) == HASWELL) {
        *why = "an Intel CPU with AVX2, FMA, BMI1, BMI2, LZCNT, MOVBE and POPCNT usable "
               "(sysdeps/x86/cpu-features.c, init_cpu_features)";
        return "haswell";
    }
    if (glibc && cc_version_cmp_str(glibc, "2.26") == 0) {
        *why = "glibc 2.26 sets it to NULL unless the CPU is a Haswell-class or Xeon Phi Intel "
               "(BZ #22299): an element naming $PLATFORM is dropped";
        return NULL;
    }
    *why = cpu ? "AT_PLATFORM: glibc replaces it only on Haswell-class and Xeon Phi Intel CPUs"
               : "AT_PLATFORM (the CPU is unknown: taken as one glibc does not rename)";
    return "x86_64";
}

static void x86_hwcaps(const char *glibc, const cc_pf_cpu *cpu, cc_strv *out)
{
    if (glibc && cc_version_cmp_str(glibc, "2.33") < 0)
        return;                              /* glibc-hwcaps came with 2.33 */
    uint32_t u = cpu ? cpu->usable : ISA_V4; /* unknown CPU: every level assumed */
    if ((u & ISA_V4) == ISA_V4)
        cc_strv_push(out, "x86-64-v4");
    if ((u & ISA_V3) == ISA_V3)
        cc_strv_push(out, "x86-64-v3");
    if ((u & ISA_V2) == ISA_V2)
        cc_strv_push(out, "x86-64-v2");
}

void cc_ld_host_decide(const char *glibc, unsigned machine, const cc_pf_cpu *cpu, cc_ld_host *h)
{
    memset(h, 0, sizeof(*h));
    h->glibc = glibc ? cc_strdup(glibc) : NULL;
    const char *why = "AT_PLATFORM: glibc never replaces it on AArch64";
    const char *plat = "aarch64";
    if (machine != CC_ELF_EM_AARCH64) {
        plat = x86_platform(glibc, cpu, &why);
        x86_hwcaps(glibc, cpu, &h->hwcaps);
    }
    h->platform = plat ? cc_strdup(plat) : NULL;
    h->source = cc_asprintf("glibc %s on %s: $PLATFORM %s, %s", glibc ? glibc : "(version unknown)",
                            cpu ? cpu->vendor : "an unknown CPU", plat ? plat : "(none)", why);
}

/* The stand-in's glibc version, machine and CPU (no dl_platform line: decided from these). */
static void decide_from_facts(const char *text, unsigned machine, cc_ld_host *h)
{
    int found = 0;
    char *glibc = cc_ld_diag_value(text, "version.version", &found);
    char *vendor = cc_ld_diag_value(text, "cpu.vendor", &found);
    char *usable = cc_ld_diag_value(text, "cpu.usable", &found);
    cc_pf_cpu cpu;
    memset(&cpu, 0, sizeof(cpu));
    if (vendor)
        memcpy(cpu.vendor, vendor, strlen(vendor) < 12 ? strlen(vendor) : 12);
    cpu.usable = cc_ld_cpu_features_parse(usable);
    cc_ld_host_decide(glibc, machine, vendor ? &cpu : NULL, h);
    free(glibc);
    free(vendor);
    free(usable);
}

static unsigned machine_named(const char *name)
{
    return name && strcmp(name, "aarch64") == 0 ? CC_ELF_EM_AARCH64 : CC_ELF_EM_X86_64;
}

static const char *machine_name(unsigned machine)
{
    return machine == CC_ELF_EM_AARCH64 ? "aarch64" : "x86_64";
}

/* This machine's answer (or the test's stand-in for it); *machine: the machine it is for. Its
 * loader is asked only when ask: under --root the answer is an assumption anyway, and the glibc
 * + cpuid decision gives the same (test_loader_platform checks it) without running a process. */
static void host_answer(int ask, cc_ld_host *h, unsigned *machine)
{
    const char *text = g_facts ? g_facts : ask ? cc_pf_ldso_diagnostics() : NULL;
    const char *who = g_facts ? "a stand-in for this machine's loader (cudnnctl_set_loader_facts)"
                              : "this machine's loader";
    int found = 0;
    char *mach = text ? cc_ld_diag_value(text, "uname.machine", &found) : NULL;
    *machine = machine_named(found ? mach : cc_pf_machine());
    free(mach);
    if (cc_ld_host_from_diagnostics(text, h) == 0) {
        h->source = cc_asprintf("%s, ld.so --list-diagnostics", who);
        return;
    }
    if (g_facts) {
        decide_from_facts(text, *machine, h);
    } else {
        cc_pf_cpu cpu;
        int have = cc_pf_cpu_x86(&cpu) == 0;
        cc_ld_host_decide(cc_pf_libc_version(), *machine, have ? &cpu : NULL, h);
    }
    char *s =
        ask || g_facts
            ? cc_asprintf("%s has no --list-diagnostics; decided as its glibc does: %s", who,
                          h->source)
            : cc_asprintf("this machine's glibc and CPU, as that glibc decides: %s", h->source);
    free(h->source);
    h->source = s;
}

void cc_ld_host_get(const cudnnctl_ctx *ctx, unsigned machine, cc_ld_host *h)
{
    unsigned host_machine;
    host_answer(!(ctx && ctx->root), h, &host_machine);
    if (machine != host_machine) { /* another machine's program: what its loader starts from */
        cc_ld_host_free(h);
        cc_ld_host_decide(NULL, machine, NULL, h);
        free(h->source);
        h->source = cc_asprintf("assumed: the program is for %s, this machine is %s: AT_PLATFORM, "
                                "and every glibc-hwcaps subdir glibc knows for it",
                                machine_name(machine), machine_name(host_machine));
        h->assumed = 1;
    }
    if (ctx && ctx->root) {
        char *s = cc_asprintf("assumed: --root holds another machine's files, whose CPU and loader "
                              "are not known here; taken from %s",
                              h->source);
        free(h->source);
        h->source = s;
        h->assumed = 1;
    }
}
