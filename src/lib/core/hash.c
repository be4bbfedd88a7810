/* hash.c: SHA-256 through OpenSSL's EVP interface (SHA-NI where the CPU has it). */
#include "hash.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "internal.h"

struct cc_sha256 {
    EVP_MD_CTX *md;
};

cc_sha256 *cc_sha256_new(void)
{
    cc_sha256 *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->md = EVP_MD_CTX_new();
    if (!h->md || EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1) {
        cc_sha256_free(h);
        return NULL;
    }
    return h;
}

int cc_sha256_update(cc_sha256 *h, const void *data, size_t len)
{
    return EVP_DigestUpdate(h->md, data, len) == 1 ? 0 : -1;
}

/* 32 digest bytes as 64 lowercase hex chars + NUL */
static void to_hex(const unsigned char d[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

int cc_sha256_final_hex(cc_sha256 *h, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(h->md, d, &n) != 1 || n != 32)
        return -1;
    to_hex(d, hex);
    return 0;
}

int cc_sha256_peek_hex(const cc_sha256 *h, char hex[65])
{
    cc_sha256 copy = {EVP_MD_CTX_new()};
    int rc = copy.md && EVP_MD_CTX_copy_ex(copy.md, h->md) == 1 ? cc_sha256_final_hex(&copy, hex)
                                                                 : -1;
    EVP_MD_CTX_free(copy.md);
    return rc;
}

int cc_sha256_reset(cc_sha256 *h)
{
    return EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

void cc_sha256_free(cc_sha256 *h)
{
    if (!h)
        return;
    EVP_MD_CTX_free(h->md);
    free(h);
}

int cc_sha256_file(struct cudnnctl_ctx *ctx, const char *path, char hex[65], uint64_t *size)
{
    cc_sha256 *h = cc_sha256_new();
    if (!h)
        return -1;
    cc_pf_fd fd = cc_sys_open(ctx, path, CC_PF_O_RDONLY, 0);
    if (fd < 0) {
        cc_sha256_free(h);
        return -1;
    }
    size_t cap = 64 * 1024; /* L2-sized: 1 MiB reads made hashing ~1.5x slower (bench/fetch.py) */
    unsigned char *buf = malloc(cap);
    int rc = buf ? 0 : -1;
    uint64_t total = 0;
    while (rc == 0) {
        long long n = cc_sys_read(ctx, fd, buf, cap);
        if (n < 0)
            rc = -1;
        else if (n == 0)
            break;
        else {
            total += (uint64_t)n;
            rc = cc_sha256_update(h, buf, (size_t)n);
        }
    }
    free(buf);
    cc_sys_close(ctx, fd);
    if (rc == 0)
        rc = cc_sha256_final_hex(h, hex);
    cc_sha256_free(h);
    if (rc == 0 && size)
        *size = total;
    return rc;
}

int cc_sha256_is_hex(const char *s)
{
    if (!s || strlen(s) != 64)
        return 0;
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

int cc_sha256_hex_of_b64url(const char *b64, size_t n, char hex[65])
{
    unsigned char in[45], out[36];
    if (n != 43)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = b64[i];
        if (c == '+' || c == '/' || c == '=')
            return -1; /* the urlsafe alphabet only */
        in[i] = c == '-' ? '+' : c == '_' ? '/' : (unsigned char)c;
    }
    in[43] = '=';
    in[44] = '\0';
    /* 44 chars decode to 33 bytes (the padding counted as a zero byte) */
    if (EVP_DecodeBlock(out, in, 44) != 33)
        return -1;
    to_hex(out, hex);
    return 0;
}
