// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the knob map's line parser: every line of the
 * input goes through knob_parse_line().  What it accepts must hold what
 * the sysfs sink relies on: a path that passes knob_path_check() with
 * the same root kind, NUL-terminated fields, a condition only on device
 * knobs; and its format renders any value without overflowing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"
#include "daemon/knobmap.h"
#include "daemon/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_knob(const struct knob *k)
{
	static const char *const values[] = {
		"0", "1", "768", "18446744073709551615", "18446744073709551616", "0x10", "-1",
		"Y", "", "%s%n", "a b",
	};
	enum knob_root root;
	char why[256], out[256];
	size_t i;

	if (!memchr(k->source, 0, sizeof(k->source)) || !memchr(k->path, 0, sizeof(k->path)) ||
	    !memchr(k->format, 0, sizeof(k->format)) ||
	    !memchr(k->cond_domain, 0, sizeof(k->cond_domain)))
		abort();
	if (knob_path_check(k->path, &root, why, sizeof(why)) < 0 || root != k->root)
		abort();
	for (i = 0; i < ARRAY_SIZE(values); i++)
		if (knob_format(k, values[i], out, sizeof(out)) == 0 &&
		    !memchr(out, 0, sizeof(out)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	log_set_max_prio(LOG_CRIT);
	while (off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - data - off) : size - off;
		char why[256] = "", *line = malloc(len + 1);
		struct knob k;

		if (!line)
			return 0;
		memcpy(line, data + off, len);
		line[len] = '\0';
		memset(&k, 0, sizeof(k));
		if (knob_parse_line(&k, line, why, sizeof(why)) == 0)
			check_knob(&k);
		else if (!why[0])
			abort();	/* a refusal always says why */
		free(line);
		off += len + 1;
	}
	return 0;
}
