// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/read_file.h"
#include "policy/fleet_file.h"
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
static int merged_hosts(struct json_object *entry)
{
	struct json_object *m, *h;

	if (!json_object_is_type(entry, json_type_object) ||
	    !json_object_object_get_ex(entry, "merged", &m))
		return 0;
	if (json_object_object_get_ex(m, "hosts", &h) && json_object_is_type(h, json_type_int))
		return json_object_get_int(h) > 0 ? json_object_get_int(h) : 1;
	return 1;
}

int policy_is_fleet_file(const char *path, char *why, size_t len)
{
	struct json_object *root, *arr;
	char target[256];
	struct stat st;
	size_t n;
	char *text;
	ssize_t tl;
	int r, hosts;

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
	r = read_file(path, READ_FILE_NOFOLLOW, POLICY_MAX_FILE_BYTES, &text, NULL);
	if (r < 0)
		return r;
	root = json_tokener_parse(text);
	free(text);
	if (!root)
		return 0;
	r = 0;
	if (json_object_object_get_ex(root, "bundle", &arr) &&
	    json_object_is_type(arr, json_type_array)) {
		n = json_object_array_length(arr);
		hosts = 0;
		for (size_t i = 0; i < n; i++)
			hosts += merged_hosts(json_object_array_get_idx(arr, i));
		say(why, len, "a fleet bundle of %zu entr%s%s", n, n == 1 ? "y" : "ies",
		    hosts ? " with merged ones" : "");
		r = 1;
	} else if ((hosts = merged_hosts(root))) {
		say(why, len, "a fleet's merged entry of %d host%s", hosts, hosts == 1 ? "" : "s");
		r = 1;
	}
	json_object_put(root);
	return r;
}
