// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strategy name -> class and family, and each family's members ranked
 * in advance (strategy_default_rank()).
 */
#include <string.h>

#include "common/macros.h"
#include "rule/strategy_class.h"

static const struct {
	const char *name;
	enum strategy_class class;
} strategies[] = {
	{ "movnt_avx512",	STRATEGY_CLASS_NONTEMPORAL },
	{ "movdir64b",		STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt_avx2",		STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt_sse2",		STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt",		STRATEGY_CLASS_NONTEMPORAL },
	{ "clwb",		STRATEGY_CLASS_FLUSH },
	{ "clflushopt",		STRATEGY_CLASS_FLUSH },
	{ "stores8_clwb",	STRATEGY_CLASS_FLUSH },
	{ "rep_movsb_clwb",	STRATEGY_CLASS_FLUSH },
	{ "memcpy_clwb",	STRATEGY_CLASS_FLUSH },
	{ "clflush",		STRATEGY_CLASS_FLUSH },
	{ "noflush",		STRATEGY_CLASS_NOFLUSH },
};

static int strategy_index(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < (int)ARRAY_SIZE(strategies); i++)
		if (strcmp(strategies[i].name, name) == 0)
			return i;
	return -1;
}

enum strategy_class strategy_class_of(const char *name)
{
	int i = strategy_index(name);

	return i < 0 ? STRATEGY_CLASS_UNKNOWN : strategies[i].class;
}

bool strategy_is_nontemporal(const char *name)
{
	return strategy_class_of(name) == STRATEGY_CLASS_NONTEMPORAL;
}

enum policy_family strategy_family_of(const char *name)
{
	switch (strategy_class_of(name)) {
	case STRATEGY_CLASS_NONTEMPORAL:
		return POLICY_FAMILY_STREAMING;
	case STRATEGY_CLASS_FLUSH:
		return POLICY_FAMILY_CACHED_FLUSH;
	default:
		return POLICY_FAMILY_NONE;
	}
}

const char *strategy_family_name(enum policy_family f)
{
	if (f == POLICY_FAMILY_STREAMING || f == POLICY_FAMILY_CACHED_FLUSH)
		return policy_family_name(f);
	return "";
}

/*
 * movdir64b is not the streaming default although it may be as fast: no
 * consumer runs it unless told to (PMEM_MOVDIR64B), so it has to earn
 * its range by the margin like any other alternative.
 */
static const char *const streaming_rank[] = {
	"movnt_avx512", "movnt_avx2", "movnt_sse2", "movdir64b", "movnt", NULL
};
static const char *const cached_rank[] = {
	"clwb", "clflushopt", "clflush", "stores8_clwb", "rep_movsb_clwb", "memcpy_clwb", NULL
};

int strategy_default_rank(enum policy_family f, const char *name)
{
	const char *const *r = f == POLICY_FAMILY_STREAMING ? streaming_rank :
			       f == POLICY_FAMILY_CACHED_FLUSH ? cached_rank : NULL;

	for (int i = 0; r && name && r[i]; i++)
		if (!strcmp(r[i], name))
			return i;
	return -1;
}
