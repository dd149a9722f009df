// SPDX-License-Identifier: LGPL-2.1-or-later
#include <math.h>
#include <string.h>

#include "prom_text.h"
#include "utf8.h"

/* U+FFFD REPLACEMENT CHARACTER */
static const char replacement[] = "\xef\xbf\xbd";

void prom_label_value(char *buf, size_t len, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, left = strlen(s);

	while (left) {
		const char *out = (const char *)u;
		size_t in = utf8_seq_len(u, left, NULL), n = in;

		if (!in) {
			out = replacement;
			in = 1;
			n = 3;
		} else if (*u == '\\' || *u == '"' || *u == '\n') {
			out = *u == '\\' ? "\\\\" : *u == '"' ? "\\\"" : "\\n";
			n = 2;
		}
		if (o + n >= len)
			break;
		memcpy(buf + o, out, n);
		o += n;
		u += in;
		left -= in;
	}
	buf[o] = '\0';
}

void prom_group(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

void prom_sample(FILE *f, const char *name, const char *labels, double v)
{
	if (!isfinite(v))
		return;
	fprintf(f, "%s%s%s%s %.15g\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "",
		v);
}
