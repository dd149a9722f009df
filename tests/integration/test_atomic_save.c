// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy_save() is atomic: a child saves policies A and B in turn to one
 * path as fast as it can; the parent SIGKILLs it at random moments and
 * then finds the file byte for byte A or B, and loadable, never torn and
 * never missing.  A killed writer may leave its temp file behind
 * (".NAME.pmem-tune-tmp.XXXXXX": the file is written unnamed (O_TMPFILE)
 * and named only just before rename(), or named from the start where the
 * filesystem has no O_TMPFILE), at most one per kill; the test counts
 * them and says how many it saw.  Aged past ATOMIC_STALE_S, every one is
 * gone after the next save, and an administrator's files beside the
 * policy (NAME.backup, NAME.golden, NAME.231203) are there after all.
 *
 * With --named (run under the no_tmpfile shim: every temp is named from
 * the start) the kills must have left temps, so that the sweep is shown
 * to remove what a killed writer really leaves.
 *
 * A and B are large (256 sizes, 6 curves: about 220 KiB of text) so
 * that a save takes milliseconds and kills land in every phase:
 * serialising, creating and writing the temp file, fsync, rename.
 *
 * Usage: test_atomic_save [DIR [--named]] (default: $TMPDIR or /tmp)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common/atomic_file.h"
#include "mkpolicy.h"
#include "policy/policy.h"

#define ITERATIONS	300
#define TIME_BUDGET_S	15.0	/* stop early on a fast enough sample */
#define MIN_ITERATIONS	25	/* ... but never before this many kills */
#define NSIZES		256

static const char *const strategies[] = {
	"movnt_sse2", "movnt_avx2", "clwb", "clflushopt", "rep_movsb_clwb", "noflush",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A policy whose numbers depend on seed: A and B differ everywhere. */
static struct policy *make_policy(unsigned seed)
{
	struct policy *p = policy_new();
	uint64_t sizes[NSIZES];
	struct policy_target *t;
	struct policy_op *op;

	if (!p)
		return NULL;
	snprintf(p->schema, sizeof(p->schema), "%s", POLICY_SCHEMA);
	snprintf(p->generator.name, sizeof(p->generator.name), "test_atomic_save");
	snprintf(p->generator.mode, sizeof(p->generator.mode), "quick");
	snprintf(p->generator.created, sizeof(p->generator.created), "2026-11-29T20:00:0%uZ",
		 seed % 10);
	p->generator.duration_s = seed;
	snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "sha256:%064u", seed);
	snprintf(p->platform.cpu.vendor, sizeof(p->platform.cpu.vendor), "GenuineIntel");
	p->platform.cpu.family = 6;
	p->platform.cpu.model = 85;
	p->platform.cpu.stepping = 7;
	for (size_t i = 0; i < NSIZES; i++)
		sizes[i] = 64 * (i + 1);
	t = policy_add_target(p, "dram");
	if (!t)
		goto fail;
	snprintf(t->kind, sizeof(t->kind), "dram");
	snprintf(t->mapping, sizeof(t->mapping), "anonymous");
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "none");
	op = policy_target_add_op(t, "write", "sequential", 1, sizes, NSIZES);
	if (!op)
		goto fail;
	for (size_t s = 0; s < sizeof(strategies) / sizeof(strategies[0]); s++) {
		struct policy_curve *c = policy_op_add_curve(op, strategies[s]);

		if (!c)
			goto fail;
		for (size_t i = 0; i < NSIZES; i++) {
			double m = 1000.0 * seed + 10.0 * (double)s + (double)i / 8;

			mkpolicy_cell(c, i, m, 1, 3, 5 + seed);
		}
	}
	op->ranges = calloc(1, sizeof(*op->ranges));
	if (!op->ranges)
		goto fail;
	op->nranges = 1;
	op->ranges[0].to_bytes = POLICY_SIZE_OPEN;
	snprintf(op->ranges[0].strategy, sizeof(op->ranges[0].strategy), "movnt_avx2");
	return p;
fail:
	policy_free(p);
	return NULL;
}

/* The whole file, or NULL if it cannot be opened (errno set). */
static char *slurp(const char *path)
{
	size_t cap = 1 << 21, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			char *n = realloc(buf, 2 * cap + 1);

			if (!n)
				break;
			buf = n;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Is name a temp file of policy_save(base): ".<base>.pmem-tune-tmp.XXXXXX"? */
static bool is_temp(const char *name, const char *base)
{
	static const char tag[] = ".pmem-tune-tmp.";
	size_t blen = strlen(base);

	return name[0] == '.' && !strncmp(name + 1, base, blen) &&
	       !strncmp(name + 1 + blen, tag, sizeof(tag) - 1) &&
	       strlen(name + 1 + blen + sizeof(tag) - 1) == 6;
}

/* Temp files of base in dir: counted; aged by age_s when not 0. */
static unsigned count_temps_aging(const char *dir, const char *base, time_t age_s)
{
	struct timespec ts[2] = { { .tv_sec = time(NULL) - age_s },
				  { .tv_sec = time(NULL) - age_s } };
	unsigned n = 0;
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return 0;
	while ((d = readdir(dh)))
		if (is_temp(d->d_name, base)) {
			n++;
			if (age_s)
				utimensat(dirfd(dh), d->d_name, ts, AT_SYMLINK_NOFOLLOW);
		}
	closedir(dh);
	return n;
}

static unsigned count_temps(const char *dir, const char *base)
{
	return count_temps_aging(dir, base, 0);
}

static void remove_temps(const char *dir, const char *base)
{
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return;
	while ((d = readdir(dh)))
		if (is_temp(d->d_name, base))
			unlinkat(dirfd(dh), d->d_name, 0);
	closedir(dh);
}

/* An administrator's copies beside the policy, an hour old: never a save's to remove. */
static const char *const theirs[] = { "backup", "golden", "231203" };

static void put_theirs(const char *path)
{
	struct timespec ts[2] = { { .tv_sec = time(NULL) - 3600 },
				  { .tv_sec = time(NULL) - 3600 } };
	char name[4300];

	for (size_t i = 0; i < sizeof(theirs) / sizeof(theirs[0]); i++) {
		FILE *f;

		snprintf(name, sizeof(name), "%s.%s", path, theirs[i]);
		f = fopen(name, "w");
		CHECK_MSG(f && fputs("precious\n", f) >= 0 && !fclose(f), "%s: cannot write",
			  name);
		CHECK(utimensat(AT_FDCWD, name, ts, 0) == 0);
	}
}

static void check_theirs(const char *path)
{
	char name[4300];

	for (size_t i = 0; i < sizeof(theirs) / sizeof(theirs[0]); i++) {
		char *text;

		snprintf(name, sizeof(name), "%s.%s", path, theirs[i]);
		text = slurp(name);
		CHECK_MSG(text && !strcmp(text, "precious\n"), "%s: %s", name,
			  text ? "changed" : strerror(errno));
		free(text);
		unlink(name);
	}
}

_Noreturn static void writer(const struct policy *a, const struct policy *b, const char *path,
			     unsigned first)
{
	for (unsigned i = first;; i++)
		if (policy_save(i & 1 ? b : a, path, NULL, 0))
			_exit(3);
}

int main(int argc, char **argv)
{
	const char *base = "pmem-policy.json";
	const char *tmpdir = argc > 1 ? argv[1] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	bool named = argc > 2 && !strcmp(argv[2], "--named");
	unsigned iters = 0, saw_a = 0, saw_b = 0, temps_total = 0, max_delta = 0;
	char dir[4096], path[4200], err[512];
	struct policy *a = make_policy(1), *b = make_policy(2);
	char *sa, *sb;
	double t0, t_save, max_delay_us;

	if (!a || !b)
		return 99;
	sa = policy_to_string(a);
	sb = policy_to_string(b);
	if (!sa || !sb || !strcmp(sa, sb))
		return 99;
	snprintf(dir, sizeof(dir), "%s/pt-atomic.XXXXXX", tmpdir);
	if (!mkdtemp(dir)) {
		perror(dir);
		return 99;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, base);
	put_theirs(path);

	/* the file exists before the first writer: "missing" is a failure */
	t0 = now();
	CHECK_INT(policy_save(a, path, NULL, 0), 0);
	t_save = now() - t0;
	/*
	 * Kill anywhere in the first three saves: fork, serialise, write,
	 * fsync, rename.  The writer starts with A or B at random, so the
	 * first rename changes the file half of the time.
	 */
	max_delay_us = 3e6 * t_save + 2000;
	printf("one save of %zu bytes takes %.1f ms; random kill delays 0..%.0f us\n",
	       strlen(sa), 1e3 * t_save, max_delay_us);
	srand((unsigned)getpid() ^ (unsigned)time(NULL));

	t0 = now();
	/*
	 * The budget only shortens a run that has what it needs: on a loaded
	 * machine the loop goes on past it until MIN_ITERATIONS kills have
	 * landed on both sides of the renames (ctest's timeout is the bound).
	 */
	while (iters < ITERATIONS &&
	       (now() - t0 < TIME_BUDGET_S || iters < MIN_ITERATIONS || !saw_a || !saw_b)) {
		unsigned delay = (unsigned)((double)rand() / RAND_MAX * max_delay_us);
		unsigned before = count_temps(dir, base), after;
		struct policy *got;
		int status;
		char *text;
		pid_t pid;

		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 99;
		}
		if (pid == 0)
			writer(a, b, path, (unsigned)rand() & 1);
		usleep(delay);
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) != pid)
			return 99;
		iters++;
		CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			  "writer ended by itself (status %#x): policy_save failed", status);

		text = slurp(path);
		CHECK_MSG(text, "after a kill at %u us: %s missing: %s", delay, path,
			  strerror(errno));
		if (!text)
			break;
		if (!strcmp(text, sa))
			saw_a++;
		else if (!strcmp(text, sb))
			saw_b++;
		else
			CHECK_MSG(0, "after a kill at %u us: %s is neither A nor B (%zu bytes)",
				  delay, path, strlen(text));
		free(text);

		got = policy_load(path, err, sizeof(err));
		CHECK_MSG(got, "after a kill at %u us: %s", delay, err);
		if (got) {
			char *s = policy_to_string(got);

			CHECK_MSG(s && (!strcmp(s, sa) || !strcmp(s, sb)),
				  "loaded policy re-serialises to neither A nor B");
			free(s);
			policy_free(got);
		}

		/* one writer, killed once: at most one new temp file */
		after = count_temps(dir, base);
		CHECK_MSG(after <= before + 1, "%u temp files appeared after one kill",
			  after - before);
		if (after > before) {
			temps_total += after - before;
			if (after - before > max_delta)
				max_delta = after - before;
		}
		if (check_failed > 10)
			break;
		/*
		 * A loaded machine starts the writer later than one save's
		 * time: where every kill still finds one side, reach further.
		 */
		if (!(iters % 25) && (!saw_a || !saw_b) && max_delay_us < 2e6)
			max_delay_us *= 2;
	}
	printf("%u kills in %.1f s: file was A %u times, B %u times, never torn or missing\n",
	       iters, now() - t0, saw_a, saw_b);
	printf("leftover temp files: %u (%.0f %% of kills; at most %u per kill)\n", temps_total,
	       iters ? 100.0 * temps_total / iters : 0.0, max_delta);
	CHECK_INT(count_temps(dir, base), temps_total);
	CHECK_MSG(iters >= MIN_ITERATIONS, "only %u kills", iters);
	/* the kills must have landed on both sides of the renames */
	CHECK_MSG(saw_a && saw_b, "the kills never caught %s", saw_a ? "B" : "A");

	/* what the killed writers left, once stale, is the next save's to remove */
	if (named)
		CHECK_MSG(temps_total, "no kill left a named temp: the recovery is not exercised");
	count_temps_aging(dir, base, 2 * ATOMIC_STALE_S);
	CHECK_INT(policy_save(a, path, NULL, 0), 0);
	CHECK_MSG(!count_temps(dir, base), "%u stale temp files left after a save",
		  count_temps(dir, base));
	check_theirs(path);

	remove_temps(dir, base);
	unlink(path);
	rmdir(dir);
	free(sa);
	free(sb);
	policy_free(a);
	policy_free(b);
	return check_report("test_atomic_save");
}
