// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon's state metrics in Prometheus' text format (metrics_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/prom_text.h"
#include "common/trusted.h"
#include "daemon/log.h"
#include "daemon/metrics_file.h"
#include "policy/environment.h"

char *metrics_file_text(const struct daemon *d, bool applied, size_t *len)
{
	static const struct {
		const char *result;
		size_t off;
	} knobs[] = {
		{ "set", offsetof(struct sink_stats, set) },
		{ "unchanged", offsetof(struct sink_stats, unchanged) },
		{ "failed", offsetof(struct sink_stats, failed) },
		{ "refused", offsetof(struct sink_stats, refused) },
	};
	char *text = NULL, lbl[64];
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	/* the names and HELP of pmem-tune --metrics, which leaves these out then */
	prom_group(f, "pmem_tuned_policy_applied", "1 if pmem-tuned's last pass applied a policy.");
	prom_sample(f, "pmem_tuned_policy_applied", "", applied);
	if (applied) {
		prom_group(f, "pmem_tuned_last_apply_timestamp_seconds",
			   "When pmem-tuned last applied the policy.");
		prom_sample(f, "pmem_tuned_last_apply_timestamp_seconds", "",
			    (double)d->applied_at);
		prom_group(f, "pmem_tuned_knobs", "Knobs by what the last apply did with them.");
		for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
			snprintf(lbl, sizeof(lbl), "result=\"%s\"", knobs[i].result);
			prom_sample(f, "pmem_tuned_knobs", lbl,
				    *(const unsigned *)((const char *)&d->stats + knobs[i].off));
		}
		prom_group(f, "pmem_tuned_apply_drift_knobs",
			   "Knobs the last apply found not holding the value pmem-tuned wrote "
			   "(knob drift); it set them again.");
		prom_sample(f, "pmem_tuned_apply_drift_knobs", "", d->stats.drifted);
		prom_group(f, "pmem_tuned_environment_changed",
			   "1 if this host runs another kernel or microcode than the applied "
			   "entry was probed on.");
		for (int w = 0; w < POLICY_ENV_N; w++) {
			if (!d->env.item[w].compared)
				continue;
			snprintf(lbl, sizeof(lbl), "what=\"%s\"", policy_env_name(w));
			prom_sample(f, "pmem_tuned_environment_changed", lbl,
				    d->env.item[w].changed);
		}
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * dir, opened by a walk from "/" that follows no symbolic link: where
 * another user could swap a component for a link, root would write
 * wherever it points.  -ELOOP where there is one.
 */
static int open_dir_nofollow(const char *dir)
{
	char buf[PATH_MAX], *save = NULL;
	int fd;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int nfd, r;

		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			close(fd);
			return -EINVAL;
		}
		/* O_PATH | O_NOFOLLOW opens a link itself: fstat tells */
		nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		r = nfd < 0 ? -errno : 0;
		close(fd);
		if (r)
			return r;
		fd = nfd;
		if (fstat(fd, &st)) {
			r = -errno;
			close(fd);
			return r;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
		}
	}
	return fd;
}

static int write_into(const char *path, const char *text, size_t len, struct stat *dst)
{
	char dir[PATH_MAX], via[64 + PATH_MAX];
	const char *base = strrchr(path, '/');
	int dfd, r;

	if (!base || (size_t)(base - path) >= sizeof(dir))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path);
	dfd = open_dir_nofollow(dir[0] ? dir : "/");
	if (dfd < 0)
		return dfd;
	if (fstat(dfd, dst)) {
		r = -errno;
	} else if (!trusted_stat(dst)) {
		r = -EPERM;
	} else {
		/* the directory just checked, whatever its path names meanwhile */
		snprintf(via, sizeof(via), "/proc/self/fd/%d%s", dfd, base);
		r = atomic_write_file(via, text, len, 0644);
	}
	close(dfd);
	return r;
}

void metrics_file_write(struct daemon *d, bool applied)
{
	char path[PATH_MAX], *text;
	struct stat st = { 0 };
	size_t len = 0;
	int r;

	if (!d->opt.metrics_file[0] || d->opt.mode == MODE_DRY_RUN || d->opt.mode == MODE_VERIFY)
		return;
	r = etc_path(&d->opt, d->opt.metrics_file, path, sizeof(path));
	if (r < 0)
		return;
	text = metrics_file_text(d, applied, &len);
	r = text ? write_into(path, text, len, &st) : -ENOMEM;
	free(text);
	/* each pass writes it: say a failure once, and when it is over */
	if (r == d->metrics_err)
		return;
	d->metrics_err = r;
	if (r == 0)
		log_info("metrics %s: written again", path);
	else if (r == -EPERM)
		log_warn("metrics %s: refused: its directory is owned by uid %u with mode %04o, "
			 "not root's alone; not written", path, (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777));
	else if (r == -ELOOP)
		log_warn("metrics %s: refused: a symbolic link in its path; not written", path);
	else if (r == -EEXIST)
		log_warn("metrics %s: refused: %s is there, not a regular file; not replaced",
			 path, output_path_kind(path));
	else
		log_warn("metrics %s: cannot write: %s", path, strerror(-r));
}
