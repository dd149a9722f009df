// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text pmem-tune --metrics writes: this host's policy entry and the
 * daemon's last passes in Prometheus' text format, for node-exporter's
 * textfile collector.  Every label value is escaped and every value
 * checked to be a finite number: a hostile policy file must not forge
 * samples.  No I/O here, so that the fuzzer drives it in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli/metrics_text.h"
#include "common/prom_text.h"
#include "policy/environment.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "rule/export.h"

#define MIB 1048576.0

static time_t parse_created(const char *s)
{
	struct tm tm = { 0 };
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);

	return end && !*end ? timegm(&tm) : 0;
}

/* The labels of one op: target, op, pattern, threads. */
static void op_labels(char *buf, size_t len, const struct policy_target *t,
		      const struct policy_op *op)
{
	char tn[2 * POLICY_NAME_MAX], on[2 * POLICY_NAME_MAX], pn[2 * POLICY_NAME_MAX];

	prom_label_value(tn, sizeof(tn), t->name);
	prom_label_value(on, sizeof(on), op->op);
	prom_label_value(pn, sizeof(pn), op->pattern);
	snprintf(buf, len, "target=\"%s\",op=\"%s\",pattern=\"%s\",threads=\"%u\"", tn, on, pn,
		 op->threads);
}

static void crossovers(FILE *f, const struct policy *p, bool conf)
{
	char lbl[1024], ol[512], b[2 * POLICY_NAME_MAX], a[2 * POLICY_NAME_MAX];

	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			const struct policy_op *op = &p->targets[t].ops[o];

			op_labels(ol, sizeof(ol), &p->targets[t], op);
			for (size_t x = 0; x < op->ncrossovers; x++) {
				const struct policy_crossover *c = &op->crossovers[x];

				prom_label_value(b, sizeof(b), c->below);
				prom_label_value(a, sizeof(a), c->above);
				snprintf(lbl, sizeof(lbl), "%s,below=\"%s\",above=\"%s\"",
					 ol, b, a);
				prom_sample(f, conf ? "pmem_tune_crossover_confidence_ratio"
					       : "pmem_tune_crossover_bytes", lbl,
				       conf ? c->confidence : (double)c->size_bytes);
			}
		}
}

static void ceilings(FILE *f, const struct policy *p)
{
	char ol[512];

	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			const struct policy_op *op = &p->targets[t].ops[o];

			op_labels(ol, sizeof(ol), &p->targets[t], op);
			prom_sample(f, "pmem_tune_ceiling_bytes_per_second", ol,
				    op->ceiling_mib_s * MIB);
		}
}

static void exports(FILE *f, const struct policy *p, bool threshold)
{
	char lbl[512], tn[2 * POLICY_NAME_MAX], v[POLICY_NAME_MAX];

	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		const struct policy_export *e = export_of(p, c);
		const struct export_key *k;
		uint64_t n;

		if (!threshold) {
			if (!e || !e->present)
				continue;
			prom_label_value(tn, sizeof(tn), e->target);
			snprintf(lbl, sizeof(lbl), "consumer=\"%s\",target=\"%s\"", ci->name, tn);
			prom_sample(f, "pmem_tune_export_regret_ratio", lbl, e->regret);
			continue;
		}
		if (!ci->threshold)
			continue;
		k = export_key_find_kv(c, ci->threshold);
		/* a value is printed only once it has decoded as a number */
		if (!k || export_key_value(p, k, v, sizeof(v)) || export_key_decode(k, v, &n))
			continue;
		snprintf(lbl, sizeof(lbl), "consumer=\"%s\"", ci->name);
		/* "never switch" is UINT64_MAX in the file and to the consumer, -1 here */
		prom_sample(f, "pmem_tune_export_threshold_bytes", lbl,
		       k->decoding == EXPORT_SIZE && n == POLICY_SIZE_OPEN ? -1 : (double)n);
	}
}

/* Labels name what changed, never a version: one series each, whatever runs. */
static void environment(FILE *f, const struct policy *p, const struct policy *host)
{
	struct policy_env_report env;
	char lbl[64];

	policy_env_compare(p, host, &env);
	prom_group(f, "pmem_tune_environment_changed",
		   "1 if this host runs another kernel or microcode than the entry was probed on.");
	for (int w = 0; w < POLICY_ENV_N; w++) {
		if (!env.item[w].compared)
			continue;
		snprintf(lbl, sizeof(lbl), "what=\"%s\"", policy_env_name(w));
		prom_sample(f, "pmem_tune_environment_changed", lbl, env.item[w].changed);
	}
}

/*
 * Whether the file was read at all comes first and alone: a file that
 * cannot be read or is invalid says so, never what an older one said.
 */
static void policy_metrics(FILE *f, const struct metrics_in *in)
{
	const struct policy *p;
	const char *created;
	/* prom_label_value() shortens a long path between escapes, never inside one */
	char lbl[1024], fp[2 * POLICY_NAME_MAX], file[513];

	prom_label_value(file, sizeof(file), in->path);
	snprintf(lbl, sizeof(lbl), "file=\"%s\"", file);
	prom_group(f, "pmem_tune_policy_read_ok",
		   "1 if the policy file was read and is valid, else 0 (and nothing from it).");
	prom_sample(f, "pmem_tune_policy_read_ok", lbl, in->bundle ? 1 : 0);
	if (!in->bundle || !in->host)
		return;
	/* a fleet bundle holds every platform: each host reports only its own */
	p = policy_bundle_find(in->bundle, in->host->platform.fingerprint);
	prom_label_value(fp, sizeof(fp), in->host->platform.fingerprint);
	snprintf(lbl, sizeof(lbl), "file=\"%s\",fingerprint=\"%s\"", file, fp);
	prom_group(f, "pmem_tune_policy_host_match",
		   "1 if the policy file has an entry for this host's fingerprint, else 0.");
	prom_sample(f, "pmem_tune_policy_host_match", lbl, p ? 1 : 0);
	if (!p)
		return;
	environment(f, p, in->host);
	created = p->merged.hosts ? p->merged.created_last : p->generator.created;
	prom_group(f, "pmem_tune_probe_timestamp_seconds",
	      "When the probe behind the entry ran (age: time() - this).");
	prom_sample(f, "pmem_tune_probe_timestamp_seconds", "", (double)parse_created(created));
	prom_group(f, "pmem_tune_merged_hosts", "Hosts aggregated into the entry (1: one probe).");
	prom_sample(f, "pmem_tune_merged_hosts", "", p->merged.hosts ? p->merged.hosts : 1);
	prom_group(f, "pmem_tune_ceiling_bytes_per_second",
	      "Non-temporal fill throughput of the target, same threads.");
	ceilings(f, p);
	prom_group(f, "pmem_tune_crossover_bytes", "Size from which 'above' beats 'below'.");
	crossovers(f, p, false);
	prom_group(f, "pmem_tune_crossover_confidence_ratio",
	      "Probability that both sides of the crossover are right.");
	crossovers(f, p, true);
	prom_group(f, "pmem_tune_export_regret_ratio",
	      "Mean loss of the exported knob against the per-size best.");
	exports(f, p, false);
	prom_group(f, "pmem_tune_export_threshold_bytes",
		   "The exported threshold; -1 = never switch.");
	exports(f, p, true);
}

/* A non-negative integer member of o, else -1. */
static double json_count(struct json_object *o, const char *key)
{
	struct json_object *v;
	int64_t n;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	n = json_object_get_int64(v);
	return n < 0 ? -1 : (double)n;
}

static bool json_true(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* A non-empty string member of o, else NULL. */
static const char *json_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string) || !json_object_get_string_len(v))
		return NULL;
	return json_object_get_string(v);
}

/* A status object pmem-tuned wrote (daemon/status_file.h), else NULL. */
static struct json_object *status_of(struct json_object *o)
{
	struct json_object *fmt;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_string) ||
	    strcmp(json_object_get_string(fmt), "pmem-tuned-status/1"))
		return NULL;
	return o;
}

/* What pmem-tuned wrote after its last apply (daemon/status_file.h). */
static void apply_metrics(FILE *f, struct json_object *st)
{
	static const char *const counts[] = { "set", "unchanged", "failed", "refused" };
	bool applied = json_true(st, "applied");
	char lbl[64];

	prom_group(f, "pmem_tuned_policy_applied", "1 if pmem-tuned's last pass applied a policy.");
	prom_sample(f, "pmem_tuned_policy_applied", "", applied);
	if (!applied)
		return;
	prom_group(f, "pmem_tuned_last_apply_timestamp_seconds",
		   "When pmem-tuned last applied the policy.");
	prom_sample(f, "pmem_tuned_last_apply_timestamp_seconds", "", json_count(st, "time"));
	prom_group(f, "pmem_tuned_knobs", "Knobs by what the last apply did with them.");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		double n = json_count(st, counts[i]);

		snprintf(lbl, sizeof(lbl), "result=\"%s\"", counts[i]);
		if (n >= 0)
			prom_sample(f, "pmem_tuned_knobs", lbl, n);
	}
}

/* What the last pmem-tuned --verify wrote (daemon/status_file.h). */
static void verify_metrics(FILE *f, struct json_object *vf)
{
	bool verified = json_true(vf, "verified");

	prom_group(f, "pmem_tuned_policy_verified",
		   "1 if the last pmem-tuned --verify compared every knob with the policy.");
	prom_sample(f, "pmem_tuned_policy_verified", "", verified);
	if (!verified || json_count(vf, "drift") < 0)
		return;
	prom_group(f, "pmem_tuned_drift_knobs",
		   "Knobs whose value differed from the policy at the last --verify.");
	prom_sample(f, "pmem_tuned_drift_knobs", "", json_count(vf, "drift"));
	prom_group(f, "pmem_tuned_last_verify_timestamp_seconds",
		   "When pmem-tuned --verify last ran.");
	prom_sample(f, "pmem_tuned_last_verify_timestamp_seconds", "", json_count(vf, "time"));
}

static void daemon_metrics(FILE *f, struct json_object *status, struct json_object *verify)
{
	struct json_object *st = status_of(status);

	/*
	 * A daemon that writes its own metrics file (metrics_file=) has the
	 * apply's fresher than this, and one name in two files would break
	 * node-exporter's collector: those are left to it.
	 */
	if (!json_string(st, "metrics_file"))
		apply_metrics(f, st);
	verify_metrics(f, status_of(verify));
}

char *metrics_text(const struct metrics_in *in, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	policy_metrics(f, in);
	daemon_metrics(f, in->status, in->verify);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
