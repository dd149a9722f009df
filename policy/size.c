// SPDX-License-Identifier: LGPL-2.1-or-later
/* Sizes as people write them: "4096", "64K", "512M", "1GiB", "0x4041". */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy.h"

int policy_parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	/* strtoull takes "-1" as a huge number: refuse signs outright */
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}
