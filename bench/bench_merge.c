// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What pmem-tune --merge costs a fleet: HOSTS probes of one platform and
 * one probe each of PLATFORMS others, written from a template probe
 * (a recorded quick probe by default), merged by the pmem-tune given,
 * from their directory as a fleet would.  Each host's curves are the
 * template's scaled by its own factor (within +-5 %, each curve its
 * own), decided again, so that the merge aggregates hosts that differ;
 * every host has its own host_id.
 *
 * Prints, per run: the inputs (files, MiB), the merge's wall-clock and
 * CPU (user and system) seconds, its peak resident set (the child's
 * ru_maxrss), the output's size.  Figures only, never pass/fail.
 *
 *   bench_merge [--hosts N]... [--platforms N] [--template FILE]
 *               [--dir DIR] [--keep] PMEM_TUNE
 *
 * Several --hosts run one after the other (each with the same other
 * platforms), so that a table shows how the cost grows with the hosts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_cli.h"
#include "policy/policy.h"
#include "policy/sha256.h"
#include "rule/crossover.h"
#include "rule/export.h"

#ifndef BENCH_MERGE_TEMPLATE
#define BENCH_MERGE_TEMPLATE "tests/data/amd-f26-kvm/quick-01.json"
#endif

#define MAX_RUNS 16

static uint64_t rng_state = 0x6d65726765ULL;

/* xorshift64*: the same inputs on every run */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
}

/* "sha256:" and the hex of sha256(what, n) */
static void hash_id(const char *what, unsigned n, char *out, size_t len)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char buf[128];
	size_t o;

	snprintf(buf, sizeof(buf), "%s %u", what, n);
	sha256(buf, strlen(buf), d);
	o = (size_t)snprintf(out, len, "sha256:");
	for (size_t i = 0; i < SHA256_DIGEST_LEN && o + 2 < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%02x", d[i]);
}

static int write_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(s), done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, s + done, len - done);

		if (n < 0) {
			close(fd);
			return -errno;
		}
		done += (size_t)n;
	}
	return close(fd) ? -errno : 0;
}

/*
 * The template as host n of platform fp: its own id, date and curves
 * (each curve of each op scaled by one factor), decided again.
 */
static int write_host(const struct policy *tpl, const char *fp, unsigned n, const char *path,
		      size_t *bytes)
{
	struct policy *p = policy_dup(tpl);
	char *s;
	int rc = -ENOMEM;

	if (!p)
		return rc;
	snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "%s", fp);
	hash_id(fp, n, p->generator.host_id, sizeof(p->generator.host_id));
	snprintf(p->generator.created, sizeof(p->generator.created),
		 "2026-12-%02uT%02u:%02u:%02uZ", 1 + n / 86400 % 28, n / 3600 % 24, n / 60 % 60,
		 n % 60);
	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			struct policy_op *op = &p->targets[t].ops[o];

			for (size_t c = 0; c < op->ncurves; c++) {
				struct policy_curve *cv = &op->curves[c];
				double k = 0.95 + 0.1 * uniform();

				for (size_t i = 0; i < op->nsizes; i++) {
					/* at the file's precision, as a probe writes it */
					cv->median_mib_s[i] =
						policy_mib_s_as_saved(cv->median_mib_s[i] * k);
					cv->p10_mib_s[i] =
						policy_mib_s_as_saved(cv->p10_mib_s[i] * k);
					cv->p90_mib_s[i] =
						policy_mib_s_as_saved(cv->p90_mib_s[i] * k);
					cv->ci_lo_mib_s[i] =
						policy_mib_s_as_saved(cv->ci_lo_mib_s[i] * k);
					cv->ci_hi_mib_s[i] =
						policy_mib_s_as_saved(cv->ci_hi_mib_s[i] * k);
				}
			}
			if (crossover_decide(op))
				goto out;
		}
	if (export_compute(p, NULL))
		goto out;
	s = policy_to_string(p);
	if (!s)
		goto out;
	rc = write_text(path, s);
	*bytes += strlen(s);
	free(s);
out:
	policy_free(p);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * pmem-tune --merge out --insecure dir: wall-clock and CPU (user and
 * system) seconds, peak RSS (KiB); -EIO when it failed.
 */
static int run_merge(const char *tune, const char *out, const char *dir, double *secs,
		     double *cpu, long *rss_kib)
{
	double t0 = now_s();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execl(tune, tune, "--merge", out, "--insecure", dir, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return -errno;
	*secs = now_s() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	*rss_kib = ru.ru_maxrss;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_merge [--hosts N]... [--platforms N] [--template FILE] "
		"[--dir DIR] [--keep] PMEM_TUNE\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'n' },
		{ "platforms", required_argument, NULL, 'p' },
		{ "template", required_argument, NULL, 't' },
		{ "dir", required_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned hosts[MAX_RUNS], nruns = 0, platforms = 200;
	const char *tpl_path = BENCH_MERGE_TEMPLATE, *dir = NULL, *tune;
	char tmpl[] = "/tmp/pt-bench-merge.XXXXXX", err[512], path[8192], out[8192];
	struct policy *tpl;
	bool keep = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (nruns == MAX_RUNS || atoi(optarg) < 1) {
				usage(stderr);
				return 2;
			}
			hosts[nruns++] = (unsigned)atoi(optarg);
			break;
		case 'p':
			platforms = (unsigned)atoi(optarg);
			break;
		case 't':
			tpl_path = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'k':
			keep = true;
			break;
		default:
			return bench_usage_exit(c, usage);
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	tune = argv[optind];
	if (!nruns)
		hosts[nruns++] = 10000;
	tpl = policy_load(tpl_path, err, sizeof(err));
	if (!tpl) {
		fprintf(stderr, "bench_merge: %s\n", err);
		return 1;
	}
	policy_drop_raw(tpl);
	if (dir && mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "bench_merge: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (!dir) {
		dir = mkdtemp(tmpl);
		if (!dir) {
			perror("bench_merge: mkdtemp");
			return 1;
		}
	}
	printf("template %s: %zu targets, %zu ops in its first\n", tpl_path, tpl->ntargets,
	       tpl->ntargets ? tpl->targets[0].nops : 0);
	printf("%8s %9s %7s %9s %8s %8s %12s %10s\n", "hosts", "platforms", "files",
	       "input MiB", "wall s", "CPU s", "peak RSS MiB", "output MiB");
	for (unsigned r = 0; r < nruns; r++) {
		char fp[80], files[4096];
		size_t bytes = 0;
		unsigned n = 0;
		double secs = 0, cpu = 0;
		long rss = 0;
		struct stat st;
		int rc = 0;

		snprintf(files, sizeof(files), "%s/run%u", dir, r);
		if (mkdir(files, 0755) && errno != EEXIST) {
			perror("bench_merge: mkdir");
			return 1;
		}
		rng_state = 0x6d65726765ULL;
		hash_id("bench platform", 0, fp, sizeof(fp));
		for (unsigned i = 0; !rc && i < hosts[r]; i++, n++) {
			snprintf(path, sizeof(path), "%s/host-%06u.json", files, i);
			rc = write_host(tpl, fp, i, path, &bytes);
		}
		for (unsigned j = 1; !rc && j <= platforms; j++, n++) {
			hash_id("bench platform", j, fp, sizeof(fp));
			snprintf(path, sizeof(path), "%s/other-%04u.json", files, j);
			rc = write_host(tpl, fp, 0, path, &bytes);
		}
		if (rc) {
			fprintf(stderr, "bench_merge: %s: %s\n", path, strerror(-rc));
			return 1;
		}
		snprintf(out, sizeof(out), "%s/merged-%u.json", dir, r);
		rc = run_merge(tune, out, files, &secs, &cpu, &rss);
		if (rc) {
			fprintf(stderr, "bench_merge: %s --merge %s %s failed\n", tune, out, files);
			return 1;
		}
		printf("%8u %9u %7u %9.1f %8.2f %8.2f %12.1f %10.1f\n", hosts[r], platforms, n,
		       bytes / 1048576.0, secs, cpu, rss / 1024.0,
		       stat(out, &st) ? 0.0 : st.st_size / 1048576.0);
		fflush(stdout);
		if (!keep) {
			for (unsigned i = 0; i < hosts[r]; i++) {
				snprintf(path, sizeof(path), "%s/host-%06u.json", files, i);
				unlink(path);
			}
			for (unsigned j = 1; j <= platforms; j++) {
				snprintf(path, sizeof(path), "%s/other-%04u.json", files, j);
				unlink(path);
			}
			unlink(out);
			rmdir(files);
		}
	}
	if (!keep && dir == tmpl)
		rmdir(dir);
	policy_free(tpl);
	return 0;
}
