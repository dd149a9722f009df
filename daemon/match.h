/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_MATCH_H
#define PT_MATCH_H

#include <stdbool.h>
#include <stddef.h>

struct policy;
struct policy_env_report;

enum pick_result {
	PICK_OK,		/* *out is this host's policy */
	PICK_MISSING,		/* no policy file */
	PICK_INVALID,		/* unreadable, untrusted or failed validation */
	PICK_FOREIGN,		/* valid, but made for other platforms */
	PICK_UNKNOWN_HOST,	/* this host could not be fingerprinted */
};

/*
 * The one place the daemon decides "this policy is for this host".
 * Loads path (a single policy or a fleet bundle) the way a root reader
 * must: a file not owned by root or writable by group/others is
 * refused.  Picks the entry whose fingerprint is this host's; with
 * force, a file holding one entry is taken whatever its platform.
 * On PICK_OK *out is the caller's and *env (unless NULL) compares this
 * host's kernel and microcode with what the entry was probed on: an
 * environment change is reported, never a reason to refuse the entry.
 * Otherwise why says what happened (path included).  sysfs_root "" =
 * the real system.
 */
enum pick_result policy_pick(const char *path, const char *sysfs_root, bool force,
			     struct policy **out, struct policy_env_report *env, char *why,
			     size_t len);

#endif
