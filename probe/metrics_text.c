// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text pmem-tune --metrics writes: this host's policy entry and the
 * daemon's last passes in Prometheus' text format, for node-exporter's
 * textfile collector.  Every label value is escaped and every value
 * checked to be a finite number: a hostile policy file must not forge
 * samples.  No I/O here, so that the fuzzer drives it in memory.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "export.h"
#include "export_keys.h"
#include "metrics_text.h"
#include "policy.h"

#define MIB 1048576.0

/* Prometheus text format: label values escape \, " and newline. */
static void label(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

/* One HELP/TYPE group per name; the samples of the name follow it. */
static void group(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void sample(FILE *f, const char *name, const char *labels, double v)
{
	if (!isfinite(v))
		return;
	fprintf(f, "%s%s%s%s %.15g\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "",
		v);
}

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

	label(tn, sizeof(tn), t->name);
	label(on, sizeof(on), op->op);
	label(pn, sizeof(pn), op->pattern);
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

				label(b, sizeof(b), c->below);
				label(a, sizeof(a), c->above);
				snprintf(lbl, sizeof(lbl), "%s,below=\"%s\",above=\"%s\"", ol, b, a);
				sample(f, conf ? "pmem_tune_crossover_confidence_ratio"
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
			sample(f, "pmem_tune_ceiling_bytes_per_second", ol, op->ceiling_mib_s * MIB);
		}
}

static void exports(FILE *f, const struct policy *p, bool threshold)
{
	char lbl[512], tn[2 * POLICY_NAME_MAX], v[POLICY_NAME_MAX];

	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		const struct policy_export *e = export_of(p, c);
		char *end;
		int r;

		if (!threshold) {
			if (!e || !e->present)
				continue;
			label(tn, sizeof(tn), e->target);
			snprintf(lbl, sizeof(lbl), "consumer=\"%s\",target=\"%s\"", ci->name, tn);
			sample(f, "pmem_tune_export_regret_ratio", lbl, e->regret);
			continue;
		}
		if (!ci->threshold)
			continue;
		r = export_key_value(p, export_key_find_kv(c, ci->threshold), v, sizeof(v));
		snprintf(lbl, sizeof(lbl), "consumer=\"%s\"", ci->name);
		if (r == -ERANGE) {
			sample(f, "pmem_tune_export_threshold_bytes", lbl, -1);
			continue;
		}
		if (r)
			continue;
		/* a value is printed only once it has parsed as a number */
		errno = 0;
		double d = strtod(v, &end);

		if (!errno && end != v && !*end)
			sample(f, "pmem_tune_export_threshold_bytes", lbl, d);
	}
}

static void policy_metrics(FILE *f, const char *path, const struct policy *p, const char *host_fp)
{
	const char *created = p && p->merged.hosts ? p->merged.created_last
						   : p ? p->generator.created : "";
	/* label() shortens a long path between escapes, never inside one */
	char lbl[1024], fp[2 * POLICY_NAME_MAX], file[513];

	label(fp, sizeof(fp), host_fp);
	label(file, sizeof(file), path);
	snprintf(lbl, sizeof(lbl), "file=\"%s\",fingerprint=\"%s\"", file, fp);
	group(f, "pmem_tune_policy_host_match",
	      "1 if the policy file has an entry for this host's fingerprint, else 0.");
	sample(f, "pmem_tune_policy_host_match", lbl, p ? 1 : 0);
	if (!p)
		return;
	group(f, "pmem_tune_probe_timestamp_seconds",
	      "When the probe behind the entry ran (age: time() - this).");
	sample(f, "pmem_tune_probe_timestamp_seconds", "", (double)parse_created(created));
	group(f, "pmem_tune_merged_hosts", "Hosts aggregated into the entry (1: one probe).");
	sample(f, "pmem_tune_merged_hosts", "", p->merged.hosts ? p->merged.hosts : 1);
	group(f, "pmem_tune_ceiling_bytes_per_second",
	      "Non-temporal fill throughput of the target, same threads.");
	ceilings(f, p);
	group(f, "pmem_tune_crossover_bytes", "Size from which 'above' beats 'below'.");
	crossovers(f, p, false);
	group(f, "pmem_tune_crossover_confidence_ratio",
	      "Probability that both sides of the crossover are right.");
	crossovers(f, p, true);
	group(f, "pmem_tune_export_regret_ratio",
	      "Mean loss of the exported knob against the per-size best.");
	exports(f, p, false);
	group(f, "pmem_tune_export_threshold_bytes", "The exported threshold; -1 = never switch.");
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

/* What pmem-tuned wrote after its last apply and the last --verify (daemon/status_file.h). */
static void daemon_metrics(FILE *f, struct json_object *status, struct json_object *verify)
{
	static const char *const counts[] = { "set", "unchanged", "failed", "refused" };
	struct json_object *st = status_of(status), *vf = status_of(verify);
	bool applied = json_true(st, "applied"), verified = json_true(vf, "verified");
	char lbl[64];

	group(f, "pmem_tuned_policy_applied", "1 if pmem-tuned's last pass applied a policy.");
	sample(f, "pmem_tuned_policy_applied", "", applied);
	if (applied) {
		group(f, "pmem_tuned_last_apply_timestamp_seconds",
		      "When pmem-tuned last applied the policy.");
		sample(f, "pmem_tuned_last_apply_timestamp_seconds", "", json_count(st, "time"));
		group(f, "pmem_tuned_knobs", "Knobs by what the last apply did with them.");
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			double n = json_count(st, counts[i]);

			snprintf(lbl, sizeof(lbl), "result=\"%s\"", counts[i]);
			if (n >= 0)
				sample(f, "pmem_tuned_knobs", lbl, n);
		}
	}
	group(f, "pmem_tuned_policy_verified",
	      "1 if the last pmem-tuned --verify compared every knob with the policy.");
	sample(f, "pmem_tuned_policy_verified", "", verified);
	if (verified && json_count(vf, "drift") >= 0) {
		group(f, "pmem_tuned_drift_knobs",
		      "Knobs whose value differed from the policy at the last --verify.");
		sample(f, "pmem_tuned_drift_knobs", "", json_count(vf, "drift"));
		group(f, "pmem_tuned_last_verify_timestamp_seconds",
		      "When pmem-tuned --verify last ran.");
		sample(f, "pmem_tuned_last_verify_timestamp_seconds", "", json_count(vf, "time"));
	}
}

char *metrics_text(const char *path, const struct policy_bundle *b, const char *host_fp,
		   struct json_object *status, struct json_object *verify, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	/* a fleet bundle holds every platform: each host reports only its own */
	policy_metrics(f, path, policy_bundle_find(b, host_fp), host_fp);
	daemon_metrics(f, status, verify);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
