// SPDX-License-Identifier: GPL-2.0-or-later
/* sha256.c against the NIST FIPS 180-4 examples and block-boundary lengths. */
#include <stdint.h>

#include "check.h"
#include "policy/sha256.h"

static void hex(const uint8_t d[SHA256_DIGEST_LEN], char out[2 * SHA256_DIGEST_LEN + 1])
{
	for (int i = 0; i < SHA256_DIGEST_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_oneshot(const void *msg, size_t len, const char *want)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char got[2 * SHA256_DIGEST_LEN + 1];

	sha256(msg, len, d);
	hex(d, got);
	CHECK_MSG(strcmp(got, want) == 0, "len %zu: %s, want %s", len, got, want);
}

static void test_nist(void)
{
	/* FIPS 180-4 examples (NIST CSRC "SHA256.pdf", SHA2_Additional) */
	check_oneshot("abc", 3,
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_oneshot("", 0,
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_oneshot("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_oneshot("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		      "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
		      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	check_oneshot("The quick brown fox jumps over the lazy dog", 43,
		      "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

static void test_million_a(void)
{
	static const char *want =
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	uint8_t d[SHA256_DIGEST_LEN];
	char got[2 * SHA256_DIGEST_LEN + 1], chunk[1000];
	struct sha256_ctx ctx;
	char *big = malloc(1000000);

	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'a', 1000000);
	check_oneshot(big, 1000000, want);
	free(big);

	/* incremental, in 1000-byte updates that straddle every block edge */
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&ctx);
	for (int i = 0; i < 1000; i++)
		sha256_update(&ctx, chunk, sizeof(chunk));
	sha256_final(&ctx, d);
	hex(d, got);
	CHECK_STR(got, want);
}

/* Lengths around the 55/56-byte padding edge and the 64-byte block (from coreutils sha256sum) */
static void test_boundaries(void)
{
	static const struct {
		size_t n;
		const char *want;
	} tab[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	char a[128];

	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		check_oneshot(a, tab[i].n, tab[i].want);
}

/* Any split of a message into two or three updates gives the one-shot digest. */
static void test_incremental_splits(void)
{
	uint8_t msg[200], want[SHA256_DIGEST_LEN], got[SHA256_DIGEST_LEN];
	unsigned bad = 0;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 37 + 11);
	sha256(msg, sizeof(msg), want);
	for (size_t a = 0; a <= sizeof(msg); a++) {
		for (size_t b = a; b <= sizeof(msg); b += 7) {
			struct sha256_ctx ctx;

			sha256_init(&ctx);
			sha256_update(&ctx, msg, a);
			sha256_update(&ctx, msg + a, 0);
			sha256_update(&ctx, msg + a, b - a);
			sha256_update(&ctx, msg + b, sizeof(msg) - b);
			sha256_final(&ctx, got);
			bad += memcmp(got, want, sizeof(got)) != 0;
		}
	}
	CHECK_INT(bad, 0);
}

int main(void)
{
	test_nist();
	test_million_a();
	test_boundaries();
	test_incremental_splits();
	return check_report("test_sha256");
}
