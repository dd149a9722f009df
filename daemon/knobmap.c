// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macros.h"
#include "common/parse.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/text.h"
#include "common/trusted.h"
#include "daemon/knobmap.h"
#include "daemon/log.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

/* Split path into components (in place in buf); at most max of them. */
static int split_path(char *buf, char **comp, int max)
{
	char *p = buf, *s;
	int n = 0;

	while ((s = strsep(&p, "/"))) {
		if (!*s)
			continue;	/* leading or doubled slash */
		if (n == max)
			return -E2BIG;
		comp[n++] = s;
	}
	return n;
}

int knob_path_check(const char *path, enum knob_root *root, char *why, size_t whylen)
{
	char buf[PATH_MAX], *c[32];
	int n, i;

	if (path[0] != '/' || strlen(path) >= sizeof(buf)) {
		snprintf(why, whylen, "not an absolute sysfs path");
		return -EPERM;
	}
	strcpy(buf, path);
	n = split_path(buf, c, ARRAY_SIZE(c));
	if (n < 0) {
		snprintf(why, whylen, "too many path components");
		return -EPERM;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(c[i], "..") || !strcmp(c[i], ".")) {
			snprintf(why, whylen, "'%s' component refused", c[i]);
			return -EPERM;
		}
	}
	if (n == 5 && !strcmp(c[0], "sys") && !strcmp(c[1], "module") &&
	    !strcmp(c[3], "parameters")) {
		*root = KNOB_MODULE;
		return 0;
	}
	if (n == 5 && !strcmp(c[0], "sys") && !strcmp(c[1], "block") &&
	    !strcmp(c[3], "dax")) {
		*root = KNOB_BLOCK_DAX;
		return 0;
	}
	if (n >= 6 && !strcmp(c[0], "sys") && !strcmp(c[1], "bus") &&
	    !strcmp(c[2], "nd") && !strcmp(c[3], "devices")) {
		*root = KNOB_ND_DEVICE;
		return 0;
	}
	snprintf(why, whylen, "outside /sys/module/*/parameters/, /sys/block/*/dax/ "
		 "and /sys/bus/nd/devices/");
	return -EPERM;
}

/* One conversion among %llu %llx %#llx %s; %% allowed around it. */
static int format_check(const char *f, bool *is_str)
{
	int conv = 0;

	for (; *f; f++) {
		if (*f != '%')
			continue;
		if (f[1] == '%') {
			f++;
			continue;
		}
		if (startswith(f, "%llu") || startswith(f, "%llx")) {
			f += 3;
			*is_str = false;
		} else if (startswith(f, "%#llx")) {
			f += 4;
			*is_str = false;
		} else if (startswith(f, "%s")) {
			f += 1;
			*is_str = true;
		} else {
			return -EINVAL;
		}
		conv++;
	}
	return conv == 1 ? 0 : -EINVAL;
}

int knob_format(const struct knob *k, const char *value, char *out, size_t len)
{
	bool is_str = false;
	uint64_t v;
	int n;

	if (format_check(k->format, &is_str) < 0)
		return -EINVAL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (is_str) {
		n = snprintf(out, len, k->format, value);
	} else {
		if (parse_u64(value, &v) < 0)
			return -EINVAL;
		n = snprintf(out, len, k->format, (unsigned long long)v);
	}
#pragma GCC diagnostic pop
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* a value with a newline would be two writes' worth to sysfs */
	if (strpbrk(out, "\n\r"))
		return -EINVAL;
	return 0;
}

int knob_parse_line(struct knob *k, char *line, char *why, size_t whylen)
{
	char *f[5], *p = line, *s;
	bool is_str = false;
	int n = 0, i;

	memset(k, 0, sizeof(*k));
	while ((s = strsep(&p, " \t"))) {
		if (!*s)
			continue;
		if (n == (int)ARRAY_SIZE(f)) {
			snprintf(why, whylen, "too many fields");
			return -EINVAL;
		}
		f[n++] = s;
	}
	if (n < 2) {
		snprintf(why, whylen, "expected SOURCE PATH-GLOB [FORMAT] [CONDITION]");
		return -EINVAL;
	}
	if (strlen(f[0]) >= sizeof(k->source) || strlen(f[1]) >= sizeof(k->path)) {
		snprintf(why, whylen, "field too long");
		return -EINVAL;
	}
	strcpy(k->source, f[0]);
	strcpy(k->path, f[1]);
	if (k->source[0] == '=') {
		if (!k->source[1]) {
			snprintf(why, whylen, "empty literal value");
			return -EINVAL;
		}
	} else {
		k->export = export_key_find(k->source);
		if (!k->export) {
			snprintf(why, whylen, "unknown export '%s'", k->source);
			return -EINVAL;
		}
	}
	if (knob_path_check(k->path, &k->root, why, whylen) < 0)
		return -EINVAL;

	strcpy(k->format, k->source[0] == '=' ? "%s" : "%llu");
	for (i = 2; i < n; i++) {
		if (startswith(f[i], "persistence_domain=")) {
			const char *v = f[i] + strlen("persistence_domain=");

			if (!*v || strlen(v) >= sizeof(k->cond_domain)) {
				snprintf(why, whylen, "bad persistence_domain condition");
				return -EINVAL;
			}
			if (k->root == KNOB_MODULE) {
				snprintf(why, whylen, "persistence_domain= needs a "
					 "/sys/block or /sys/bus/nd path");
				return -EINVAL;
			}
			strcpy(k->cond_domain, v);
		} else if (strchr(f[i], '%') && i == 2) {
			if (strlen(f[i]) >= sizeof(k->format) ||
			    format_check(f[i], &is_str) < 0) {
				snprintf(why, whylen, "format '%s': expected one of "
					 "%%llu %%llx %%#llx %%s", f[i]);
				return -EINVAL;
			}
			strcpy(k->format, f[i]);
		} else {
			snprintf(why, whylen, "unknown field '%s'", f[i]);
			return -EINVAL;
		}
	}
	if (k->source[0] == '=') {
		char tmp[256];

		if (knob_format(k, k->source + 1, tmp, sizeof(tmp)) < 0) {
			snprintf(why, whylen, "literal '%s' does not fit format '%s'",
				 k->source + 1, k->format);
			return -EINVAL;
		}
	}
	return 0;
}

static int conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/*
 * A knob map line picks the sysfs file root writes and, for a literal,
 * the value: like the policy, it is taken only from a file that nobody
 * but root could have written (symlinks are followed, the target counts).
 */
static int open_trusted(const char *path, bool dir)
{
	struct stat st = { 0 };
	int fd;

	/* O_NONBLOCK: a FIFO named *.conf must not hang the daemon */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
	if (fd < 0) {
		if (errno != ENOENT)
			log_err("knob map %s: cannot read: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || (!dir && !S_ISREG(st.st_mode))) {
		log_err("knob map %s: not a regular file; ignored", path);
		close(fd);
		return -EINVAL;
	}
	if (!trusted_stat(&st)) {
		log_err("knob map %s: refused: owned by uid %u with mode %04o; it must "
			"belong to root and be writable by no one else", path,
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int load_file(struct knobmap *km, const char *path)
{
	char *text, *line, *cur;
	unsigned lineno = 0;
	int fd, r;

	fd = open_trusted(path, false);
	if (fd < 0)
		return fd;
	r = read_fd(fd, 1024 * 1024, &text, NULL);
	close(fd);
	if (r < 0) {
		log_err("knob map %s: cannot read: %s", path, strerror(-r));
		return r;
	}
	cur = text;
	while ((line = next_line(&cur))) {
		char why[160];
		struct knob k, *nk;

		lineno++;
		line = strtrim(line);
		if (!*line || *line == '#')
			continue;
		if (knob_parse_line(&k, line, why, sizeof(why)) < 0) {
			log_warn("knob map %s:%u: %s; line ignored", path, lineno, why);
			continue;
		}
		snprintf(k.origin, sizeof(k.origin), "%s:%u", path, lineno);
		nk = realloc(km->k, (km->n + 1) * sizeof(*nk));
		if (!nk) {
			free(text);
			return -ENOMEM;
		}
		km->k = nk;
		km->k[km->n++] = k;
	}
	free(text);
	return 0;
}

int knobmap_load(struct knobmap *km, const char *dir)
{
	struct dirent **names;
	int n, i, r = 0;

	memset(km, 0, sizeof(*km));
	/* whoever may add a file to the directory may add knobs */
	r = open_trusted(dir, true);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	close(r);
	r = 0;
	n = scandir(dir, &names, conf_filter, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		log_err("knob map %s: cannot list: %s", dir, strerror(-r));
		return r;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];

		if (r == 0 && path_join(path, sizeof(path), dir, "/") == 0 &&
		    strlen(path) + strlen(names[i]->d_name) < sizeof(path)) {
			strcat(path, names[i]->d_name);
			/* one unreadable file does not drop the others */
			if (load_file(km, path) == -ENOMEM)
				r = -ENOMEM;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

void knobmap_free(struct knobmap *km)
{
	free(km->k);
	km->k = NULL;
	km->n = 0;
}
