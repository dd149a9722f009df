// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * movdir64b: one 64-byte direct store per line, written as a single
 * non-temporal transaction (Sapphire Rapids and later).  The
 * destination must be 64-byte aligned, the source need not be; the
 * head and a tail shorter than a line are done as for the movnt
 * strategies (strategy_nt_ends.h).  Direct stores are weakly ordered
 * like WC stores, hence the closing sfence.
 */
#include "measure/strategy_nt_ends.h"

#if (defined(__clang__) && __clang_major__ >= 10) || \
	(!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 10)
#define PT_HAVE_MOVDIR64B_INTRIN 1
#define PT_TARGET_MOVDIR64B __attribute__((target("movdir64b")))
#else
/* Older compilers know neither the intrinsic nor the target name. */
#define PT_TARGET_MOVDIR64B
#endif

PT_TARGET_MOVDIR64B
static inline void movdir64b(void *dst, const void *src)
{
#ifdef PT_HAVE_MOVDIR64B_INTRIN
	_movdir64b(dst, src);
#else
	/* movdir64b (%rdx), %rax: the encoding the Linux kernel uses */
	__asm__ volatile(".byte 0x66, 0x0f, 0x38, 0xf8, 0x02"
			 : : "a"(dst), "d"(src), "m"(*(const char (*)[64])src)
			 : "memory");
#endif
}

PT_TARGET_MOVDIR64B
void strategy_copy_movdir64b(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (!len)
		return;
	len = strategy_nt_head(&d, &s, len, 64);
	for (; len >= 64; d += 64, s += 64, len -= 64)
		movdir64b(d, s);
	strategy_nt_tail(d, s, len);
	_mm_sfence();
}
