// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decision rule on recorded data: every machine's probes under
 * tests/data/<machine>/ decided again must give the decisions in
 * <mode>.expect (ranges of every op and the exports) in at least the
 * stated number of recordings, deterministically; deciding each
 * recording against the previous one as baseline must keep them, and so
 * must every link of a chain where each recording is decided against the
 * chain so far with the next one as its fresh second look, for the
 * ranges' losses and the exports' moves; and the
 * published tables under tests/data/reference/ must give their known
 * crossovers.  PT_REPLAY_PRINT=1 prints each file's decisions instead,
 * to review and write a new .expect file.
 *
 * Usage: test_replay DATA_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/samples.h"

#define SIG_MAX 8192
#define FILES_MAX 64

static const char *data_dir;
static bool print_only;

static void sig_add(char *sig, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sig_add(char *sig, const char *fmt, ...)
{
	size_t n = strlen(sig);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sig + n, SIG_MAX - n, fmt, ap);
	va_end(ap);
}

static void export_sig(char *sig, const char *name, const struct policy_export *e)
{
	sig_add(sig, "%s:", name);
	if (!e->present) {
		sig_add(sig, " absent\n");
		return;
	}
	for (size_t i = 0; i < e->nkv; i++)
		sig_add(sig, " %s=%s", e->kv[i].key, e->kv[i].value);
	sig_add(sig, "\n");
}

/* What a consumer acts on: every op's ranges, and the exports. */
static void signature(const struct policy *p, char *sig)
{
	sig[0] = 0;
	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			const struct policy_op *op = &p->targets[t].ops[o];

			sig_add(sig, "%s %s/%s/%u:", p->targets[t].name, op->op, op->pattern,
				op->threads);
			for (size_t r = 0; r < op->nranges; r++)
				sig_add(sig, " %" PRIu64 ":%s", op->ranges[r].from_bytes,
					op->ranges[r].strategy);
			sig_add(sig, "\n");
		}
	export_sig(sig, "libpmem", &p->exports.libpmem);
	if (p->exports.kernel.present && p->exports.kernel.threshold_bytes != POLICY_SIZE_OPEN)
		sig_add(sig, "kernel: %" PRIu64 "\n", p->exports.kernel.threshold_bytes);
	else
		sig_add(sig, "kernel: %s\n", p->exports.kernel.present ? "never" : "absent");
	export_sig(sig, "glibc", &p->exports.glibc);
}

/*
 * A recording as pmem-tune --decide reads it: where the probe kept its
 * samples (--keep-samples), every cell is summarised again from them
 * first, and an unedited recording's medians are its samples' to the
 * file's rounding.  *raw (may be NULL) is set when it had samples.
 */
static struct policy *recording(const char *path, bool *raw)
{
	char err[512];
	struct policy *p = policy_load(path, err, sizeof(err));

	CHECK_MSG(p != NULL, "%s: %s", path, err);
	if (raw)
		*raw = false;
	for (size_t t = 0; p && t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			struct policy_op *op = &p->targets[t].ops[o];
			struct policy_raw_moved m = { 0 };

			if (raw)
				*raw |= policy_op_has_raw(op);
			CHECK_INT(policy_op_summarize_raw(op, &m), 0);
			CHECK_MSG(!m.count, "%s: %zu medians differ from their samples", path,
				  m.count);
		}
	return p;
}

static struct policy *decided(const char *path, const struct policy *baseline)
{
	struct policy *p = recording(path, NULL);

	if (!p)
		return NULL;
	CHECK_INT(crossover_decide_policy(p, baseline), 0);
	CHECK_INT(export_compute_with_baseline(p, NULL, baseline), 0);
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of dir/<prefix>*.json; returns the count. */
static size_t list(const char *dir, const char *prefix, char **out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < FILES_MAX) {
		size_t l = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, strlen(prefix)) || l < 5 ||
		    strcmp(de->d_name + l - 5, ".json"))
			continue;
		if (asprintf(&out[n], "%s/%s", dir, de->d_name) > 0)
			n++;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), cmp_str);
	return n;
}

/* The .expect file: "min N" then the decisions every recording should give. */
static char *expect_load(const char *path, unsigned *min)
{
	FILE *f = fopen(path, "re");
	char *text = calloc(1, SIG_MAX);
	size_t n;

	if (!f || !text || fscanf(f, "min %u\n", min) != 1) {
		if (f)
			fclose(f);
		free(text);
		return NULL;
	}
	n = fread(text, 1, SIG_MAX - 1, f);
	text[n] = 0;
	fclose(f);
	return text;
}

/* The cells of curves a and b at op's size index i replaced by next's, flagged re-measured. */
static void fresh_cells(struct policy_op *op, const struct policy_op *next, size_t i,
			const int *curves)
{
	int j = next ? policy_op_size_index(next, op->sizes_bytes[i]) : -1;

	for (int k = 0; k < 2; k++) {
		struct policy_curve *c = &op->curves[curves[k]];
		const struct policy_curve *n = next ? policy_op_find_curve(next, c->strategy)
						    : NULL;

		if (next == op) {
			/* one look only: the cells stand for their own second look */
		} else if (j < 0 || !n) {
			/* nothing to look again with: the second look fails */
			c->median_mib_s[i] = NAN;
			c->samples[i] = 0;
		} else {
			c->median_mib_s[i] = n->median_mib_s[j];
			c->p10_mib_s[i] = n->p10_mib_s[j];
			c->p90_mib_s[i] = n->p90_mib_s[j];
			c->ci_lo_mib_s[i] = n->ci_lo_mib_s[j];
			c->ci_hi_mib_s[i] = n->ci_hi_mib_s[j];
			c->samples[i] = n->samples[j];
		}
		c->cell_flags[i] |= POLICY_CELL_REMEASURED;
	}
}

/*
 * The exports' second look, as the probe takes it: the sizes a move of an
 * export rests on (export_rechecks(), against baseline) get every curve's
 * cells from next, flagged re-measured, and p is decided again.  Returns
 * the number of sizes looked at.
 */
static size_t export_second_look(struct policy *p, const struct policy *baseline,
				 const struct policy *next)
{
	size_t looked = 0;

	for (size_t t = 0; t < p->ntargets; t++) {
		struct policy_target *pt = &p->targets[t];
		const struct policy_target *nt = policy_find_target(next, pt->name);
		struct second_look rx[128];
		ssize_t n = export_rechecks(p, NULL, baseline, pt, rx, 128);

		CHECK(n >= 0);
		for (ssize_t k = 0; k < n; k++) {
			struct policy_op *op = &pt->ops[rx[k].op];
			const struct policy_op *no = next == p ? op : nt ?
						     policy_find_op(nt, op->op, op->pattern,
								    op->threads) : NULL;

			for (size_t c = 0; c < op->ncurves; c++) {
				int pair[2] = { (int)c, (int)c };

				if (op->curves[c].samples[rx[k].index])
					fresh_cells(op, no, rx[k].index, pair);
			}
		}
		looked += n > 0 ? (size_t)n : 0;
	}
	if (looked)
		CHECK_INT(crossover_decide_policy(p, baseline), 0);
	return looked;
}

/*
 * The sticky re-probe on recordings, chained: each recording decided
 * against what the chain decided so far, the sizes where that loses
 * (crossover_baseline_losses()) looked at again with the next
 * recording's cells -- another probe of the same host, as fresh as the
 * probe's own second look.  A decision changes only where both lose.
 * Stable: at most one link in ten, rounded up, changes the decisions or
 * exports (a chain of four may move an export once, as one decisive
 * worst-size gain that holds on its second look does).  With
 * one_look the file's own cells stand for the second look (the rule
 * before the fresh re-measurement), for comparison: not asserted.
 */
static size_t replay_chain(const char *machine, const char *mode, char **files, size_t n,
			   bool one_look)
{
	char sig[SIG_MAX], prev_sig[SIG_MAX];
	struct policy *prev = NULL;
	size_t kept = 0, looked = 0;

	for (size_t i = 0; i < n; i++) {
		struct policy *p = recording(files[i], NULL);
		struct policy *next = recording(files[(i + 1) % n], NULL);

		if (!p || !next) {
			policy_free(p);
			policy_free(next);
			break;
		}
		for (size_t t = 0; prev && t < p->ntargets; t++) {
			struct policy_target *pt = &p->targets[t];
			const struct policy_target *bt = policy_find_target(prev, pt->name);
			const struct policy_target *nt = policy_find_target(next, pt->name);

			for (size_t o = 0; bt && nt && o < pt->nops; o++) {
				struct policy_op *op = &pt->ops[o];
				const struct policy_op *bo = policy_find_op(bt, op->op, op->pattern,
									   op->threads);
				const struct policy_op *no = policy_find_op(nt, op->op, op->pattern,
									   op->threads);
				struct second_look loss[128];
				size_t nl = no ? crossover_baseline_losses(op, bo, loss, 128) : 0;

				for (size_t k = 0; k < nl; k++)
					fresh_cells(op, one_look ? op : no, loss[k].index,
						    loss[k].curves);
				looked += nl;
			}
		}
		CHECK_INT(crossover_decide_policy(p, prev), 0);
		looked += export_second_look(p, prev, one_look ? p : next);
		CHECK_INT(export_compute_with_baseline(p, NULL, prev), 0);
		if (prev) {
			signature(prev, prev_sig);
			signature(p, sig);
			kept += !strcmp(sig, prev_sig);
			if (strcmp(sig, prev_sig) && !one_look)
				fprintf(stderr, "%s chained on the previous ones changes:\n%s",
					files[i], sig);
		}
		policy_free(prev);
		policy_free(next);
		prev = p;
	}
	policy_free(prev);
	if (one_look)
		return kept + 1;
	CHECK_MSG(kept + 1 >= n, "%s %s: chained replay keeps %zu of %zu links",
		  machine, mode, kept, n - 1);
	printf("%s %s: chained replay %zu/%zu stable (%zu sizes looked at again)\n", machine,
	       mode, kept + 1, n, looked);
	return kept + 1;
}

static void replay_mode(const char *machine, const char *mode)
{
	char dir[512], path[600], *files[FILES_MAX], sig[SIG_MAX], prev_sig[SIG_MAX];
	char *expect = NULL;
	size_t n, match = 0, sticky = 0, with_samples = 0;
	unsigned min = 0;
	struct policy *prev = NULL;

	snprintf(dir, sizeof(dir), "%s/%s", data_dir, machine);
	n = list(dir, mode, files);
	if (!n)
		return;
	snprintf(path, sizeof(path), "%s/%s.expect", dir, mode);
	if (!print_only) {
		expect = expect_load(path, &min);
		CHECK_MSG(expect != NULL, "%s: missing or not 'min N' first", path);
		if (!expect)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct policy *p = decided(files[i], NULL), *again = decided(files[i], NULL), *b;
		bool raw = false;

		policy_free(recording(files[i], &raw));
		with_samples += raw;
		char *s1 = p ? policy_to_string(p) : NULL;
		char *s2 = again ? policy_to_string(again) : NULL;

		/* replay is deterministic: the same bytes twice */
		CHECK_MSG(s1 && s2 && !strcmp(s1, s2), "%s: two replays differ", files[i]);
		if (p)
			signature(p, sig);
		if (print_only && p)
			printf("== %s\n%s", files[i], sig);
		else if (p && !strcmp(sig, expect))
			match++;
		else if (p)
			fprintf(stderr, "%s decides otherwise:\n%s", files[i], sig);
		/* sticky: against the previous recording's decisions, they stay */
		if (prev && p) {
			b = decided(files[i], prev);
			signature(prev, prev_sig);
			if (b) {
				signature(b, sig);
				sticky += !strcmp(sig, prev_sig);
				if (strcmp(sig, prev_sig))
					fprintf(stderr, "%s against the previous one changes:\n%s",
						files[i], sig);
			}
			policy_free(b);
		}
		free(s1);
		free(s2);
		policy_free(again);
		policy_free(prev);
		prev = p;
	}
	if (!print_only) {
		replay_chain(machine, mode, files, n, false);
		/* for comparison, not asserted: a change on one look, as before */
		printf("%s %s: chained on one look %zu/%zu stable\n", machine, mode,
		       replay_chain(machine, mode, files, n, true), n);
	}
	if (!print_only) {
		CHECK_MSG(match >= min, "%s %s: %zu of %zu recordings give the expected decisions, "
			  "want %u", machine, mode, match, n, min);
		/* n - 1 pairs; the same bar, less the one the first file took */
		CHECK_MSG(sticky + 1 >= min, "%s %s: %zu of %zu re-decisions keep the baseline",
			  machine, mode, sticky, n - 1);
		printf("%s %s: %zu/%zu expected, %zu/%zu sticky%s\n", machine, mode, match, n,
		       sticky, n - 1, with_samples ? " (from their raw samples)" : "");
		/* a directory of --keep-samples recordings: every one has them */
		CHECK_MSG(!with_samples || with_samples == n, "%s %s: %zu of %zu recordings have "
			  "raw samples", machine, mode, with_samples, n);
	}
out:
	policy_free(prev);
	free(expect);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
}

/* ---- the published tables ---- */

/* A reference table ("pmem-tune reference curves/1") as a one-op policy. */
static struct policy *reference_policy(const char *path)
{
	struct json_object *root = json_object_from_file(path), *sizes, *curves, *v;
	struct policy *p = policy_new();
	struct policy_target *t;
	struct policy_op *op;
	uint64_t sz[64];
	size_t n;

	if (!root || !p || !json_object_object_get_ex(root, "sizes_bytes", &sizes) ||
	    !json_object_object_get_ex(root, "curves", &curves))
		goto fail;
	n = json_object_array_length(sizes);
	if (n > 64)
		goto fail;
	for (size_t i = 0; i < n; i++)
		sz[i] = (uint64_t)json_object_get_int64(json_object_array_get_idx(sizes, i));
	policy_cpu_add_feature(&p->platform.cpu, "clflushopt");
	policy_cpu_add_feature(&p->platform.cpu, "clwb");
	t = policy_add_target(p, "pmem0");
	if (!t)
		goto fail;
	snprintf(t->kind, sizeof(t->kind), "pmem");
	json_object_object_get_ex(root, "pattern", &v);
	op = policy_target_add_op(t, "write", json_object_get_string(v), 1, sz, n);
	if (!op)
		goto fail;
	json_object_object_foreach(curves, name, arr) {
		struct policy_curve *c = policy_op_add_curve(op, name);

		if (!c)
			goto fail;
		/* medians only: the interval collapses onto them, one sample */
		for (size_t i = 0; i < n; i++) {
			double m = json_object_get_double(json_object_array_get_idx(arr, i));

			c->median_mib_s[i] = c->ci_lo_mib_s[i] = c->ci_hi_mib_s[i] = m;
			c->samples[i] = 1;
		}
	}
	json_object_put(root);
	CHECK_INT(crossover_decide_policy(p, NULL), 0);
	CHECK_INT(export_compute(p, NULL), 0);
	return p;
fail:
	CHECK_MSG(0, "%s: not a reference table", path);
	json_object_put(root);
	policy_free(p);
	return NULL;
}

/* The family decided at size s (from the ranges), "" if none. */
static const char *family_at(const struct policy_op *op, uint64_t s)
{
	for (size_t r = 0; r < op->nranges; r++)
		if (s >= op->ranges[r].from_bytes && s < op->ranges[r].to_bytes)
			return op->ranges[r].family;
	return "";
}

static struct policy_op *ref_op(struct policy *p)
{
	return p ? &p->targets[0].ops[0] : NULL;
}

static void test_reference(void)
{
	char path[600];
	struct policy *p;
	struct policy_op *op;
	size_t nstream;

	/* dm-writecache on Optane: movnti up to 512, clflushopt from 1 KiB */
	snprintf(path, sizeof(path), "%s/reference/dm-writecache-optane.json", data_dir);
	p = reference_policy(path);
	op = ref_op(p);
	if (op) {
		uint64_t from = 0;

		for (size_t r = 0; r < op->nranges; r++)
			if (!strcmp(op->ranges[r].family, "cached_flush")) {
				from = op->ranges[r].from_bytes;
				break;
			}
		CHECK_MSG(from > 512 && from <= 1024, "dm-writecache: cached+flush from %" PRIu64,
			  from);
		CHECK_STR(family_at(op, 512), "streaming");
		CHECK(p->exports.kernel.present);
		CHECK_MSG(p->exports.kernel.threshold_bytes >= 512 &&
			  p->exports.kernel.threshold_bytes < 1024,
			  "dm-writecache: kernel NT up to %" PRIu64,
			  p->exports.kernel.threshold_bytes);
	}
	policy_free(p);

	/* dm-pcache, memmap: clflushopt at and above 4 KiB in both patterns */
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/reference/dm-pcache-memmap-%s.json", data_dir,
			 k ? "sequential" : "random");
		p = reference_policy(path);
		op = ref_op(p);
		for (size_t i = 0; op && i < op->nsizes; i++)
			if (op->sizes_bytes[i] >= 4096)
				CHECK_MSG(!strcmp(family_at(op, op->sizes_bytes[i]),
						  "cached_flush"),
					  "memmap %s: %s at %" PRIu64, k ? "seq" : "rand",
					  family_at(op, op->sizes_bytes[i]), op->sizes_bytes[i]);
		/* random: movnt where it is ahead by more than the margin */
		if (op && !k) {
			CHECK_STR(family_at(op, 512), "streaming");
			CHECK_STR(family_at(op, 1024), "streaming");
		}
		policy_free(p);
	}

	/* dm-pcache, Optane PMem 100: movnt almost everywhere, the kernel never switches */
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/reference/dm-pcache-optane-pmem100-%s.json",
			 data_dir, k ? "sequential" : "random");
		p = reference_policy(path);
		op = ref_op(p);
		nstream = 0;
		for (size_t i = 0; op && i < op->nsizes; i++)
			nstream += !strcmp(family_at(op, op->sizes_bytes[i]), "streaming");
		CHECK_MSG(op && nstream * 10 >= op->nsizes * 9,
			  "pmem100 %s: streaming at %zu sizes", k ? "seq" : "rand", nstream);
		CHECK(p && p->exports.kernel.present &&
		      p->exports.kernel.threshold_bytes == POLICY_SIZE_OPEN);
		policy_free(p);
	}
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *de;
	char *machines[FILES_MAX];
	size_t nm = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: test_replay DATA_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	print_only = getenv("PT_REPLAY_PRINT") != NULL;
	d = opendir(data_dir);
	CHECK_MSG(d != NULL, "%s: %s", data_dir, strerror(errno));
	while (d && (de = readdir(d)) && nm < FILES_MAX)
		if (de->d_name[0] != '.' && strcmp(de->d_name, "reference"))
			machines[nm++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(machines, nm, sizeof(*machines), cmp_str);
	CHECK_MSG(nm >= 2, "%zu machines under %s", nm, data_dir);
	for (size_t i = 0; i < nm; i++) {
		replay_mode(machines[i], "quick");
		replay_mode(machines[i], "standard");
		free(machines[i]);
	}
	if (!print_only)
		test_reference();
	return check_report("test_replay");
}
