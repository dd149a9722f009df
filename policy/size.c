// SPDX-License-Identifier: LGPL-2.1-or-later
/* Sizes as people write and read them: "4096", "64K", "512M", "1GiB", "0x4041". */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy/policy.h"

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

/* bytes in the largest unit that divides it: unit[0] bytes, [1] KiB, [2] MiB */
static void format_size(uint64_t bytes, const char *const unit[3], char *buf, size_t len)
{
	if (bytes == POLICY_SIZE_OPEN)
		snprintf(buf, len, "inf");
	else if (bytes >= (1u << 20) && !(bytes % (1u << 20)))
		snprintf(buf, len, "%" PRIu64 "%s", bytes >> 20, unit[2]);
	else if (bytes >= 1024 && !(bytes % 1024))
		snprintf(buf, len, "%" PRIu64 "%s", bytes >> 10, unit[1]);
	else
		snprintf(buf, len, "%" PRIu64 "%s", bytes, unit[0]);
}

void policy_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[3] = { "", "K", "M" };

	format_size(bytes, unit, buf, len);
}

const char *policy_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[3] = { " B", " KiB", " MiB" };

	format_size(bytes, unit, buf, len);
	return buf;
}
