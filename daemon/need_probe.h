/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_NEED_PROBE_H
#define PT_NEED_PROBE_H

struct options;

/* ExecCondition= exit statuses: 0 runs the unit, 1 to 254 skip it without failing. */
#define NEED_PROBE_YES	0
#define NEED_PROBE_NO	1

/*
 * Should this host be probed now?  Prints one line on stdout saying why
 * ("probe: ..." or "no probe: ...") and returns NEED_PROBE_YES or
 * NEED_PROBE_NO.  Reads o's policy, config (reprobe_on_*) and roots, the
 * kept probe in the probe's state directory; writes nothing.
 */
int need_probe(const struct options *o);

#endif
