// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fleet operations on policies: merge many hosts' results into one
 * bundle, and say what changed between two policies in their decisions
 * and exports rather than in their noise.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include "common/read_file.h"
#include "policy/environment.h"
#include "policy/export_keys.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"
#include "policy/sha256.h"
#include "rule/crossover.h"
#include "rule/fleet.h"

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

/* ---- who is in an entry ---- */

/*
 * The hosts an entry stands for: a merged entry's host_ids, a host's
 * host_id, or, for an entry that names none (a file from before host
 * ids, or a merged entry that merely says how many hosts it holds), one
 * identity made of its text.  Each is one host, counted once: nothing an
 * entry declares counts, only the ids it holds.
 */
struct ident {
	uint8_t d[SHA256_DIGEST_LEN];
	uint32_t group;		/* its platform, in the bundle's order */
	uint32_t entry;		/* whose: an index into the entries of every input */
	bool text;		/* made of the entry's text */
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "sha256:<64 hex>" into d; -EINVAL for anything else. */
static int id_parse(const char *s, uint8_t d[SHA256_DIGEST_LEN])
{
	if (strncmp(s, "sha256:", 7) || strlen(s) != 7 + 2 * SHA256_DIGEST_LEN)
		return -EINVAL;
	s += 7;
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		d[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static void id_format(const uint8_t d[SHA256_DIGEST_LEN], char out[POLICY_HOST_ID_LEN])
{
	static const char hex[] = "0123456789abcdef";

	memcpy(out, "sha256:", 7);
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 15];
	}
	out[7 + 2 * SHA256_DIGEST_LEN] = '\0';
}

static bool has_raw(const struct policy *p)
{
	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++)
			if (policy_op_has_raw(&p->targets[t].ops[o]))
				return true;
	return false;
}

/*
 * The identity of an entry that names no host: the sha256 of its text
 * as written, its samples aside (--merge drops them, so that a fleet of
 * --keep-samples probes fits in memory), salted apart from host ids.
 */
static int text_id(const struct policy *p, uint8_t d[SHA256_DIGEST_LEN])
{
	static const char salt[] = "pmem-tune entry text\n";
	struct policy *copy = NULL;
	struct sha256_ctx ctx;
	char *s;

	if (has_raw(p)) {
		copy = policy_dup(p);
		if (!copy)
			return -ENOMEM;
		policy_drop_raw(copy);
		p = copy;
	}
	s = policy_to_string(p);
	policy_free(copy);
	if (!s)
		return -ENOMEM;
	sha256_init(&ctx);
	sha256_update(&ctx, salt, sizeof(salt) - 1);
	sha256_update(&ctx, s, strlen(s));
	sha256_final(&ctx, d);
	free(s);
	return 0;
}

/* How many identities p holds (policy_merge_named() reads them). */
static size_t nidents(const struct policy *p)
{
	if (p->merged.hosts && p->merged.nhost_ids)
		return p->merged.nhost_ids;
	return 1;
}

/* p's identities into out[0..nidents(p)). */
static int idents_of(const struct policy *p, struct ident *out, uint32_t group, uint32_t entry)
{
	const char *one = !p->merged.hosts && p->generator.host_id[0] ? p->generator.host_id
								       : NULL;
	size_t n = nidents(p);
	int rc;

	for (size_t i = 0; i < n; i++) {
		out[i].group = group;
		out[i].entry = entry;
		out[i].text = false;
	}
	if (p->merged.hosts && p->merged.nhost_ids) {
		for (size_t i = 0; i < n; i++)
			if (id_parse(p->merged.host_ids[i], out[i].d))
				return -EINVAL;
		return 0;
	}
	if (one)
		return id_parse(one, out[0].d);
	out[0].text = true;
	rc = text_id(p, out[0].d);
	return rc;
}

/*
 * A set of identities by (platform, digest): open addressing over
 * indices into the caller's array, with a per-process random seed, so
 * that ids chosen to collide cannot make it quadratic.
 */
struct idset {
	uint32_t *slot;		/* 1 + index, 0 empty */
	size_t mask;
	uint64_t seed;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static int idset_init(struct idset *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
	if (getrandom(&s->seed, sizeof(s->seed), GRND_NONBLOCK) != sizeof(s->seed))
		s->seed = (uint64_t)(uintptr_t)s ^ 0x9e3779b97f4a7c15ULL;
	return s->slot ? 0 : -ENOMEM;
}

/*
 * Add v[i] (the set holds at most the n it was made for); the index of
 * an identity already there, or -1.
 */
static ssize_t idset_add(struct idset *s, const struct ident *v, size_t i)
{
	uint64_t a, b;
	size_t h;

	memcpy(&a, v[i].d, 8);
	memcpy(&b, v[i].d + 8, 8);
	h = (size_t)(mix64(a ^ s->seed) ^ mix64(b + v[i].group + (s->seed >> 7)));
	for (;; h++) {
		uint32_t k = s->slot[h & s->mask];

		if (!k) {
			s->slot[h & s->mask] = (uint32_t)i + 1;
			return -1;
		}
		if (v[k - 1].group == v[i].group && !memcmp(v[k - 1].d, v[i].d, sizeof(v[i].d)))
			return k - 1;
	}
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

static void swap_weighted(struct weighted *a, struct weighted *b)
{
	struct weighted t = *a;

	*a = *b;
	*b = t;
}

/*
 * The smallest value of x[0..n) whose values up to it weigh at least
 * want (1 <= want <= the weight of all).  Reorders x.  A selection, not
 * a sort: linear on average, so that a cell of many hosts costs what
 * its hosts do; an order that defeats the pivots is sorted after all.
 */
static double weighted_rank(struct weighted *x, size_t n, uint64_t want)
{
	for (unsigned round = 0; n > 1; round++) {
		double a = x[0].v, b = x[n / 2].v, c = x[n - 1].v, pivot;
		uint64_t wlt = 0, weq = 0;
		size_t lt = 0, i = 0, gt = n;

		if (round == 64) {
			qsort(x, n, sizeof(*x), cmp_weighted);
			for (i = 0; i + 1 < n && x[i].w < want; i++)
				want -= x[i].w;
			return x[i].v;
		}
		pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		/* [0, lt) below the pivot, [lt, gt) at it, [gt, n) above */
		while (i < gt) {
			if (x[i].v < pivot) {
				wlt += x[i].w;
				swap_weighted(&x[i++], &x[lt++]);
			} else if (x[i].v > pivot) {
				swap_weighted(&x[i], &x[--gt]);
			} else {
				weq += x[i++].w;
			}
		}
		if (want <= wlt) {
			n = lt;
		} else if (want <= wlt + weq) {
			return pivot;
		} else {
			want -= wlt + weq;
			x += gt;
			n -= gt;
		}
	}
	return x[0].v;
}

/*
 * Median of v[0..n) where v[i] stands for w[i] hosts (a merged entry
 * for all of its hosts, not as one): the middle of the hosts, the mean
 * of the two middle ones when their count is even.  Unmeasured (NAN)
 * values are left out; NAN when none is left.  x: room for n.
 */
static double host_median(const double *v, const unsigned *w, size_t n, struct weighted *x)
{
	uint64_t total = 0;
	double lo;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]) && w[i]) {
			x[k].v = v[i];
			x[k++].w = w[i];
			total += w[i];
		}
	if (!k)
		return NAN;
	lo = weighted_rank(x, k, (total + 1) / 2);
	return (lo + weighted_rank(x, k, total / 2 + 1)) / 2;
}

/*
 * merge_op()'s room, one slot per source op: the cell each host that
 * measured it gives, and each source's place in its own grid.
 */
struct op_pool {
	double *med, *p10, *p90, *lo, *hi;	/* the hosts' cells, in one allocation */
	unsigned *w;				/* how many hosts each cell stands for */
	size_t *at;				/* each source's cursor in its sizes */
	const struct policy_curve **cur;	/* each source's curve of one strategy */
	struct weighted *scratch;		/* host_median()'s room */
};

static int op_pool_alloc(struct op_pool *p, size_t nsrc)
{
	size_t n = nsrc ? nsrc : 1;

	p->med = malloc(n * sizeof(double) * 5);
	p->w = malloc(n * sizeof(*p->w));
	p->at = malloc(n * sizeof(*p->at));
	p->cur = malloc(n * sizeof(*p->cur));
	p->scratch = malloc(n * sizeof(*p->scratch));
	if (!p->med || !p->w || !p->at || !p->cur || !p->scratch)
		return -ENOMEM;
	p->p10 = p->med + nsrc;
	p->p90 = p->p10 + nsrc;
	p->lo = p->p90 + nsrc;
	p->hi = p->lo + nsrc;
	return 0;
}

static void op_pool_free(struct op_pool *p)
{
	free(p->med);
	free(p->w);
	free(p->at);
	free(p->cur);
	free(p->scratch);
}

/* The union of the sources' sizes, ascending, into a new *sizesp[0..*np). */
static int union_sizes(struct policy_op *const *src, size_t nsrc, uint64_t **sizesp, size_t *np)
{
	size_t cap = 0, n = 0;
	uint64_t *sizes;

	for (size_t s = 0; s < nsrc; s++)
		cap += src[s]->nsizes;
	sizes = malloc((cap ? cap : 1) * sizeof(*sizes));
	if (!sizes)
		return -ENOMEM;
	for (size_t s = 0; s < nsrc; s++)
		for (size_t i = 0; i < src[s]->nsizes; i++)
			sizes[n++] = src[s]->sizes_bytes[i];
	qsort(sizes, n, sizeof(*sizes), cmp_u64);
	cap = n;
	n = 0;
	for (size_t i = 0; i < cap; i++)
		if (!n || sizes[n - 1] != sizes[i])
			sizes[n++] = sizes[i];
	*sizesp = sizes;
	*np = n;
	return 0;
}

/*
 * m's curves: one for each strategy any source measured, with room for
 * the hosts' range; reference-only where any source's is.
 */
static int add_union_curves(struct policy_op *m, struct policy_op *const *src, size_t nsrc)
{
	size_t room = m->nsizes ? m->nsizes : 1;

	for (size_t s = 0; s < nsrc; s++)
		for (size_t c = 0; c < src[s]->ncurves; c++) {
			const struct policy_curve *sc = &src[s]->curves[c];
			struct policy_curve *mc = policy_op_find_curve(m, sc->strategy);

			if (!mc) {
				mc = policy_op_add_curve(m, sc->strategy);
				if (!mc)
					return -ENOMEM;
				mc->hosts_min_mib_s = malloc(room * sizeof(double));
				mc->hosts_max_mib_s = malloc(room * sizeof(double));
				if (!mc->hosts_min_mib_s || !mc->hosts_max_mib_s)
					return -ENOMEM;
			}
			mc->reference_only |= sc->reference_only;
		}
	return 0;
}

/* What the hosts' cells of one size add up to, beside the cells pooled. */
struct cell_sum {
	double mn, mx;		/* the slowest and fastest host's median */
	uint64_t samples, w_all, w_confirmed;
	uint8_t flags;
	size_t k;		/* the cells pooled */
};

/*
 * Pool the cells of size the hosts measured into p (k of them): each
 * source's cursor moves forward to size, since both grids ascend.
 */
static void pool_cell(struct op_pool *p, struct policy_op *const *src, const unsigned *hosts,
		      size_t nsrc, uint64_t size, struct cell_sum *c)
{
	*c = (struct cell_sum){ .mn = INFINITY, .mx = -INFINITY,
				.flags = POLICY_CELL_REMEASURED };
	for (size_t s = 0; s < nsrc; s++) {
		const struct policy_curve *sc = p->cur[s];
		const struct policy_op *so = src[s];
		size_t idx, k = c->k;
		uint8_t f;

		while (p->at[s] < so->nsizes && so->sizes_bytes[p->at[s]] < size)
			p->at[s]++;
		if (!sc || p->at[s] == so->nsizes || so->sizes_bytes[p->at[s]] != size)
			continue;
		idx = p->at[s];
		f = sc->cell_flags ? sc->cell_flags[idx] : 0;
		c->flags |= f & POLICY_CELL_UNMEASURABLE;
		if (!sc->samples[idx] || isnan(sc->median_mib_s[idx]) || (f & POLICY_CELL_SUSPECT))
			continue;
		if (!(f & POLICY_CELL_REMEASURED))
			c->flags &= (uint8_t)~POLICY_CELL_REMEASURED;
		c->w_all += hosts[s];
		c->w_confirmed += f & POLICY_CELL_CONFIRMED ? hosts[s] : 0;
		p->med[k] = sc->median_mib_s[idx];
		p->p10[k] = sc->p10_mib_s[idx];
		p->p90[k] = sc->p90_mib_s[idx];
		p->lo[k] = sc->ci_lo_mib_s[idx];
		p->hi[k] = sc->ci_hi_mib_s[idx];
		c->mn = fmin(c->mn, p->med[k]);
		c->mx = fmax(c->mx, p->med[k]);
		c->samples += sc->samples[idx];
		p->w[k] = hosts[s];
		c->k++;
	}
}

/* mc's cell i from the cells pooled: their flags, medians and range. */
static void set_merged_cell(struct policy_curve *mc, size_t i, struct op_pool *p,
			    const struct cell_sum *c)
{
	uint8_t flags = c->flags;
	size_t k = c->k;

	if (2 * c->w_confirmed > c->w_all)
		flags |= POLICY_CELL_CONFIRMED;
	mc->cell_flags[i] = k ? flags : flags & POLICY_CELL_UNMEASURABLE;
	if (!k) {
		mc->hosts_min_mib_s[i] = mc->hosts_max_mib_s[i] = NAN;
		return;
	}
	mc->median_mib_s[i] = host_median(p->med, p->w, k, p->scratch);
	mc->p10_mib_s[i] = host_median(p->p10, p->w, k, p->scratch);
	mc->p90_mib_s[i] = host_median(p->p90, p->w, k, p->scratch);
	/* the typical host's interval, widened to hold the median */
	mc->ci_lo_mib_s[i] = fmin(host_median(p->lo, p->w, k, p->scratch), mc->median_mib_s[i]);
	mc->ci_hi_mib_s[i] = fmax(host_median(p->hi, p->w, k, p->scratch), mc->median_mib_s[i]);
	/* what a file may hold: merging must not make an unreadable one */
	mc->samples[i] = c->samples > POLICY_MAX_SAMPLES ? POLICY_MAX_SAMPLES
							 : (unsigned)c->samples;
	mc->hosts_min_mib_s[i] = c->mn;
	mc->hosts_max_mib_s[i] = c->mx;
}

/* The merged curve mc over the sources' curves of its strategy, size by size. */
static void merge_curve(struct policy_curve *mc, const uint64_t *sizes, size_t nsizes,
			struct policy_op *const *src, const unsigned *hosts, size_t nsrc,
			struct op_pool *p)
{
	struct cell_sum c;

	for (size_t s = 0; s < nsrc; s++) {
		p->cur[s] = policy_op_find_curve(src[s], mc->strategy);
		p->at[s] = 0;
	}
	for (size_t i = 0; i < nsizes; i++) {
		pool_cell(p, src, hosts, nsrc, sizes[i], &c);
		set_merged_cell(mc, i, p, &c);
	}
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
 * Linear in the hosts: each host's curve is looked up once per merged
 * curve, its sizes walked once per merged curve beside the merged ones.
 */
static int merge_op(struct policy_op *dst, struct policy_op *const *src, const unsigned *hosts,
		    size_t nsrc)
{
	struct policy_target tmp = { 0 };
	struct op_pool pool = { 0 };
	uint64_t *sizes = NULL;
	size_t nsizes = 0;
	struct policy_op *m;
	int rc = -ENOMEM;

	if (op_pool_alloc(&pool, nsrc) || union_sizes(src, nsrc, &sizes, &nsizes))
		goto out;
	m = policy_target_add_op(&tmp, dst->op, dst->pattern, dst->threads, sizes, nsizes);
	if (!m || add_union_curves(m, src, nsrc))
		goto out;
	/* hosts on other grids or strategy sets: their union may be more than one op holds */
	rc = -E2BIG;
	if (!policy_op_within_limits(m))
		goto out;
	for (size_t c = 0; c < m->ncurves; c++)
		merge_curve(&m->curves[c], sizes, nsizes, src, hosts, nsrc, &pool);
	for (size_t s = 0; s < nsrc; s++)
		pool.med[s] = src[s]->ceiling_mib_s;
	m->ceiling_mib_s = host_median(pool.med, hosts, nsrc, pool.scratch);
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
	op_pool_free(&pool);
	return rc;
}

static const char *created_of(const struct policy *p, bool last)
{
	if (p->merged.hosts)
		return last ? p->merged.created_last : p->merged.created_first;
	return p->generator.created;
}

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

/* out's host ids: ids[0..n), sorted. */
static int set_host_ids(struct policy *out, const struct ident *const *ids, size_t n)
{
	free(out->merged.host_ids);
	out->merged.nhost_ids = 0;
	out->merged.host_ids = calloc(n ? n : 1, sizeof(*out->merged.host_ids));
	if (!out->merged.host_ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		id_format(ids[i]->d, out->merged.host_ids[i]);
	out->merged.nhost_ids = n;
	out->merged.hosts = (unsigned)n;
	return 0;
}

/* out's first and last creation: the earliest and the latest of g[0..n)'s. */
static void set_created_range(struct policy *out, struct policy *const *g, size_t n)
{
	snprintf(out->merged.created_first, sizeof(out->merged.created_first), "%s",
		 created_of(g[0], false));
	snprintf(out->merged.created_last, sizeof(out->merged.created_last), "%s",
		 created_of(g[0], true));
	for (size_t i = 0; i < n; i++) {
		if (strcmp(created_of(g[i], false), out->merged.created_first) < 0)
			snprintf(out->merged.created_first, sizeof(out->merged.created_first),
				 "%s", created_of(g[i], false));
		if (strcmp(created_of(g[i], true), out->merged.created_last) > 0)
			snprintf(out->merged.created_last, sizeof(out->merged.created_last), "%s",
				 created_of(g[i], true));
	}
}

/*
 * Aggregate the entries g[0..n) of one fingerprint, which hold hosts[i]
 * hosts each, into a copy of the newest; its hosts are ids[0..nids).
 */
static int merge_group(struct policy *const *g, const unsigned *hosts, size_t n,
		       const struct ident *const *ids, size_t nids, const struct export_weights *w,
		       struct policy **outp, char *err, size_t errlen)
{
	int rc = -ENOMEM;
	size_t newest = 0;
	struct policy *out;
	struct policy_op **ops;
	struct weighted *scratch;
	unsigned *opw, *ceilw;
	double *ceil;

	for (size_t i = 1; i < n; i++)
		if (strcmp(created_of(g[i], true), created_of(g[newest], true)) > 0)
			newest = i;
	out = policy_dup(g[newest]);
	ops = calloc(n, sizeof(*ops));
	opw = calloc(n, sizeof(*opw));
	ceil = calloc(n, sizeof(*ceil));
	ceilw = calloc(n, sizeof(*ceilw));
	scratch = calloc(n, sizeof(*scratch));
	if (!out || !ops || !opw || !ceil || !ceilw || !scratch)
		goto fail;
	/* an aggregate is no one host */
	out->generator.host_id[0] = '\0';
	set_created_range(out, g, n);
	if (add_missing_targets(out, g, n) || set_host_ids(out, ids, nids))
		goto fail;
	/* every kernel and microcode the hosts ran: one platform all the same */
	if (policy_env_merge(out, g, n))
		goto fail;
	/* every target and op of the entry; each from every host that has it */
	for (size_t t = 0; t < out->ntargets; t++) {
		struct policy_target *ot = &out->targets[t];
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
			rc = merge_op(oo, ops, opw, k);
			if (rc == -E2BIG)
				snprintf(err, errlen, "%s: target %s, %s %s x%u: the hosts' grids "
					 "together hold more than %d sizes or %d strategies, more "
					 "than one op may; merge hosts probed alike",
					 out->platform.fingerprint, ot->name, oo->op, oo->pattern,
					 oo->threads, POLICY_MAX_SIZES, POLICY_MAX_CURVES);
			if (rc)
				goto fail;
		}
		for (size_t i = 0; i < n; i++) {
			struct policy_target *it = policy_find_target(g[i], ot->name);

			if (it && !isnan(it->ceiling_mib_s)) {
				ceilw[nceil] = hosts[i];
				ceil[nceil++] = it->ceiling_mib_s;
			}
		}
		ot->ceiling_mib_s = host_median(ceil, ceilw, nceil, scratch);
	}
	rc = export_compute(out, w);
	if (rc)
		goto fail;
	free(ops);
	free(opw);
	free(ceil);
	free(ceilw);
	free(scratch);
	*outp = out;
	return 0;
fail:
	free(ops);
	free(opw);
	free(ceil);
	free(ceilw);
	free(scratch);
	policy_free(out);
	return rc;
}

int policy_merge(struct policy_bundle *const *in, size_t nin, const struct export_weights *w,
		 struct policy_bundle **outp, char *err, size_t errlen)
{
	return policy_merge_named(in, NULL, nin, w, outp, err, errlen);
}

static int cmp_ident(const void *a, const void *b)
{
	return memcmp((*(const struct ident *const *)a)->d, (*(const struct ident *const *)b)->d,
		      SHA256_DIGEST_LEN);
}

/* The one line for the same host in entries a and b (named na, nb), by identity x. */
static void say_twice(const struct policy *a, const struct policy *b, const struct ident *x,
		      const struct ident *y, const char *na, const char *nb, char *err,
		      size_t errlen)
{
	char id[POLICY_HOST_ID_LEN];

	if (x->text && y->text) {
		/* two entries that name no host and are the same text */
		snprintf(err, errlen, "%s: the same %s twice (created %s), in %s and in %s; each "
			 "host counts once", a->platform.fingerprint,
			 a->merged.hosts ? "merged entry" : "host", created_of(a, false), na, nb);
		return;
	}
	id_format(x->d, id);
	snprintf(err, errlen, "%s: the same host twice (%s), in %s and in %s; each host counts "
		 "once", b->platform.fingerprint, id, na, nb);
}

/*
 * policy_merge_named()'s work: the entries of every input in one array,
 * in input order, told apart by platform and by host.
 */
struct merger {
	struct policy **all;		/* every input's entries */
	const char **from;		/* the name of each entry's input */
	char (*label)[32];		/* "input N", for the inputs named by none */
	size_t total;
	uint32_t *gid;			/* each entry's platform, in order of first appearance */
	size_t *first;			/* each platform's first entry */
	size_t ngroups;
	size_t *idoff;			/* where each entry's identities start in ids */
	struct ident *ids;		/* every entry's hosts */
	size_t nids;
	unsigned *hosts;		/* how many hosts each entry holds */
	size_t *order;			/* by platform: gi's from gstart[gi] to gstart[gi + 1] */
	size_t *gstart, *gfill;
	struct policy **g;		/* one platform's entries, */
	unsigned *gh;			/* their hosts, */
	const struct ident **gids;	/* and their hosts' identities, sorted */
	char *err;
	size_t errlen;
};

static int merger_oom(struct merger *m)
{
	snprintf(m->err, m->errlen, "out of memory");
	return -ENOMEM;
}

/* Room for the entries of in[0..nin); -E2BIG when an index cannot tell them apart. */
static int merger_alloc(struct merger *m, struct policy_bundle *const *in, size_t nin)
{
	size_t total = 0;

	for (size_t i = 0; i < nin; i++)
		total += in[i]->n;
	if (total > UINT32_MAX - 1) {
		snprintf(m->err, m->errlen, "%zu entries: too many to merge", total);
		return -E2BIG;
	}
	m->all = calloc(total + 1, sizeof(*m->all));
	m->g = calloc(total + 1, sizeof(*m->g));
	m->from = calloc(total + 1, sizeof(*m->from));
	m->label = calloc(nin + 1, sizeof(*m->label));
	m->gid = calloc(total + 1, sizeof(*m->gid));
	m->first = calloc(total + 1, sizeof(*m->first));
	m->idoff = calloc(total + 1, sizeof(*m->idoff));
	m->gstart = calloc(total + 2, sizeof(*m->gstart));
	m->gfill = calloc(total + 1, sizeof(*m->gfill));
	m->order = calloc(total + 1, sizeof(*m->order));
	m->hosts = calloc(total + 1, sizeof(*m->hosts));
	m->gh = calloc(total + 1, sizeof(*m->gh));
	if (!m->all || !m->g || !m->from || !m->label || !m->gid || !m->first || !m->idoff ||
	    !m->gstart || !m->gfill || !m->order || !m->hosts || !m->gh)
		return merger_oom(m);
	return 0;
}

static void merger_free(struct merger *m)
{
	free(m->all);
	free(m->g);
	free(m->from);
	free(m->label);
	free(m->gid);
	free(m->first);
	free(m->idoff);
	free(m->gstart);
	free(m->gfill);
	free(m->order);
	free(m->hosts);
	free(m->gh);
	free(m->ids);
	free(m->gids);
}

/* Every input's entries into all[], each with the name of its input. */
static void flatten_inputs(struct merger *m, struct policy_bundle *const *in,
			   const char *const *names, size_t nin)
{
	m->total = 0;
	for (size_t i = 0; i < nin; i++) {
		snprintf(m->label[i], sizeof(m->label[i]), "input %zu", i + 1);
		for (size_t e = 0; e < in[i]->n; e++) {
			m->from[m->total] = names ? names[i] : m->label[i];
			m->all[m->total++] = in[i]->entries[e];
		}
	}
}

/*
 * Platforms in order of first appearance: each entry's gid[], each
 * platform's first entry, and where each entry's identities will go.
 * The set's identities are the fingerprints' hashes.
 */
static int group_by_platform(struct merger *m)
{
	struct ident *fps = calloc(m->total + 1, sizeof(*fps));
	struct idset set = { 0 };
	int rc = 0;

	if (!fps || idset_init(&set, m->total)) {
		rc = merger_oom(m);
		goto out;
	}
	for (size_t k = 0; k < m->total; k++) {
		const char *fp = m->all[k]->platform.fingerprint;
		ssize_t there;

		sha256(fp, strlen(fp), fps[k].d);
		there = idset_add(&set, fps, k);
		if (there < 0)
			m->first[m->ngroups++] = k;
		m->gid[k] = there < 0 ? (uint32_t)(m->ngroups - 1) : m->gid[there];
		/* a platform of ids beyond what a file may hold is refused before they are read */
		m->idoff[k] = m->nids;
		m->nids += nidents(m->all[k]);
		if (m->nids > POLICY_MAX_HOST_IDS + m->total) {
			snprintf(m->err, m->errlen, "%s: more than %d hosts: more than a fleet "
				 "file may hold", m->from[k], POLICY_MAX_HOST_IDS);
			rc = -E2BIG;
			break;
		}
	}
out:
	free(fps);
	free(set.slot);
	return rc;
}

/* Entry k's hosts into ids[] and seen; -EEXIST (said which) for one seen before. */
static int add_entry_hosts(struct merger *m, struct idset *seen, size_t k)
{
	size_t n = nidents(m->all[k]);
	int rc = idents_of(m->all[k], m->ids + m->idoff[k], m->gid[k], (uint32_t)k);

	if (rc) {
		snprintf(m->err, m->errlen, "%s: %s: %s", m->from[k],
			 m->all[k]->platform.fingerprint,
			 rc == -ENOMEM ? "out of memory" : "a host id that is not sha256:<hex>");
		return rc;
	}
	m->hosts[k] = (unsigned)n;
	for (size_t i = m->idoff[k]; i < m->idoff[k] + n; i++) {
		ssize_t there = idset_add(seen, m->ids, i);
		size_t e;

		if (there >= 0) {
			e = m->ids[there].entry;
			say_twice(m->all[e], m->all[k], &m->ids[there], &m->ids[i], m->from[e],
				  m->from[k], m->err, m->errlen);
			return -EEXIST;
		}
	}
	return 0;
}

/* Every entry's hosts into ids[]: each host once per platform, in one pass in input order. */
static int collect_hosts(struct merger *m)
{
	struct idset seen = { 0 };
	int rc = 0;

	m->ids = calloc(m->nids + 1, sizeof(*m->ids));
	if (!m->ids || idset_init(&seen, m->nids))
		rc = merger_oom(m);
	for (size_t k = 0; k < m->total && !rc; k++)
		rc = add_entry_hosts(m, &seen, k);
	free(seen.slot);
	return rc;
}

/* Each platform's entries together, in input order (a counting sort). */
static void sort_by_platform(struct merger *m)
{
	for (size_t k = 0; k < m->total; k++)
		m->gstart[m->gid[k] + 1]++;
	for (size_t gi = 0; gi < m->ngroups; gi++)
		m->gstart[gi + 1] += m->gstart[gi];
	for (size_t k = 0; k < m->total; k++)
		m->order[m->gstart[m->gid[k]] + m->gfill[m->gid[k]]++] = k;
}

/*
 * Platform gi's entries as one entry: merged, or its one entry as it is,
 * with its hosts listed and no samples, into *ep: 0, or negative errno
 * with m->err saying why.
 */
static int merge_platform(struct merger *m, size_t gi, const struct export_weights *w,
			  struct policy **ep)
{
	size_t n = m->gstart[gi + 1] - m->gstart[gi], nids = 0;
	struct policy *e = NULL;
	int rc = -ENOMEM;

	for (size_t j = 0; j < n; j++) {
		size_t k = m->order[m->gstart[gi] + j];

		m->g[j] = m->all[k];
		m->gh[j] = m->hosts[k];
		for (size_t i = m->idoff[k]; i < m->idoff[k] + nidents(m->all[k]); i++)
			m->gids[nids++] = &m->ids[i];
	}
	qsort(m->gids, nids, sizeof(*m->gids), cmp_ident);
	m->err[0] = '\0';
	if (n > 1) {
		rc = merge_group(m->g, m->gh, n, m->gids, nids, w, &e, m->err, m->errlen);
	} else {
		e = policy_dup(m->g[0]);
		/* a merged entry that lists no host is one host, by its text */
		if (e && e->merged.hosts && !e->merged.nhost_ids &&
		    set_host_ids(e, m->gids, nids)) {
			policy_free(e);
			e = NULL;
		}
		rc = e ? 0 : -ENOMEM;
	}
	if (rc) {
		if (!m->err[0])
			snprintf(m->err, m->errlen, "cannot merge the entries of %s: %s",
				 m->all[m->first[gi]]->platform.fingerprint, strerror(-rc));
		return rc;
	}
	/*
	 * A fleet file carries summaries: one host's raw samples would
	 * outweigh them and, under merged medians, contradict them.
	 */
	policy_drop_raw(e);
	*ep = e;
	return 0;
}

/* Each platform's one entry into out, in order of first appearance. */
static int bundle_platforms(struct merger *m, const struct export_weights *w,
			    struct policy_bundle *out)
{
	size_t listed = 0;

	if (m->ngroups > POLICY_MAX_BUNDLE) {
		snprintf(m->err, m->errlen, "%zu platforms, more than the %d a fleet file may hold",
			 m->ngroups, POLICY_MAX_BUNDLE);
		return -E2BIG;
	}
	m->gids = calloc(m->nids + 1, sizeof(*m->gids));
	if (!m->gids)
		return merger_oom(m);
	for (size_t gi = 0; gi < m->ngroups; gi++) {
		struct policy *e;
		int rc = merge_platform(m, gi, w, &e);

		if (rc)
			return rc;
		listed += e->merged.nhost_ids;
		if (policy_bundle_add(out, e)) {
			policy_free(e);
			return merger_oom(m);
		}
	}
	if (listed > POLICY_MAX_HOST_IDS) {
		snprintf(m->err, m->errlen, "%zu hosts, more than the %d a fleet file may list",
			 listed, POLICY_MAX_HOST_IDS);
		return -E2BIG;
	}
	return 0;
}

/*
 * Linear in the hosts: entries are grouped by fingerprint and hosts
 * told apart through hash sets, never compared pairwise; only the sort
 * of each merged entry's host ids (its output is sorted) is more.
 */
int policy_merge_named(struct policy_bundle *const *in, const char *const *names, size_t nin,
		       const struct export_weights *w, struct policy_bundle **outp, char *err,
		       size_t errlen)
{
	struct policy_bundle *out;
	struct merger m = { .err = err, .errlen = errlen };
	int rc;

	assert((in || !nin) && outp && err && errlen);
	out = policy_bundle_new();
	rc = merger_alloc(&m, in, nin);
	if (!rc && !out)
		rc = merger_oom(&m);
	if (rc)
		goto out;
	flatten_inputs(&m, in, names, nin);
	rc = group_by_platform(&m);
	if (rc)
		goto out;
	rc = collect_hosts(&m);
	if (rc)
		goto out;
	sort_by_platform(&m);
	rc = bundle_platforms(&m, w, out);
	if (rc)
		goto out;
	*outp = out;
	out = NULL;
out:
	merger_free(&m);
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
						o->ranges[i].to_bytes == POLICY_SIZE_OPEN ?
							"inf" : to);
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

	assert(a && b);	/* f NULL: count only */
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
