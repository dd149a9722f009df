// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --diff, --merge, --metrics: policies as fleets use them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "common/atomic_file.h"
#include "export.h"
#include "export_keys.h"
#include "fleet.h"
#include "policy.h"

int diff_cmd(const char *a, const char *b, unsigned flags)
{
	struct policy_bundle *pa = policy_file_load(a, flags);
	struct policy_bundle *pb = pa ? policy_file_load(b, flags) : NULL;
	int n;

	if (!pa || !pb) {
		policy_bundle_free(pa);
		return 2;
	}
	n = policy_bundle_diff(pa, pb, stdout);
	if (!n)
		printf("same: %s and %s make the same decisions and exports\n", a, b);
	policy_bundle_free(pa);
	policy_bundle_free(pb);
	return n ? 1 : 0;
}

int merge_cmd(const char *out, char **in, int nin, const char *weights, unsigned flags)
{
	struct policy_bundle **b = calloc((size_t)nin, sizeof(*b)), *m = NULL;
	struct export_weights w = { 0 };
	char err[600];
	int status = 2, rc;

	if (!b)
		return 1;
	if (weights && export_weights_load(weights, &w, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --weights: %s\n", err);
		goto out;
	}
	for (int i = 0; i < nin; i++) {
		b[i] = policy_file_load(in[i], flags);
		if (!b[i])
			goto out;
	}
	status = 1;
	if (policy_merge(b, (size_t)nin, weights ? &w : NULL, &m, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --merge: %s\n", err);
		goto out;
	}
	rc = policy_bundle_save(m, out);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the bundle: %s\n", out, strerror(-rc));
		goto out;
	}
	printf("merged %d file%s into %s: %zu platform%s\n", nin, nin == 1 ? "" : "s", out, m->n,
	       m->n == 1 ? "" : "s");
	for (size_t e = 0; e < m->n; e++)
		printf("  %s: %u host%s\n", m->entries[e]->platform.fingerprint,
		       m->entries[e]->merged.hosts ? m->entries[e]->merged.hosts : 1,
		       m->entries[e]->merged.hosts > 1 ? "s" : "");
	status = 0;
out:
	for (int i = 0; i < nin; i++)
		policy_bundle_free(b[i]);
	free(b);
	policy_bundle_free(m);
	export_weights_free(&w);
	return status;
}

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

static time_t parse_created(const char *s)
{
	struct tm tm = { 0 };

	if (!strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return 0;
	return timegm(&tm);
}

static void metrics_export(FILE *f, const char *consumer, const struct policy_export *e,
			   const char *fp)
{
	char t[160];

	if (!e->present)
		return;
	label(t, sizeof(t), e->target);
	fprintf(f, "pmem_tune_export_regret_ratio{fingerprint=\"%s\",consumer=\"%s\",target=\"%s\"} "
		"%.6f\n", fp, consumer, t, e->regret);
}

/* A consumer's switch size as its export has it; -1 = never switch. */
static void metrics_threshold(FILE *f, const struct policy *p, enum export_consumer c,
			      const char *fp)
{
	const char *name = export_consumer(c)->name, *key = export_consumer(c)->threshold;
	char v[POLICY_NAME_MAX];
	int r;

	if (!key)
		return;
	r = export_key_value(p, export_key_find_kv(c, key), v, sizeof(v));
	if (r == -ERANGE)
		snprintf(v, sizeof(v), "-1");
	else if (r)
		return;
	fprintf(f, "pmem_tune_export_threshold_bytes{fingerprint=\"%s\",consumer=\"%s\"} %s\n",
		fp, name, v);
}

static char *metrics_text(const struct policy_bundle *b, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fprintf(f, "# HELP pmem_tune_crossover_bytes Size from which 'above' beats 'below'.\n"
		   "# TYPE pmem_tune_crossover_bytes gauge\n"
		   "# HELP pmem_tune_crossover_confidence Probability that both sides of the "
		   "crossover are right.\n"
		   "# TYPE pmem_tune_crossover_confidence gauge\n"
		   "# HELP pmem_tune_ceiling_mib_s Non-temporal fill throughput of the target.\n"
		   "# TYPE pmem_tune_ceiling_mib_s gauge\n"
		   "# HELP pmem_tune_export_regret_ratio Mean loss of the exported knob against "
		   "the per-size best.\n"
		   "# TYPE pmem_tune_export_regret_ratio gauge\n"
		   "# HELP pmem_tune_export_threshold_bytes The exported threshold; -1 = never.\n"
		   "# TYPE pmem_tune_export_threshold_bytes gauge\n"
		   "# HELP pmem_tune_probe_timestamp_seconds When the probe ran (age: time() - "
		   "this).\n"
		   "# TYPE pmem_tune_probe_timestamp_seconds gauge\n"
		   "# HELP pmem_tune_merged_hosts Hosts aggregated into the entry.\n"
		   "# TYPE pmem_tune_merged_hosts gauge\n");
	for (size_t e = 0; e < b->n; e++) {
		const struct policy *p = b->entries[e];
		const char *created = p->merged.hosts ? p->merged.created_last : p->generator.created;
		char fp[96], tn[160];

		label(fp, sizeof(fp), p->platform.fingerprint);
		fprintf(f, "pmem_tune_probe_timestamp_seconds{fingerprint=\"%s\"} %lld\n", fp,
			(long long)parse_created(created));
		fprintf(f, "pmem_tune_merged_hosts{fingerprint=\"%s\"} %u\n", fp,
			p->merged.hosts ? p->merged.hosts : 1);
		for (size_t t = 0; t < p->ntargets; t++) {
			const struct policy_target *tg = &p->targets[t];

			label(tn, sizeof(tn), tg->name);
			for (size_t o = 0; o < tg->nops; o++) {
				const struct policy_op *op = &tg->ops[o];
				char lbl[512];

				snprintf(lbl, sizeof(lbl), "fingerprint=\"%s\",target=\"%s\","
					 "op=\"%s\",pattern=\"%s\",threads=\"%u\"", fp, tn, op->op,
					 op->pattern, op->threads);
				if (!isnan(op->ceiling_mib_s))
					fprintf(f, "pmem_tune_ceiling_mib_s{%s} %.1f\n", lbl,
						op->ceiling_mib_s);
				for (size_t x = 0; x < op->ncrossovers; x++) {
					const struct policy_crossover *c = &op->crossovers[x];

					fprintf(f, "pmem_tune_crossover_bytes{%s,below=\"%s\","
						"above=\"%s\"} %" PRIu64 "\n", lbl, c->below, c->above,
						c->size_bytes);
					fprintf(f, "pmem_tune_crossover_confidence{%s,below=\"%s\","
						"above=\"%s\"} %.3f\n", lbl, c->below, c->above,
						c->confidence);
				}
			}
		}
		for (int c = 0; c < EXPORT_NCONSUMERS; c++)
			metrics_export(f, export_consumer(c)->name, export_of(p, c), fp);
		for (int c = 0; c < EXPORT_NCONSUMERS; c++)
			metrics_threshold(f, p, c, fp);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int metrics_cmd(const char *out, const char *path, unsigned flags)
{
	struct policy_bundle *b = policy_file_load(path, flags);
	size_t len = 0;
	char *text;
	int rc;

	if (!b)
		return 2;
	text = metrics_text(b, &len);
	policy_bundle_free(b);
	if (!text) {
		fprintf(stderr, "pmem-tune: --metrics: out of memory\n");
		return 1;
	}
	/* node-exporter may read the file at any moment: never a torn one */
	rc = strcmp(out, "-") ? atomic_write_file(out, text, len, 0644)
			      : (fwrite(text, 1, len, stdout) == len ? 0 : -EIO);
	free(text);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the metrics: %s\n", out, strerror(-rc));
		return 1;
	}
	return 0;
}
