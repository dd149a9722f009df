// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "common/atomic_file.h"
#include "common/trusted.h"
#include "daemon/log.h"
#include "daemon/status_file.h"

static void add_uint(struct json_object *o, const char *key, unsigned v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/*
 * The status goes only into a state directory that exists and is ours:
 * --verify does not read the state (so state.h's check is not made),
 * and where no daemon ran, or the directory is someone else's, a
 * monitoring file is not worth a word beside its answer.
 */
static bool status_dir_ours(const char *dir)
{
	char why[PATH_MAX + 64];
	int r = trusted_dir(dir, why, sizeof(why));

	if (r < 0)
		log_debug("%s: no status written: %s", dir,
			  r == -ENOENT ? "no such directory" : why);
	return r == 0;
}

void status_file_write(const struct daemon *d, bool applied)
{
	bool verify = d->opt.mode == MODE_VERIFY;
	struct json_object *o;
	char path[PATH_MAX + 32];
	const char *text;
	int r;

	/* a dry run reports on stdout only; an untrusted dir gets nothing (state.h) */
	if (d->opt.mode == MODE_DRY_RUN || d->state.untrusted ||
	    !status_dir_ours(d->opt.state_dir))
		return;
	if (snprintf(path, sizeof(path), "%s/%s", d->opt.state_dir,
		     verify ? PT_VERIFY_FILE : PT_STATUS_FILE) >= (int)sizeof(path))
		return;
	o = json_object_new_object();
	if (!o)
		return;
	json_object_object_add(o, "format", json_object_new_string(PT_STATUS_FORMAT));
	json_object_object_add(o, "time", json_object_new_int64((int64_t)time(NULL)));
	/* verify: the policy matched and every knob was compared */
	json_object_object_add(o, verify ? "verified" : "applied",
			       json_object_new_boolean(applied));
	/* pmem-tune --metrics then leaves the apply's metrics to that file (metrics_file.h) */
	if (!verify && d->opt.metrics_file[0])
		json_object_object_add(o, "metrics_file",
				       json_object_new_string(d->opt.metrics_file));
	if (applied) {
		json_object_object_add(o, "policy", json_object_new_string(d->policy_id));
		add_uint(o, "unchanged", d->stats.unchanged);
		add_uint(o, "refused", d->stats.refused);
		if (verify) {
			add_uint(o, "drift", d->stats.drift);
		} else {
			add_uint(o, "set", d->stats.set);
			add_uint(o, "failed", d->stats.failed);
		}
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	r = text ? atomic_write_file(path, text, strlen(text), 0644) : -ENOMEM;
	/* root's directory seen by another user (verify): not ours to write */
	if (r == -EACCES || r == -EPERM || r == -EROFS)
		log_debug("%s: no status written: %s", path, strerror(-r));
	else if (r < 0)
		log_warn("%s: cannot write the status: %s", path, strerror(-r));
	json_object_put(o);
}
