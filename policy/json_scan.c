// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A lexical pass over a policy's text before json-c builds a tree of it.
 *
 * json-c allocates every value it reads, known key or not: an empty
 * object costs it about 800 bytes, so 8 MiB of "{}," under a key the
 * reader would ignore becomes gigabytes.  Here every container, known
 * or not, is held to the bounds the known ones have (entries, depth),
 * and the tree json-c would build to a memory budget, before any of it
 * is allocated.
 *
 * The same pass holds the text to strict UTF-8 (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF) and \u escapes to whole
 * surrogate pairs: json-c accepts overlong forms and turns a lone
 * surrogate into U+FFFD, and names reach logs and terminals.
 *
 * Anything else that is not JSON is left for json-c to report.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"
#include "policy_internal.h"
#include "policy_limits.h"

/* What json-c allocates per value (measured on json-c 0.16, with slack). */
#define COST_OBJECT	800
#define COST_ARRAY	160
#define COST_SCALAR	96	/* a number, boolean or string, plus the slot holding it */

struct frame {
	bool array;
	size_t n;		/* entries so far */
	char key[48];		/* object: the current member's key */
};

struct scan {
	const unsigned char *s;
	size_t len, i;
	struct frame st[POLICY_MAX_DEPTH + 1];
	int depth;
	uint64_t cost;
	char *err;
	size_t errlen;
};

/* The JSON path of the current position, as the reader names it. */
static void where(const struct scan *sc, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < sc->depth && o < len; d++) {
		const struct frame *f = &sc->st[d];

		if (f->array)
			o += (size_t)snprintf(buf + o, len - o, "[%zu]", f->n ? f->n - 1 : 0);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "." : "", f->key);
	}
}

static int fail_at(struct scan *sc, const char *what, size_t max)
{
	char path[256];

	where(sc, path, sizeof(path));
	snprintf(sc->err, sc->errlen, "%s: more than %zu %s in one %s",
		 path[0] ? path : "(top level)", max, what,
		 sc->st[sc->depth - 1].array ? "array" : "object");
	return -E2BIG;
}

static int hex4(const unsigned char *s, size_t n, unsigned *v)
{
	*v = 0;
	if (n < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		unsigned char c = s[k];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return 0;
}

/*
 * The string starting at sc->i (a '"'); on return sc->i is past its end.
 * Returns 0, 1 when it is not JSON (json-c says why), or -EINVAL.
 */
static int string(struct scan *sc, char *key, size_t keylen)
{
	const unsigned char *s = sc->s;
	size_t o = 0;

	for (sc->i++; sc->i < sc->len; ) {
		unsigned char c = s[sc->i];
		const char *why = NULL;
		size_t n;

		if (c == '"') {
			sc->i++;
			if (key)
				key[o] = '\0';
			return 0;
		}
		if (c == '\\') {
			unsigned u, lo;

			if (sc->i + 1 >= sc->len)
				return 1;
			if (s[sc->i + 1] != 'u') {
				if (key && o + 1 < keylen)
					key[o++] = '?';
				sc->i += 2;
				continue;
			}
			if (hex4(s + sc->i + 2, sc->len - sc->i - 2, &u))
				return 1;
			if (u >= 0xd800 && u <= 0xdbff) {
				/* a high surrogate is half of a pair: the low half must follow */
				if (sc->i + 12 > sc->len || s[sc->i + 6] != '\\' ||
				    s[sc->i + 7] != 'u' || hex4(s + sc->i + 8, 4, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					goto lone;
				sc->i += 12;
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				goto lone;
			} else {
				sc->i += 6;
			}
			if (key && o + 1 < keylen)
				key[o++] = u >= 0x20 && u < 0x7f ? (char)u : '?';
			continue;
lone:
			snprintf(sc->err, sc->errlen, "invalid utf-8 at byte %zu: \\u%04x is a lone "
				 "surrogate, not a character", sc->i, u);
			return -EINVAL;
		}
		n = utf8_seq_len(s + sc->i, sc->len - sc->i, &why);
		if (!n) {
			snprintf(sc->err, sc->errlen, "invalid utf-8 at byte %zu: %s", sc->i, why);
			return -EINVAL;
		}
		if (key && o + 1 < keylen)
			key[o++] = n == 1 && c >= 0x20 && c < 0x7f ? (char)c : '?';
		sc->i += n;
	}
	return 1;
}

/*
 * One more value: its cost against the budget; counts: an entry of the
 * innermost container (an array's element or an object's member, counted
 * at its key), held to the bound every known container has.
 */
static int entry(struct scan *sc, uint64_t cost, bool counts)
{
	sc->cost += cost;
	if (counts && sc->depth && ++sc->st[sc->depth - 1].n > POLICY_MAX_ENTRIES)
		return fail_at(sc, "entries", POLICY_MAX_ENTRIES);
	if (sc->cost > POLICY_MAX_TREE_BYTES) {
		char path[256];

		where(sc, path, sizeof(path));
		snprintf(sc->err, sc->errlen, "%s: the document would take more than %d MiB of "
			 "memory to read", path[0] ? path : "(top level)",
			 POLICY_MAX_TREE_BYTES >> 20);
		return -E2BIG;
	}
	return 0;
}

int policy_scan(const char *text, size_t len, char *err, size_t errlen)
{
	struct scan sc = { .s = (const unsigned char *)text, .len = len, .err = err,
			   .errlen = errlen };
	bool want_key = false;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		snprintf(err, errlen, "starts with a byte order mark (U+FEFF): a policy is UTF-8 "
			 "without one");
		return -EINVAL;
	}
	while (sc.i < len) {
		unsigned char c = sc.s[sc.i];
		struct frame *top = sc.depth ? &sc.st[sc.depth - 1] : NULL;
		bool counts = !top || top->array;
		const char *why = NULL;
		int rc = 0;

		switch (c) {
		case '{':
		case '[':
			if (want_key)
				return 0;
			rc = entry(&sc, c == '{' ? COST_OBJECT : COST_ARRAY, counts);
			if (rc)
				return rc;
			if (sc.depth == POLICY_MAX_DEPTH + 1)
				return 0;	/* too deep: json-c refuses it */
			top = &sc.st[sc.depth++];
			top->array = c == '[';
			top->n = 0;
			top->key[0] = '\0';
			want_key = c == '{';
			sc.i++;
			break;
		case '}':
		case ']':
			if (!top || top->array != (c == ']'))
				return 0;
			sc.depth--;
			want_key = false;
			sc.i++;
			break;
		case ',':
			want_key = top && !top->array;
			sc.i++;
			break;
		case ':':
		case ' ':
		case '\t':
		case '\r':
		case '\n':
			sc.i++;
			break;
		case '"':
			/* a key counts as its object's member; json-c keeps a copy of it */
			rc = entry(&sc, COST_SCALAR, want_key || counts);
			if (!rc)
				rc = string(&sc, want_key ? top->key : NULL, sizeof(top->key));
			want_key = false;
			break;
		default:
			/* outside strings only JSON's ASCII; a bad sequence still gets its name */
			if (c >= 0x80) {
				if (!utf8_seq_len(sc.s + sc.i, len - sc.i, &why)) {
					snprintf(err, errlen, "invalid utf-8 at byte %zu: %s", sc.i,
						 why);
					return -EINVAL;
				}
				return 0;
			}
			/* a number or literal: one value, up to the next delimiter */
			rc = entry(&sc, COST_SCALAR, counts);
			while (!rc && sc.i < len && sc.s[sc.i] < 0x80 &&
			       !strchr(",:]}{[\" \t\r\n", sc.s[sc.i]))
				sc.i++;
			break;
		}
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return 0;
}
