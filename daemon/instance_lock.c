// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/lock_file.h"
#include "common/path.h"
#include "common/trusted.h"
#include "daemon/instance_lock.h"
#include "daemon/log.h"

#define POLL_MS	50

/* The pid the holder wrote, for the message; 0 when unknown. */
static long holder(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%ld", &pid) == 1 && pid > 0 ? pid : 0;
}

int instance_lock(const char *dir, unsigned wait_ms)
{
	const struct timespec poll = { 0, POLL_MS * 1000000L };
	char path[4096], pid[24];
	unsigned waited = 0;
	struct stat st;
	int fd, r, n;

	r = path_join(path, sizeof(path), dir, "/lock");
	if (r < 0)
		return r;
	fd = lock_file_open(path, &st);
	if (fd < 0) {
		/* ELOOP, EISDIR, ENXIO, EINVAL: something else is there, say what */
		if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
			log_err("%s: the instance lock is %s, not a regular file; refusing to run",
				path, output_path_kind(path));
		else
			log_err("%s: cannot open the instance lock: %s; refusing to run", path,
				strerror(-fd));
		return fd;
	}
	/* our pid goes into it: never into someone else's file, nor one linked elsewhere */
	if (!trusted_stat(&st)) {
		log_err("%s: the instance lock is owned by uid %u with mode %04o, not root's (or "
			"ours) writable by no one else; refusing to run", path,
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	if (st.st_nlink != 1) {
		log_err("%s: the instance lock has %lu names, not one (a hard link elsewhere); "
			"refusing to run", path, (unsigned long)st.st_nlink);
		close(fd);
		return -EPERM;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		if (r == -EINTR)
			continue;
		if (r != -EWOULDBLOCK || waited >= wait_ms) {
			long p = r == -EWOULDBLOCK ? holder(fd) : 0;

			if (r == -EWOULDBLOCK && p)
				log_err("another pmem-tuned (pid %ld) holds %s; refusing to run "
					"beside it: two writers would lose the originals", p,
					path);
			else if (r == -EWOULDBLOCK)
				log_err("another pmem-tuned holds %s; refusing to run beside it: "
					"two writers would lose the originals", path);
			else
				log_err("%s: cannot lock: %s; refusing to run", path,
					strerror(-r));
			close(fd);
			return r == -EWOULDBLOCK ? -EBUSY : r;
		}
		nanosleep(&poll, NULL);
		waited += POLL_MS;
	}
	/* who holds it, for the next one's message */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, n, 0) != n)
		log_debug("%s: cannot record our pid: %s", path, strerror(errno));
	return fd;
}
