/* cudnn_release.c: a cuDNN library's release from its own bytes: the "cudnn_version_M_m_p_b_"
 * tag NVIDIA builds into the read-only data of the core library of each release (found in the
 * 8.9.6 wheel's libcudnn_ops_infer.so.8, the 9.1.0 win_amd64 wheel's cudnn_graph64_9.dll, the
 * 9.19 libcudnn_graph.so.9). Only the section headers and that one section are read (ELF .rodata,
 * PE .rdata: a few hundred KiB), never the whole file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn_release.h"
#include "platform.h"
#include "str.h"

#define MAX_SECTIONS 4096u
#define MAX_SECTION (64u << 20)
#define TAG "cudnn_version_"

static int read_at(cc_pf_fd fd, uint64_t off, void *buf, size_t len)
{
    if (cc_pf_seek(fd, off) != 0)
        return -1;
    size_t got = 0;
    while (got < len) {
        long long n = cc_pf_read(fd, (char *)buf + got, len - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static uint64_t get(const unsigned char *p, int size, int le)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++)
        v |= (uint64_t)p[le ? i : size - 1 - i] << (8 * i);
    return v;
}

/* "9_19_0_56_" after the tag -> "9.19.0.56" (2 to 4 numbers). */
static int tag_digits(const char *s, size_t avail, char *out, size_t n)
{
    cc_buf b = {0};
    int parts = 0;
    size_t i = 0;
    while (i < avail && parts < 4) {
        size_t d = 0;
        while (i + d < avail && s[i + d] >= '0' && s[i + d] <= '9' && d < 6)
            d++;
        if (d == 0)
            break;
        cc_buf_printf(&b, "%s%.*s", parts ? "." : "", (int)d, s + i);
        parts++;
        i += d;
        if (i < avail && s[i] == '_')
            i++;
        else
            break;
    }
    int ok = parts >= 2 && b.data && strlen(b.data) < n;
    if (ok)
        snprintf(out, n, "%s", b.data);
    cc_buf_free(&b);
    return ok ? 0 : -1;
}

static int find_tag(const char *data, size_t len, char *out, size_t n)
{
    size_t tl = strlen(TAG);
    for (size_t i = 0; i + tl < len; i++)
        if (data[i] == 'c' && memcmp(data + i, TAG, tl) == 0 &&
            tag_digits(data + i + tl, len - i - tl, out, n) == 0)
            return 0;
    return -1;
}

static int section_tag(cc_pf_fd fd, uint64_t off, uint64_t size, char *out, size_t n)
{
    if (size == 0 || size > MAX_SECTION)
        return -1;
    char *data = malloc((size_t)size);
    int rc = data && read_at(fd, off, data, (size_t)size) == 0 ? find_tag(data, (size_t)size, out, n)
                                                               : -1;
    free(data);
    return rc;
}

/* sh_offset and sh_size of one ELF section header. */
static void sh_range(const unsigned char *e, int is64, int le, uint64_t *off, uint64_t *size)
{
    *off = is64 ? get(e + 0x18, 8, le) : get(e + 0x10, 4, le);
    *size = is64 ? get(e + 0x20, 8, le) : get(e + 0x14, 4, le);
}

/* ELF: the section named .rodata (section headers and their string table). */
static int elf_tag(cc_pf_fd fd, const unsigned char *h, char *out, size_t n)
{
    int is64 = h[4] == 2, le = h[5] == 1;
    uint64_t shoff = is64 ? get(h + 0x28, 8, le) : get(h + 0x20, 4, le);
    unsigned shentsize = (unsigned)get(h + (is64 ? 0x3a : 0x2e), 2, le);
    unsigned shnum = (unsigned)get(h + (is64 ? 0x3c : 0x30), 2, le);
    unsigned shstrndx = (unsigned)get(h + (is64 ? 0x3e : 0x32), 2, le);
    if (!shoff || shnum == 0 || shnum > MAX_SECTIONS || shstrndx >= shnum ||
        shentsize < (is64 ? 64u : 40u))
        return -1;
    unsigned char *sh = malloc((size_t)shnum * shentsize);
    char *names = NULL;
    int rc = -1;
    if (!sh || read_at(fd, shoff, sh, (size_t)shnum * shentsize) != 0)
        goto out;
    uint64_t noff, nsize;
    sh_range(sh + (size_t)shstrndx * shentsize, is64, le, &noff, &nsize);
    if (nsize == 0 || nsize > (1u << 20) || !(names = malloc((size_t)nsize + 1)) ||
        read_at(fd, noff, names, (size_t)nsize) != 0)
        goto out;
    names[nsize] = '\0';
    for (unsigned i = 0; i < shnum && rc != 0; i++) {
        uint64_t name = get(sh + (size_t)i * shentsize, 4, le);
        uint64_t off, size;
        sh_range(sh + (size_t)i * shentsize, is64, le, &off, &size);
        if (name < nsize && strcmp(names + name, ".rodata") == 0)
            rc = section_tag(fd, off, size, out, n);
    }
out:
    free(sh);
    free(names);
    return rc;
}

/* PE: the section named .rdata (COFF section table after the optional header). */
static int pe_tag(cc_pf_fd fd, const unsigned char *dos, char *out, size_t n)
{
    uint32_t pe = (uint32_t)get(dos + 0x3c, 4, 1);
    unsigned char coff[24];
    if (read_at(fd, pe, coff, sizeof(coff)) != 0 || memcmp(coff, "PE\0\0", 4) != 0)
        return -1;
    unsigned nsec = (unsigned)get(coff + 6, 2, 1);
    unsigned optsize = (unsigned)get(coff + 20, 2, 1);
    if (nsec == 0 || nsec > 96)
        return -1;
    unsigned char *tab = malloc((size_t)nsec * 40);
    int rc = -1;
    if (tab && read_at(fd, (uint64_t)pe + 24 + optsize, tab, (size_t)nsec * 40) == 0)
        for (unsigned i = 0; i < nsec && rc != 0; i++) {
            const unsigned char *s = tab + (size_t)i * 40;
            if (memcmp(s, ".rdata\0", 7) == 0)
                rc = section_tag(fd, get(s + 20, 4, 1), get(s + 16, 4, 1), out, n);
        }
    free(tab);
    return rc;
}

int cc_cudnn_tag_version(const char *path, char *out, size_t n)
{
    cc_pf_fd fd = cc_pf_open(path, CC_PF_O_RDONLY, 0);
    if (fd < 0)
        return -1;
    unsigned char h[64];
    int rc = -1;
    if (read_at(fd, 0, h, sizeof(h)) == 0) {
        if (memcmp(h, "\177ELF", 4) == 0 && (h[4] == 1 || h[4] == 2))
            rc = elf_tag(fd, h, out, n);
        else if (h[0] == 'M' && h[1] == 'Z')
            rc = pe_tag(fd, h, out, n);
    }
    cc_pf_close(fd);
    return rc;
}

const char *cc_cudnn_core_name(int major, int windows, char *buf, size_t n)
{
    const char *stem = major >= 9 ? "graph" : major == 8 ? "ops_infer" : NULL;
    if (!stem || n < 40)
        return NULL;
    if (windows)
        snprintf(buf, n, "cudnn_%s64_%d.dll", stem, major);
    else
        snprintf(buf, n, "libcudnn_%s.so.%d", stem, major);
    return buf;
}

int cc_cudnn_dir_release(const char *dir, int major, char *out, size_t n)
{
    for (int win = 0; win < 2; win++) {
        char name[48];
        if (!cc_cudnn_core_name(major, win, name, sizeof(name)))
            return -1;
        char *p = cc_path_join(dir, name);
        int rc = p ? cc_cudnn_tag_version(p, out, n) : -1;
        free(p);
        if (rc == 0)
            return 0;
    }
    return -1;
}
