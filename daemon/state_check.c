// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a saved entry must be to be restored.  The state file says what
 * root writes where on restore; the directory is root's alone, but a
 * damaged, planted or older file must still not make the daemon write
 * anything it would not have saved itself.  So an entry meets the rules
 * a fresh one meets: a sink we have, a key that sink writes, values of
 * the shape that sink reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "daemon/config.h"
#include "daemon/knobmap.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/export_keys.h"

/* read_attr() buffers of the sysfs sink: a longer value was not read by it */
#define SYSFS_VALUE_MAX		255
/* envfile_apply() reads at most this much of a file it replaces */
#define FILE_VALUE_MAX		(1024 * 1024)
/* an environment value from the manager; GLIBC_TUNABLES is the longest we keep */
#define MANAGER_VALUE_MAX	(64 * 1024)

/* No control characters: one line, as every source of a value gives it. */
static bool one_line(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static int value_check(const char *what, const char *v, size_t max, bool line, char *why,
		       size_t len)
{
	if (!v)
		return 0;
	if (strlen(v) > max) {
		snprintf(why, len, "%s is longer than %zu bytes", what, max);
		return -EINVAL;
	}
	if (line && !one_line(v)) {
		snprintf(why, len, "%s has control characters", what);
		return -EINVAL;
	}
	return 0;
}

static int sysfs_check(const struct state_entry *e, char *why, size_t len)
{
	enum knob_root root;
	char r[160];

	if (knob_path_check(e->key, &root, r, sizeof(r)) < 0) {
		snprintf(why, len, "key: %s", r);
		return -EINVAL;
	}
	if (!e->existed || !e->original) {
		snprintf(why, len, "a sysfs attribute always has an original value");
		return -EINVAL;
	}
	if (e->owner.known) {
		snprintf(why, len, "a mode and owner for a sysfs attribute");
		return -EINVAL;
	}
	if (value_check("original", e->original, SYSFS_VALUE_MAX, true, why, len) < 0 ||
	    value_check("applied", e->applied, SYSFS_VALUE_MAX, true, why, len) < 0)
		return -EINVAL;
	return 0;
}

/* The files each environment sink writes, relative to the etc root. */
static bool env_file_ours(const char *sink, const char *rel)
{
	if (!strcmp(sink, "libpmem"))
		return !strcmp(rel, PT_LIBPMEM_ENV) || !strcmp(rel, PT_ENVD_LIBPMEM);
	return !strcmp(rel, PT_GLIBC_ENV) || !strcmp(rel, PT_ENVD_GLIBC);
}

/* The manager's variables each environment sink sets. */
static bool env_var_ours(const char *sink, const char *name)
{
	if (!strcmp(sink, "glibc"))
		return !strcmp(name, "GLIBC_TUNABLES");
	/* exactly the variables the libpmem sink sets, nothing else named PMEM_* */
	return export_key_find_kv(EXPORT_LIBPMEM, name) != NULL;
}

/*
 * A file original's mode and owner as envfile_apply() reads them: the
 * permission bits alone (no set-ID or sticky bit), ids that exist as
 * numbers ((uid_t)-1 means "no change" to chown(2)).
 */
static int owner_check(const struct state_entry *e, char *why, size_t len)
{
	if (!e->owner.known)
		return 0;
	if (!startswith(e->key, "file:") || !e->existed) {
		snprintf(why, len, "a mode and owner for something that is not a file original");
		return -EINVAL;
	}
	if (e->owner.mode & ~0777u) {
		snprintf(why, len, "mode %04o has more than permission bits", e->owner.mode);
		return -EINVAL;
	}
	if (e->owner.uid == (uid_t)-1 || e->owner.gid == (gid_t)-1) {
		snprintf(why, len, "owner %u:%u is not an owner", (unsigned)e->owner.uid,
			 (unsigned)e->owner.gid);
		return -EINVAL;
	}
	return 0;
}

static int env_check(const struct state_entry *e, char *why, size_t len)
{
	if (!e->existed && e->original) {
		snprintf(why, len, "an original value for something that did not exist");
		return -EINVAL;
	}
	if (owner_check(e, why, len) < 0)
		return -EINVAL;
	if (startswith(e->key, "file:")) {
		if (!env_file_ours(e->sink, e->key + 5)) {
			snprintf(why, len, "key: not a file the %s sink writes", e->sink);
			return -EINVAL;
		}
		/* a file we wrote is never an original: envfile_apply() removes those */
		if (e->original && startswith(e->original, PT_FILE_MARKER)) {
			snprintf(why, len, "original is a file pmem-tuned wrote");
			return -EINVAL;
		}
		return value_check("original", e->original, FILE_VALUE_MAX, false, why, len) ?:
		       value_check("applied", e->applied, FILE_VALUE_MAX, false, why, len);
	}
	if (startswith(e->key, "manager:")) {
		if (!env_var_ours(e->sink, e->key + 8)) {
			snprintf(why, len, "key: not a variable the %s sink sets", e->sink);
			return -EINVAL;
		}
		return value_check("original", e->original, MANAGER_VALUE_MAX, true, why, len) ?:
		       value_check("applied", e->applied, MANAGER_VALUE_MAX, true, why, len);
	}
	snprintf(why, len, "key: neither file: nor manager:");
	return -EINVAL;
}

int state_entry_check(const struct state_entry *e, char *why, size_t len)
{
	if (!strcmp(e->sink, "sysfs"))
		return sysfs_check(e, why, len);
	if (!strcmp(e->sink, "libpmem") || !strcmp(e->sink, "glibc"))
		return env_check(e, why, len);
	snprintf(why, len, "no sink '%.32s'", e->sink);
	return -EINVAL;
}
