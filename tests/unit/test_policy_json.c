// SPDX-License-Identifier: GPL-2.0-or-later
/* The policy's JSON form: round trip, determinism, and every load error's path. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/samples.h"
#include "rule/stats.h"

static struct policy *sample_policy(void)
{
	static const uint64_t sizes[] = { 64, 256, 1024, 4096 };
	static const char *const strategies[] = { "clwb", "movnt_avx512" };
	struct policy *p = mkpolicy_new(NULL, "2026-11-29T20:00:00Z");
	struct policy_target *t;
	struct policy_op *op;
	struct policy_curve *a, *b;

	snprintf(p->generator.name, sizeof(p->generator.name), "pmem-tune");
	snprintf(p->generator.version, sizeof(p->generator.version), "0.1.0");
	snprintf(p->generator.mode, sizeof(p->generator.mode), "standard");
	p->generator.duration_s = 6.25;
	snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "sha256:%064d", 7);
	mkpolicy_cpu(p, "GenuineIntel", 6, 207, 2);
	p->platform.cpu.llc_bytes = 272629760;
	policy_cpu_add_feature(&p->platform.cpu, "clwb");
	policy_cpu_add_feature(&p->platform.cpu, "avx512f");
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "6.1.0-57-cloud-amd64");

	t = mkpolicy_target(p, "region0", "pmem", "memory_controller");
	snprintf(t->device, sizeof(t->device), "/dev/dax0.0");
	snprintf(t->mapping, sizeof(t->mapping), "devdax");
	t->numa_node = 0;
	t->interleave_ways = 2;
	t->ceiling_mib_s = 21800;
	t->area_bytes = 1 << 30;
	op = mkpolicy_op(t, "sequential", sizes, 4, strategies, 2);
	op->ceiling_mib_s = 21800;
	a = policy_op_find_curve(op, "clwb");
	b = policy_op_find_curve(op, "movnt_avx512");
	for (size_t i = 0; i < 4; i++) {
		/* clwb ahead at two sizes: a one-size lead would be an island */
		double va = 1000 + 100 * (double)i, vb = i < 3 ? 500 + 400 * (i > 0) : 1700;

		mkpolicy_cell(a, i, va, 10, 20, 9);
		mkpolicy_cell(b, i, vb, 10, 20, 9);
	}
	/* one cell not measured: must come back as NAN */
	b->median_mib_s[0] = b->p10_mib_s[0] = b->p90_mib_s[0] = NAN;
	b->ci_lo_mib_s[0] = b->ci_hi_mib_s[0] = NAN;
	b->samples[0] = 0;
	crossover_decide(op);
	p->exports.libpmem.present = true;
	snprintf(p->exports.libpmem.target, POLICY_NAME_MAX, "region0");
	snprintf(p->exports.libpmem.kv[0].key, POLICY_NAME_MAX, "PMEM_MOVNT_THRESHOLD");
	snprintf(p->exports.libpmem.kv[0].value, POLICY_NAME_MAX, "1024");
	p->exports.libpmem.nkv = 1;
	p->exports.libpmem.regret = 0.0125;
	snprintf(p->exports.libpmem.source, sizeof(p->exports.libpmem.source), "measured");
	p->exports.libpmem.margin = 0.055;
	snprintf(p->exports.libpmem.baseline, sizeof(p->exports.libpmem.baseline), "changed");
	p->exports.kernel.present = true;
	snprintf(p->exports.kernel.target, POLICY_NAME_MAX, "region0");
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	p->exports.kernel.regret = 0.03;
	return p;
}

static void test_round_trip(void)
{
	struct policy *p = sample_policy(), *q;
	char err[512] = "", *s1 = policy_to_string(p), *s2;
	struct policy_op *op;

	CHECK(s1 != NULL);
	q = policy_parse(s1, strlen(s1), err, sizeof(err));
	CHECK_MSG(q != NULL, "parse of our own output failed: %s", err);
	if (!q)
		return;
	s2 = policy_to_string(q);
	/* deterministic: the same policy prints the same bytes */
	CHECK_STR(s1, s2);
	op = &q->targets[0].ops[0];
	CHECK_INT(op->nsizes, 4);
	CHECK(isnan(op->curves[1].median_mib_s[0]));
	CHECK_INT(op->curves[1].samples[0], 0);
	CHECK_NEAR(op->curves[0].ci_hi_mib_s[2], 1210, 1e-9);
	CHECK_INT(op->nranges, p->targets[0].ops[0].nranges);
	CHECK(op->ranges[op->nranges - 1].to_bytes == POLICY_SIZE_OPEN);
	CHECK(q->exports.kernel.present);
	CHECK(q->exports.kernel.threshold_bytes == POLICY_SIZE_OPEN);
	CHECK_STR(q->exports.libpmem.kv[0].value, "1024");
	CHECK_STR(q->exports.libpmem.source, "measured");
	CHECK_NEAR(q->exports.libpmem.margin, 0.055, 1e-9);
	CHECK_STR(q->exports.libpmem.baseline, "changed");
	/* an older file's export has none of the three */
	CHECK_STR(q->exports.kernel.source, "");
	CHECK_INT(q->exports.kernel.margin == 0, 1);
	CHECK_STR(q->exports.kernel.baseline, "");
	CHECK_STR(q->platform.cpu.features[0], "avx512f");	/* sorted */
	CHECK_INT(q->targets[0].interleave_ways, 2);
	free(s2);
	free(s1);
	policy_free(q);
	policy_free(p);
}

/* Replace the first occurrence of from with to in s (a fresh string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	char *out;

	if (!at)
		return NULL;
	out = malloc(strlen(s) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return out;
}

/* Each bad edit must be refused with an error naming path, and mentioning what. */
static void expect_error(const char *text, const char *from, const char *to, const char *path,
			 const char *what)
{
	char *bad = subst(text, from, to), err[512] = "";
	struct policy *p;

	CHECK_MSG(bad != NULL, "test bug: '%s' not in the sample", from);
	if (!bad)
		return;
	p = policy_parse(bad, strlen(bad), err, sizeof(err));
	CHECK_MSG(p == NULL, "accepted bad input (%s -> %s)", from, to);
	CHECK_MSG(strstr(err, path) != NULL, "error '%s' does not name '%s'", err, path);
	CHECK_MSG(!what || strstr(err, what), "error '%s' does not say '%s'", err, what);
	CHECK_MSG(!strchr(err, '\n'), "error is not one line: '%s'", err);
	policy_free(p);
	free(bad);
}

/*
 * An op with no range where the rule decides a size: the file model's
 * loader (the daemon's) takes it, the rule's check refuses it by path.
 */
static void expect_unranged_refused_by_rule(const char *text)
{
	char *a = subst(text, "\"ranges\":[", "\"ranges\":[],\"x\":["), *b, err[512] = "";
	struct policy *p = NULL;

	b = a ? subst(a, "\"crossovers\":[", "\"crossovers\":[],\"y\":[") : NULL;
	CHECK_MSG(b != NULL, "test bug: no ranges or crossovers in the sample");
	if (b)
		p = policy_parse(b, strlen(b), err, sizeof(err));
	CHECK_MSG(p != NULL, "the loader refused an op without ranges: %s", err);
	if (p) {
		err[0] = '\0';
		CHECK_INT(crossover_check_unranged(p, err, sizeof(err)), -EINVAL);
		CHECK_MSG(strstr(err, "targets[0].ops[0].ranges") && strstr(err, "no range"),
			  "the rule's check says '%s'", err);
	}
	policy_free(p);
	free(a);
	free(b);
}

/* The compact form: one predictable line to edit. */
static char *plain(const struct policy *p)
{
	struct json_object *o = policy_to_json(p);
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return s;
}

static void test_errors(void)
{
	struct policy *p = sample_policy();
	char *s = plain(p);

	expect_error(s, "\"sizes_bytes\":[64,256,1024", "\"sizes_bytes\":[64,256,-5",
		     "targets[0].ops[0].sizes_bytes[2]", "got -5");
	expect_error(s, "\"sizes_bytes\":[64,256", "\"sizes_bytes\":[64,32",
		     "targets[0].ops[0].sizes_bytes[1]", "ascending");
	expect_error(s, "\"threads\":1", "\"threads\":\"one\"", "targets[0].ops[0].threads",
		     "thread count");
	expect_error(s, "\"threads\":1", "\"threads\":0", "targets[0].ops[0].threads", NULL);
	expect_error(s, "\"schema\":\"pmem-policy/1\"", "\"schema\":\"pmem-policy/2\"",
		     "schema", "unsupported");
	expect_error(s, "\"schema\":\"pmem-policy/1\"", "\"schema\":1", "schema", "string");
	expect_error(s, "\"median_mib_s\":[null,900.0", "\"median_mib_s\":[null,-900.0",
		     "targets[0].ops[0].curves.movnt_avx512.median_mib_s[1]", "number");
	expect_error(s, "\"median_mib_s\":[null,900.0", "\"median_mib_s\":[null,1e300",
		     "curves.movnt_avx512.median_mib_s[1]", NULL);
	expect_error(s, "\"median_mib_s\":[null,900.0", "\"median_mib_s\":[900.0",
		     "curves.movnt_avx512.median_mib_s", "elements");
	expect_error(s, "\"from_bytes\":0", "\"from_bytes\":64", "targets[0].ops[0].ranges[0]",
		     "start at 0");
	expect_error(s, "\"confidence\":", "\"confidence\":7, \"x\":",
		     "targets[0].ops[0].crossovers[0].confidence", NULL);
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":\"1024\"",
		     "\"PMEM_MOVNT_THRESHOLD\":\"1024\\nLD_PRELOAD=/x.so\"",
		     "exports.libpmem.env.PMEM_MOVNT_THRESHOLD", "control character");
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":\"1024\"", "\"PMEM_MOVNT_THRESHOLD\":\"10\\t24\"",
		     "exports.libpmem.env.PMEM_MOVNT_THRESHOLD", "control character");
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":\"1024\"", "\"PMEM_MOVNT_THRESHOLD\":\"1$(x)\"",
		     "exports.libpmem.env.PMEM_MOVNT_THRESHOLD", "not allowed");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\xff\"",
		     "invalid utf-8", NULL);
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":\"1024\"", "\"PMEM_MOVNT_THRESHOLD\":1024",
		     "exports.libpmem.env.PMEM_MOVNT_THRESHOLD", "string");
	expect_error(s, "\"flushcache_nt_max_bytes\":null", "\"flushcache_nt_max_bytes\":-1",
		     "exports.kernel.flushcache_nt_max_bytes", NULL);
	expect_error(s, "\"source\":\"measured\"", "\"source\":\"guessed\"",
		     "exports.libpmem.source", "unknown value");
	expect_error(s, "\"margin\":0.055", "\"margin\":1.5", "exports.libpmem.margin", NULL);
	expect_error(s, "\"baseline\":\"changed\"}", "\"baseline\":\"moved\"}",
		     "exports.libpmem.baseline", "unknown value");
	expect_error(s, "\"name\":\"region0\"", "\"name\":\"\"", "targets[0].name", "empty");
	expect_error(s, "\"name\":\"region0\"", "\"name\":\"reg\\nion0\"", "targets[0].name",
		     "control character");
	expect_error(s, "\"fingerprint\":\"sha256:"
		     "0000000000000000000000000000000000000000000000000000000000000007\"",
		     "\"fingerprint\":\"sha256:0\\nWATCHDOG=1\"", "platform.fingerprint",
		     "control character");
	expect_error(s, "\"fingerprint\":\"sha256:"
		     "0000000000000000000000000000000000000000000000000000000000000007\"",
		     "\"fingerprint\":\"sha256:aa\"", "platform.fingerprint", "64 lower-case hex");
	expect_error(s, "\"features\":[", "\"features\":[\"\\u0000x\",", "platform.cpu.features[0]",
		     "feature name");
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":",
		     "\"LD PRELOAD\":\"1\",\"PMEM_MOVNT_THRESHOLD\":",
		     "exports.libpmem.env.LD PRELOAD", "variable");
	/* a key is part of the error's path: its control characters must not break the line */
	expect_error(s, "\"PMEM_MOVNT_THRESHOLD\":",
		     "\"A\\nforged\":\"1\",\"PMEM_MOVNT_THRESHOLD\":",
		     "exports.libpmem.env.A?forged", "variable");
	expect_error(s, "\"targets\":[", "\"targets\":7,\"t2\":[", "targets", "array");
	expect_error(s, "\"clwb\":{", "\"../../etc\":{", "curves.../../etc", "strategy name");
	expect_error(s, "{", "[", "not valid JSON", NULL);
	expect_error(s, "\"exports\"", "\"exports\":1, \"x\"", "exports", "object");
	free(s);
	policy_free(p);
}

/* Where the probe ran: written, read back, bounded; a policy without it still loads. */
static void test_placement(void)
{
	static const int cpus[] = { 4, 5, 6, 7 };
	struct policy *p = sample_policy(), *q;
	struct policy_target *t = &p->targets[0];
	struct policy_saturation *st = &t->saturation[POLICY_FAMILY_STREAMING];
	char err[512] = "", *s, *old, *old2;

	t->target_node = 1;
	t->probed_from_node = 1;
	snprintf(t->placement, sizeof(t->placement), "local");
	t->cpus_used = malloc(sizeof(cpus));
	memcpy(t->cpus_used, cpus, sizeof(cpus));
	t->ncpus_used = 4;
	t->memory_bound = 1;
	st->present = true;
	snprintf(st->strategy, sizeof(st->strategy), "movnt_avx512");
	st->size_bytes = 262144;
	st->nsteps = 3;
	st->threads[0] = 1, st->threads[1] = 2, st->threads[2] = 4;
	st->mib_s[0] = 9000, st->mib_s[1] = 16500, st->mib_s[2] = 17100;
	st->saturates_at = 2;
	t->remote_penalty.present = true;
	t->remote_penalty.from_node = 0;
	t->remote_penalty.distance = 20;
	t->remote_penalty.ncells = 1;
	snprintf(t->remote_penalty.cells[0].strategy, POLICY_NAME_MAX, "clwb");
	snprintf(t->remote_penalty.cells[0].pattern, POLICY_NAME_MAX, "sequential");
	t->remote_penalty.cells[0].size_bytes = 4096;
	t->remote_penalty.cells[0].local_mib_s = 9100;
	t->remote_penalty.cells[0].remote_mib_s = 5200;
	t->remote_penalty.ratio = 1.75;
	s = policy_to_string(p);
	q = policy_parse(s, strlen(s), err, sizeof(err));
	CHECK_MSG(q != NULL, "%s", err);
	if (q) {
		const struct policy_target *u = &q->targets[0];
		char *s2 = policy_to_string(q);

		CHECK_STR(s, s2);
		free(s2);
		CHECK_INT(u->target_node, 1);
		CHECK_INT(u->probed_from_node, 1);
		CHECK_STR(u->placement, "local");
		CHECK(u->ncpus_used == 4 && u->cpus_used[3] == 7);
		CHECK_INT(u->memory_bound, 1);
		CHECK(u->saturation[POLICY_FAMILY_STREAMING].present);
		CHECK(!u->saturation[POLICY_FAMILY_FILL].present);
		CHECK_INT(u->saturation[POLICY_FAMILY_STREAMING].saturates_at, 2);
		CHECK_NEAR(u->saturation[POLICY_FAMILY_STREAMING].mib_s[2], 17100, 1e-9);
		CHECK(u->remote_penalty.present && u->remote_penalty.ncells == 1);
		CHECK_NEAR(u->remote_penalty.ratio, 1.75, 1e-9);
	}
	policy_free(q);
	free(s);

	s = plain(p);
	expect_error(s, "\"placement\":\"local\"", "\"placement\":\"there\"",
		     "targets[0].placement", "local, nearest");
	expect_error(s, "\"cpus_used\":[4,", "\"cpus_used\":[-4,", "targets[0].cpus_used[0]",
		     "CPU");
	expect_error(s, "\"memory_bound\":true", "\"memory_bound\":1", "targets[0].memory_bound",
		     "boolean");
	expect_error(s, "\"target_node\":1", "\"target_node\":5000", "targets[0].target_node",
		     NULL);
	expect_error(s, "\"threads\":[1,2,4]", "\"threads\":[1,4,2]",
		     "targets[0].saturation.streaming.threads[2]", "ascend");
	expect_error(s, "\"saturates_at\":2", "\"saturates_at\":3",
		     "targets[0].saturation.streaming.saturates_at", "thread counts");
	expect_error(s, "\"streaming\":{", "\"nt\":{", "targets[0].saturation.nt", "family");
	expect_error(s, "\"ratio\":1.75", "\"ratio\":-1", "targets[0].remote_penalty.ratio", NULL);
	free(s);

	/* a policy from before these fields: they read as unknown */
	policy_free(p);
	p = sample_policy();
	s = plain(p);
	old = subst(s, "\"target_node\":-1,", "");
	old2 = old ? subst(old, "\"probed_from_node\":-1,", "") : NULL;
	CHECK(old2 && !strstr(old2, "placement") && !strstr(old2, "cpus_used"));
	q = old2 ? policy_parse(old2, strlen(old2), err, sizeof(err)) : NULL;
	CHECK_MSG(q != NULL, "%s", err);
	if (q) {
		CHECK_INT(q->targets[0].target_node, -1);
		CHECK_INT(q->targets[0].probed_from_node, -1);
		CHECK_INT(q->targets[0].memory_bound, -1);
		CHECK_INT(q->targets[0].ncpus_used, 0);
		CHECK(!q->targets[0].remote_penalty.present);
	}
	policy_free(q);
	policy_free(p);
	free(old2);
	free(old);
	free(s);
}

/* Decisions are checked against the op they decide for, not only parsed. */
static void test_decisions(void)
{
	struct policy *p = sample_policy();
	char *s = plain(p);

	expect_error(s, "\"strategy\":\"clwb\"", "\"strategy\":\"clwb;x\"",
		     "targets[0].ops[0].ranges[0].strategy", "strategy name");
	expect_error(s, "\"strategy\":\"clwb\"", "\"strategy\":\"clflush\"",
		     "targets[0].ops[0].ranges[0].strategy", "no curve");
	expect_error(s, "\"clwb\":{", "\"clwb\":{\"reference_only\":true,",
		     "targets[0].ops[0].ranges[0].strategy", "reference_only");
	expect_unranged_refused_by_rule(s);
	expect_error(s, "\"tie\":false", "\"tie\":\"no\"", "targets[0].ops[0].ranges[0].tie",
		     "boolean");
	expect_error(s, "\"tie\":false", "\"tie\":0", "targets[0].ops[0].ranges[0].tie",
		     "boolean");
	expect_error(s, "\"size_bytes\":4096", "\"size_bytes\":2048",
		     "targets[0].ops[0].crossovers[0]", "boundary");
	expect_error(s, "\"below\":\"clwb\"", "\"below\":\"movnt_avx512\"",
		     "targets[0].ops[0].crossovers[0]", "does not match");
	expect_error(s, "\"below\":\"clwb\"", "\"below\":\"clflush\"",
		     "targets[0].ops[0].crossovers[0].below", "no curve");
	expect_error(s, "\"crossovers\":[", "\"crossovers\":[],\"x\":[",
		     "targets[0].ops[0].crossovers", "0 crossovers for 2 ranges");
	expect_error(s, "\"strategy\":\"movnt_avx512\"", "\"strategy\":\"clwb\"",
		     "targets[0].ops[0].ranges[1]", "continues the previous range");
	/* one tunable under two spellings: glibc would see it twice */
	expect_error(s, "\"exports\":{", "\"exports\":{\"glibc\":{\"target\":\"region0\","
		     "\"tunables\":{\"glibc.cpu.x86_non_temporal_threshold\":\"0x1000\","
		     "\"cpu.x86_non_temporal_threshold\":\"0x2000\"}},",
		     "exports.glibc.tunables.cpu.x86_non_temporal_threshold", "earlier entry");
	free(s);
	policy_free(p);
}

/* Refused while reading, before json-c allocates: encodings and unbounded unknown keys. */
static void expect_scan_error(const char *text, size_t len, const char *what)
{
	char err[512] = "";
	struct policy *p = policy_parse(text, len, err, sizeof(err));

	CHECK_MSG(p == NULL, "accepted '%.60s'", text);
	CHECK_MSG(strstr(err, what) != NULL, "error '%s' does not say '%s'", err, what);
	policy_free(p);
}

static void test_scan(void)
{
	struct policy *p = sample_policy();
	char *s = plain(p), *big, *o;
	size_t n = 6 << 20;

	expect_error(s, "{", "\xef\xbb\xbf{", "byte order mark", NULL);
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\xc0\xafIntel\"",
		     "invalid utf-8", "overlong");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\xe0\x80\xafIntel\"",
		     "invalid utf-8", "overlong");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\xed\xa0\x80\"",
		     "invalid utf-8", "surrogate");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\\ud800\"",
		     "invalid utf-8", "lone surrogate");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\\udc00x\"",
		     "invalid utf-8", "lone surrogate");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"\\ud800\\u0041\"",
		     "invalid utf-8", "lone surrogate");
	expect_error(s, "\"vendor\":\"GenuineIntel\"", "\"vendor\":\"Genuine\xf4\x90\x80\x80\"",
		     "invalid utf-8", "U+10FFFF");
	/* a whole pair is a character; so is one escaped */
	{
		char *ok = subst(s, "\"vendor\":\"GenuineIntel\"",
				 "\"vendor\":\"G\\ud83d\\ude00\xf0\x9f\x98\x80\xc3\xa9\"");
		char err[256] = "";
		struct policy *q = policy_parse(ok, strlen(ok), err, sizeof(err));

		CHECK_MSG(q != NULL, "a valid pair refused: %s", err);
		policy_free(q);
		free(ok);
	}
	/* an unknown key's containers: the known ones' bound on entries */
	big = malloc(n + 64);
	o = big + sprintf(big, "{\"schema\":\"pmem-policy/1\",\"junk\":[");
	for (int i = 0; i < 2000; i++)
		o += sprintf(o, "%s{}", i ? "," : "");
	o += sprintf(o, "],\"targets\":[]}");
	expect_scan_error(big, (size_t)(o - big), "junk[1024]: more than 1024 entries");
	o = big + sprintf(big, "{\"schema\":\"pmem-policy/1\",\"junk\":{");
	for (int i = 0; i < 2000; i++)
		o += sprintf(o, "%s\"k%d\":0", i ? "," : "", i);
	o += sprintf(o, "},\"targets\":[]}");
	expect_scan_error(big, (size_t)(o - big), "more than 1024 entries in one object");
	/* and the whole tree to a budget: 8 MiB of {} took gigabytes before */
	o = big + sprintf(big, "{\"schema\":\"pmem-policy/1\",\"junk\":[");
	for (int i = 0; i < 1000; i++) {
		o += sprintf(o, "%s[", i ? "," : "");
		for (int j = 0; j < 1000; j++)
			o += sprintf(o, "%s{}", j ? "," : "");
		*o++ = ']';
	}
	o += sprintf(o, "],\"targets\":[]}");
	expect_scan_error(big, (size_t)(o - big), "MiB of memory");
	free(big);
	free(s);
	policy_free(p);
}

static void test_forward_compatible(void)
{
	struct policy *p = sample_policy(), *q;
	char *s = policy_to_string(p), *ext, *ext2, err[512] = "";

	/* unknown keys anywhere are ignored; a minor schema bump is read */
	ext = subst(s, "\"schema\": \"pmem-policy/1\"",
		    "\"schema\": \"pmem-policy/1.3\", \"future\": {\"x\": [1, 2]}");
	ext2 = subst(ext, "\"threads\": 1", "\"threads\": 1, \"numa_policy\": \"local\"");
	q = policy_parse(ext2, strlen(ext2), err, sizeof(err));
	CHECK_MSG(q != NULL, "extended policy refused: %s", err);
	policy_free(q);
	free(ext2);
	free(ext);
	free(s);
	policy_free(p);
}

static void test_limits(void)
{
	char err[512] = "";
	size_t n = 40u << 20;
	char *big = malloc(n + 1), *deep;
	struct policy *p;

	memset(big, ' ', n);
	big[n] = 0;
	p = policy_parse(big, n, err, sizeof(err));
	CHECK(p == NULL && errno == EFBIG);
	CHECK_MSG(strstr(err, "larger than") != NULL, "%s", err);
	free(big);

	/* nesting deeper than any policy needs is refused by the tokenizer */
	deep = malloc(10000);
	memset(deep, '[', 5000);
	memset(deep + 5000, ']', 4999);
	deep[9999] = 0;
	p = policy_parse(deep, strlen(deep), err, sizeof(err));
	CHECK(p == NULL);
	CHECK_MSG(strstr(err, "not valid JSON") != NULL, "%s", err);
	free(deep);

	p = policy_parse("{\"schema\":\"pmem-policy/1\",\"targets\":[]}\0x", 42, err, sizeof(err));
	CHECK_MSG(p == NULL && strstr(err, "NUL"), "%s", err);
	{
		const char *two = "{\"schema\":\"pmem-policy/1\",\"targets\":[]} {}";

		p = policy_parse(two, strlen(two), err, sizeof(err));
	}
	CHECK_MSG(p == NULL && strstr(err, "byte 40"), "%s", err);
	{
		const char *min = "{\"schema\":\"pmem-policy/1\",\"platform\":{\"fingerprint\":"
				  "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef"
				  "0123456789abcdef\",\"cpu\":"
				  "{\"vendor\":\"v\",\"family\":1,\"model\":1,"
				  "\"stepping\":1}},\"targets\":[]}\n";

		p = policy_parse(min, strlen(min), err, sizeof(err));
	}
	CHECK_MSG(p != NULL, "minimal policy refused: %s", err);
	policy_free(p);
}

static void test_save_load(void)
{
	char dir[] = "/tmp/pt-json-XXXXXX", path[300], err[512];
	struct policy *p = sample_policy(), *q;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pmem-policy.json", dir);
	CHECK_INT(policy_save(p, path, NULL, 0), 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	q = policy_load(path, err, sizeof(err));
	CHECK_MSG(q != NULL, "%s", err);
	policy_free(q);
	/* errors name the file */
	q = policy_load("/nonexistent/pmem-policy.json", err, sizeof(err));
	CHECK(q == NULL && strstr(err, "/nonexistent/pmem-policy.json") != NULL);
	q = policy_load(dir, err, sizeof(err));
	CHECK(q == NULL && strstr(err, "not a regular file") != NULL);
	/* no temporary file is left behind */
	CHECK_INT(policy_save(p, path, NULL, 0), 0);
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", dir);
		CHECK(system(cmd) == 0);
	}
	unlink(path);
	rmdir(dir);
	policy_free(p);
}

/*
 * What a reader would refuse is not written: the file there stays as it
 * was, and the error names the field.  An infinity, which JSON cannot
 * say, is written as null: unknown.
 */
static void test_save_refuses_unreadable(void)
{
	char dir[] = "/tmp/pt-json-XXXXXX", path[300], err[512] = "", *before, *after;
	struct policy *p = sample_policy();
	struct policy_op *op = &p->targets[0].ops[0];
	struct policy_bundle *none = policy_bundle_new();

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pmem-policy.json", dir);
	CHECK_INT(policy_save(p, path, NULL, 0), 0);
	before = policy_to_string(p);

	snprintf(op->ranges[0].strategy, sizeof(op->ranges[0].strategy), "noflush");
	CHECK_INT(policy_save(p, path, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "ranges[0].strategy") && strstr(err, "'noflush' has no curve"),
		  "%s", err);
	snprintf(op->ranges[0].strategy, sizeof(op->ranges[0].strategy), "%s",
		 op->curves[0].strategy);

	CHECK_INT(policy_bundle_save(none, path, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "bundle"), "%s", err);

	{
		FILE *f = fopen(path, "r");
		size_t n = before ? strlen(before) : 0;

		after = calloc(1, n + 2);
		CHECK(f && after && fread(after, 1, n + 1, f) == n);
		if (f)
			fclose(f);
	}
	CHECK_MSG(before && after && !strcmp(before, after), "the file on disk changed");
	free(before);
	free(after);

	/* no figure, not a token JSON lacks: null, read back as unknown */
	p->targets[0].ceiling_mib_s = INFINITY;
	p->targets[0].ops[0].curves[0].median_mib_s[1] = -INFINITY;
	CHECK_INT(policy_save(p, path, err, sizeof(err)), 0);
	{
		struct policy *q = policy_load(path, err, sizeof(err));

		CHECK_MSG(q != NULL, "%s", err);
		if (q) {
			CHECK(isnan(q->targets[0].ceiling_mib_s));
			CHECK(isnan(q->targets[0].ops[0].curves[0].median_mib_s[1]));
		}
		policy_free(q);
	}
	policy_bundle_free(none);
	unlink(path);
	rmdir(dir);
	policy_free(p);
}

/*
 * A probe's samples can make a file larger than any reader takes: it is
 * then written without them rather than not at all, and only then.
 */
static void test_save_shedding_raw(void)
{
	char dir[] = "/tmp/pt-json-XXXXXX", path[300], err[512];
	struct policy *p = sample_policy(), *q;
	struct policy_op *op = &p->targets[0].ops[0];
	struct policy_curve *a = policy_op_find_curve(op, "clwb");
	const unsigned n = 150000;	/* 600 000 samples: over 8 MiB of text */
	double *v = malloc(n * sizeof(*v));
	bool shed = true;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pmem-policy.json", dir);
	for (size_t i = 0; i < op->nsizes; i++) {
		double w[9];

		for (size_t k = 0; k < 9; k++)
			w[k] = a->median_mib_s[i];
		CHECK_INT(policy_curve_set_raw(a, op->nsizes, i, w, 9), 0);
	}
	CHECK_INT(policy_save_shedding_raw(p, path, &shed, NULL, 0), 0);
	CHECK(!shed);
	q = policy_load(path, err, sizeof(err));
	CHECK_MSG(q && policy_op_has_raw(&q->targets[0].ops[0]), "small file lost its samples: %s",
		  err);
	policy_free(q);
	if (!v)
		goto out;
	for (unsigned k = 0; k < n; k++)
		v[k] = 1000.1 + k % 1000;
	for (size_t i = 0; i < op->nsizes; i++) {
		CHECK_INT(policy_curve_set_raw(a, op->nsizes, i, v, n), 0);
		a->samples[i] = n;
	}
	CHECK_INT(policy_save(p, path, NULL, 0), -EFBIG);
	CHECK_INT(policy_save_shedding_raw(p, path, &shed, NULL, 0), 0);
	CHECK(shed);
	CHECK(!policy_op_has_raw(op));
	q = policy_load(path, err, sizeof(err));
	CHECK_MSG(q != NULL, "the file written without samples: %s", err);
	if (q) {
		CHECK(!policy_op_has_raw(&q->targets[0].ops[0]));
		CHECK_INT(q->targets[0].ops[0].nsizes, op->nsizes);
	}
	policy_free(q);
out:
	free(v);
	unlink(path);
	rmdir(dir);
	policy_free(p);
}

static void test_insert_size(void)
{
	struct policy *p = sample_policy();
	struct policy_op *op = &p->targets[0].ops[0];
	int idx = policy_op_insert_size(op, 512);

	CHECK_INT(idx, 2);
	CHECK_INT(op->nsizes, 5);
	CHECK(op->sizes_bytes[1] == 256 && op->sizes_bytes[2] == 512 && op->sizes_bytes[3] == 1024);
	CHECK(isnan(op->curves[0].median_mib_s[2]) && op->curves[0].samples[2] == 0);
	CHECK_NEAR(op->curves[0].median_mib_s[3], 1200, 1e-9);
	CHECK_INT(policy_op_insert_size(op, 512), 2);	/* present: same index */
	CHECK_INT(op->nsizes, 5);
	policy_free(p);
}

/*
 * What the probe knows of a cell besides its numbers: lists of sizes per
 * curve, absent when empty (old policies load), kept through an
 * insertion, and a suspect cell never decides a size.
 */
static void test_cell_flags(void)
{
	struct policy *p = sample_policy(), *q;
	struct policy_op *op = &p->targets[0].ops[0];
	struct policy_curve *a = policy_op_find_curve(op, "clwb");
	char err[512] = "", *s, *bad;

	s = policy_to_string(p);
	CHECK(s && !strstr(s, "suspect_sizes_bytes") && !strstr(s, "concurrency"));
	free(s);

	a->cell_flags[1] |= POLICY_CELL_SUSPECT | POLICY_CELL_REMEASURED;
	a->cell_flags[3] |= POLICY_CELL_UNMEASURABLE;
	a->cell_flags[0] |= POLICY_CELL_CONFIRMED;
	op->min_overlap = 0.934;
	op->rejected_samples = 3;
	CHECK_INT(policy_op_insert_size(op, 512), 2);
	a = policy_op_find_curve(op, "clwb");
	CHECK_INT(a->cell_flags[0], POLICY_CELL_CONFIRMED);
	CHECK_INT(a->cell_flags[1], POLICY_CELL_SUSPECT | POLICY_CELL_REMEASURED);
	CHECK_INT(a->cell_flags[2], 0);
	CHECK_INT(a->cell_flags[4], POLICY_CELL_UNMEASURABLE);

	s = policy_to_string(p);
	CHECK(s && strstr(s, "\"suspect_sizes_bytes\":[256]") == NULL);	/* pretty-printed */
	q = policy_parse(s, strlen(s), err, sizeof(err));
	CHECK_MSG(q != NULL, "%s", err);
	if (q) {
		struct policy_curve *qa = policy_op_find_curve(&q->targets[0].ops[0], "clwb");
		char *s2 = policy_to_string(q);

		CHECK_INT(qa->cell_flags[0], POLICY_CELL_CONFIRMED);
		CHECK_INT(qa->cell_flags[1], POLICY_CELL_SUSPECT | POLICY_CELL_REMEASURED);
		CHECK_INT(qa->cell_flags[4], POLICY_CELL_UNMEASURABLE);
		CHECK_INT(qa->cell_flags[2] | qa->cell_flags[3], 0);
		CHECK_NEAR(q->targets[0].ops[0].min_overlap, 0.934, 1e-9);
		CHECK_INT(q->targets[0].ops[0].rejected_samples, 3);
		CHECK_STR(s, s2);
		free(s2);
	}
	policy_free(q);
	free(s);

	/* a size that is not one of the op's is refused, naming the key */
	s = plain(p);
	bad = subst(s, "\"suspect_sizes_bytes\":[256]", "\"suspect_sizes_bytes\":[300]");
	CHECK_MSG(bad != NULL, "no suspect list in '%s'", s);
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK(bad && q == NULL && strstr(err, "suspect_sizes_bytes") && strstr(err, "300"));
	policy_free(q);
	free(bad);
	bad = subst(s, "\"confirmed_sizes_bytes\":[64]", "\"confirmed_sizes_bytes\":[96]");
	CHECK_MSG(bad != NULL, "no confirmed list in '%s'", s);
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK(bad && q == NULL && strstr(err, "confirmed_sizes_bytes") && strstr(err, "96"));
	policy_free(q);
	free(bad);
	bad = subst(s, "\"confirmed_sizes_bytes\":[64]", "\"confirmed_sizes_bytes\":64");
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK(bad && q == NULL && strstr(err, "confirmed_sizes_bytes"));
	policy_free(q);
	free(bad);
	free(s);
	policy_free(p);
}

/* The grid sizes that end in a partial line: derived, written, checked on reading. */
static void test_partial_lines(void)
{
	static const uint64_t sizes[] = { 64, 96, 128, 192, 320, 4096 };
	struct policy *p = sample_policy(), *q;
	struct policy_target *t = &p->targets[0];
	char err[512] = "", *s, *bad;

	/* whole lines only: the key is left out */
	s = plain(p);
	CHECK(s && !strstr(s, "partial_line_sizes_bytes"));
	free(s);

	CHECK(policy_target_add_op(t, "write", "random", 1, sizes, 6) != NULL);
	s = plain(p);
	CHECK_MSG(s && strstr(s, "\"partial_line_sizes_bytes\":[96]"), "%s", s ? s : "");
	q = s ? policy_parse(s, strlen(s), err, sizeof(err)) : NULL;
	CHECK_MSG(q != NULL, "%s", err);
	if (q) {
		char *s2 = plain(q);

		CHECK_STR(s, s2);
		free(s2);
	}
	policy_free(q);

	bad = subst(s, "\"partial_line_sizes_bytes\":[96]", "\"partial_line_sizes_bytes\":[100]");
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK(bad && q == NULL && strstr(err, "partial_line_sizes_bytes") && strstr(err, "100"));
	policy_free(q);
	free(bad);
	bad = subst(s, "\"partial_line_sizes_bytes\":[96]", "\"partial_line_sizes_bytes\":[0]");
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK(bad && q == NULL && strstr(err, "partial_line_sizes_bytes"));
	policy_free(q);
	free(bad);
	/* an older file without the key loads */
	bad = subst(s, "\"partial_line_sizes_bytes\":[96],", "");
	q = bad ? policy_parse(bad, strlen(bad), err, sizeof(err)) : NULL;
	CHECK_MSG(bad && q != NULL, "%s", err);
	policy_free(q);
	free(bad);
	free(s);
	policy_free(p);
}

/* A suspect cell is as if not measured: it never wins a size. */
static void test_suspect_never_decides(void)
{
	static const uint64_t sizes[] = { 64, 128, 256 };
	struct policy *p = policy_new();
	struct policy_target *t = policy_add_target(p, "dram");
	struct policy_op *op = policy_target_add_op(t, "write", "sequential", 1, sizes, 3);
	struct policy_curve *a, *b;

	policy_op_add_curve(op, "clwb");
	policy_op_add_curve(op, "movnt_avx512");
	a = policy_op_find_curve(op, "clwb");
	b = policy_op_find_curve(op, "movnt_avx512");
	for (size_t i = 0; i < 3; i++) {
		a->median_mib_s[i] = a->ci_lo_mib_s[i] = a->ci_hi_mib_s[i] = 1000;
		b->median_mib_s[i] = b->ci_lo_mib_s[i] = b->ci_hi_mib_s[i] = 2000;
		a->samples[i] = b->samples[i] = 9;
	}
	/* an absurd clwb cell at 128 B, flagged suspect: movnt_avx512 everywhere */
	a->median_mib_s[1] = a->ci_lo_mib_s[1] = a->ci_hi_mib_s[1] = 90000;
	a->cell_flags[1] = POLICY_CELL_SUSPECT;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	CHECK_STR(op->ranges[0].strategy, "movnt_avx512");
	CHECK_INT(op->ncrossovers, 0);
	policy_free(p);
}

static void test_parse_size(void)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 }, { "512M", 512u << 20 },
		{ "1GiB", 1u << 30 }, { "2G", 2ull << 30 }, { "0x4041", 0x4041 }, { "768B", 768 },
		{ " 8K", 8192 },
	};
	static const char *const bad[] = { "", "-1", "+5", "12Q", "1KB2", "K", "99999999999T",
					   "1.5M" };
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK_MSG(policy_parse_size(good[i].s, &v) == 0 && v == good[i].v, "'%s'",
			  good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_MSG(policy_parse_size(bad[i], &v) < 0, "'%s' accepted", bad[i]);
}

/*
 * --keep-samples: the raw samples round-trip in the order taken, are
 * counted by samples[], move with an inserted size, decide --decide's
 * summaries, and every bad edit of them is refused by its path.
 */
static void test_raw_samples(void)
{
	struct policy *p = sample_policy(), *q;
	struct policy_op *op = &p->targets[0].ops[0];
	struct policy_curve *a = policy_op_find_curve(op, "clwb");
	struct policy_raw_moved moved = { 0 };
	char err[512] = "", *s1, *s2;
	double v[9];

	CHECK(!policy_op_has_raw(op));
	for (size_t i = 0; i < op->nsizes; i++) {
		/* the taken order is not sorted: the file must keep it */
		for (size_t k = 0; k < 9; k++)
			v[k] = a->median_mib_s[i] - 40 + 10 * (double)((k * 4) % 9);
		CHECK_INT(policy_curve_set_raw(a, op->nsizes, i, v, 9), 0);
	}
	CHECK(policy_op_has_raw(op));
	s1 = policy_to_string(p);
	q = s1 ? policy_parse(s1, strlen(s1), err, sizeof(err)) : NULL;
	CHECK_MSG(q != NULL, "parse of raw samples failed: %s", err);
	if (!q)
		goto out;
	s2 = policy_to_string(q);
	CHECK_STR(s1, s2);
	free(s2);
	op = &q->targets[0].ops[0];
	a = policy_op_find_curve(op, "clwb");
	CHECK(a->raw_mib_s && a->raw_mib_s[1]);
	CHECK_NEAR(a->raw_mib_s[1][0], 1060, 1e-9);
	CHECK_NEAR(a->raw_mib_s[1][1], 1100, 1e-9);
	CHECK(!policy_op_find_curve(op, "movnt_avx512")->raw_mib_s);

	/* the summaries come from the samples; only a moved median is counted */
	CHECK_INT(policy_op_summarize_raw(op, &moved), 0);
	CHECK_INT(moved.count, 0);
	CHECK_NEAR(a->median_mib_s[2], 1200, 1e-9);
	CHECK_NEAR(a->p10_mib_s[2], 1168, 1e-9);	/* type 7: 1160 + 0.8 * 10 */
	for (size_t k = 0; k < 9; k++)
		a->raw_mib_s[3][k] += 500;
	CHECK_INT(policy_op_summarize_raw(op, &moved), 0);
	CHECK_INT(moved.count, 1);
	CHECK(moved.first == a);
	CHECK_INT(moved.first_idx, 3);
	CHECK_NEAR(moved.first_was_mib_s, 1300, 1e-9);
	CHECK_NEAR(a->median_mib_s[3], 1800, 1e-9);

	/* round by round: only where both cells have samples taken in the same rounds */
	{
		struct policy_curve *b = policy_op_find_curve(op, "movnt_avx512");
		size_t ia = (size_t)(a - op->curves), ib = (size_t)(b - op->curves);
		double med, lo, hi;

		CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), -ENODATA);
		for (size_t k = 0; k < 9; k++)
			v[k] = a->raw_mib_s[1][k] / 1.25;	/* a 25 % ahead in every round */
		CHECK_INT(policy_curve_set_raw(b, op->nsizes, 1, v, 9), 0);
		CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), 0);
		CHECK_NEAR(med, 1.25, 1e-9);
		CHECK_NEAR(lo, 1.25, 1e-9);
		CHECK_NEAR(hi, 1.25, 1e-9);
		b->cell_flags[1] |= POLICY_CELL_REMEASURED;	/* measured again on its own */
		CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), -ENODATA);
		b->cell_flags[1] &= (uint8_t)~POLICY_CELL_REMEASURED;
		op->threads = 2;	/* refused samples break the rounds */
		CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), -ENODATA);
		op->threads = 1;

		/*
		 * a second look at b alone, after an earlier one flagged a: a's
		 * cell is from other rounds, yet the flags agree
		 */
		a->cell_flags[1] |= POLICY_CELL_REMEASURED;
		b->cell_flags[1] |= POLICY_CELL_REMEASURED;
		CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), 0);
		{
			const struct policy_curve *fresh[] = { b };
			double was = a->median_mib_s[1];

			CHECK_INT(policy_op_unpair_earlier_looks(op, 1, fresh, 1), 1);
			CHECK(a->raw_mib_s[1] == NULL && b->raw_mib_s[1] != NULL);
			CHECK(a->median_mib_s[1] == was);	/* the summary stays */
			CHECK(a->raw_mib_s[2] != NULL);		/* other sizes untouched */
			CHECK_INT(policy_paired_ratio(op, ia, ib, 1, &med, &lo, &hi), -ENODATA);
			/* unflagged cells pair only among themselves: they keep theirs */
			b->cell_flags[2] &= (uint8_t)~POLICY_CELL_REMEASURED;
			CHECK_INT(policy_op_unpair_earlier_looks(op, 2, fresh, 1), 0);
			CHECK(a->raw_mib_s[2] != NULL);
		}
		for (size_t k = 0; k < 9; k++)
			v[k] = a->median_mib_s[1] - 40 + 10 * (double)((k * 4) % 9);
		CHECK_INT(policy_curve_set_raw(a, op->nsizes, 1, v, 9), 0);
		a->cell_flags[1] &= (uint8_t)~POLICY_CELL_REMEASURED;
		b->cell_flags[1] &= (uint8_t)~POLICY_CELL_REMEASURED;
		CHECK_INT(policy_curve_set_raw(b, op->nsizes, 1, NULL, 0), 0);
	}

	/* a bisection point arrives without samples; the others keep theirs */
	CHECK_INT(policy_op_insert_size(op, 512), 2);
	CHECK(a->raw_mib_s[2] == NULL);
	CHECK_NEAR(a->raw_mib_s[4][0], 1760, 1e-9);
	/* dropping a cell's samples, then every one, frees the array */
	for (size_t i = 0; i < op->nsizes; i++)
		CHECK_INT(policy_curve_set_raw(a, op->nsizes, i, NULL, 0), 0);
	CHECK(a->raw_mib_s == NULL);
	policy_free(q);
	q = NULL;

	/* a fleet file carries no raw samples */
	q = policy_parse(s1, strlen(s1), err, sizeof(err));
	if (q) {
		policy_drop_raw(q);
		CHECK(!policy_op_has_raw(&q->targets[0].ops[0]));
	}

	/* the bad edits, each by its path */
	{
		char *t = plain(p);
		const char *cell0 = "\"raw_mib_s\":[[960.0,1000.0,1040.0,990.0,1030.0,980.0,"
				    "1020.0,970.0,1010.0],";

		CHECK_MSG(strstr(t, cell0) != NULL, "test bug: no '%s' in %s", cell0, t);
		expect_error(t, cell0, "\"raw_mib_s\":[[960.0],",
			     "curves.clwb.raw_mib_s[0]", "samples[0] says 9");
		expect_error(t, cell0, "\"raw_mib_s\":[7,", "curves.clwb.raw_mib_s[0]",
			     "array of samples");
		expect_error(t, "\"raw_mib_s\":[[960.0,", "\"raw_mib_s\":[[-960.0,",
			     "curves.clwb.raw_mib_s[0][0]", "number");
		expect_error(t, "\"raw_mib_s\":[[960.0,", "\"raw_mib_s\":[[null,",
			     "curves.clwb.raw_mib_s[0][0]", "number");
		expect_error(t, cell0, "\"raw_mib_s\":[", "curves.clwb.raw_mib_s",
			     "has 3 elements, sizes_bytes has 4");
		expect_error(t, "\"samples\":[9,9,9,9],\"raw_mib_s\"", "\"raw_mib_s\"",
			     "curves.clwb.raw_mib_s", "samples array");
		free(t);
	}
out:
	policy_free(q);
	free(s1);
	policy_free(p);
}

/*
 * The probe keeps samples and summaries to the file's precision, so a
 * policy decided in memory and the same policy decided again from its
 * file see equal numbers: the margin, the ranges and the text agree to
 * the last bit.  Unrounded summaries (a CI of +-8.0371 %) would move the
 * margin in its last digits.
 */
static void test_saved_precision(void)
{
	struct policy *p = sample_policy(), *q = NULL;
	struct policy_op *op = &p->targets[0].ops[0];
	uint64_t x = 88172645463325252ull;
	char err[512] = "", buf[64], *s1 = NULL, *s2 = NULL;
	unsigned bad = 0;

	for (unsigned k = 0; k < 20000; k++) {
		double v, sv;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = (double)(x % 100000000000ull) / 1e4;	/* 0 .. 1e7 MiB/s, 4 decimals */
		sv = policy_mib_s_as_saved(v);
		snprintf(buf, sizeof(buf), "%.1f", sv);
		bad += fabs(sv - v) > 0.05 + 1e-6 || strtod(buf, NULL) != sv;
	}
	CHECK_MSG(!bad, "%u values do not round-trip at 0.1 MiB/s", bad);
	CHECK(isnan(policy_mib_s_as_saved(NAN)));

	for (size_t c = 0; c < op->ncurves; c++) {
		struct policy_curve *cv = &op->curves[c];

		for (size_t i = 0; i < op->nsizes; i++) {
			double m = cv->median_mib_s[i] + 0.123456;
			struct sample_summary sum = {
				.n = 9, .median = m, .p10 = m * 0.9137, .p90 = m * 1.0711,
				.ci_lo = m * (1 - 0.080371), .ci_hi = m * (1 + 0.080371),
			};

			if (!isnan(cv->median_mib_s[i]))
				policy_curve_set_summary(cv, i, &sum);
		}
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_MSG(op->margin > CROSSOVER_MARGIN_FLOOR, "margin %g: the floor hides the test",
		  op->margin);
	s1 = policy_to_string(p);
	q = s1 ? policy_parse(s1, strlen(s1), err, sizeof(err)) : NULL;
	CHECK_MSG(q != NULL, "parse failed: %s", err);
	if (!q)
		goto out;
	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t i = 0; i < op->nsizes; i++) {
			const struct policy_curve *a = &op->curves[c];
			const struct policy_curve *b = &q->targets[0].ops[0].curves[c];

			CHECK(isnan(a->median_mib_s[i]) ? isnan(b->median_mib_s[i]) :
			      a->median_mib_s[i] == b->median_mib_s[i] &&
			      a->ci_lo_mib_s[i] == b->ci_lo_mib_s[i] &&
			      a->ci_hi_mib_s[i] == b->ci_hi_mib_s[i] &&
			      a->p10_mib_s[i] == b->p10_mib_s[i] &&
			      a->p90_mib_s[i] == b->p90_mib_s[i]);
		}
	CHECK_INT(crossover_decide(&q->targets[0].ops[0]), 0);
	CHECK_MSG(q->targets[0].ops[0].margin == op->margin, "margin %.17g decided again %.17g",
		  op->margin, q->targets[0].ops[0].margin);
	s2 = policy_to_string(q);
	CHECK_STR(s1, s2);
out:
	free(s2);
	free(s1);
	policy_free(q);
	policy_free(p);
}

int main(void)
{
	test_parse_size();
	test_round_trip();
	test_errors();
	test_placement();
	test_decisions();
	test_scan();
	test_forward_compatible();
	test_limits();
	test_save_load();
	test_save_refuses_unreadable();
	test_save_shedding_raw();
	test_insert_size();
	test_cell_flags();
	test_partial_lines();
	test_suspect_never_decides();
	test_raw_samples();
	test_saved_precision();
	return check_report("test_policy_json");
}
