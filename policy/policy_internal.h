/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between the policy library's files; not part of its interface. */
#ifndef PMEM_POLICY_INTERNAL_H
#define PMEM_POLICY_INTERNAL_H

#include <stddef.h>

#include "policy/policy.h"

struct json_object;

/* Where one entry of a bundle is in its text. */
struct policy_span {
	size_t start, len;
};

struct policy_scan_info {
	/* the top level's "bundle" elements, in order; 0: read the text whole */
	size_t nentries;
	struct policy_span *entries;	/* the caller frees */
};

/*
 * json_scan.c: before json-c sees text, its containers held to the
 * bounds of the known ones, the tree to a memory budget and the text
 * to the size bounds (policy_limits.h); strict UTF-8, no lone
 * surrogate, no BOM.  0, or negative errno and one line in err.  What
 * is not JSON at all is left for json-c to name.
 * With info, a bundle whose every entry was found is read one entry at a
 * time, and so held to the budget entry by entry: info says where they
 * are.  Without info, or for any other text, the whole tree is held to it.
 */
int policy_scan(const char *text, size_t len, struct policy_scan_info *info, char *err,
		size_t errlen);
/* Strict JSON with the size and depth limits; NULL + one line in err. */
struct json_object *policy_tokenize(const char *text, size_t len, char *err, size_t errlen);
/*
 * json-c's tree of text[off, off + len) of a document scanned already
 * (policy_scan()), a value nested below levels down in it (2 for an
 * entry of a bundle: {"bundle": [ENTRY]}); errors name the byte of the
 * document.  NULL + one line in err.
 */
struct json_object *policy_tokenize_part(const char *text, size_t off, size_t len, int below,
					 char *err, size_t errlen);
/*
 * json-c's tree of a document scanned already, with a 0 in place of each
 * of skip[0..nskip) (ascending, apart): a bundle's own keys without its
 * entries.  Errors name the byte of the document.  NULL + one line in err.
 */
struct json_object *policy_tokenize_skipping(const char *text, size_t len,
					     const struct policy_span *skip, size_t nskip,
					     char *err, size_t errlen);
/* The checks of policy_tokenize() before json-c: size, NUL bytes, policy_scan(). */
int policy_text_check(const char *text, size_t len, struct policy_scan_info *info, char *err,
		      size_t errlen);
/*
 * Tokenize text and build an object from its root with from_json; the
 * root is freed either way, errno as from_json left it.  NULL + one line in err.
 */
typedef void *(*policy_from_json_fn)(struct json_object *root, char *err, size_t errlen);
/* As policy_parse_json, from a root tokenized already (NULL: tokenizing failed, err says). */
void *policy_parse_root(struct json_object *root, policy_from_json_fn from_json, char *err,
			size_t errlen);
void *policy_parse_json(const char *text, size_t len, policy_from_json_fn from_json, char *err,
			size_t errlen);
/* root as the files are written (pretty, one trailing newline) and freed; NULL on ENOMEM. */
char *policy_json_text(struct json_object *root);
/* As policy_from_json, reporting paths below path ("bundle[2]"). */
struct policy *policy_from_json_at(struct json_object *root, const char *path, char *err,
				   size_t errlen);
/*
 * Read a policy file whole: a regular file of at most the size limit,
 * trusted (trusted_stat(): owned by root or the reader, not writable by
 * group or others) unless POLICY_LOAD_INSECURE.  *buf is NUL-terminated; caller frees.  Errors
 * name the file.  Returns 0 or negative errno.
 */
int policy_read_file(const char *path, unsigned flags, char **buf, size_t *len, char *err,
		     size_t errlen);

/* Read path as policy_read_file does, then parse it; errors name the file. */
typedef void *(*policy_parse_fn)(const char *text, size_t len, char *err, size_t errlen);
void *policy_load_with(const char *path, unsigned flags, policy_parse_fn parse, char *err,
		       size_t errlen);

/* raw_samples.c: free c's raw samples (of an op of nsizes sizes). */
void policy_curve_release_raw(struct policy_curve *c, size_t nsizes);

/* Write text atomically with mode 0644 and free it (NULL: -ENOMEM). */
int policy_save_text(char *text, const char *path, char *err, size_t errlen);

/* A string member of a struct, by its offset, and the name it goes by outside. */
struct named_member {
	const char *name;
	size_t off;
};

/* Free what op holds (not op itself). */
void policy_op_release(struct policy_op *op);

#endif
