// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The scratch state file and the lock that serialises probes.  Every
 * namespace the probe creates is recorded here before it is made, so
 * that a probe killed half-way can be cleaned up by the next one; the
 * lock keeps a live probe's scratch from being taken for a stale one.
 * A record says what root destroys, reconfigures and unmounts, so it is
 * only read, and the lock only taken, where no one else could have
 * written (common/trusted.h), unless --insecure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/atomic_file.h"
#include "common/lock_file.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/trusted.h"
#include "platform/regions.h"
#include "platform/scratch_state.h"
#include "policy/fleet_file.h"

#define LOCK_FILE	"scratch.lock"
#define STATE_MAX_BYTES	(1u << 20)

static bool state_insecure;

void scratch_state_insecure(bool insecure)
{
	state_insecure = insecure;
}

/*
 * dir and every directory above it pass trusted_dir(): 0, -ENOENT when
 * it is missing (it may be created), else -errno with a reason in err.
 */
static int dir_trusted(const char *dir, char *err, size_t errlen)
{
	char why[PATH_MAX + 64];
	int rc;

	if (state_insecure)
		return access(dir, F_OK) && errno == ENOENT ? -ENOENT : 0;
	rc = trusted_dir(dir, why, sizeof(why));
	if (rc == -EPERM)
		snprintf(err, errlen, "refused: %s; it and every directory above it must be "
			 "owned by root or this user and writable by no one else (--insecure "
			 "skips this)", why);
	else if (rc)
		snprintf(err, errlen, "%s", why);
	return rc;
}

const char *scratch_state_dir(void)
{
	return policy_probe_state_dir();
}

int scratch_state_path(char *buf, size_t len, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", scratch_state_dir(), name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	if (v && *v)
		json_object_object_add(o, key, json_object_new_string(v));
}

char *scratch_state_format(const struct scratch_record *recs, size_t n)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	char *text = NULL;

	if (!root || !arr)
		goto out;
	json_object_object_add(root, "schema", json_object_new_string(SCRATCH_STATE_SCHEMA));
	json_object_object_add(root, "scratch", arr);
	for (size_t i = 0; i < n; i++) {
		const struct scratch_record *r = &recs[i];
		struct json_object *o = json_object_new_object();

		if (!o)
			goto out;
		json_object_array_add(arr, o);
		add_str(o, "uuid", r->uuid);
		add_str(o, "region", r->region);
		add_str(o, "namespace", r->ns);
		add_str(o, "mode", r->mode);
		add_str(o, "mount", r->mount);
		add_str(o, "restore", r->restore);
		add_str(o, "phase", r->phase);
		json_object_object_add(o, "pid", json_object_new_int64(r->pid));
		add_str(o, "created", r->created);
	}
	text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_SPACED |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	if (text) {
		/* a text file ends with a newline */
		char *t = realloc(text, strlen(text) + 2);

		if (t)
			strcat(t, "\n");
		text = t ? t : text;
	}
out:
	if (root)
		json_object_put(root);
	else if (arr)
		json_object_put(arr);
	return text;
}

/* A string member into out[size]; absent is "" unless required. */
static int get_str(struct json_object *o, const char *key, char *out, size_t size,
		   bool required, size_t idx, char *err, size_t errlen)
{
	struct json_object *v;
	const char *s;

	out[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		if (!required)
			return 0;
		snprintf(err, errlen, "scratch[%zu].%s: missing", idx, key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "scratch[%zu].%s: not a string", idx, key);
		return -EINVAL;
	}
	s = json_object_get_string(v);
	if (strlen(s) >= size || (required && !*s)) {
		snprintf(err, errlen, "scratch[%zu].%s: '%.40s' is %s", idx, key, s,
			 *s ? "too long" : "empty");
		return -EINVAL;
	}
	snprintf(out, size, "%s", s);
	return 0;
}

/* Is path below dir: dir, a '/', a name, and no ".." component anywhere? */
static bool below_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	const char *c;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) || path[n] != '/' || !path[n + 1])
		return false;
	for (c = path; (c = strstr(c, "..")); c += 2)
		if ((c == path || c[-1] == '/') && (!c[2] || c[2] == '/'))
			return false;
	return true;
}

static int parse_record(struct json_object *o, size_t i, struct scratch_record *r, char *err,
			size_t errlen)
{
	unsigned char uu[16];
	struct json_object *v;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "scratch[%zu]: not an object", i);
		return -EINVAL;
	}
	if ((rc = get_str(o, "uuid", r->uuid, sizeof(r->uuid), true, i, err, errlen)) ||
	    (rc = get_str(o, "region", r->region, sizeof(r->region), true, i, err, errlen)) ||
	    (rc = get_str(o, "namespace", r->ns, sizeof(r->ns), false, i, err, errlen)) ||
	    (rc = get_str(o, "mode", r->mode, sizeof(r->mode), true, i, err, errlen)) ||
	    (rc = get_str(o, "mount", r->mount, sizeof(r->mount), false, i, err, errlen)) ||
	    (rc = get_str(o, "restore", r->restore, sizeof(r->restore), false, i, err, errlen)) ||
	    (rc = get_str(o, "phase", r->phase, sizeof(r->phase), false, i, err, errlen)) ||
	    (rc = get_str(o, "created", r->created, sizeof(r->created), false, i, err, errlen)))
		return rc;
	if (region_uuid_parse(r->uuid, uu) || region_uuid_is_null(uu)) {
		snprintf(err, errlen, "scratch[%zu].uuid: '%s' is not a UUID", i, r->uuid);
		return -EINVAL;
	}
	if (strcmp(r->mode, "devdax") && strcmp(r->mode, "fsdax") &&
	    strcmp(r->mode, "label-less")) {
		snprintf(err, errlen, "scratch[%zu].mode: '%s' is not devdax, fsdax or label-less",
			 i, r->mode);
		return -EINVAL;
	}
	/* a mount we would unmount must be ours: below the state directory */
	if (r->mount[0] && !below_dir(r->mount, scratch_state_dir())) {
		snprintf(err, errlen, "scratch[%zu].mount: '%s' is not under %s", i, r->mount,
			 scratch_state_dir());
		return -EINVAL;
	}
	if (json_object_object_get_ex(o, "pid", &v)) {
		if (!json_object_is_type(v, json_type_int)) {
			snprintf(err, errlen, "scratch[%zu].pid: not an integer", i);
			return -EINVAL;
		}
		r->pid = (long)json_object_get_int64(v);
	}
	return 0;
}

int scratch_state_parse(const char *text, struct scratch_record **recs, size_t *n, char *err,
			size_t errlen)
{
	enum json_tokener_error jerr = json_tokener_success;
	struct json_object *root = json_tokener_parse_verbose(text, &jerr), *v, *arr;
	struct scratch_record *r = NULL;
	size_t len = 0;
	int rc = -EINVAL;

	*recs = NULL;
	*n = 0;
	if (!root) {
		snprintf(err, errlen, "not JSON: %s", json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "schema", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), SCRATCH_STATE_SCHEMA)) {
		snprintf(err, errlen, "schema: expected \"%s\"", SCRATCH_STATE_SCHEMA);
		goto out;
	}
	if (!json_object_object_get_ex(root, "scratch", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "scratch: expected an array");
		goto out;
	}
	len = json_object_array_length(arr);
	r = calloc(len ? len : 1, sizeof(*r));
	if (!r) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < len; i++) {
		rc = parse_record(json_object_array_get_idx(arr, i), i, &r[i], err, errlen);
		if (rc)
			goto out;
	}
	*recs = r;
	*n = len;
	r = NULL;
	rc = 0;
out:
	free(r);
	json_object_put(root);
	return rc;
}

int scratch_state_load(const char *path, struct scratch_record **recs, size_t *n, char *err,
		       size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *text;
	struct stat st;
	int fd, rc;

	*recs = NULL;
	*n = 0;
	if (!slash || slash == path) {
		snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
	} else if ((size_t)(slash - path) < sizeof(dir)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	} else {
		snprintf(err, errlen, "path too long");
		return -ENAMETOOLONG;
	}
	rc = dir_trusted(dir, err, errlen);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	/* ours is always renamed into place: a link there is someone else's */
	fd = open_regular(path, READ_FILE_NOFOLLOW, &st);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(err, errlen, "%s", fd == -ELOOP ? "refused: a symbolic link" :
			 fd == -EINVAL ? "refused: not a regular file" : strerror(-fd));
		return fd;
	}
	if (!state_insecure && !trusted_stat(&st)) {
		snprintf(err, errlen, "refused: %s owned by uid %u with mode %04o; it must be "
			 "owned by root or this user and writable by no one else (--insecure "
			 "skips this)", path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	rc = read_fd(fd, STATE_MAX_BYTES, &text, NULL);
	close(fd);
	if (rc) {
		snprintf(err, errlen, "%s", rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		return rc;
	}
	rc = scratch_state_parse(text, recs, n, err, errlen);
	free(text);
	return rc;
}

int scratch_state_save(const char *path, const struct scratch_record *recs, size_t n)
{
	char *text;
	int rc;

	if (!n)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	text = scratch_state_format(recs, n);
	if (!text)
		return -ENOMEM;
	rc = atomic_write_file(path, text, strlen(text), 0600);
	free(text);
	return rc;
}

int scratch_state_update(const struct scratch_record *rec, bool add, char *err, size_t errlen)
{
	struct scratch_record *recs, *grown;
	char path[PATH_MAX], why[256];
	size_t n, j = 0;
	int rc;

	rc = scratch_state_path(path, sizeof(path), SCRATCH_STATE_FILE);
	if (!rc)
		rc = scratch_state_load(path, &recs, &n, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "state file %s: %s", path, rc == -ENAMETOOLONG ?
			 "path too long" : why);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(recs[i].uuid, rec->uuid))
			recs[j++] = recs[i];
	n = j;
	if (add) {
		grown = realloc(recs, (n + 1) * sizeof(*recs));
		if (!grown) {
			free(recs);
			return -ENOMEM;
		}
		recs = grown;
		recs[n++] = *rec;
	}
	rc = scratch_state_save(path, recs, n);
	free(recs);
	if (rc)
		snprintf(err, errlen, "cannot write the state file %s: %s", path, strerror(-rc));
	return rc;
}

/*
 * Serialise probes: the lock is held until the process exits (the
 * kernel releases it when a probe is killed), so a live probe's scratch
 * is never mistaken for a stale one.
 */
static int lock_fd = -1;

int scratch_lock(char *err, size_t errlen)
{
	char path[PATH_MAX], buf[32], why[PATH_MAX + 256];
	struct stat st;
	int fd, rc;

	if (lock_fd >= 0)
		return 0;
	/* before anything is created or read there: the records it holds destroy namespaces */
	rc = dir_trusted(scratch_state_dir(), why, sizeof(why));
	if (rc == -ENOENT) {
		rc = mkdir_p(scratch_state_dir(), 0700);
		if (rc) {
			snprintf(err, errlen, "cannot create the state directory %s: %s",
				 scratch_state_dir(), strerror(-rc));
			return rc;
		}
		rc = dir_trusted(scratch_state_dir(), why, sizeof(why));
	}
	if (rc) {
		snprintf(err, errlen, "state directory %s: %s", scratch_state_dir(), why);
		return rc;
	}
	rc = scratch_state_path(path, sizeof(path), LOCK_FILE);
	if (rc) {
		snprintf(err, errlen, "state directory %s: path too long", scratch_state_dir());
		return rc;
	}
	/*
	 * Not through a link, nor a FIFO or a file with another name (the pid
	 * is written into it): under --insecure the directory may be anyone's.
	 */
	fd = lock_file_open(path, &st);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path,
			 fd == -ELOOP ? "a symbolic link, not the scratch lock" :
			 fd == -EINVAL ? "not a regular file, not the scratch lock" :
			 strerror(-fd));
		return fd;
	}
	if (st.st_nlink != 1) {
		snprintf(err, errlen, "%s: has %lu names, not one (a hard link elsewhere); "
			 "refusing it as the scratch lock", path, (unsigned long)st.st_nlink);
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t got;

		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[got > 0 ? got : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0])
			snprintf(err, errlen, "another pmem-tune probe (pid %s) holds the scratch "
				 "lock %s", buf, path);
		else
			snprintf(err, errlen, "another pmem-tune probe holds the scratch lock %s",
				 path);
		close(fd);
		return rc;
	}
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0)
		buf[0] = '\0';	/* the pid only serves the message above */
	lock_fd = fd;
	return 0;
}
