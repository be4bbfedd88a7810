/* hash.h: SHA-256 (OpenSSL EVP), streaming and whole-file. The only file that calls OpenSSL. */
#ifndef CC_HASH_H
#define CC_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct cc_sha256 cc_sha256;

cc_sha256 *cc_sha256_new(void);
int cc_sha256_update(cc_sha256 *h, const void *data, size_t len);
/* Finish into 64 lowercase hex chars + NUL. The context can be reused after cc_sha256_reset. */
int cc_sha256_final_hex(cc_sha256 *h, char hex[65]);
int cc_sha256_reset(cc_sha256 *h);
/* The digest of what was hashed so far, leaving h as it is (a resumable part's prefix record). */
int cc_sha256_peek_hex(const cc_sha256 *h, char hex[65]);
void cc_sha256_free(cc_sha256 *h);

struct cudnnctl_ctx;
/* Hash a whole file through the sys_ops layer; *size gets its length. */
int cc_sha256_file(struct cudnnctl_ctx *ctx, const char *path, char hex[65], uint64_t *size);
/* A SHA-256 written as a wheel's RECORD writes it (PEP 376: urlsafe base64 of the 32 bytes, no
 * padding: 43 chars, b64 of them) as 64 lowercase hex chars + NUL; -1 when it is not one. */
int cc_sha256_hex_of_b64url(const char *b64, size_t n, char hex[65]);
/* 1 when s is 64 hex digits (either case). */
int cc_sha256_is_hex(const char *s);

#endif
