// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/read_file.h"
#include "policy/fleet_file.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

const char *policy_probe_state_dir(void)
{
	const char *d = getenv(POLICY_PROBE_STATE_ENV);

	return d && *d ? d : POLICY_PROBE_STATE_DIR;
}

int policy_kept_probe_path(char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", policy_probe_state_dir(), POLICY_KEPT_PROBE) >=
	    len)
		return -ENAMETOOLONG;
	return 0;
}

static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* "merged": {"hosts": N, ...} of one entry; 0 when it has none. */
static unsigned merged_hosts(struct json_object *entry)
{
	struct json_object *m, *h;

	if (!json_object_is_type(entry, json_type_object) ||
	    !json_object_object_get_ex(entry, "merged", &m))
		return 0;
	if (json_object_object_get_ex(m, "hosts", &h) && json_object_is_type(h, json_type_int))
		return json_object_get_int(h) > 0 ? (unsigned)json_object_get_int(h) : 1;
	return 1;
}

/*
 * Whether text names a fleet: a bundle, or a merged entry.  Read as the
 * loader reads (policy_text_check(): the memory budget first, a bundle an
 * entry at a time).  Text the scan refuses (beyond the bounds, bad UTF-8,
 * a NUL byte, a host id that is none) cannot be told: its negative errno,
 * which the probe refuses to replace.
 */
static int fleet_text(const char *text, size_t len, char *why, size_t wlen)
{
	struct policy_scan_info si = { 0 };
	struct json_object *root;
	char err[256];
	bool merged = false;
	unsigned hosts;
	int rc;

	/* refused by the scan (bounds, encoding, a host id): cannot be told, never replaced */
	rc = policy_text_check(text, len, &si, err, sizeof(err));
	if (rc)
		return rc;
	if (si.nentries) {
		for (size_t i = 0; i < si.nentries && !merged; i++) {
			struct json_object *e = policy_tokenize_part(text, si.entries[i].start,
								     si.entries[i].len, 2, err,
								     sizeof(err));

			merged = merged_hosts(e) > 0;
			json_object_put(e);
		}
		say(why, wlen, "a fleet bundle of %zu entr%s%s", si.nentries,
		    si.nentries == 1 ? "y" : "ies", merged ? " with merged ones" : "");
		free(si.entries);
		return 1;
	}
	root = policy_tokenize_part(text, 0, len, 0, err, sizeof(err));
	if (!root)
		return 0;
	/* a bundle the scan could not take apart (an escaped key): still a bundle */
	if (json_object_object_get_ex(root, "bundle", NULL)) {
		say(why, wlen, "a fleet bundle");
		json_object_put(root);
		return 1;
	}
	hosts = merged_hosts(root);
	json_object_put(root);
	if (!hosts)
		return 0;
	say(why, wlen, "a fleet's merged entry of %u host%s", hosts, hosts == 1 ? "" : "s");
	return 1;
}

int policy_is_fleet_file(const char *path, char *why, size_t len)
{
	char target[256];
	struct stat st;
	size_t tlen;
	char *text;
	ssize_t tl;
	int r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		tl = readlink(path, target, sizeof(target) - 1);
		target[tl > 0 ? tl : 0] = '\0';
		say(why, len, "a symbolic link%s%s", tl > 0 ? " to " : "", target);
		return 1;
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	r = read_file(path, READ_FILE_NOFOLLOW, POLICY_MAX_FILE_BYTES, &text, &tlen);
	if (r < 0)
		return r;
	r = fleet_text(text, tlen, why, len);
	free(text);
	return r;
}
