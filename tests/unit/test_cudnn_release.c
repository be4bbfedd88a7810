/* test_cudnn_release.c: the release tag read from a library's bytes (core/cudnn_release.c): the
 * machine's real cuDNN 9.19 (libcudnn_graph.so.9 says 9.19.0.56; the front libcudnn.so.9 carries
 * no tag), NVIDIA's 8.9.6 and win_amd64 9.1.0 wheel files where test_doctor_real.sh unpacked them,
 * and hand-built ELF (64/32-bit, both byte orders) and PE files: the tag only counts inside
 * .rodata / .rdata, and truncated or lying headers are refused, never read past. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cudnn_release.h"

static char tmpdir[] = "/tmp/test_cudnn_release.XXXXXX";

static void put(unsigned char *b, size_t at, uint64_t v, int size, int le)
{
    for (int i = 0; i < size; i++)
        b[at + (size_t)(le ? i : size - 1 - i)] = (unsigned char)(v >> (8 * i));
}

/* An ELF with sections: [0] null, [1] .rodata (data), [2] .data (other), [3] .shstrtab. */
static size_t make_elf(unsigned char *b, int is64, int le, const char *rodata, const char *data)
{
    memset(b, 0, 4096);
    memcpy(b, "\177ELF", 4);
    b[4] = is64 ? 2 : 1;
    b[5] = le ? 1 : 2;
    b[6] = 1;
    const char names[] = "\0.rodata\0.data\0.shstrtab";
    size_t at = 256, ro = at;
    memcpy(b + ro, rodata, strlen(rodata));
    at += strlen(rodata) + 8;
    size_t da = at;
    memcpy(b + da, data, strlen(data));
    at += strlen(data) + 8;
    size_t ns = at;
    memcpy(b + ns, names, sizeof(names));
    at += sizeof(names) + 8;
    size_t shoff = (at + 7) & ~(size_t)7, ent = is64 ? 64 : 40;
    size_t name_off[4] = {0, 1, 9, 15}, off[4] = {0, ro, da, ns};
    size_t size[4] = {0, strlen(rodata), strlen(data), sizeof(names)};
    for (size_t i = 0; i < 4; i++) {
        unsigned char *e = b + shoff + i * ent;
        put(e, 0, name_off[i], 4, 0 + le);
        put(e, is64 ? 0x18 : 0x10, off[i], is64 ? 8 : 4, le);
        put(e, is64 ? 0x20 : 0x14, size[i], is64 ? 8 : 4, le);
    }
    put(b, is64 ? 0x28 : 0x20, shoff, is64 ? 8 : 4, le);
    put(b, is64 ? 0x3a : 0x2e, ent, 2, le);
    put(b, is64 ? 0x3c : 0x30, 4, 2, le);
    put(b, is64 ? 0x3e : 0x32, 3, 2, le);
    return shoff + 4 * ent;
}

static const char *write_file(const char *name, const unsigned char *b, size_t n)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    return path;
}

static void elf_tags(void **state)
{
    (void)state;
    unsigned char b[4096];
    char v[32];
    for (int is64 = 0; is64 < 2; is64++)
        for (int le = 0; le < 2; le++) {
            size_t n = make_elf(b, is64, le, "xx cudnn_version_9_19_0_56_ yy", "nothing");
            assert_int_equal(cc_cudnn_tag_version(write_file("a.so", b, n), v, sizeof(v)), 0);
            assert_string_equal(v, "9.19.0.56");
        }
    /* the tag outside .rodata does not count */
    size_t n = make_elf(b, 1, 1, "no tag here", "cudnn_version_9_1_0_70_");
    assert_int_equal(cc_cudnn_tag_version(write_file("b.so", b, n), v, sizeof(v)), -1);
    /* a prefix without digits, then a real one */
    n = make_elf(b, 1, 1, "cudnn_version_x cudnn_version_8_9_6_50_", "");
    assert_int_equal(cc_cudnn_tag_version(write_file("c.so", b, n), v, sizeof(v)), 0);
    assert_string_equal(v, "8.9.6.50");
    /* cut anywhere: refused or read correctly, never past the end */
    n = make_elf(b, 1, 1, "cudnn_version_9_19_0_56_", "");
    for (size_t cut = 0; cut < n; cut += 7) {
        int rc = cc_cudnn_tag_version(write_file("d.so", b, cut), v, sizeof(v));
        assert_true(rc == -1 || strcmp(v, "9.19.0.56") == 0);
    }
    /* a section header count that lies */
    put(b, 0x3c, 0xffff, 2, 1);
    assert_int_equal(cc_cudnn_tag_version(write_file("e.so", b, n), v, sizeof(v)), -1);
}

static void pe_tag(void **state)
{
    (void)state;
    unsigned char b[2048];
    memset(b, 0, sizeof(b));
    b[0] = 'M';
    b[1] = 'Z';
    put(b, 0x3c, 0x80, 4, 1);
    memcpy(b + 0x80, "PE\0\0", 4);
    put(b, 0x80 + 6, 2, 2, 1);     /* two sections */
    put(b, 0x80 + 20, 0xf0, 2, 1); /* optional header size */
    unsigned char *sec = b + 0x80 + 24 + 0xf0;
    memcpy(sec, ".text\0\0\0", 8);
    put(sec, 16, 32, 4, 1);
    put(sec, 20, 0x300, 4, 1);
    memcpy(sec + 40, ".rdata\0\0", 8);
    put(sec + 40, 16, 64, 4, 1);
    put(sec + 40, 20, 0x400, 4, 1);
    memcpy(b + 0x300, "cudnn_version_7_0_0_0_", 22); /* in .text: ignored */
    memcpy(b + 0x410, "cudnn_version_9_1_0_70_34102860_", 32);
    char v[32];
    assert_int_equal(cc_cudnn_tag_version(write_file("x.dll", b, sizeof(b)), v, sizeof(v)), 0);
    assert_string_equal(v, "9.1.0.70");
}

static int readable(const char *p) { return access(p, R_OK) == 0; }

/* Real NVIDIA files, where this machine has them. */
static void real_files(void **state)
{
    (void)state;
    const char *lib = "/usr/local/cuda-13.0/lib64";
    char v[32], p[1100];
    int any = 0;
    snprintf(p, sizeof(p), "%s/libcudnn_graph.so.9", lib);
    if (readable(p)) {
        any = 1;
        assert_int_equal(cc_cudnn_tag_version(p, v, sizeof(v)), 0);
        assert_string_equal(v, "9.19.0.56");
        assert_int_equal(cc_cudnn_dir_release(lib, 9, v, sizeof(v)), 0);
        assert_string_equal(v, "9.19.0.56");
        snprintf(p, sizeof(p), "%s/libcudnn.so.9", lib);
        assert_int_equal(cc_cudnn_tag_version(p, v, sizeof(v)), -1); /* the front has no tag */
    }
    const char *home = getenv("HOME");
    char x8[512], xw[512];
    snprintf(x8, sizeof(x8), "%s/.cache/cudnnctl-test/x-cu11-8.9.6.50/nvidia/cudnn/lib",
             home ? home : "/root");
    snprintf(xw, sizeof(xw), "%s/.cache/cudnnctl-test/x-win-cu12-9.1.0.70/nvidia/cudnn/bin",
             home ? home : "/root");
    snprintf(p, sizeof(p), "%s/libcudnn_ops_infer.so.8", x8);
    if (readable(p)) {
        any = 1;
        assert_int_equal(cc_cudnn_dir_release(x8, 8, v, sizeof(v)), 0);
        assert_string_equal(v, "8.9.6.50");
    }
    snprintf(p, sizeof(p), "%s/cudnn_graph64_9.dll", xw);
    if (readable(p)) {
        any = 1;
        assert_int_equal(cc_cudnn_dir_release(xw, 9, v, sizeof(v)), 0);
        assert_string_equal(v, "9.1.0.70");
    }
    if (!any)
        skip();
}

static void core_names(void **state)
{
    (void)state;
    char b[48];
    assert_string_equal(cc_cudnn_core_name(9, 0, b, sizeof(b)), "libcudnn_graph.so.9");
    assert_string_equal(cc_cudnn_core_name(9, 1, b, sizeof(b)), "cudnn_graph64_9.dll");
    assert_string_equal(cc_cudnn_core_name(8, 0, b, sizeof(b)), "libcudnn_ops_infer.so.8");
    assert_null(cc_cudnn_core_name(7, 0, b, sizeof(b)));
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(elf_tags),
        cmocka_unit_test(pe_tag),
        cmocka_unit_test(real_files),
        cmocka_unit_test(core_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
