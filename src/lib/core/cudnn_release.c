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
#include "elf_sections.h"
#include "platform.h"
#include "str.h"

#define MAX_SECTION (64u << 20)
#define TAG "cudnn_version_"

#define get cc_elf_get

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
    int rc = data && cc_elf_read_at(fd, off, data, (size_t)size) == 0
                 ? find_tag(data, (size_t)size, out, n)
                 : -1;
    free(data);
    return rc;
}

/* ELF: the section named .rodata. */
static int elf_tag(const char *path, char *out, size_t n)
{
    cc_elf_sections s;
    if (cc_elf_sections_open(path, &s) != 0)
        return -1;
    int i = cc_elf_section_find(&s, ".rodata"), rc = -1;
    size_t len = 0;
    char *data = i >= 0 ? cc_elf_section_read(&s, (size_t)i, MAX_SECTION, &len) : NULL;
    if (data)
        rc = find_tag(data, len, out, n);
    free(data);
    cc_elf_sections_close(&s);
    return rc;
}

/* PE: the section named .rdata (COFF section table after the optional header). */
static int pe_tag(cc_pf_fd fd, const unsigned char *dos, char *out, size_t n)
{
    uint32_t pe = (uint32_t)get(dos + 0x3c, 4, 1);
    unsigned char coff[24];
    if (cc_elf_read_at(fd, pe, coff, sizeof(coff)) != 0 || memcmp(coff, "PE\0\0", 4) != 0)
        return -1;
    unsigned nsec = (unsigned)get(coff + 6, 2, 1);
    unsigned optsize = (unsigned)get(coff + 20, 2, 1);
    if (nsec == 0 || nsec > 96)
        return -1;
    unsigned char *tab = malloc((size_t)nsec * 40);
    int rc = -1;
    if (tab && cc_elf_read_at(fd, (uint64_t)pe + 24 + optsize, tab, (size_t)nsec * 40) == 0)
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
    int rc = -1, elf = 0;
    if (cc_elf_read_at(fd, 0, h, sizeof(h)) == 0) {
        elf = memcmp(h, "\177ELF", 4) == 0;
        if (!elf && h[0] == 'M' && h[1] == 'Z')
            rc = pe_tag(fd, h, out, n);
    }
    cc_pf_close(fd);
    return elf ? elf_tag(path, out, n) : rc;
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
