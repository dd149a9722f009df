// SPDX-License-Identifier: GPL-2.0-or-later
/* The running glibc's bounds of its tunables, from its ld.so --list-tunables. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "daemon/glibc_bounds.h"

int glibc_bound_parse(const char *text, const char *name, struct glibc_bound *b)
{
	size_t nlen = strlen(name);
	const char *line = text;

	while (line && *line) {
		const char *end = strchrnul(line, '\n');
		char copy[256], value[64], min[64], max[64];
		int used = -1;

		if ((size_t)(end - line) > nlen && !strncmp(line, name, nlen) &&
		    line[nlen] == ':') {
			/* a line longer than any glibc prints is not one of its */
			if ((size_t)(end - line) >= sizeof(copy))
				return -EINVAL;
			memcpy(copy, line, end - line);
			copy[end - line] = '\0';
			if (sscanf(copy + nlen + 1, " %63s (min: %63[^,], max: %63[^)])%n", value,
				   min, max, &used) != 3 || used < 0 ||
			    copy[nlen + 1 + used] != '\0' || parse_u64(value, &b->value) ||
			    parse_u64(min, &b->min) || parse_u64(max, &b->max))
				return -EINVAL;
			return 0;
		}
		line = *end ? end + 1 : end;
	}
	return -ENOENT;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	const char **interp = data;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*interp = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	/* the program itself comes first; the rest are its libraries */
	return 1;
}

int glibc_ldso_self(char *out, size_t len)
{
	const char *interp = NULL;

	dl_iterate_phdr(first_object, &interp);
	if (!interp || !*interp)
		return -ENOENT;
	if (snprintf(out, len, "%s", interp) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int spawn(const char *ldso, int out_fd, pid_t *pid)
{
	char *const argv[] = { (char *)ldso, (char *)"--list-tunables", NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	if ((r = posix_spawn_file_actions_init(&fa)))
		return -r;
	if ((r = posix_spawnattr_init(&at))) {
		posix_spawn_file_actions_destroy(&fa);
		return -r;
	}
	/*
	 * The daemon blocks the signals its event loop takes: not its child.
	 * A group of its own, so that a kill on timeout reaches what it ran.
	 */
	if (!(r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) &&
	    !(r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO)) &&
	    !(r = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0)) &&
	    !(r = posix_spawnattr_setsigmask(&at, &none)) &&
	    !(r = posix_spawnattr_setsigdefault(&at, &all)) &&
	    !(r = posix_spawnattr_setpgroup(&at, 0)) &&
	    !(r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					   POSIX_SPAWN_SETPGROUP)))
		r = posix_spawn(pid, ldso, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -r;
}

/* The child's status once it is gone: by itself before deadline, else killed. */
static int reap(pid_t pid, long long deadline, bool kill_now, int *status)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	pid_t w = 0;

	while (!kill_now && (w = waitpid(pid, status, WNOHANG)) == 0 && now_ms() < deadline)
		nanosleep(&tick, NULL);
	if (!kill_now && w == pid)
		return 0;
	/* its own process group (spawn()): whatever it started goes too */
	kill(-pid, SIGKILL);
	while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return -ETIMEDOUT;
}

int glibc_list_tunables(const char *ldso, int timeout_ms, char **text, char *why,
			size_t whylen)
{
	long long deadline = now_ms() + timeout_ms;
	size_t len = 0;
	int p[2], r = 0, status = 0;
	char *buf;
	pid_t pid;

	*text = NULL;
	buf = malloc(GLIBC_LIST_MAX + 1);
	if (!buf || pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(why, whylen, "%s", strerror(-r));
		free(buf);
		return r;
	}
	r = spawn(ldso, p[1], &pid);
	close(p[1]);
	if (r < 0) {
		close(p[0]);
		free(buf);
		snprintf(why, whylen, "cannot run it: %s", strerror(-r));
		return r;
	}
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t got;
		int n;

		if (left <= 0) {
			r = -ETIMEDOUT;
			snprintf(why, whylen, "no answer within %d ms", timeout_ms);
			break;
		}
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			snprintf(why, whylen, "poll: %s", strerror(-r));
			break;
		}
		if (n <= 0)
			continue;
		got = read(p[0], buf + len, GLIBC_LIST_MAX + 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			snprintf(why, whylen, "read: %s", strerror(-r));
			break;
		}
		if (got == 0)
			break;
		len += got;
		if (len > GLIBC_LIST_MAX) {
			r = -EFBIG;
			snprintf(why, whylen, "more than %d bytes of output", GLIBC_LIST_MAX);
			break;
		}
	}
	close(p[0]);
	if (reap(pid, deadline, r < 0, &status) < 0 && r == 0) {
		/* closed its output but went on running */
		r = -ETIMEDOUT;
		snprintf(why, whylen, "no answer within %d ms", timeout_ms);
	}
	if (r == 0 && WIFSIGNALED(status)) {
		r = -EIO;
		snprintf(why, whylen, "killed by signal %d", WTERMSIG(status));
	} else if (r == 0 && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		r = -EIO;
		snprintf(why, whylen, "exited with status %d", WEXITSTATUS(status));
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}
