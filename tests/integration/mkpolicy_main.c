// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line front of mkpolicy.c for the shell tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkpolicy.h"

int main(int argc, char **argv)
{
	struct mkpolicy_opts o = { 0 };
	int i, r;

	if (argc < 2) {
		fprintf(stderr, "usage: mkpolicy OUT [options]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-libpmem")) {
			o.no_libpmem = true;
		} else if (!strcmp(a, "--no-glibc")) {
			o.no_glibc = true;
		} else if (!strcmp(a, "--no-kernel")) {
			o.no_kernel = true;
		} else if (!v) {
			fprintf(stderr, "mkpolicy: %s needs a value\n", a);
			return 2;
		} else if (!strcmp(a, "--host")) {
			o.host_root = v, i++;
		} else if (!strcmp(a, "--fingerprint")) {
			o.fingerprint = v, i++;
		} else if (!strcmp(a, "--movnt")) {
			o.movnt = v, i++;
		} else if (!strcmp(a, "--nt")) {
			o.nt = v, i++;
		} else if (!strcmp(a, "--movsb")) {
			o.movsb = v, i++;
		} else if (!strcmp(a, "--glibc-target")) {
			o.glibc_target = v, i++;
		} else if (!strcmp(a, "--kernel")) {
			if (!strcmp(v, "open"))
				o.kernel_open = true;
			else
				o.kernel = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--env") && o.nenv < 8) {
			o.env[o.nenv++] = v, i++;
		} else {
			fprintf(stderr, "mkpolicy: unknown option %s\n", a);
			return 2;
		}
	}
	r = mkpolicy_write(&o, argv[1]);
	if (r < 0) {
		fprintf(stderr, "mkpolicy: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	return 0;
}
