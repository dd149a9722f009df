// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --check: is the policy file valid, and is it this host's? */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fingerprint.h"
#include "fleet.h"
#include "policy.h"

int check_cmd(const char *path, unsigned flags)
{
	char err[600];
	struct policy_bundle *b = policy_bundle_load(path, flags, err, sizeof(err));
	struct policy *host = NULL, *p;
	int status = 1;

	if (!b) {
		printf("invalid: %s\n", err);
		return 2;
	}
	host = policy_new();
	if (!host || fingerprint_host(NULL, host)) {
		printf("unknown: %s: cannot read this host's identity\n", path);
		goto out;
	}
	p = policy_bundle_find(b, host->platform.fingerprint);
	if (!p) {
		printf("other platform: %s has no entry for this host (%s)\n", path,
		       host->platform.fingerprint);
		goto out;
	}
	/*
	 * Same hardware, but the software that decides the copy speed moved
	 * since the probe: new microcode or a new kernel may change either
	 * side of a crossover, so the policy asks to be measured again.
	 */
	if (p->platform.cpu.microcode[0] &&
	    strcmp(p->platform.cpu.microcode, host->platform.cpu.microcode)) {
		printf("drift: %s was probed with microcode %s, this host runs %s\n", path,
		       p->platform.cpu.microcode, host->platform.cpu.microcode);
		goto out;
	}
	if (p->platform.kernel[0] && strcmp(p->platform.kernel, host->platform.kernel)) {
		printf("drift: %s was probed on kernel %s, this host runs %s\n", path,
		       p->platform.kernel, host->platform.kernel);
		goto out;
	}
	printf("valid: %s matches this host (%s)\n", path, host->platform.fingerprint);
	status = 0;
out:
	policy_free(host);
	policy_bundle_free(b);
	return status;
}
