// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the daemon's state-file parser: whatever the
 * bytes, state_parse() keeps what a fresh pass could have saved and
 * drops the rest, without a crash, a leak or undefined behaviour.  Every
 * entry it keeps must pass the same check again (a restore writes from
 * them), and an entry for something that did not exist has no original.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state st;
	char why[160];
	char *text;
	size_t i;

	log_set_max_prio(LOG_CRIT);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&st, 0, sizeof(st));
	if (state_parse(&st, text, size) == 0) {
		for (i = 0; i < st.n; i++) {
			const struct state_entry *e = &st.e[i];

			if (state_entry_check(e, why, sizeof(why)) < 0 ||
			    (!e->existed && e->original) || e->touched)
				abort();
		}
	}
	state_free(&st);
	free(text);
	return 0;
}
