// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "daemon/log.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static bool use_journal;
static int max_prio = LOG_INFO;
static char policy_path[512];

/* JOURNAL_STREAM is "dev:ino" of the stream stderr is connected to, if it is still ours */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_setup(bool verbose)
{
	/*
	 * Native journal entries keep the fields.  The journal takes them
	 * when stderr already goes there (JOURNAL_STREAM), or for a unit
	 * whose output was redirected (INVOCATION_ID) when journald is
	 * actually up: sd_journal_send() drops messages silently without it.
	 */
	use_journal = access(JOURNAL_SOCKET, W_OK) == 0 &&
		      (stderr_is_journal() || getenv("INVOCATION_ID"));
	max_prio = verbose ? LOG_DEBUG : LOG_INFO;
}

void log_set_max_prio(int prio)
{
	max_prio = prio;
}

void log_set_policy(const char *path)
{
	snprintf(policy_path, sizeof(policy_path), "%s", path ? path : "");
}

static void add_field(struct iovec *iov, int *n, char *buf, size_t len,
		      const char *key, const char *value)
{
	if (!value)
		return;
	snprintf(buf, len, "%s=%s", key, value);
	iov[*n].iov_base = buf;
	iov[*n].iov_len = strlen(buf);
	(*n)++;
}

void log_kv_msg(int prio, const struct log_kv *kv, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (prio > max_prio)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (use_journal) {
		char f[7][1100];
		struct iovec iov[7];
		char pri[16];
		int n = 0;

		snprintf(pri, sizeof(pri), "%d", prio);
		add_field(iov, &n, f[0], sizeof(f[0]), "MESSAGE", msg);
		add_field(iov, &n, f[1], sizeof(f[1]), "PRIORITY", pri);
		add_field(iov, &n, f[2], sizeof(f[2]), "POLICY",
			  policy_path[0] ? policy_path : NULL);
		if (kv) {
			add_field(iov, &n, f[3], sizeof(f[3]), "SINK", kv->sink);
			add_field(iov, &n, f[4], sizeof(f[4]), "KNOB", kv->knob);
			add_field(iov, &n, f[5], sizeof(f[5]), "VALUE", kv->value);
			add_field(iov, &n, f[6], sizeof(f[6]), "OLD_VALUE",
				  kv->old_value);
		}
		if (sd_journal_sendv(iov, n) >= 0)
			return;
		/* journald gone (shutdown): fall back to stderr */
	}
	fprintf(stderr, "pmem-tuned: %s\n", msg);
}
