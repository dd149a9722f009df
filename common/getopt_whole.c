// SPDX-License-Identifier: LGPL-2.1-or-later
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "common/getopt_whole.h"

/* Edits (insert, delete, substitute) between a[0..na) and b, cut off above 3. */
static unsigned edit_distance(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b);
	unsigned row[64], prev, cur;

	if (na >= 64 || nb >= 64)
		return 99;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[nb] > 3 ? 99 : row[nb];
}

const struct option *getopt_nearest(const struct option *longopts, const char *name,
				    size_t name_len)
{
	const struct option *best = NULL, *prefixed = NULL;
	unsigned best_d = 3, nprefixed = 0;

	assert(longopts && name);
	for (const struct option *o = longopts; o->name; o++) {
		unsigned d = edit_distance(name, name_len, o->name);

		if (d < best_d) {
			best_d = d;
			best = o;
		}
		if (name_len && !strncmp(o->name, name, name_len)) {
			prefixed = o;
			nprefixed++;
		}
	}
	if (best)
		return best;
	return nprefixed == 1 ? prefixed : NULL;
}

static void suggest(const char *prog, const char *what, const char *word,
		    const struct option *longopts)
{
	const char *name = word + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *near = getopt_nearest(longopts, name, len);

	if (near && eq && strlen(near->name) == len && near->has_arg == no_argument)
		fprintf(stderr, "%s: %.*s: takes no argument\n", prog, (int)(len + 2), word);
	else if (near)
		fprintf(stderr, "%s: %.*s: %s; did you mean --%s?\n", prog, (int)(len + 2), word,
			what, near->name);
	else
		fprintf(stderr, "%s: %.*s: %s (--help lists them)\n", prog, (int)(len + 2), word,
			what);
}

/* The argv word that named the long option getopt_long() just returned. */
static const char *long_word(char **argv, const struct option *o)
{
	/* "--name ARG": optind is past ARG; "--name=ARG" or no argument: past the word */
	if (o->has_arg != no_argument && optarg && optind >= 2 && optarg == argv[optind - 1] &&
	    !strncmp(argv[optind - 2], "--", 2))
		return argv[optind - 2];
	return argv[optind - 1];
}

int getopt_whole(int argc, char **argv, const char *shortopts, const struct option *longopts,
		 const char *prog)
{
	char quiet[128];
	int c, idx = -1, saved_opterr = opterr;
	const char *word;

	assert(shortopts && longopts && prog);
	assert(shortopts[0] != ':' && shortopts[0] != '+' && shortopts[0] != '-');
	/* a leading ':' makes a missing argument ':' instead of '?' */
	if (snprintf(quiet, sizeof(quiet), ":%s", shortopts) >= (int)sizeof(quiet))
		return '?';
	opterr = 0;
	c = getopt_long(argc, argv, quiet, longopts, &idx);
	opterr = saved_opterr;
	if (c == -1)
		return c;
	if (c == ':') {
		if (optopt && strchr(shortopts, optopt) && (optind < 1 ||
							    strncmp(argv[optind - 1], "--", 2)))
			fprintf(stderr, "%s: -%c: needs an argument\n", prog, optopt);
		else
			fprintf(stderr, "%s: %s: needs an argument\n", prog, argv[optind - 1]);
		return '?';
	}
	if (c == '?') {
		word = optind >= 1 && optind <= argc ? argv[optind - 1] : NULL;
		if (word && !strncmp(word, "--", 2))
			suggest(prog, "not an option", word, longopts);
		else if (optopt)
			fprintf(stderr, "%s: -%c: not an option (--help lists them)\n", prog,
				optopt);
		else
			fprintf(stderr, "%s: not an option (--help lists them)\n", prog);
		return '?';
	}
	if (idx < 0)
		return c;	/* a short option */
	word = long_word(argv, &longopts[idx]);
	{
		const char *name = word + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		if (strncmp(word, "--", 2) || len != strlen(longopts[idx].name) ||
		    strncmp(name, longopts[idx].name, len)) {
			fprintf(stderr, "%s: %.*s: not an option; did you mean --%s?\n", prog,
				(int)(len + 2), word, longopts[idx].name);
			return '?';
		}
	}
	return c;
}
