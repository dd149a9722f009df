// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "parse.h"

static int parse_base(const char *s, int base, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull would take "-1", " 1" and "+1": a digit must come first */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

int parse_u64(const char *s, uint64_t *v)
{
	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return isxdigit((unsigned char)s[2]) ? parse_base(s, 16, v) : -EINVAL;
	return parse_base(s, 10, v);
}

int parse_u64_dec(const char *s, uint64_t *v)
{
	return parse_base(s, 10, v);
}
