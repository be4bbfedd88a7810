/* test_loader_platform.c: what the loader model takes $PLATFORM and the glibc-hwcaps subdirs to be
 * (ldhost.c). Every expansion the model knows (x86_64, haswell, xeon_phi, aarch64, none) from a
 * `ld.so --list-diagnostics` text and from glibc version + CPU features, as glibc's source decides
 * (sysdeps/x86/cpu-features.c, init_cpu_features; sysdeps/x86/get-isa-level.h); the model's
 * search with each; and, on whatever machine this runs, the cpuid decision against the answer of
 * the machine's own loader — on an Intel CPU that is the real haswell/xeon_phi case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"
#include "consumer_int.h"
#include "pf_fixture.h"

/* The start of what glibc 2.36's loader printed on this project's AMD VM (env lines shortened). */
static const char AMD_236[] = "dl_dst_lib=\"lib/x86_64-linux-gnu\"\n"
                              "dl_hwcap=0x2\n"
                              "dl_hwcap_important=0x6\n"
                              "dl_hwcap2=0x2\n"
                              "dl_hwcaps_subdirs=\"x86-64-v4:x86-64-v3:x86-64-v2\"\n"
                              "dl_hwcaps_subdirs_active=0x7\n"
                              "dl_pagesize=0x1000\n"
                              "dl_platform=\"x86_64\"\n"
                              "dl_profile_output=\"/var/tmp\"\n"
                              "env[0x0]=\"dl_platform=\\\"haswell\\\"\"\n"
                              "version.release=\"stable\"\n"
                              "version.version=\"2.36\"\n"
                              "uname.machine=\"x86_64\"\n";

typedef struct {
    const char *text;
    const char *platform; /* NULL: none */
    const char *hwcaps;   /* joined by ' ' */
    const char *glibc;
} diag_case;

static char *joined(const cc_strv *v)
{
    cc_buf b = {0};
    for (size_t i = 0; i < v->n; i++)
        cc_buf_printf(&b, "%s%s", i ? " " : "", v->v[i]);
    return b.data ? b.data : cc_strdup("");
}

static void diagnostics(void **state)
{
    (void)state;
    /* glibc prints dl_platform="..." (0x0 for NULL), the subdir list and the active mask (bit i:
     * the i-th subdir), elf/dl-diagnostics.c; an Intel Haswell-class CPU reaching x86-64-v3, a
     * Knights Landing (no AVX512BW/DQ/VL: v3), an AArch64 machine (no glibc-hwcaps subdirs) */
    const diag_case cases[] = {
        {AMD_236, "x86_64", "x86-64-v4 x86-64-v3 x86-64-v2", "2.36"},
        {"dl_hwcaps_subdirs=\"x86-64-v4:x86-64-v3:x86-64-v2\"\ndl_hwcaps_subdirs_active=0x6\n"
         "dl_platform=\"haswell\"\nversion.version=\"2.36\"\n",
         "haswell", "x86-64-v3 x86-64-v2", "2.36"},
        {"dl_hwcaps_subdirs=\"x86-64-v4:x86-64-v3:x86-64-v2\"\ndl_hwcaps_subdirs_active=0x6\n"
         "dl_platform=\"xeon_phi\"\nversion.version=\"2.39\"\n",
         "xeon_phi", "x86-64-v3 x86-64-v2", "2.39"},
        {"dl_hwcaps_subdirs=\"\"\ndl_hwcaps_subdirs_active=0x0\ndl_platform=\"aarch64\"\n"
         "version.version=\"2.36\"\nuname.machine=\"aarch64\"\n",
         "aarch64", "", "2.36"},
        {"dl_hwcaps_subdirs=\"x86-64-v4:x86-64-v3:x86-64-v2\"\ndl_hwcaps_subdirs_active=0x4\n"
         "dl_platform=0x0\n",
         NULL, "x86-64-v2", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cc_ld_host h;
        assert_int_equal(cc_ld_host_from_diagnostics(cases[i].text, &h), 0);
        if (cases[i].platform)
            assert_string_equal(h.platform, cases[i].platform);
        else
            assert_null(h.platform);
        char *hw = joined(&h.hwcaps);
        assert_string_equal(hw, cases[i].hwcaps);
        free(hw);
        if (cases[i].glibc)
            assert_string_equal(h.glibc, cases[i].glibc);
        else
            assert_null(h.glibc);
        cc_ld_host_free(&h);
    }
    cc_ld_host h;
    /* glibc < 2.34 has no such option: no dl_platform line, no answer */
    assert_int_equal(cc_ld_host_from_diagnostics("ld.so: unrecognized option\n", &h), -1);
    cc_ld_host_free(&h);
    int found = 0;
    char *v = cc_ld_diag_value("a=\"x\\\\y\\\"z\\101\"\n", "a", &found); /* \\ \" \ooo */
    assert_string_equal(v, "x\\y\"zA");
    free(v);
    assert_null(cc_ld_diag_value("ab=\"1\"\n", "a", &found));
    assert_int_equal(found, 0);
}

#define HSW                                                                                        \
    "sse3 ssse3 sse4_1 sse4_2 popcnt cmpxchg16b lahf64 avx avx2 fma f16c bmi1 bmi2 lzcnt movbe"
#define SKX HSW " avx512f avx512cd avx512bw avx512dq avx512vl"

typedef struct {
    const char *glibc;
    unsigned machine;
    const char *vendor; /* NULL: the CPU is unknown */
    const char *usable;
    const char *platform; /* NULL: none */
    const char *hwcaps;
} cpu_case;

static void decided_from_cpu(void **state)
{
    (void)state;
    const unsigned X = CC_ELF_EM_X86_64, A = CC_ELF_EM_AARCH64;
    const cpu_case cases[] = {
        {"2.36", X, "GenuineIntel", HSW, "haswell", "x86-64-v3 x86-64-v2"},
        {"2.36", X, "GenuineIntel", SKX, "haswell", "x86-64-v4 x86-64-v3 x86-64-v2"},
        /* Knights Landing: AVX512F CD ER PF, not BW DQ VL */
        {"2.36", X, "GenuineIntel", HSW " avx512f avx512cd avx512er avx512pf", "xeon_phi",
         "x86-64-v3 x86-64-v2"},
        /* AVX512ER without PF: not xeon_phi, then the haswell test (cpu-features.c 775-799) */
        {"2.36", X, "GenuineIntel", HSW " avx512f avx512cd avx512er", "haswell",
         "x86-64-v3 x86-64-v2"},
        /* one of the seven missing (no MOVBE): AT_PLATFORM stays */
        {"2.36", X, "GenuineIntel",
         "sse3 ssse3 sse4_1 sse4_2 popcnt cmpxchg16b lahf64 avx avx2 fma f16c bmi1 bmi2 lzcnt",
         "x86_64", "x86-64-v2"},
        /* Sandy Bridge: AVX, no AVX2 */
        {"2.36", X, "GenuineIntel", "sse3 ssse3 sse4_1 sse4_2 popcnt cmpxchg16b lahf64 avx",
         "x86_64", "x86-64-v2"},
        /* every feature, not Intel: glibc renames only on arch_kind_intel */
        {"2.36", X, "AuthenticAMD", SKX " avx512er avx512pf", "x86_64",
         "x86-64-v4 x86-64-v3 x86-64-v2"},
        {"2.36", X, "HygonGenuine", HSW, "x86_64", "x86-64-v3 x86-64-v2"},
        /* glibc 2.37 dropped the legacy hwcaps subdirs, not this rule: 2.39 (Ubuntu 24.04) too */
        {"2.39", X, "GenuineIntel", SKX, "haswell", "x86-64-v4 x86-64-v3 x86-64-v2"},
        {"2.25", X, "GenuineIntel", SKX, "x86_64", ""},
        {"2.26", X, "GenuineIntel", HSW, "haswell", ""},
        {"2.26", X, "AuthenticAMD", HSW, NULL, ""}, /* BZ #22299 */
        {"2.27", X, "AuthenticAMD", HSW, "x86_64", ""},
        {"2.32", X, "AuthenticAMD", SKX, "x86_64", ""}, /* glibc-hwcaps came with 2.33 */
        {"2.33", X, "AuthenticAMD", SKX, "x86_64", "x86-64-v4 x86-64-v3 x86-64-v2"},
        {"2.36", A, NULL, "", "aarch64", ""},
        {"2.36", X, NULL, "", "x86_64", "x86-64-v4 x86-64-v3 x86-64-v2"}, /* CPU unknown */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cpu_case *c = &cases[i];
        cc_pf_cpu cpu;
        memset(&cpu, 0, sizeof(cpu));
        if (c->vendor)
            memcpy(cpu.vendor, c->vendor, strlen(c->vendor));
        cpu.usable = cc_ld_cpu_features_parse(c->usable);
        cc_ld_host h;
        cc_ld_host_decide(c->glibc, c->machine, c->vendor ? &cpu : NULL, &h);
        print_message("glibc %s %s: %s\n", c->glibc, c->vendor ? c->vendor : "-", h.source);
        if (c->platform)
            assert_string_equal(h.platform, c->platform);
        else
            assert_null(h.platform);
        char *hw = joined(&h.hwcaps);
        assert_string_equal(hw, c->hwcaps);
        free(hw);
        cc_ld_host_free(&h);
    }
}

/* The decision from this machine's glibc and cpuid must be its loader's own answer. */
static void this_machine(void **state)
{
    (void)state;
    const char *diag = cc_pf_ldso_diagnostics();
    cc_pf_cpu cpu;
    if (!diag || cc_pf_cpu_x86(&cpu) != 0 || cc_pf_getenv("GLIBC_TUNABLES")) {
        print_message("no ld.so --list-diagnostics (glibc < 2.34, Windows), no cpuid, or "
                      "GLIBC_TUNABLES set: nothing to compare with here\n");
        skip();
    }
    assert_ptr_equal(cc_pf_ldso_diagnostics(), diag); /* asked once per process */
    cc_ld_host real, decided;
    assert_int_equal(cc_ld_host_from_diagnostics(diag, &real), 0);
    cc_ld_host_decide(cc_pf_libc_version(), CC_ELF_EM_X86_64, &cpu, &decided);
    print_message("this machine (%s, glibc %s): the loader says $PLATFORM=%s; decided: %s\n",
                  cpu.vendor, real.glibc, real.platform ? real.platform : "(none)", decided.source);
    assert_string_equal(real.glibc, cc_pf_libc_version());
    if (real.platform)
        assert_string_equal(decided.platform, real.platform);
    else
        assert_null(decided.platform);
    char *a = joined(&real.hwcaps), *b = joined(&decided.hwcaps);
    assert_string_equal(b, a);
    free(a);
    free(b);
    cc_ld_host_free(&real);
    cc_ld_host_free(&decided);
}

/* A 20-byte ELF header: ELF64, little endian, ET_DYN, x86-64 (all the model reads). */
static void fake_elf(const char *dir, const char *rel)
{
    static const unsigned char eh[20] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0,  0,
                                         0,    0,   0,   0,   0, 0, 3, 0, 62, 0};
    char *p = pff_join(dir, rel), *d = cc_path_dir(p);
    pff_mkdir_p(d);
    cc_pf_fd fd = cc_pf_open(p, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0644);
    assert_true(fd != -1);
    assert_int_equal(cc_pf_write(fd, eh, sizeof(eh)), (long long)sizeof(eh));
    cc_pf_close(fd);
    free(p);
    free(d);
}

static char *resolved(cudnnctl_ctx *ctx, const char *llp)
{
    cudnnctl_loader_env env = {llp, "", NULL};
    cudnnctl_load_result *r = NULL;
    assert_int_equal(cudnnctl_loader_resolve(ctx, &env, NULL, "libfake.so.1", &r), CUDNNCTL_E_OK);
    char *p = r->path ? cc_strdup(r->path) : cc_strdup("(none)");
    cudnnctl_load_result_free(r);
    return p;
}

/* The stand-in facts drive the model: $PLATFORM's expansion (each value the model knows), a
 * NULL platform dropping the element, the decision without --list-diagnostics, "assumed" under
 * --root. */
static void model_expands(void **state)
{
    (void)state;
    char *dir = pff_tmpdir("ldexp");
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    const char *plats[] = {"x86_64", "haswell", "xeon_phi", "aarch64"};
    for (size_t i = 0; i < 4; i++) {
        char *t = cc_asprintf("dl_platform=\"%s\"\ndl_hwcaps_subdirs=\"x86-64-v4:x86-64-v3:"
                              "x86-64-v2\"\ndl_hwcaps_subdirs_active=0x4\n",
                              plats[i]);
        cudnnctl_set_loader_facts(t);
        free(t);
        cc_ldmodel m;
        assert_int_equal(cc_ldm_init(&m, ctx, NULL), 0);
        char *s = cc_ldm_expand(&m, "$ORIGIN/../$PLATFORM:${PLATFORM}x", "/app/bin");
        char *want = cc_asprintf("/app/bin/../%s:%sx", plats[i], plats[i]);
        assert_string_equal(s, want);
        assert_int_equal(m.host.assumed, 0);
        free(s);
        free(want);
        cc_ldm_free(&m);
    }
    cudnnctl_set_loader_facts("dl_platform=0x0\n");
    cc_ldmodel m;
    assert_int_equal(cc_ldm_init(&m, ctx, NULL), 0);
    assert_null(cc_ldm_expand(&m, "$ORIGIN/../$PLATFORM", "/app/bin")); /* element dropped */
    cc_ldm_free(&m);
    /* without --list-diagnostics: decided from version and CPU */
    cudnnctl_set_loader_facts("version.version=\"2.31\"\ncpu.vendor=\"GenuineIntel\"\n"
                              "cpu.usable=\"" HSW "\"\n");
    assert_int_equal(cc_ldm_init(&m, ctx, NULL), 0);
    assert_string_equal(m.platform, "haswell");
    assert_int_equal((int)m.host.hwcaps.n, 0); /* 2.31: no glibc-hwcaps */
    assert_non_null(strstr(m.host.source, "has no --list-diagnostics"));
    cc_ldm_free(&m);
    /* another machine's files: assumed, and said so */
    assert_int_equal(cudnnctl_set_root(ctx, dir), CUDNNCTL_E_OK);
    assert_int_equal(cc_ldm_init(&m, ctx, NULL), 0);
    assert_int_equal(m.host.assumed, 1);
    assert_non_null(strstr(m.host.source, "assumed: --root"));
    cc_ldm_free(&m);
    cudnnctl_set_loader_facts(NULL);
    cudnnctl_ctx_free(ctx);
    pff_rm_rf(dir);
    free(dir);
}

/* The search tries the hwcaps subdirs the facts name, and only those. */
static void model_searches(void **state)
{
    (void)state;
    if (strcmp(cc_pf_os(), "windows") == 0) {
        print_message("the ELF search over ':'-separated lists of Windows paths: not here\n");
        skip();
    }
    char *dir = pff_tmpdir("ldplat");
    fake_elf(dir, "lib/libfake.so.1");
    fake_elf(dir, "lib/glibc-hwcaps/x86-64-v4/libfake.so.1");
    fake_elf(dir, "lib/glibc-hwcaps/x86-64-v2/libfake.so.1");
    char *lib = pff_join(dir, "lib");
    cudnnctl_ctx *ctx = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    const char *masks[] = {"0x4", "0x7", NULL};
    const char *wins[] = {"/glibc-hwcaps/x86-64-v2", "/glibc-hwcaps/x86-64-v4", ""};
    for (size_t i = 0; i < 3; i++) {
        /* v2 only: the v4 copy is not what the loader maps; no subdirs at all: the dir itself */
        char *t = masks[i] ? cc_asprintf("dl_platform=\"x86_64\"\ndl_hwcaps_subdirs=\"x86-64-v4:"
                                         "x86-64-v3:x86-64-v2\"\ndl_hwcaps_subdirs_active=%s\n",
                                         masks[i])
                           : cc_strdup("dl_platform=\"x86_64\"\n");
        cudnnctl_set_loader_facts(t);
        free(t);
        char *p = resolved(ctx, lib), *want = cc_asprintf("%s%s/libfake.so.1", lib, wins[i]);
        assert_string_equal(p, want);
        free(p);
        free(want);
    }
    cudnnctl_set_loader_facts(NULL);
    cudnnctl_ctx_free(ctx);
    pff_rm_rf(dir);
    free(dir);
    free(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diagnostics),    cmocka_unit_test(decided_from_cpu),
        cmocka_unit_test(this_machine),   cmocka_unit_test(model_expands),
        cmocka_unit_test(model_searches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
