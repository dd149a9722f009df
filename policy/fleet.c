// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fleet operations on policies: merge many hosts' results into one
 * bundle, and say what changed between two policies in their decisions
 * and exports rather than in their noise.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/read_file.h"
#include "crossover.h"
#include "environment.h"
#include "export_keys.h"
#include "fleet.h"
#include "policy_internal.h"
#include "policy_limits.h"
#include "sha256.h"

/* ---- host identity ---- */

int policy_host_id(const char *machine_id_path, const char *fingerprint, char *out, size_t len)
{
	static const char salt[] = "pmem-tune host id\n";
	uint8_t d[SHA256_DIGEST_LEN];
	struct sha256_ctx ctx;
	char *id = NULL;
	size_t n = 0;
	int rc;

	if (len < 7 + 2 * SHA256_DIGEST_LEN + 1)
		return -ENOSPC;
	rc = read_file(machine_id_path, 0, 4096, &id, &n);
	if (rc)
		return rc;
	while (n && (id[n - 1] == '\n' || id[n - 1] == ' '))
		n--;
	if (!n) {
		free(id);
		return -ENODATA;
	}
	/* salted with the fingerprint: one host's ids in two fleets of platforms do not match */
	sha256_init(&ctx);
	sha256_update(&ctx, salt, sizeof(salt) - 1);
	sha256_update(&ctx, id, n);
	sha256_update(&ctx, "\n", 1);
	sha256_update(&ctx, fingerprint, strlen(fingerprint));
	sha256_final(&ctx, d);
	free(id);
	n = (size_t)snprintf(out, len, "sha256:");
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++)
		n += (size_t)snprintf(out + n, len - n, "%02x", d[i]);
	return 0;
}

/*
 * The hosts an entry stands for, by id: its own host_id, or a merged
 * entry's host_ids.  0 when they are not known (files from before host
 * ids): such an entry is compared by its whole text, as a repeated
 * input is.
 */
static size_t ids_of(const struct policy *p, const char (**ids)[POLICY_HOST_ID_LEN])
{
	if (p->merged.hosts) {
		*ids = p->merged.host_ids;
		return p->merged.nhost_ids;
	}
	*ids = (const char (*)[POLICY_HOST_ID_LEN])p->generator.host_id;
	return p->generator.host_id[0] ? 1 : 0;
}

/* An id both sorted lists hold, else NULL. */
static const char *common_id(const char (*a)[POLICY_HOST_ID_LEN], size_t na,
			     const char (*b)[POLICY_HOST_ID_LEN], size_t nb)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		int c = strcmp(a[i], b[j]);

		if (!c)
			return a[i];
		if (c < 0)
			i++;
		else
			j++;
	}
	return NULL;
}

/*
 * The same host twice among the entries of one platform: g[i] came from
 * the input named name[i].  By host id where both entries know theirs
 * (a merged entry with each of its hosts), else by the entries' text.
 */
static int same_host(struct policy *const *g, const char *const *name, size_t n, char *err,
		     size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct policy *a = g[i], *b = g[j];
			const char (*ia)[POLICY_HOST_ID_LEN], (*ib)[POLICY_HOST_ID_LEN];
			size_t na = ids_of(a, &ia), nb = ids_of(b, &ib);
			const char *same;

			if (na && nb) {
				same = common_id(ia, na, ib, nb);
			} else {
				char *x = policy_to_string(a), *y = policy_to_string(b);

				if (!x || !y) {
					free(x);
					free(y);
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
				same = strcmp(x, y) ? NULL : a->merged.hosts ? a->merged.created_first
									  : a->generator.created;
				free(x);
				free(y);
			}
			if (same) {
				snprintf(err, errlen, "%s: the same %s twice (%s), in %s and in %s; "
					 "each host counts once", a->platform.fingerprint,
					 na && nb ? "host" : a->merged.hosts ? "merged entry" : "host",
					 same, name[i], name[j]);
				return -EEXIST;
			}
		}
	return 0;
}

/* ---- merge ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct weighted {
	double v;
	unsigned w;
};

static int cmp_weighted(const void *a, const void *b)
{
	double x = ((const struct weighted *)a)->v, y = ((const struct weighted *)b)->v;

	return x < y ? -1 : x > y;
}

/*
 * Median of v[0..n) where v[i] stands for w[i] hosts (a merged entry
 * for all of its hosts, not as one): the middle of the hosts, the mean
 * of the two middle ones when their count is even.  Unmeasured (NAN)
 * values are left out; NAN when none is left.
 */
static double host_median(const double *v, const unsigned *w, size_t n)
{
	struct weighted *x = malloc((n ? n : 1) * sizeof(*x));
	uint64_t total = 0, cum = 0;
	double lo = NAN, hi = NAN;
	size_t k = 0;

	if (!x)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]) && w[i]) {
			x[k].v = v[i];
			x[k++].w = w[i];
			total += w[i];
		}
	qsort(x, k, sizeof(*x), cmp_weighted);
	for (size_t i = 0; i < k; i++) {
		cum += x[i].w;
		if (isnan(lo) && 2 * cum >= total)
			lo = x[i].v;
		if (2 * cum > total) {
			hi = x[i].v;
			break;
		}
	}
	free(x);
	return k ? (lo + hi) / 2 : NAN;
}

/*
 * One op aggregated over the hosts' ops: the union of their sizes and
 * strategies; each cell is the median over the hosts that measured it
 * (of medians, spreads and interval bounds alike), and the hosts' range
 * of medians is kept beside it.  The cells' flags carry over, so that the
 * merged op is decided by the rule each host's was: a cell a host could
 * not measure is unmeasurable merged (the op decides nothing, as on that
 * host), a suspect cell adds nothing to the median, and an island is
 * confirmed merged where the hosts that measured it, by weight, mostly
 * confirmed it; a cell is fresh where every host's was.
 */
static int merge_op(struct policy_op *dst, struct policy_op *const *src, const unsigned *hosts,
		    size_t nsrc)
{
	struct policy_target tmp = { 0 };
	uint64_t *sizes = NULL;
	size_t nsizes = 0, cap = 0;
	double *med = NULL, *p10 = NULL, *p90 = NULL, *lo = NULL, *hi = NULL;
	unsigned *wk = NULL;
	struct policy_op *m;
	int rc = -ENOMEM;

	for (size_t s = 0; s < nsrc; s++)
		cap += src[s]->nsizes;
	sizes = malloc((cap ? cap : 1) * sizeof(*sizes));
	med = malloc((nsrc ? nsrc : 1) * sizeof(double) * 5);
	wk = malloc((nsrc ? nsrc : 1) * sizeof(*wk));
	if (!sizes || !med || !wk)
		goto out;
	p10 = med + nsrc;
	p90 = p10 + nsrc;
	lo = p90 + nsrc;
	hi = lo + nsrc;
	for (size_t s = 0; s < nsrc; s++)
		for (size_t i = 0; i < src[s]->nsizes; i++)
			sizes[nsizes++] = src[s]->sizes_bytes[i];
	qsort(sizes, nsizes, sizeof(*sizes), cmp_u64);
	cap = nsizes;
	nsizes = 0;
	for (size_t i = 0; i < cap; i++)
		if (!nsizes || sizes[nsizes - 1] != sizes[i])
			sizes[nsizes++] = sizes[i];

	m = policy_target_add_op(&tmp, dst->op, dst->pattern, dst->threads, sizes, nsizes);
	if (!m)
		goto out;
	for (size_t s = 0; s < nsrc; s++)
		for (size_t c = 0; c < src[s]->ncurves; c++) {
			const struct policy_curve *sc = &src[s]->curves[c];
			struct policy_curve *mc = policy_op_find_curve(m, sc->strategy);

			if (!mc) {
				mc = policy_op_add_curve(m, sc->strategy);
				if (!mc)
					goto out;
				mc->hosts_min_mib_s = malloc((nsizes ? nsizes : 1) * sizeof(double));
				mc->hosts_max_mib_s = malloc((nsizes ? nsizes : 1) * sizeof(double));
				if (!mc->hosts_min_mib_s || !mc->hosts_max_mib_s)
					goto out;
			}
			mc->reference_only |= sc->reference_only;
		}
	for (size_t c = 0; c < m->ncurves; c++) {
		struct policy_curve *mc = &m->curves[c];

		for (size_t i = 0; i < nsizes; i++) {
			double mn = INFINITY, mx = -INFINITY;
			uint64_t samples = 0, w_all = 0, w_confirmed = 0;
			uint8_t flags = POLICY_CELL_REMEASURED;
			size_t k = 0;

			for (size_t s = 0; s < nsrc; s++) {
				const struct policy_curve *sc =
					policy_op_find_curve(src[s], mc->strategy);
				int idx = sc ? policy_op_size_index(src[s], sizes[i]) : -1;
				uint8_t f = idx >= 0 && sc->cell_flags ? sc->cell_flags[idx] : 0;

				if (idx >= 0)
					flags |= f & POLICY_CELL_UNMEASURABLE;
				if (idx < 0 || !sc->samples[idx] || isnan(sc->median_mib_s[idx]) ||
				    (f & POLICY_CELL_SUSPECT))
					continue;
				if (!(f & POLICY_CELL_REMEASURED))
					flags &= (uint8_t)~POLICY_CELL_REMEASURED;
				w_all += hosts[s];
				w_confirmed += f & POLICY_CELL_CONFIRMED ? hosts[s] : 0;
				med[k] = sc->median_mib_s[idx];
				p10[k] = sc->p10_mib_s[idx];
				p90[k] = sc->p90_mib_s[idx];
				lo[k] = sc->ci_lo_mib_s[idx];
				hi[k] = sc->ci_hi_mib_s[idx];
				mn = fmin(mn, med[k]);
				mx = fmax(mx, med[k]);
				samples += sc->samples[idx];
				wk[k] = hosts[s];
				k++;
			}
			if (2 * w_confirmed > w_all)
				flags |= POLICY_CELL_CONFIRMED;
			mc->cell_flags[i] = k ? flags : flags & POLICY_CELL_UNMEASURABLE;
			if (!k) {
				mc->hosts_min_mib_s[i] = mc->hosts_max_mib_s[i] = NAN;
				continue;
			}
			mc->median_mib_s[i] = host_median(med, wk, k);
			mc->p10_mib_s[i] = host_median(p10, wk, k);
			mc->p90_mib_s[i] = host_median(p90, wk, k);
			/* the typical host's interval, widened to hold the median */
			mc->ci_lo_mib_s[i] = fmin(host_median(lo, wk, k), mc->median_mib_s[i]);
			mc->ci_hi_mib_s[i] = fmax(host_median(hi, wk, k), mc->median_mib_s[i]);
			/* what a file may hold: merging must not make an unreadable one */
			mc->samples[i] = samples > POLICY_MAX_SAMPLES ? POLICY_MAX_SAMPLES
								      : (unsigned)samples;
			mc->hosts_min_mib_s[i] = mn;
			mc->hosts_max_mib_s[i] = mx;
		}
	}
	for (size_t s = 0; s < nsrc; s++)
		med[s] = src[s]->ceiling_mib_s;
	m->ceiling_mib_s = host_median(med, hosts, nsrc);
	rc = crossover_decide(m);
	if (rc)
		goto out;
	policy_op_release(dst);
	*dst = *m;
	tmp.nops = 0;
out:
	for (size_t o = 0; o < tmp.nops; o++)
		policy_op_release(&tmp.ops[o]);
	free(tmp.ops);
	free(sizes);
	free(med);
	free(wk);
	return rc;
}

static const char *created_of(const struct policy *p, bool last)
{
	if (p->merged.hosts)
		return last ? p->merged.created_last : p->merged.created_first;
	return p->generator.created;
}

/* Aggregate entries of one fingerprint into a copy of the newest. */
/*
 * Targets the newest entry lacks but other hosts probed (a dram target
 * beside a file one, say) are kept too: each is copied from the newest
 * host that has it, then merged over every host that has it like the
 * others.
 */
static int add_missing_targets(struct policy *out, struct policy *const *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < g[i]->ntargets; t++) {
			const char *name = g[i]->targets[t].name;
			struct policy_target *src, *dst;
			struct policy *copy;
			size_t from = i;

			if (policy_find_target(out, name))
				continue;
			for (size_t j = 0; j < n; j++)
				if (policy_find_target(g[j], name) &&
				    strcmp(created_of(g[j], true), created_of(g[from], true)) > 0)
					from = j;
			copy = policy_dup(g[from]);
			src = copy ? policy_find_target(copy, name) : NULL;
			dst = src ? policy_add_target(out, name) : NULL;
			if (!dst) {
				policy_free(copy);
				return -ENOMEM;
			}
			/* take its arrays over; the copy then frees an empty target */
			*dst = *src;
			memset(src, 0, sizeof(*src));
			policy_free(copy);
		}
	return 0;
}

static int cmp_host_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * The merged entry's host ids: those of every entry, sorted (same_host()
 * made sure none is there twice).  None when an entry does not know its
 * hosts or there are more than a file may list.
 */
static int merge_host_ids(struct policy *out, struct policy *const *g, size_t n)
{
	const char (*ids)[POLICY_HOST_ID_LEN];
	size_t total = 0, k = 0;

	free(out->merged.host_ids);
	out->merged.host_ids = NULL;
	out->merged.nhost_ids = 0;
	for (size_t i = 0; i < n; i++) {
		size_t m = ids_of(g[i], &ids);

		if (!m)
			return 0;
		total += m;
	}
	if (total > POLICY_MAX_HOST_IDS || total != out->merged.hosts)
		return 0;
	out->merged.host_ids = calloc(total, sizeof(*out->merged.host_ids));
	if (!out->merged.host_ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t m = ids_of(g[i], &ids);

		memcpy(out->merged.host_ids[k], ids, m * sizeof(*ids));
		k += m;
	}
	qsort(out->merged.host_ids, total, sizeof(*out->merged.host_ids), cmp_host_id);
	out->merged.nhost_ids = total;
	return 0;
}

static struct policy *merge_group(struct policy *const *g, size_t n,
				  const struct export_weights *w)
{
	size_t newest = 0;
	struct policy *out;
	struct policy_op **ops;
	unsigned *hosts, *opw;

	for (size_t i = 1; i < n; i++)
		if (strcmp(created_of(g[i], true), created_of(g[newest], true)) > 0)
			newest = i;
	out = policy_dup(g[newest]);
	ops = calloc(n, sizeof(*ops));
	hosts = calloc(n, sizeof(*hosts));
	opw = calloc(n, sizeof(*opw));
	if (!out || !ops || !hosts || !opw)
		goto fail;
	/* a merged entry counts for every host in it: merging it again must not skew */
	for (size_t i = 0; i < n; i++)
		hosts[i] = g[i]->merged.hosts ? g[i]->merged.hosts : 1;
	out->merged.hosts = 0;
	/* an aggregate is no one host */
	out->generator.host_id[0] = '\0';
	snprintf(out->merged.created_first, sizeof(out->merged.created_first), "%s",
		 created_of(g[0], false));
	snprintf(out->merged.created_last, sizeof(out->merged.created_last), "%s",
		 created_of(g[0], true));
	for (size_t i = 0; i < n; i++) {
		out->merged.hosts += g[i]->merged.hosts ? g[i]->merged.hosts : 1;
		/* as with samples: never more than a file may hold */
		if (out->merged.hosts > POLICY_MAX_HOSTS)
			out->merged.hosts = POLICY_MAX_HOSTS;
		if (strcmp(created_of(g[i], false), out->merged.created_first) < 0)
			snprintf(out->merged.created_first, sizeof(out->merged.created_first),
				 "%s", created_of(g[i], false));
		if (strcmp(created_of(g[i], true), out->merged.created_last) > 0)
			snprintf(out->merged.created_last, sizeof(out->merged.created_last), "%s",
				 created_of(g[i], true));
	}
	if (add_missing_targets(out, g, n) || merge_host_ids(out, g, n))
		goto fail;
	/* every kernel and microcode the hosts ran: one platform all the same */
	if (policy_env_merge(out, g, n))
		goto fail;
	/* every target and op of the entry; each from every host that has it */
	for (size_t t = 0; t < out->ntargets; t++) {
		struct policy_target *ot = &out->targets[t];
		double ceil[n];
		unsigned ceilw[n];
		size_t nceil = 0;

		for (size_t o = 0; o < ot->nops; o++) {
			struct policy_op *oo = &ot->ops[o];
			size_t k = 0;

			for (size_t i = 0; i < n; i++) {
				struct policy_target *it = policy_find_target(g[i], ot->name);
				struct policy_op *io = it ? policy_find_op(it, oo->op, oo->pattern,
									   oo->threads) : NULL;

				if (io) {
					opw[k] = hosts[i];
					ops[k++] = io;
				}
			}
			if (merge_op(oo, ops, opw, k))
				goto fail;
		}
		for (size_t i = 0; i < n; i++) {
			struct policy_target *it = policy_find_target(g[i], ot->name);

			if (it && !isnan(it->ceiling_mib_s)) {
				ceilw[nceil] = hosts[i];
				ceil[nceil++] = it->ceiling_mib_s;
			}
		}
		ot->ceiling_mib_s = host_median(ceil, ceilw, nceil);
	}
	if (export_compute(out, w))
		goto fail;
	free(ops);
	free(hosts);
	free(opw);
	return out;
fail:
	free(ops);
	free(hosts);
	free(opw);
	policy_free(out);
	return NULL;
}

int policy_merge(struct policy_bundle *const *in, size_t nin, const struct export_weights *w,
		 struct policy_bundle **outp, char *err, size_t errlen)
{
	return policy_merge_named(in, NULL, nin, w, outp, err, errlen);
}

int policy_merge_named(struct policy_bundle *const *in, const char *const *names, size_t nin,
		       const struct export_weights *w, struct policy_bundle **outp, char *err,
		       size_t errlen)
{
	struct policy_bundle *out = policy_bundle_new();
	struct policy **group = NULL;
	size_t total = 0;
	bool *taken = NULL;
	struct policy **all = NULL;
	const char **from = NULL, **gfrom = NULL;
	char (*label)[32] = NULL;
	int rc = -ENOMEM;

	for (size_t i = 0; i < nin; i++)
		total += in[i]->n;
	all = calloc(total ? total : 1, sizeof(*all));
	group = calloc(total ? total : 1, sizeof(*group));
	taken = calloc(total ? total : 1, sizeof(*taken));
	from = calloc(total ? total : 1, sizeof(*from));
	gfrom = calloc(total ? total : 1, sizeof(*gfrom));
	label = calloc(nin ? nin : 1, sizeof(*label));
	if (!out || !all || !group || !taken || !from || !gfrom || !label) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	total = 0;
	for (size_t i = 0; i < nin; i++) {
		snprintf(label[i], sizeof(label[i]), "input %zu", i + 1);
		for (size_t e = 0; e < in[i]->n; e++) {
			from[total] = names ? names[i] : label[i];
			all[total++] = in[i]->entries[e];
		}
	}
	/* first appearance decides the order of the bundle's entries */
	for (size_t i = 0; i < total; i++) {
		struct policy *m;
		size_t n = 0;

		if (taken[i])
			continue;
		for (size_t j = i; j < total; j++)
			if (!taken[j] && !strcmp(all[j]->platform.fingerprint,
						 all[i]->platform.fingerprint)) {
				gfrom[n] = from[j];
				group[n++] = all[j];
				taken[j] = true;
			}
		rc = same_host(group, gfrom, n, err, errlen);
		if (rc)
			goto fail;
		m = n == 1 ? policy_dup(group[0]) : merge_group(group, n, w);
		/*
		 * A fleet file carries summaries: one host's raw samples would
		 * outweigh them and, under merged medians, contradict them.
		 */
		if (m)
			policy_drop_raw(m);
		if (!m) {
			snprintf(err, errlen, "cannot merge the entries of %s",
				 all[i]->platform.fingerprint);
			rc = -EINVAL;
			goto fail;
		}
		rc = policy_bundle_add(out, m);
		if (rc) {
			policy_free(m);
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	rc = 0;
	*outp = out;
	out = NULL;
fail:
	free(all);
	free(group);
	free(taken);
	free(from);
	free(gfrom);
	free(label);
	policy_bundle_free(out);
	return rc;
}

/* ---- diff ---- */

/*
 * Two sizes within one step of the probe's grid (2^k and 3 * 2^(k-1):
 * neighbours are at most 1.5x apart) are the same decision seen through
 * noise.
 */
static bool same_size(uint64_t a, uint64_t b)
{
	double r;

	if (a == b)
		return true;
	if (!a || !b || a == POLICY_SIZE_OPEN || b == POLICY_SIZE_OPEN)
		return false;
	r = a > b ? (double)a / (double)b : (double)b / (double)a;
	return r <= 1.5 + 1e-9;
}

struct differ {
	FILE *f;
	unsigned n;
};

static void say(struct differ *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct differ *d, const char *fmt, ...)
{
	va_list ap;

	d->n++;
	if (!d->f)
		return;
	va_start(ap, fmt);
	vfprintf(d->f, fmt, ap);
	va_end(ap);
	fputc('\n', d->f);
}

static void fmt_size(uint64_t v, char *buf, size_t len)
{
	if (v == POLICY_SIZE_OPEN)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void diff_op(struct differ *d, const char *where, const struct policy_op *a,
		    const struct policy_op *b)
{
	bool same = a->nranges == b->nranges &&
		    (!a->nranges || !strcmp(a->ranges[0].strategy, b->ranges[0].strategy));

	for (size_t i = 0; same && i < a->ncrossovers && i < b->ncrossovers; i++)
		same = !strcmp(a->crossovers[i].below, b->crossovers[i].below) &&
		       !strcmp(a->crossovers[i].above, b->crossovers[i].above) &&
		       same_size(a->crossovers[i].size_bytes, b->crossovers[i].size_bytes);
	if (same)
		return;
	for (int side = 0; side < 2; side++) {
		const struct policy_op *o = side ? b : a;
		char line[1024];
		size_t len = 0;

		for (size_t i = 0; i < o->nranges && len < sizeof(line) - 1; i++) {
			char to[32];

			fmt_size(o->ranges[i].to_bytes, to, sizeof(to));
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s [%" PRIu64
						", %s)", i ? ", " : "", o->ranges[i].strategy,
						o->ranges[i].from_bytes,
						o->ranges[i].to_bytes == POLICY_SIZE_OPEN ? "inf" : to);
		}
		if (!o->nranges)
			snprintf(line, sizeof(line), "no decision");
		if (!side)
			say(d, "%s: decisions changed", where);
		if (d->f)
			fprintf(d->f, "  %c %s\n", side ? '+' : '-', line);
	}
}

static const char *kv_get(const struct policy_export *e, const char *key)
{
	for (size_t i = 0; i < e->nkv; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return NULL;
}

/* Numeric knob values within one grid step are the same decision. */
static bool same_value(const char *a, const char *b)
{
	char *ea, *eb;
	unsigned long long x, y;

	if (!strcmp(a, b))
		return true;
	errno = 0;
	x = strtoull(a, &ea, 0);
	y = strtoull(b, &eb, 0);
	if (errno || *ea || *eb || !x || !y)
		return false;
	return same_size(x, y);
}

static void diff_kv(struct differ *d, const char *name, const struct policy_export *a,
		    const struct policy_export *b)
{
	if (a->present != b->present) {
		say(d, "exports.%s: %s", name, a->present ? "removed" : "added");
		return;
	}
	for (int side = 0; side < 2; side++) {
		const struct policy_export *x = side ? b : a, *y = side ? a : b;

		for (size_t i = 0; i < x->nkv; i++) {
			const char *other = kv_get(y, x->kv[i].key);

			if (!other)
				say(d, "exports.%s.%s: %s %s", name, x->kv[i].key,
				    side ? "added" : "removed", x->kv[i].value);
			else if (!side && !same_value(x->kv[i].value, other))
				say(d, "exports.%s.%s: %s -> %s", name, x->kv[i].key,
				    x->kv[i].value, other);
		}
	}
}

static void diff_policy(struct differ *d, const struct policy *a, const struct policy *b)
{
	char where[512];

	for (size_t t = 0; t < a->ntargets; t++) {
		const struct policy_target *ta = &a->targets[t];
		const struct policy_target *tb = policy_find_target(b, ta->name);

		if (!tb) {
			say(d, "targets.%s: removed", ta->name);
			continue;
		}
		for (size_t o = 0; o < ta->nops; o++) {
			const struct policy_op *oa = &ta->ops[o];
			const struct policy_op *ob = policy_find_op(tb, oa->op, oa->pattern,
								    oa->threads);

			snprintf(where, sizeof(where), "targets.%s %s/%s/%ut", ta->name, oa->op,
				 oa->pattern, oa->threads);
			/*
			 * An op that decides nothing (its cells never separated the
			 * families) takes no decision with it: whether the probe wrote
			 * it follows the op set's own test, which a busy host tips.
			 */
			if (!ob && oa->nranges)
				say(d, "%s: removed", where);
			else if (ob)
				diff_op(d, where, oa, ob);
		}
		for (size_t o = 0; o < tb->nops; o++) {
			const struct policy_op *ob = &tb->ops[o];

			if (ob->nranges && !policy_find_op(ta, ob->op, ob->pattern, ob->threads))
				say(d, "targets.%s %s/%s/%ut: added", tb->name, ob->op, ob->pattern,
				    ob->threads);
		}
	}
	for (size_t t = 0; t < b->ntargets; t++)
		if (!policy_find_target(a, b->targets[t].name))
			say(d, "targets.%s: added", b->targets[t].name);
	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		const struct policy_export *xa = export_of(a, c), *xb = export_of(b, c);
		char x[32], y[32];

		if (ci->kv_object) {
			diff_kv(d, ci->name, xa, xb);
		} else if (xa->present != xb->present) {
			say(d, "exports.%s: %s", ci->name, xa->present ? "removed" : "added");
		} else if (xa->present && !same_size(xa->threshold_bytes, xb->threshold_bytes)) {
			fmt_size(xa->threshold_bytes, x, sizeof(x));
			fmt_size(xb->threshold_bytes, y, sizeof(y));
			say(d, "exports.%s.%s: %s -> %s", ci->name, ci->threshold, x, y);
		}
	}
}

int policy_bundle_diff(const struct policy_bundle *a, const struct policy_bundle *b, FILE *f)
{
	struct differ d = { .f = f };

	for (size_t i = 0; i < a->n; i++) {
		const struct policy *pa = a->entries[i];
		const struct policy *pb = policy_bundle_find(b, pa->platform.fingerprint);

		/* two single policies of different platforms: compare them all the same */
		if (!pb && a->n == 1 && b->n == 1) {
			say(&d, "platform.fingerprint: %s -> %s", pa->platform.fingerprint,
			    b->entries[0]->platform.fingerprint);
			pb = b->entries[0];
		}
		if (!pb)
			say(&d, "platform %s: removed", pa->platform.fingerprint);
		else
			diff_policy(&d, pa, pb);
	}
	for (size_t i = 0; i < b->n; i++)
		if (!policy_bundle_find(a, b->entries[i]->platform.fingerprint) &&
		    !(a->n == 1 && b->n == 1))
			say(&d, "platform %s: added", b->entries[i]->platform.fingerprint);
	return (int)d.n;
}
