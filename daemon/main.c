// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tuned: pushes /etc/pmem-policy.json into kernel knobs and the
 * environment PMDK and glibc read, keeps it applied, restores on stop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/need_probe.h"

int main(int argc, char **argv)
{
	struct daemon d;
	int r, ret = EXIT_SUCCESS;

	memset(&d, 0, sizeof(d));
	r = options_parse(&d.opt, argc, argv);
	if (r)
		return r > 0 ? EXIT_SUCCESS : 2;
	log_setup(d.opt.verbose);
	if (d.opt.mode == MODE_NEED_PROBE) {
		/* reads only: no state directory, no lock, no bus */
		config_load(&d.opt);
		return need_probe(&d.opt);
	}
	if (daemon_init(&d) < 0) {
		/* the lock is held by another instance or cannot be trusted: said why */
		daemon_fini(&d);
		return EXIT_FAILURE;
	}

	switch (d.opt.mode) {
	case MODE_DAEMON:
		if (daemon_loop(&d) < 0)
			ret = EXIT_FAILURE;
		break;
	case MODE_ONESHOT:
		/* the originals stay in the state dir for a later --restore */
		if (daemon_reload(&d, "--oneshot") != RELOAD_APPLIED || d.stats.failed)
			ret = EXIT_FAILURE;
		break;
	case MODE_DRY_RUN:
	case MODE_VERIFY:
		/* the summary is these modes' product; a refusal was logged already */
		if (daemon_reload(&d, d.opt.mode == MODE_VERIFY ? "--verify" : "--dry-run") !=
		    RELOAD_APPLIED) {
			ret = EXIT_FAILURE;
			break;
		}
		printf("%s\n", d.status);
		if (d.opt.mode == MODE_VERIFY && d.stats.drift)
			ret = EXIT_FAILURE;
		break;
	case MODE_RESTORE:
		if (daemon_restore(&d, d.opt.force) < 0)
			ret = EXIT_FAILURE;
		break;
	case MODE_NEED_PROBE:
		break;
	}
	daemon_fini(&d);
	return ret;
}
