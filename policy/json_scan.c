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
 * A bundle is read one entry at a time (bundle.c), so its budget and
 * its size bound are each entry's; the pass says where each entry is.
 * Host ids (merged.host_ids) are bounded by their number in the file,
 * not by the size of the entry that lists them.
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
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

/* What json-c allocates per value (measured on json-c 0.16, with slack). */
#define COST_OBJECT	800
#define COST_ARRAY	160
#define COST_SCALAR	96	/* a number, boolean or string, plus the slot holding it */

struct frame {
	bool array;
	bool ids;		/* the array of merged.host_ids */
	bool bundle;		/* the array under the top level's "bundle" key */
	size_t n;		/* entries so far */
	size_t start;		/* where its bracket is */
	char key[48];		/* object: the current member's key */
};

struct scan {
	const unsigned char *s;
	size_t len, i;
	struct frame st[POLICY_MAX_DEPTH + 1];
	int depth;
	uint64_t cost;		/* the tree of the entry being read, or of the rest */
	uint64_t total;		/* the whole document's tree */
	uint64_t outer_cost;	/* the rest's, while an entry is read */
	size_t ids;		/* host ids in the document */
	size_t ids_bytes;	/* text of host_ids arrays, in the entry being read or the rest */
	size_t outer_ids_bytes;
	bool in_entry;
	size_t entry_start;
	/* the top level's keys: "bundle" how often, and any with an escape */
	unsigned bundle_keys;
	bool odd_key;
	bool complete;		/* read to its end, every container closed */
	struct policy_span *spans;
	size_t nspans, cap;
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
static int string(struct scan *sc, char *key, size_t keylen, bool *escaped)
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

			*escaped = true;
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
			snprintf(sc->err, sc->errlen, "invalid utf-8 at byte %zu: \\u%04x is a "
				 "lone surrogate, not a character", sc->i, u);
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

static int over_budget(struct scan *sc, const char *whose)
{
	char path[256];

	where(sc, path, sizeof(path));
	snprintf(sc->err, sc->errlen, "%s: %s would take more than %d MiB of memory to read",
		 path[0] ? path : "(top level)", whose, POLICY_MAX_TREE_BYTES >> 20);
	return -E2BIG;
}

/*
 * One more value: its cost against the budget; counts: an entry of the
 * innermost container (an array's element or an object's member, counted
 * at its key), held to the bound every known container has, or for
 * host ids to their bound in the whole file.
 */
static int entry(struct scan *sc, uint64_t cost, bool counts)
{
	struct frame *top = sc->depth ? &sc->st[sc->depth - 1] : NULL;

	sc->cost += cost;
	sc->total += cost;
	if (counts && top && top->ids) {
		top->n++;
		if (++sc->ids > POLICY_MAX_HOST_IDS) {
			char path[256];

			where(sc, path, sizeof(path));
			snprintf(sc->err, sc->errlen, "%s: more than %d host ids in one file", path,
				 POLICY_MAX_HOST_IDS);
			return -E2BIG;
		}
	} else if (counts && top && ++top->n > POLICY_MAX_ENTRIES) {
		return fail_at(sc, "entries", POLICY_MAX_ENTRIES);
	}
	if (sc->cost > POLICY_MAX_TREE_BYTES)
		return over_budget(sc, sc->in_entry ? "the entry" : "the document");
	return 0;
}

/*
 * An element of a host_ids array: a string of a host id's length, or the
 * file is refused here, before its text escapes the size bounds.
 */
static int not_host_id(struct scan *sc, const char *what)
{
	char path[256];

	where(sc, path, sizeof(path));
	snprintf(sc->err, sc->errlen, "%s: %s, not a host id (a string of at most %d bytes)",
		 path, what, POLICY_HOST_ID_LEN - 1);
	return -EINVAL;
}

/*
 * The bytes of a host_ids array of span bytes and n ids that the size
 * bounds do not count: the ids as the writer writes them, no more (blanks
 * padding the array count like any other text).
 */
static size_t ids_exempt(size_t span, size_t n)
{
	size_t written = n * POLICY_HOST_ID_TEXT_BYTES + 2;

	return span < written ? span : written;
}

/* In the top level's "bundle" array, where an element starts or ends. */
static bool at_bundle_element(const struct scan *sc)
{
	return sc->depth == 2 && sc->st[1].bundle;
}

static void entry_begin(struct scan *sc)
{
	sc->in_entry = true;
	sc->entry_start = sc->i;
	sc->outer_cost = sc->cost;
	sc->outer_ids_bytes = sc->ids_bytes;
	sc->cost = 0;
	sc->ids_bytes = 0;
}

/* The entry that ended before sc->i: its size bound, and where it is. */
static int entry_end(struct scan *sc)
{
	size_t len = sc->i - sc->entry_start, n = sc->st[1].n;

	if (len - sc->ids_bytes > POLICY_MAX_ENTRY_BYTES) {
		snprintf(sc->err, sc->errlen, "bundle[%zu]: %zu bytes (its host ids aside), more "
			 "than the %lld bytes an entry of a bundle may have", n ? n - 1 : 0,
			 len - sc->ids_bytes, POLICY_MAX_ENTRY_BYTES);
		return -EFBIG;
	}
	if (sc->nspans == sc->cap) {
		size_t cap = sc->cap ? 2 * sc->cap : 64;
		struct policy_span *sp = realloc(sc->spans, cap * sizeof(*sp));

		if (!sp) {
			snprintf(sc->err, sc->errlen, "out of memory");
			return -ENOMEM;
		}
		sc->spans = sp;
		sc->cap = cap;
	}
	sc->spans[sc->nspans].start = sc->entry_start;
	sc->spans[sc->nspans++].len = len;
	sc->in_entry = false;
	sc->cost = sc->outer_cost;
	sc->ids_bytes = sc->outer_ids_bytes;
	/* what the rest's tree holds in its place */
	return entry(sc, COST_SCALAR, false);
}

static int scan_text(struct scan *sc)
{
	const char *text = (const char *)sc->s;
	size_t len = sc->len;
	bool want_key = false;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		snprintf(sc->err, sc->errlen, "starts with a byte order mark (U+FEFF): a policy is "
			 "UTF-8 without one");
		return -EINVAL;
	}
	while (sc->i < len) {
		unsigned char c = sc->s[sc->i];
		struct frame *top = sc->depth ? &sc->st[sc->depth - 1] : NULL;
		bool counts = !top || top->array;
		bool element = at_bundle_element(sc);
		const char *why = NULL;
		int rc = 0;

		switch (c) {
		case '{':
		case '[':
			if (want_key)
				return 0;
			if (element)
				entry_begin(sc);
			rc = entry(sc, c == '{' ? COST_OBJECT : COST_ARRAY, counts);
			if (!rc && top && top->ids)
				rc = not_host_id(sc, c == '{' ? "an object" : "an array");
			if (rc)
				return rc;
			if (sc->depth == POLICY_MAX_DEPTH + 1)
				return 0;	/* too deep: json-c refuses it */
			top = &sc->st[sc->depth++];
			top->array = c == '[';
			/* merged.host_ids alone: any other "host_ids" is held like the rest */
			top->ids = top->array && sc->depth > 2 && !sc->st[sc->depth - 2].array &&
				   !strcmp(sc->st[sc->depth - 2].key, "host_ids") &&
				   !sc->st[sc->depth - 3].array &&
				   !strcmp(sc->st[sc->depth - 3].key, "merged");
			top->bundle = top->array && sc->depth == 2 && !sc->st[0].array &&
				      !strcmp(sc->st[0].key, "bundle");
			top->n = 0;
			top->start = sc->i;
			top->key[0] = '\0';
			want_key = c == '{';
			sc->i++;
			break;
		case '}':
		case ']':
			if (!top || top->array != (c == ']'))
				return 0;
			sc->depth--;
			want_key = false;
			sc->i++;
			/* exempt from the size bounds: its ids at their written size, no more */
			if (top->ids)
				sc->ids_bytes += ids_exempt(sc->i - top->start, top->n);
			if (sc->in_entry && at_bundle_element(sc))
				rc = entry_end(sc);
			break;
		case ',':
			want_key = top && !top->array;
			sc->i++;
			break;
		case ':':
		case ' ':
		case '\t':
		case '\r':
		case '\n':
			sc->i++;
			break;
		case '"': {
			bool escaped = false, key = want_key;
			size_t from = sc->i;

			/* a key counts as its object's member; json-c keeps a copy of it */
			if (element)
				entry_begin(sc);
			rc = entry(sc, COST_SCALAR, want_key || counts);
			if (!rc)
				rc = string(sc, want_key ? top->key : NULL, sizeof(top->key),
					    &escaped);
			want_key = false;
			/* its quotes aside; an escape only makes it longer than it reads */
			if (!rc && !key && top && top->ids &&
			    sc->i - from - 2 >= POLICY_HOST_ID_LEN)
				rc = not_host_id(sc, "a string too long");
			if (!rc && key && sc->depth == 1) {
				sc->odd_key |= escaped;
				sc->bundle_keys += !strcmp(top->key, "bundle");
			}
			if (!rc && element)
				rc = entry_end(sc);
			break;
		}
		default:
			/* outside strings only JSON's ASCII; a bad sequence still gets its name */
			if (c >= 0x80) {
				if (!utf8_seq_len(sc->s + sc->i, len - sc->i, &why)) {
					snprintf(sc->err, sc->errlen,
						 "invalid utf-8 at byte %zu: %s", sc->i, why);
					return -EINVAL;
				}
				return 0;
			}
			/* a number or literal: one value, up to the next delimiter */
			if (element)
				entry_begin(sc);
			rc = entry(sc, COST_SCALAR, counts);
			if (!rc && top && top->ids)
				rc = not_host_id(sc, "a number or literal");
			while (!rc && sc->i < len && sc->s[sc->i] < 0x80 &&
			       !strchr(",:]}{[\" \t\r\n", sc->s[sc->i]))
				sc->i++;
			if (!rc && element)
				rc = entry_end(sc);
			break;
		}
		if (rc)
			return rc < 0 ? rc : 0;
	}
	sc->complete = !sc->depth;
	return 0;
}

int policy_scan(const char *text, size_t len, struct policy_scan_info *info, char *err,
		size_t errlen)
{
	struct scan sc = { .s = (const unsigned char *)text, .len = len, .err = err,
			   .errlen = errlen };
	bool bundle;
	int rc = scan_text(&sc);

	if (rc)
		goto out;
	/* a bundle read entry by entry: one whose every entry the pass found */
	bundle = sc.complete && sc.bundle_keys == 1 && !sc.odd_key && sc.nspans;
	if (!sc.bundle_keys && len - sc.ids_bytes > POLICY_MAX_POLICY_BYTES) {
		snprintf(err, errlen, "%zu bytes (host ids aside), larger than the %lld bytes a "
			 "policy may have", len - sc.ids_bytes, POLICY_MAX_POLICY_BYTES);
		rc = -EFBIG;
		goto out;
	}
	if ((!bundle || !info) && sc.total > POLICY_MAX_TREE_BYTES) {
		snprintf(err, errlen, "(top level): the document would take more than %d MiB of "
			 "memory to read", POLICY_MAX_TREE_BYTES >> 20);
		rc = -E2BIG;
		goto out;
	}
	if (info && bundle) {
		info->entries = sc.spans;
		info->nentries = sc.nspans;
		sc.spans = NULL;
	}
out:
	free(sc.spans);
	return rc;
}
