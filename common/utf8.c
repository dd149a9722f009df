// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdint.h>

#include "utf8.h"

static size_t invalid(const char **why, const char *what)
{
	if (why)
		*why = what;
	return 0;
}

size_t utf8_seq_len(const unsigned char *s, size_t n, const char **why)
{
	unsigned char c = s[0];
	size_t want;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return invalid(why, c < 0xc0 ? "stray continuation byte" : "overlong encoding");
	want = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!want)
		return invalid(why, "byte not used by UTF-8");
	if (n < want)
		return invalid(why, "truncated sequence");
	cp = c & (0x7f >> want);
	for (size_t k = 1; k < want; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return invalid(why, "truncated sequence");
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((want == 3 && cp < 0x800) || (want == 4 && cp < 0x10000))
		return invalid(why, "overlong encoding");
	if (cp >= 0xd800 && cp <= 0xdfff)
		return invalid(why, "encoded surrogate (not a character)");
	if (cp > 0x10ffff)
		return invalid(why, "beyond U+10FFFF");
	return want;
}
