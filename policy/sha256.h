/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SHA-256 (FIPS 180-4), small and dependency free: the fingerprint must
 * hash the same everywhere without pulling a crypto library into a
 * root daemon.  Not constant time; it hashes public identity strings.
 */
#ifndef PMEM_POLICY_SHA256_H
#define PMEM_POLICY_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN	32
#define SHA256_BLOCK_LEN	64

struct sha256_ctx {
	uint32_t h[8];
	uint64_t nbytes;		/* message length so far */
	size_t nbuf;			/* bytes waiting in buf */
	uint8_t buf[SHA256_BLOCK_LEN];
};

void sha256_init(struct sha256_ctx *ctx);
void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes ctx; sha256_init() before reuse. */
void sha256_final(struct sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_LEN]);
/* One shot. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);

#endif /* PMEM_POLICY_SHA256_H */
