// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/getopt_whole.h"
#include "common/macros.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/text.h"
#include "common/trusted.h"
#include "daemon/config.h"
#include "daemon/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pmem-tuned [OPTION]...\n"
		"Apply the persistent-memory copy policy to kernel knobs and libraries.\n\n"
		"  --policy FILE      policy to apply (default " PT_POLICY_PATH ")\n"
		"  --oneshot          apply once and exit, restoring nothing\n"
		"  --dry-run          print what would change and exit, change nothing\n"
		"  --verify           report knobs that differ from the policy and exit\n"
		"  --restore          put back the originals saved in " PT_STATE_DIR " and exit\n"
		"  --need-probe       exit 0 when this host should be probed now, else 1\n"
		"                     (pmem-tune-probe.service's condition)\n"
		"  --force            apply a policy made for another platform\n"
		"  --no-bus           do not update the service manager's environment\n"
		"  --sysfs-root DIR   read and write DIR/sys instead of /sys (tests)\n"
		"  --etc-root DIR     use DIR/etc and DIR/run instead of /etc and /run (tests;\n"
		"                     implies --no-bus)\n"
		"  --state-dir DIR    where the originals are kept (default " PT_STATE_DIR ")\n"
		"  -v, --verbose      log debug messages\n"
		"  -h, --help         show this help\n"
		"  --version          show the version\n");
}

static int set_path(char *dst, const char *opt, const char *arg)
{
	size_t n = strlen(arg);

	if (n >= PATH_MAX) {
		fprintf(stderr, "pmem-tuned: %s: path too long\n", opt);
		return -EINVAL;
	}
	memcpy(dst, arg, n + 1);
	return 0;
}

/* Roots are prefixes: "/" and "dir/" become "" and "dir". */
static int set_root(char *root, const char *opt, const char *arg)
{
	size_t n;

	if (set_path(root, opt, arg) < 0)
		return -EINVAL;
	n = strlen(root);
	while (n && root[n - 1] == '/')
		root[--n] = '\0';
	return 0;
}

int options_parse(struct options *o, int argc, char **argv)
{
	/* a mode's option is OPT_MODE + its mode: one case sets them all */
	enum { OPT_POLICY = 256, OPT_FORCE, OPT_NO_BUS, OPT_SYSFS_ROOT, OPT_ETC_ROOT,
	       OPT_STATE_DIR, OPT_VERSION, OPT_MODE };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "oneshot", no_argument, NULL, OPT_MODE + MODE_ONESHOT },
		{ "dry-run", no_argument, NULL, OPT_MODE + MODE_DRY_RUN },
		{ "verify", no_argument, NULL, OPT_MODE + MODE_VERIFY },
		{ "restore", no_argument, NULL, OPT_MODE + MODE_RESTORE },
		{ "need-probe", no_argument, NULL, OPT_MODE + MODE_NEED_PROBE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "no-bus", no_argument, NULL, OPT_NO_BUS },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
		{ "etc-root", required_argument, NULL, OPT_ETC_ROOT },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{}
	};
	bool have_policy = false, have_state = false;
	int c, nmodes = 0;

	memset(o, 0, sizeof(*o));
	o->mode = MODE_DAEMON;
	o->rollback = ROLLBACK_AUTO;
	optind = 1;
	while ((c = getopt_whole(argc, argv, "vh", longopts, "pmem-tuned")) != -1) {
		switch (c) {
		case OPT_POLICY:
			if (set_path(o->policy, "--policy", optarg) < 0)
				return -EINVAL;
			have_policy = true;
			break;
		case OPT_MODE + MODE_ONESHOT:
		case OPT_MODE + MODE_DRY_RUN:
		case OPT_MODE + MODE_VERIFY:
		case OPT_MODE + MODE_RESTORE:
		case OPT_MODE + MODE_NEED_PROBE:
			o->mode = c - OPT_MODE;
			nmodes++;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_NO_BUS:
			o->no_bus = true;
			break;
		case OPT_SYSFS_ROOT:
			if (set_root(o->sysfs_root, "--sysfs-root", optarg) < 0)
				return -EINVAL;
			break;
		case OPT_ETC_ROOT:
			if (set_root(o->etc_root, "--etc-root", optarg) < 0)
				return -EINVAL;
			/* a test tree never reaches the real service manager */
			o->no_bus = true;
			break;
		case OPT_STATE_DIR:
			if (set_path(o->state_dir, "--state-dir", optarg) < 0)
				return -EINVAL;
			have_state = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("pmem-tuned %s\n", PT_VERSION);
			return 1;
		default:
			/* getopt_whole() said what was wrong, in one line */
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmem-tuned: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	if (nmodes > 1) {
		fprintf(stderr, "pmem-tuned: --oneshot, --dry-run, --verify, --restore and "
			"--need-probe exclude each other\n");
		return -EINVAL;
	}
	/* a test tree's glibc; never a production daemon's environment */
	if (*o->etc_root && getenv("PMEM_TUNED_LDSO") &&
	    set_path(o->ldso, "PMEM_TUNED_LDSO", getenv("PMEM_TUNED_LDSO")) < 0)
		return -EINVAL;
	if (!have_policy &&
	    etc_path(o, PT_POLICY_PATH, o->policy, sizeof(o->policy)) < 0)
		return -EINVAL;
	if (!have_state &&
	    etc_path(o, PT_STATE_DIR, o->state_dir, sizeof(o->state_dir)) < 0)
		return -EINVAL;
	return 0;
}

int etc_path(const struct options *o, const char *path, char *out, size_t len)
{
	return path_join(out, len, o->etc_root, path);
}

/* The file, if it is one root can trust; -ENOENT when there is none. */
static int read_conf(const char *path, char **text)
{
	struct stat st;
	int fd, r;

	/* a FIFO or a device in its place must not hang or flood the daemon */
	fd = open_regular(path, 0, &st);
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		log_err("%s: refused: %s; using defaults", path,
			fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return fd;
	}
	if (!trusted_stat(&st)) {
		log_err("%s: refused: owned by uid %u with mode %04o, not root's alone; "
			"using defaults", path, (unsigned)st.st_uid,
			(unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	r = read_fd(fd, 64 * 1024, text, NULL);
	close(fd);
	if (r < 0)
		log_err("%s: cannot read: %s; using defaults", path, strerror(-r));
	return r;
}

/* The words a key takes; the first is its default. */
struct choice {
	const char *word;
	int value;
};

static const struct choice rollback_choices[] = {
	{ "auto", ROLLBACK_AUTO },
	{ "never", ROLLBACK_NEVER },
};

static const struct choice glibc_choices[] = {
	{ "off", GLIBC_OFF },
	{ "file", GLIBC_FILE },
	{ "manager", GLIBC_MANAGER },
};

/* The value of the word val, or -1 (warned: the setting stays as it was). */
static int choose(const char *path, unsigned lineno, const char *key, const char *val,
		  const struct choice *choices, size_t n)
{
	char expected[128] = "";
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(val, choices[i].word))
			return choices[i].value;
	for (size_t i = 0; i < n && len < sizeof(expected); i++)
		len += snprintf(expected + len, sizeof(expected) - len, "%s%s",
				!i ? "" : i + 1 < n ? ", " : " or ", choices[i].word);
	log_warn("%s:%u: %s=%s: expected %s; keeping %s", path, lineno, key, val, expected,
		 choices[0].word);
	return -1;
}

/*
 * metrics_file = PATH: an absolute path to a file (its directory is
 * checked when it is written: metrics_file.c); empty = none.
 */
static void set_metrics_file(struct options *o, const char *path, unsigned lineno,
			     const char *val)
{
	const char *base = strrchr(val, '/');

	if (!*val) {
		o->metrics_file[0] = '\0';
		return;
	}
	if (*val != '/' || !base[1] || !strcmp(base + 1, ".") || !strcmp(base + 1, "..") ||
	    strlen(val) >= sizeof(o->metrics_file)) {
		log_warn("%s:%u: metrics_file=%s: expected an absolute path to a file; "
			 "no metrics file", path, lineno, val);
		o->metrics_file[0] = '\0';
		return;
	}
	snprintf(o->metrics_file, sizeof(o->metrics_file), "%s", val);
}

/* --- re-probing: reprobe_on_* keys ----------------------------------------- */

static const struct choice yes_no[] = {
	{ "no", 0 },
	{ "yes", 1 },
};

/* A reprobe_on_* key into o: true when key is one (a bad value warned, kept off). */
static bool reprobe_key(struct options *o, const char *path, unsigned lineno, const char *key,
			const char *val)
{
	bool *dst;
	int r;

	if (!strcmp(key, "reprobe_on_environment_change"))
		dst = &o->reprobe_env;
	else if (!strcmp(key, "reprobe_on_region_add"))
		dst = &o->reprobe_region;
	else
		return false;
	r = choose(path, lineno, key, val, yes_no, ARRAY_SIZE(yes_no));
	*dst = r > 0;
	return true;
}

static void reprobe_defaults(struct options *o)
{
	o->reprobe_env = false;
	o->reprobe_region = false;
}

/* --------------------------------------------------------------------------- */

int config_load(struct options *o)
{
	char path[PATH_MAX], *text, *line, *cur;
	unsigned lineno = 0;
	int r;

	r = etc_path(o, PT_CONF_PATH, path, sizeof(path));
	if (r < 0)
		return r;
	o->rollback = ROLLBACK_AUTO;
	o->glibc = GLIBC_OFF;
	o->metrics_file[0] = '\0';
	reprobe_defaults(o);
	r = read_conf(path, &text);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	cur = text;
	while ((line = next_line(&cur))) {
		char *eq, *key, *val;

		lineno++;
		line = strtrim(line);
		if (!*line || *line == '#' || *line == ';' || *line == '[')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			log_warn("%s:%u: expected key=value, got '%s'; ignored",
				 path, lineno, line);
			continue;
		}
		*eq = '\0';
		key = strtrim(line);
		val = strtrim(eq + 1);
		if (!strcmp(key, "rollback")) {
			r = choose(path, lineno, key, val, rollback_choices,
				   ARRAY_SIZE(rollback_choices));
			if (r >= 0)
				o->rollback = r;
		} else if (!strcmp(key, "glibc_tunables")) {
			r = choose(path, lineno, key, val, glibc_choices,
				   ARRAY_SIZE(glibc_choices));
			if (r >= 0)
				o->glibc = r;
		} else if (!strcmp(key, "metrics_file")) {
			set_metrics_file(o, path, lineno, val);
		} else if (reprobe_key(o, path, lineno, key, val)) {
			continue;
		} else {
			log_warn("%s:%u: unknown key '%s'; ignored", path, lineno, key);
		}
	}
	free(text);
	return 0;
}
