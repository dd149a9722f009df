// SPDX-License-Identifier: LGPL-2.1-or-later
/* SHA-256 as specified in FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1, 6.2. */
#include <string.h>

#include "policy/sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

#define CH(x, y, z)	(((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z)	(((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x)	(ror(x, 2) ^ ror(x, 13) ^ ror(x, 22))
#define BSIG1(x)	(ror(x, 6) ^ ror(x, 11) ^ ror(x, 25))
#define SSIG0(x)	(ror(x, 7) ^ ror(x, 18) ^ ((x) >> 3))
#define SSIG1(x)	(ror(x, 17) ^ ror(x, 19) ^ ((x) >> 10))

/* Big-endian loads and stores byte by byte: no alignment or host-order assumptions. */
static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void sha256_block(uint32_t h[8], const uint8_t *blk)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;

	for (int t = 0; t < 16; t++)
		w[t] = load_be32(blk + 4 * t);
	for (int t = 16; t < 64; t++)
		w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) + w[t - 16];

	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = hh + BSIG1(e) + CH(e, f, g) + K[t] + w[t];
		uint32_t t2 = BSIG0(a) + MAJ(a, b, c);

		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void sha256_init(struct sha256_ctx *ctx)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(ctx->h, h0, sizeof(h0));
	ctx->nbytes = 0;
	ctx->nbuf = 0;
}

void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;

	ctx->nbytes += len;
	if (ctx->nbuf) {
		size_t take = SHA256_BLOCK_LEN - ctx->nbuf;

		if (take > len)
			take = len;
		memcpy(ctx->buf + ctx->nbuf, p, take);
		ctx->nbuf += take;
		p += take;
		len -= take;
		if (ctx->nbuf < SHA256_BLOCK_LEN)
			return;
		sha256_block(ctx->h, ctx->buf);
		ctx->nbuf = 0;
	}
	for (; len >= SHA256_BLOCK_LEN; p += SHA256_BLOCK_LEN, len -= SHA256_BLOCK_LEN)
		sha256_block(ctx->h, p);
	if (len) {
		memcpy(ctx->buf, p, len);
		ctx->nbuf = len;
	}
}

void sha256_final(struct sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_LEN])
{
	uint64_t bits = ctx->nbytes * 8;

	/* 0x80, zeros up to 56 mod 64, then the bit length big-endian (5.1.1) */
	ctx->buf[ctx->nbuf++] = 0x80;
	if (ctx->nbuf > SHA256_BLOCK_LEN - 8) {
		memset(ctx->buf + ctx->nbuf, 0, SHA256_BLOCK_LEN - ctx->nbuf);
		sha256_block(ctx->h, ctx->buf);
		ctx->nbuf = 0;
	}
	memset(ctx->buf + ctx->nbuf, 0, SHA256_BLOCK_LEN - 8 - ctx->nbuf);
	store_be32(ctx->buf + 56, (uint32_t)(bits >> 32));
	store_be32(ctx->buf + 60, (uint32_t)bits);
	sha256_block(ctx->h, ctx->buf);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, ctx->h[i]);
	memset(ctx, 0, sizeof(*ctx));
}

void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, data, len);
	sha256_final(&ctx, out);
}
