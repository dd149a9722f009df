/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The knob map: /etc/pmem-tuned/knobs.d/NAME.conf, read in file-name order.
 * One knob a line, blank-separated:
 *
 *   SOURCE  PATH-GLOB  [FORMAT]  [CONDITION]
 *
 * SOURCE is the name of a policy export (export_keys.h: for example
 * kernel.threshold_bytes, libpmem.PMEM_MOVNT_THRESHOLD,
 * glibc.cpu.x86_non_temporal_threshold) or a literal "=VALUE".  PATH-GLOB
 * is a sysfs path with glob(7) patterns, below /sys/module/NAME/parameters/,
 * /sys/block/NAME/dax/ or /sys/bus/nd/devices/NAME/.  FORMAT is printf-like
 * with one of %llu (default), %llx, %#llx or %s.  CONDITION is
 * persistence_domain=VALUE: write only where the namespace's region
 * reports that domain.  pmem-tuned(8) is the reference.
 */
#ifndef PT_KNOBMAP_H
#define PT_KNOBMAP_H

#include <limits.h>
#include <stddef.h>

struct export_key;

enum knob_root {
	KNOB_MODULE,		/* /sys/module/NAME/parameters/FILE */
	KNOB_BLOCK_DAX,		/* /sys/block/NAME/dax/FILE */
	KNOB_ND_DEVICE,		/* /sys/bus/nd/devices/NAME/ATTR... */
};

struct knob {
	char source[128];	/* export name, or "=literal" */
	const struct export_key *export;	/* source's key; NULL for a literal */
	char path[PATH_MAX];	/* glob, relative to the sysfs root */
	char format[32];
	char cond_domain[64];	/* "" = no condition */
	enum knob_root root;
	char origin[PATH_MAX + 16];	/* "file:line" for messages */
};

struct knobmap {
	size_t n;
	struct knob *k;
};

/* Load every *.conf of dir; bad lines are logged and skipped.  Missing dir = empty. */
int knobmap_load(struct knobmap *km, const char *dir);
/* Parse one line; -EINVAL with the reason in why. */
int knob_parse_line(struct knob *k, char *line, char *why, size_t whylen);
void knobmap_free(struct knobmap *km);

/*
 * Lexical check of a sysfs path (glob or expanded): one of the three
 * allowed shapes, no "." or ".." components.  Returns 0 and the root
 * kind, or -EPERM with a reason.
 */
int knob_path_check(const char *path, enum knob_root *root, char *why, size_t whylen);

/* Render value through a knob format into out. */
int knob_format(const struct knob *k, const char *value, char *out, size_t len);

#endif
