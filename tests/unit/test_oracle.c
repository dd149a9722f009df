// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmarks' oracles, the knobs' scores and their saved sweeps (bench/oracle.c,
 * bench/sweep_record.c).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/oracle.h"
#include "bench/sweep_record.h"
#include "check.h"

/* Chosen on one half, scored on the other; contender 0 (the policy) never chosen. */
static void test_cross_validated(void)
{
	double h0[3] = { 500, 100, 90 }, h1[3] = { 500, 80, 95 };
	double n0[2] = { NAN, 100 }, n1[2] = { NAN, NAN };

	/* h0's best (100) scores 80 in h1, h1's best (95) scores 90 in h0 */
	CHECK_NEAR(oracle_cross_validated(h0, h1, 1, 2), 85, 1e-9);
	/* agreeing halves: the same as the best mean */
	h1[1] = 100;
	h1[2] = 90;
	CHECK_NEAR(oracle_cross_validated(h0, h1, 1, 2), 100, 1e-9);
	/* one way round missing: the other alone */
	n1[1] = 70;
	CHECK_NEAR(oracle_cross_validated(n0, n1, 1, 1), 85, 1e-9);
	n1[1] = NAN;
	CHECK(isnan(oracle_cross_validated(n0, n1, 1, 1)));
}

/*
 * Two cells, three runs.  Cell A: choice 0 passes runs 0 and 1, choice 1
 * run 2.  Cell B: choice 0 passes runs 0 and 2, choice 1 runs 1 and 2.
 * Every pair of runs needs one choice passing both at both cells: none
 * has one, so the bound is one run; the per-cell best (both choices pass
 * two runs) would suggest two.
 */
static void test_best_fixed_runs(void)
{
	uint32_t a[2] = { 0x3, 0x4 }, b[2] = { 0x5, 0x6 }, all[2] = { 0x7, 0 };
	const uint32_t *pass[2] = { a, b };
	const uint32_t *every[2] = { all, all };
	unsigned npick[2] = { 2, 2 };
	uint32_t best = oracle_best_fixed_runs(pass, npick, 2, 3);

	CHECK_INT(__builtin_popcount(best), 1);
	CHECK_INT(best, 0x1);		/* the first set of that size */
	/* with choice 1 of cell B passing run 0 too, runs 0 and 1 go together */
	b[1] = 0x7;
	best = oracle_best_fixed_runs(pass, npick, 2, 3);
	CHECK_INT(best, 0x3);
	/* a choice passing every run at every cell passes them all */
	CHECK_INT(oracle_best_fixed_runs(every, npick, 2, 3), 0x7);
	/* a cell no choice passes in any run: no run at all */
	a[0] = a[1] = 0;
	CHECK_INT(oracle_best_fixed_runs(pass, npick, 2, 3), 0);
	CHECK_INT(oracle_best_fixed_runs(every, npick, 2, 0), 0);
	CHECK_INT(oracle_best_fixed_runs(every, npick, 2, ORACLE_MAX_RUNS + 1), 0);
}

static void test_record_round_trip(void)
{
	char dir[] = "/tmp/test_oracle.XXXXXX", path[256], err[512];
	char *names[3] = { "policy", "movnt_avx2", "movnt_avx512" };
	char *uses[2] = { "movnt_avx512", "movnt_avx512" };
	uint64_t sizes[2] = { 96, 1u << 20 };
	double halves[2 * 2 * 3] = { 1000, 1100, 990, 1010, 1090, NAN,
				     20000, 21000, 19500.5, 20100, 20900, 19800 };
	struct sweep_record_op op = { .pattern = "random", .threads = 1, .ncontenders = 3,
				      .names = names, .first_strategy = 1, .nstrategies = 2,
				      .nsizes = 2, .sizes_bytes = sizes, .policy_uses = uses,
				      .halves_mib_s = halves };
	struct sweep_record rec = { .mode = "standard", .policy = "p.json", .nops = 1,
				    .ops = &op }, back;
	FILE *f;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	CHECK_INT(sweep_record_save(&rec, path), 0);
	CHECK_INT(sweep_record_load(path, &back, err, sizeof(err)), 0);
	CHECK_STR(back.mode, "standard");
	CHECK_STR(back.policy, "p.json");
	CHECK_INT(back.nops, 1);
	if (back.nops == 1) {
		const struct sweep_record_op *b = &back.ops[0];

		CHECK_STR(b->pattern, "random");
		CHECK_INT(b->ncontenders, 3);
		CHECK_INT(b->first_strategy, 1);
		CHECK_INT(b->nstrategies, 2);
		CHECK_INT(b->nsizes, 2);
		CHECK_INT(b->sizes_bytes[1], 1u << 20);
		CHECK_STR(b->names[2], "movnt_avx512");
		CHECK_STR(b->policy_uses[0], "movnt_avx512");
		CHECK(isnan(sweep_record_half(b, 0, 1)[2]));
		CHECK_NEAR(sweep_record_half(b, 1, 0)[2], 19500.5, 1e-9);
		CHECK_NEAR(sweep_record_half(b, 1, 1)[0], 20100, 1e-9);
	}
	sweep_record_free(&back);

	/* not a saved sweep: refused, naming the file */
	f = fopen(path, "w");
	CHECK(f && fputs("{\"schema\": 1}", f) >= 0 && !fclose(f));
	CHECK_INT(sweep_record_load(path, &back, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, path) && strstr(err, "--save-sweep"));
	/* a cell with one rate too few: the field is named */
	f = fopen(path, "w");
	CHECK(f && fputs("{\"format\": \"pmem-tune bench_policy sweep 1\", \"mode\": \"quick\", "
			 "\"policy\": \"x\", \"ops\": [{\"pattern\": \"sequential\", "
			 "\"threads\": 1, \"contenders\": [\"policy\", \"movnt\"], "
			 "\"first_strategy\": 1, \"strategies\": 1, \"cells\": [{\"size_bytes\": "
			 "64, \"policy_uses\": \"movnt\", \"halves_mib_s\": [[1, 2], [3]]}]}]}",
			 f) >= 0 && !fclose(f));
	CHECK_INT(sweep_record_load(path, &back, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "ops[0].cells[0].halves_mib_s[1]"), "%s", err);
	/* a symbolic link in its place is not replaced */
	unlink(path);
	CHECK(!symlink("/dev/null", path));
	CHECK_INT(sweep_record_save(&rec, path), -EEXIST);
	unlink(path);
	rmdir(dir);
}

/*
 * Three strategies over five sizes.  Alone, each size goes to its own
 * best; over a window, a strategy ahead on its neighbours takes a size it
 * loses by a little; a cell not measured (NAN) or not believed (0) is left
 * out of its strategy's mean rather than counted as zero.
 */
static void test_probe_pick(void)
{
	const double med[3 * 5] = {
		100, 100, 100, 100, 100,	/* 0: flat */
		 90, 120, 99, 120, 90,		/* 1: ahead at 1 and 3 */
		NAN, 80, 101, 0, NAN,		/* 2: a little ahead at 2 only */
	};
	const double none[2 * 2] = { NAN, NAN, 0, NAN };

	CHECK_INT(oracle_probe_pick(med, 3, 5, 0, 0), 0);
	CHECK_INT(oracle_probe_pick(med, 3, 5, 1, 0), 1);
	CHECK_INT(oracle_probe_pick(med, 3, 5, 2, 0), 2);
	/* sizes 1-3: strategy 1's mean (about 112.6) beats 2's over 1-2 (about 89.9) */
	CHECK_INT(oracle_probe_pick(med, 3, 5, 2, 1), 1);
	/* at the edge the window is cut: sizes 0-1, 0's 100 against 1's about 103.9 */
	CHECK_INT(oracle_probe_pick(med, 3, 5, 0, 1), 1);
	/* the whole axis: 1's mean (about 103) beats 0's 100 and 2's (about 89.9) */
	CHECK_INT(oracle_probe_pick(med, 3, 5, 4, 4), 1);
	/* nothing measured: the first */
	CHECK_INT(oracle_probe_pick(none, 2, 2, 1, 0), 0);
}

/*
 * A knob over three sizes in two runs: the cached side ahead at 64 B, the
 * streaming side from 256 B.  Switching at 256 B keeps every ratio at 0.9
 * or more; 4 KiB leaves 0.80 at 256 B in run 1, never 0.4.
 */
static void test_knob(void)
{
	const uint64_t sizes[3] = { 64, 256, 4096 };
	const double low[2 * 3] = { 1.0, 0.95, 0.5, 0.98, 0.80, 0.4 };
	const double high[2 * 3] = { 0.6, 0.9, 1.0, 0.7, 0.92, NAN };
	struct oracle_knob k = { .ncells = 3, .nruns = 2, .sizes_bytes = sizes, .low = low,
				 .high = high };
	/* one run, two sizes: 0 and never tie at the worst size, never has the better mean */
	const uint64_t two[2] = { 256, 64 };
	const double tl[2] = { 0.95, 0.9 }, th[2] = { 0.92, 0.9 }, none[2] = { NAN, NAN };
	struct oracle_knob t = { .ncells = 2, .nruns = 1, .sizes_bytes = two, .low = tl,
				 .high = th };
	struct oracle_knob_score s;

	CHECK_INT(oracle_knob_best(&k, &s), 0);
	CHECK_INT(s.threshold_bytes, 256);
	CHECK_NEAR(s.worst, 0.9, 1e-12);
	CHECK_INT(s.worst_cell, 1);
	CHECK_INT(s.worst_run, 0);
	/* run 1's 4 KiB streaming cell is not measured: five pairs count */
	CHECK_INT(s.n, 5);
	CHECK_NEAR(s.mean, pow(1.0 * 0.98 * 0.9 * 0.92 * 1.0, 1.0 / 5), 1e-12);
	/* against its own pair it loses only at 256 B in run 0 (0.9 to 0.95) */
	CHECK_NEAR(s.worst_pair, 0.9 / 0.95, 1e-12);
	/* a value between two sizes acts as the next one up */
	oracle_knob_score(&k, 300, &s);
	CHECK_NEAR(s.worst, 0.80, 1e-12);
	CHECK_INT(s.worst_cell, 1);
	CHECK_INT(s.worst_run, 1);
	CHECK_NEAR(s.worst_pair, 0.80 / 0.92, 1e-12);
	oracle_knob_score(&k, ORACLE_KNOB_NEVER, &s);
	CHECK_NEAR(s.worst, 0.4, 1e-12);
	CHECK_INT(s.n, 6);
	/* run 1's 4 KiB has no streaming cell to lose to: 0.5 of 1.0 in run 0 */
	CHECK_NEAR(s.worst_pair, 0.5, 1e-12);
	oracle_knob_score(&k, 0, &s);
	CHECK_NEAR(s.worst, 0.6, 1e-12);

	/* the worst sizes tie: the mean decides */
	CHECK_INT(oracle_knob_best(&t, &s), 0);
	CHECK_INT(s.threshold_bytes, ORACLE_KNOB_NEVER);
	CHECK_NEAR(s.mean, sqrt(0.95 * 0.9), 1e-12);
	/* everything alike: the smallest value */
	t.low = th;
	CHECK_INT(oracle_knob_best(&t, &s), 0);
	CHECK_INT(s.threshold_bytes, 0);
	/* nothing measured: no best */
	t.low = t.high = none;
	CHECK_INT(oracle_knob_best(&t, &s), -ENOENT);
	oracle_knob_score(&t, 64, &s);
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.worst));
	CHECK(isnan(s.worst_pair));
}

int main(void)
{
	test_knob();
	test_cross_validated();
	test_probe_pick();
	test_best_fixed_runs();
	test_record_round_trip();
	return check_report("test_oracle");
}
