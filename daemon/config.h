/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command line and /etc/pmem-tuned/pmem-tuned.conf.  Every path the
 * daemon touches is built here from the two roots, so that the tests'
 * fake trees cover exactly what production touches.
 */
#ifndef PT_CONFIG_H
#define PT_CONFIG_H

#include <limits.h>
#include <stdbool.h>

#define PT_POLICY_PATH		"/etc/pmem-policy.json"
#define PT_CONF_PATH		"/etc/pmem-tuned/pmem-tuned.conf"
#define PT_KNOBS_DIR		"/etc/pmem-tuned/knobs.d"
#define PT_STATE_DIR		"/run/pmem-tuned"
#define PT_LIBPMEM_ENV		"/etc/pmem-tuned/libpmem.env"
#define PT_GLIBC_ENV		"/etc/pmem-tuned/glibc.env"
#define PT_ENVD_DIR		"/etc/environment.d"
#define PT_ENVD_LIBPMEM		"/etc/environment.d/60-pmem-tuned.conf"
#define PT_ENVD_GLIBC		"/etc/environment.d/60-pmem-tuned-glibc.conf"
#define PT_PROBE_UNIT		"pmem-tune-probe.service"

enum rollback {
	ROLLBACK_AUTO,		/* restore every original on stop (default) */
	ROLLBACK_NEVER,		/* leave the tuned values in place */
};

/*
 * How far the glibc sink reaches.  GLIBC_TUNABLES changes every memcpy of
 * every process that sees it, from a benchmark that cannot see the cost
 * to an application's working set: nothing unless the administrator asks.
 */
enum glibc_scope {
	GLIBC_OFF,		/* nothing (default) */
	GLIBC_FILE,		/* only glibc.env, for units that include it */
	GLIBC_MANAGER,		/* also the manager's environment and user sessions */
};

enum run_mode {
	MODE_DAEMON,
	MODE_ONESHOT,		/* apply once and exit, nothing restored */
	MODE_DRY_RUN,		/* print what would change, change nothing */
	MODE_VERIFY,		/* report drift from the policy, change nothing */
	MODE_RESTORE,		/* put back the originals saved in the state dir */
	MODE_NEED_PROBE,	/* exit 0 when this host should be probed now */
};

struct options {
	enum run_mode mode;
	bool force;		/* apply a policy made for another platform */
	bool no_bus;		/* never talk to the service manager */
	bool verbose;
	char policy[PATH_MAX];
	char sysfs_root[PATH_MAX];	/* "" = / */
	char etc_root[PATH_MAX];	/* "" = / ; also roots /run */
	char state_dir[PATH_MAX];
	/*
	 * The ld.so whose --list-tunables gives the glibc sink glibc's
	 * bounds; "" = this program's own (the running glibc).  Tests name
	 * a fake one with PMEM_TUNED_LDSO, honoured only with --etc-root.
	 */
	char ldso[PATH_MAX];
	enum rollback rollback;
	enum glibc_scope glibc;
	/*
	 * metrics_file= of pmem-tuned.conf: where to write the daemon's
	 * state metrics after each pass (metrics_file.h), an absolute path
	 * under --etc-root; "" = none (default).
	 */
	char metrics_file[PATH_MAX];
	/*
	 * When the host is measured again although a policy fits it.  A
	 * probe takes minutes of the memory system and makes a scratch
	 * namespace on a region: the administrator's choice, off by default.
	 * A host that no policy fits is probed regardless.
	 */
	bool reprobe_env;	/* reprobe_on_environment_change: new kernel or microcode */
	bool reprobe_region;	/* reprobe_on_region_add: a region appearing at run time */
};

/* Parse argv; returns 0, 1 when the program should exit 0 (--help), or -EINVAL. */
int options_parse(struct options *o, int argc, char **argv);
/* <etc-root> + path into out */
int etc_path(const struct options *o, const char *path, char *out, size_t len);
/*
 * Read pmem-tuned.conf into o (missing file = defaults).  It steers what
 * root writes, so it gets the policy's rule: a regular file owned by root
 * (or this user) that no one else can write; anything else is refused,
 * logged, and the defaults apply.
 */
int config_load(struct options *o);

#endif
