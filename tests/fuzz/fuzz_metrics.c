// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for pmem-tune --metrics: a policy file and the daemon's
 * status and verify files in (the input split at its first two NUL bytes),
 * a Prometheus textfile out.  Whatever the input, the output must be valid
 * exposition format, as node-exporter would read it: only the HELP/TYPE
 * groups and samples of names we write, every sample under its own group,
 * every label value closed and escaped, every value a finite number, no
 * NUL, and nothing but UTF-8 (promtool refuses a file with one bad byte).
 * A hostile host file must not forge a sample or a line.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/metrics_text.h"
#include "common/utf8.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A label value and a path to escape: quote, backslash, newline, a byte that is not UTF-8. */
#define PATH "/etc/pmem-\"policy\\\n\xff.json"

static void bad(const char *why, const char *line, size_t n)
{
	fprintf(stderr, "--metrics output: %s: '%.*s'\n", why, (int)(n > 300 ? 300 : n), line);
	abort();
}

static size_t name_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i && !isdigit((unsigned char)s[0]) ? i : 0;
}

/* {name="value",...}: returns its length, aborts when malformed. */
static size_t check_labels(const char *s, size_t n, const char *line, size_t ln)
{
	size_t i = 1, k;

	for (;;) {
		k = name_len(s + i, n - i);
		if (!k || i + k + 2 > n || s[i + k] != '=' || s[i + k + 1] != '"')
			bad("label name", line, ln);
		for (i += k + 2; i < n && s[i] != '"'; i++)
			if (s[i] == '\\' &&
			    (++i == n || (s[i] != '\\' && s[i] != '"' && s[i] != 'n')))
				bad("label escape", line, ln);
		if (i >= n)
			bad("label value not closed", line, ln);
		i++;
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		if (i < n && s[i] == '}')
			return i + 1;
		bad("label list", line, ln);
	}
}

static void check_text(const char *text, size_t len)
{
	char group[128] = "";
	const char *line = text, *end;

	if (strlen(text) != len)
		bad("NUL byte", text, len);
	if (len && text[len - 1] != '\n')
		bad("last line not ended", text, len);
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_seq_len((const unsigned char *)text + i, len - i, NULL)))
			bad("not UTF-8", text + i, len - i);
	for (; line < text + len; line = end + 1) {
		size_t ln, k, i;
		char *vend;
		double v;

		end = memchr(line, '\n', (size_t)(text + len - line));
		ln = (size_t)(end - line);
		if (ln > 2 && line[0] == '#') {
			/* "# HELP name text" then "# TYPE name gauge", one group per name */
			bool help = ln > 7 && !memcmp(line, "# HELP ", 7);

			if (!help && (ln < 7 || memcmp(line, "# TYPE ", 7)))
				bad("comment", line, ln);
			k = name_len(line + 7, ln - 7);
			if (!k || k >= sizeof(group) || line[7 + k] != ' ' ||
			    (strncmp(line + 7, "pmem_tune_", 10) &&
			     strncmp(line + 7, "pmem_tuned_", 11)))
				bad("metric name", line, ln);
			if (help) {
				memcpy(group, line + 7, k);
				group[k] = '\0';
			} else if (strlen(group) != k || memcmp(group, line + 7, k) ||
				   ln != 7 + k + 6 || memcmp(line + 7 + k, " gauge", 6)) {
				bad("TYPE without its HELP", line, ln);
			}
			continue;
		}
		/* a sample of the current group */
		k = name_len(line, ln);
		if (!k || !group[0] || strlen(group) != k || memcmp(line, group, k))
			bad("sample outside its group", line, ln);
		i = k;
		if (i < ln && line[i] == '{')
			i += check_labels(line + i, ln - i, line, ln);
		if (i >= ln || line[i] != ' ' || i + 1 == ln)
			bad("no value", line, ln);
		v = strtod(line + i + 1, &vend);
		if (vend != end || !isfinite(v) || isspace((unsigned char)line[i + 1]))
			bad("value", line, ln);
	}
}

/* The next NUL-separated part of the input. */
static const char *part(const char **p, const char *end, size_t *n)
{
	const char *s = *p, *z;

	if (s > end)
		return NULL;
	z = memchr(s, '\0', (size_t)(end - s));
	*n = (size_t)((z ? z : end) - s);
	*p = (z ? z : end) + 1;
	return s;
}

static struct json_object *parse_json(const char *s, size_t n)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (!s)
		return NULL;
	tok = json_tokener_new_ex(16);
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, s, (int)n);
	json_tokener_free(tok);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *pol, *st, *vf;
	struct metrics_in in = { .path = PATH };
	struct policy_bundle *b;
	struct policy *none;
	size_t npol = 0, nst = 0, nvf = 0, len = 0, k;
	char err[512], *text;

	if (size > 1 << 20)
		return 0;
	pol = part(&p, end, &npol);
	st = part(&p, end, &nst);
	vf = part(&p, end, &nvf);
	/* NULL: the policy could not be read, what the daemon's files alone give */
	b = policy_bundle_parse(pol, npol, err, sizeof(err));
	none = policy_new();
	if (!none)
		return 0;
	snprintf(none->platform.fingerprint, sizeof(none->platform.fingerprint), "sha256:none");
	in.status = parse_json(st, nst);
	in.verify = parse_json(vf, nvf);
	in.bundle = b;
	/* this host: one of the bundle's entries (which one from the size), or none */
	k = b ? size % (b->n + 1) : 0;
	in.host = b && k < b->n ? b->entries[k] : none;
	text = metrics_text(&in, &len);
	if (!text)
		abort();
	check_text(text, len);
	free(text);
	json_object_put(in.status);
	json_object_put(in.verify);
	policy_bundle_free(b);
	policy_free(none);
	return 0;
}
