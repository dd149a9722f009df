// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the policy loader: whatever the bytes, parsing
 * returns a policy or an error, never a crash, a leak or undefined
 * behaviour (ASan + UBSan).  What parses must also round-trip: the
 * serialisation of a parsed policy parses again and serialises to the
 * same bytes.  policy_dup() and --merge go through that path, and fleet
 * diffs rely on the output being a fixed point, so a difference is a
 * bug and aborts like a crash does.
 *
 * Both entry points are fed: policy_parse() (one policy, what older
 * readers use) and policy_bundle_parse() (one policy or a bundle).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what, const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	fprintf(stderr, "%s: round trip differs at byte %zu:\n--- first\n%.200s\n--- second\n"
		"%.200s\n", what, i, a + (i > 80 ? i - 80 : 0), b + (i > 80 ? i - 80 : 0));
	abort();
}

/*
 * An error must be one non-empty line without control bytes: it is
 * printed, logged and sent as sd_notify STATUS= as the reason of exit 2,
 * and object keys from the file end up in its JSON path.
 * PT_FUZZ_STRICT_ERRORS=0 checks only that it is non-empty.
 */
static void check_err(const char *what, const char *err)
{
	static int strict = -1;
	const char *c;

	if (strict < 0)
		strict = !getenv("PT_FUZZ_STRICT_ERRORS") || atoi(getenv("PT_FUZZ_STRICT_ERRORS"));
	for (c = err; strict && *c && (unsigned char)*c >= 0x20 && *c != 0x7f; c++)
		;
	if (!err[0] || (strict && *c)) {
		fprintf(stderr, "%s: bad error message '%s'\n", what, err);
		abort();
	}
}

/* Returns the serialisation of what parsed (the caller frees it), else NULL. */
static char *fuzz_policy(const char *text, size_t len)
{
	char err[512] = "";
	struct policy *p, *q;
	char *s1, *s2;

	p = policy_parse(text, len, err, sizeof(err));
	if (!p) {
		check_err("policy_parse", err);
		return NULL;
	}
	s1 = policy_to_string(p);
	if (!s1)
		abort();
	q = policy_parse(s1, strlen(s1), err, sizeof(err));
	if (!q) {
		fprintf(stderr, "policy_parse refuses its own output: %s\n", err);
		abort();
	}
	s2 = policy_to_string(q);
	if (!s2)
		abort();
	if (strcmp(s1, s2))
		differ("policy", s1, s2);
	free(s2);
	policy_free(q);
	policy_free(p);
	return s1;
}

/*
 * single: what fuzz_policy() wrote for the same bytes, NULL if it refused
 * them.  A bundle of one entry is written as that policy: when the text
 * is the same, its round trip was just proven and is not run twice.
 */
static void fuzz_bundle(const char *text, size_t len, const char *single)
{
	char err[512] = "";
	struct policy_bundle *b, *c;
	char *s1, *s2;

	b = policy_bundle_parse(text, len, err, sizeof(err));
	if (!b) {
		check_err("policy_bundle_parse", err);
		return;
	}
	if (!b->n)
		abort();
	s1 = policy_bundle_to_string(b);
	if (!s1)
		abort();
	if (single && b->n == 1 && !strcmp(s1, single)) {
		free(s1);
		policy_bundle_free(b);
		return;
	}
	c = policy_bundle_parse(s1, strlen(s1), err, sizeof(err));
	if (!c) {
		fprintf(stderr, "policy_bundle_parse refuses its own output: %s\n", err);
		abort();
	}
	s2 = policy_bundle_to_string(c);
	if (!s2)
		abort();
	if (strcmp(s1, s2))
		differ("bundle", s1, s2);
	/* what the daemon does next: find its entry */
	for (size_t i = 0; i < b->n; i++)
		if (policy_bundle_find(c, b->entries[i]->platform.fingerprint) != c->entries[i])
			abort();
	free(s2);
	free(s1);
	policy_bundle_free(c);
	policy_bundle_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *single = fuzz_policy((const char *)data, size);

	fuzz_bundle((const char *)data, size, single);
	free(single);
	return 0;
}
