// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for what pmem-tune --merge and --diff do with fleet
 * input the loader accepted: merging must not crash, and what it writes
 * must load again (a fleet file the daemon refuses is an outage on every
 * host it was sent to) and be a fixed point of the JSON round trip.
 *
 * The input is loaded as a bundle and merged with a second copy of
 * itself, so that every fingerprint is aggregated over two "hosts" and
 * the medians, min/max spreads, decisions and exports are recomputed.
 * The copies are told apart by their host ids (a merged entry's too):
 * --merge refuses one host twice.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "rule/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_bundle *in[2] = { NULL, NULL }, *out = NULL, *again;
	char err[512] = "";
	char *s1, *s2;

	in[0] = policy_bundle_parse((const char *)data, size, err, sizeof(err));
	if (!in[0])
		return 0;
	in[1] = policy_bundle_parse((const char *)data, size, err, sizeof(err));
	if (!in[1])
		abort();	/* the same bytes parsed once already */
	for (int k = 0; k < 2; k++) {
		size_t id = 0;

		for (size_t e = 0; e < in[k]->n; e++) {
			struct policy *p = in[k]->entries[e];

			snprintf(p->generator.host_id, sizeof(p->generator.host_id),
				 "sha256:%d%063zu", k + 1, id++);
			/* ascending, as the loader keeps them */
			for (size_t j = 0; j < p->merged.nhost_ids; j++)
				snprintf(p->merged.host_ids[j], sizeof(p->merged.host_ids[j]),
					 "sha256:%d%063zu", k + 1, id++);
		}
	}
	if (policy_merge(in, 2, NULL, &out, err, sizeof(err))) {
		/* refusing is fine, with a reason */
		if (!err[0])
			abort();
		goto done;
	}
	s1 = policy_bundle_to_string(out);
	if (!s1)
		abort();
	again = policy_bundle_parse(s1, strlen(s1), err, sizeof(err));
	if (!again) {
		fprintf(stderr, "--merge wrote a file the loader refuses: %s\n", err);
		abort();
	}
	s2 = policy_bundle_to_string(again);
	if (!s2 || strcmp(s1, s2)) {
		fprintf(stderr, "merged bundle does not round-trip\n");
		abort();
	}
	/* --diff of an input against its merge: any count, no crash */
	policy_bundle_diff(in[0], out, NULL);
	free(s2);
	free(s1);
	policy_bundle_free(again);
done:
	policy_bundle_free(out);
	policy_bundle_free(in[1]);
	policy_bundle_free(in[0]);
	return 0;
}
