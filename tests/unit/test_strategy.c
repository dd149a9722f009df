// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The strategy table and every kernel this CPU can run: byte-exact
 * copies for all sizes and alignments that have their own code path,
 * nothing written outside [dst, dst + len), nothing read outside
 * [src, src + len) (buffers that end at an unmapped page), src never
 * written, len 0 touching nothing.  No timing is asserted.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common/macros.h"
#include "measure/strategy.h"
#include "platform/cpu.h"
#include "rule/strategy_class.h"

#define GUARD		128	/* poisoned bytes on each side of dst */
#define POISON		0xee	/* dst before each copy; never a src byte */
#define MAX_LEN		(1u << 20)
#define NR_RANDOM	200
#define MAX_REPORTS	10	/* bad copies printed per strategy and phase */

static unsigned char *src, *src_copy, *dst_area, *poison;
static size_t src_size, dst_size;
static long page;

/* For the SIGSEGV handler: what was running when a kernel faulted. */
static struct {
	const char *strategy, *phase;
	size_t len, soff, doff;
} cur;

static unsigned fails;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill_random(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = rng() >> 56;
		if (p[i] == POISON)
			p[i] = 0x11;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#ifndef __SANITIZE_ADDRESS__
/* Test only: the process is dying, stdio in the handler is acceptable. */
static void on_segv(int sig)
{
	fprintf(stderr, "fatal signal %d in %s, phase %s: len %zu src+%zu dst+%zu\n",
		sig, cur.strategy ? cur.strategy : "-", cur.phase ? cur.phase : "-",
		cur.len, cur.soff, cur.doff);
	_exit(EXIT_FAILURE);
}
#endif

static void report_bad(const unsigned char *d, const unsigned char *s,
		       size_t pre, size_t len)
{
	ptrdiff_t i, end = (ptrdiff_t)(len + GUARD);
	unsigned want = 0;

	if (++fails > MAX_REPORTS)
		return;
	for (i = -(ptrdiff_t)pre; i < end; i++) {
		want = i >= 0 && (size_t)i < len ? s[i] : POISON;
		if (d[i] != want)
			break;
	}
	fprintf(stderr, "%s: %s: len %zu src+%zu dst+%zu: dst[%td] = %#x, want %#x%s\n",
		cur.strategy, cur.phase, len, cur.soff, cur.doff, i,
		i < end ? d[i] : 0, want,
		i < 0 || (size_t)i >= len ? " (outside dst)" : "");
}

/*
 * One copy from src + soff to a dst at doff past a 64-byte boundary,
 * GUARD poisoned bytes on each side (and the gap up to doff).
 */
static void copy_check(const struct strategy *s, size_t soff, size_t doff,
		       size_t len)
{
	unsigned char *d = dst_area + GUARD + doff;
	const unsigned char *sp = src + soff;
	size_t pre = GUARD + doff;

	cur.len = len;
	cur.soff = soff;
	cur.doff = doff;
	memset(dst_area, POISON, pre + len + GUARD);
	s->copy(d, sp, len);
	if (memcmp(d, sp, len) || memcmp(dst_area, poison, pre) ||
	    memcmp(d + len, poison, GUARD))
		report_bad(d, sp, pre, len);
}

static void phase_begin(const struct strategy *s, const char *phase)
{
	cur.strategy = s->name;
	cur.phase = phase;
	fails = 0;
}

static void phase_end(void)
{
	CHECK_MSG(fails == 0, "%s: %s: %u bad copies", cur.strategy,
		  cur.phase, fails);
	CHECK_MSG(!memcmp(src, src_copy, src_size), "%s: %s: src was written",
		  cur.strategy, cur.phase);
}

/* len 0: a no-op even on pointers into an unmapped page. */
static void phase_zero(const struct strategy *s, unsigned char *none)
{
	phase_begin(s, "len 0");
	cur.len = cur.soff = cur.doff = 0;
	s->copy(none + 13, none + 7, 0);
	s->copy(none, src, 0);
	s->copy(dst_area + GUARD + 5, none + 63, 0);
	copy_check(s, 3, 5, 0);
	copy_check(s, 0, 0, 0);
	phase_end();
}

/* Every size 0..max at a few (src, dst) misalignment pairs. */
static void phase_sizes(const struct strategy *s, size_t max,
			const size_t (*pairs)[2], unsigned nr_pairs)
{
	unsigned p;
	size_t len;

	phase_begin(s, "all sizes");
	for (p = 0; p < nr_pairs; p++)
		for (len = 0; len <= max; len++)
			copy_check(s, pairs[p][0], pairs[p][1], len);
	phase_end();
}

/* Each size at every listed src and dst misalignment. */
static void phase_misalign(const struct strategy *s, const size_t *sizes,
			   unsigned nr_sizes, const size_t *offs,
			   unsigned nr_offs)
{
	unsigned i, a, b;

	phase_begin(s, "misalignments");
	for (i = 0; i < nr_sizes; i++)
		for (a = 0; a < nr_offs; a++)
			for (b = 0; b < nr_offs; b++)
				copy_check(s, offs[a], offs[b], sizes[i]);
	phase_end();
}

static struct {
	size_t len, soff, doff;
} random_cases[NR_RANDOM];

static void make_random_cases(void)
{
	unsigned i;

	for (i = 0; i < NR_RANDOM; i++) {
		size_t len;

		if (i == 0) {
			len = MAX_LEN;
		} else if (i == 1) {
			len = MAX_LEN - 1;
		} else if (i % 2) {
			len = 4097 + rng() % (MAX_LEN - 4097 + 1);
		} else {
			/* near a power of two, where loop counts turn over */
			len = ((size_t)1 << (13 + rng() % 8)) + rng() % 129 - 64;
			if (len > MAX_LEN)
				len = MAX_LEN;
		}
		random_cases[i].len = len;
		random_cases[i].soff = rng() % 64;
		random_cases[i].doff = rng() % 64;
	}
}

static void phase_random(const struct strategy *s, unsigned nr)
{
	unsigned i;

	phase_begin(s, "random sizes");
	for (i = 0; i < nr; i++)
		copy_check(s, random_cases[i].soff, random_cases[i].doff,
			   random_cases[i].len);
	phase_end();
}

/*
 * src and dst that end where an unmapped page begins, or begin where one
 * ends: an over-read, over-write or under-run faults.  Guard bytes
 * cannot see reads; this can, without the sanitizers.
 */
struct edge {
	unsigned char *map, *rw;	/* PROT_NONE | rw pages | PROT_NONE */
	size_t rw_size;
};

static bool edge_map(struct edge *e, size_t rw_pages)
{
	e->rw_size = rw_pages * page;
	e->map = mmap(NULL, e->rw_size + 2 * page, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->map == MAP_FAILED)
		return false;
	e->rw = e->map + page;
	return !mprotect(e->rw, e->rw_size, PROT_READ | PROT_WRITE);
}

static void edge_check(const struct strategy *s, struct edge *es,
		       struct edge *ed, size_t soff, size_t doff, size_t len)
{
	unsigned char *d = ed->rw + doff;
	const unsigned char *sp = es->rw + soff;

	cur.len = len;
	cur.soff = soff;
	cur.doff = doff;
	memset(ed->rw, POISON, ed->rw_size);
	s->copy(d, sp, len);
	if (memcmp(d, sp, len)) {
		if (++fails <= MAX_REPORTS)
			fprintf(stderr, "%s: %s: len %zu src+%zu dst+%zu: bad copy\n",
				s->name, cur.phase, len, soff, doff);
	}
}

static void phase_edges(const struct strategy *s, struct edge *es,
			struct edge *ed)
{
	static const size_t big[] = { 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192 };
	size_t len, end = es->rw_size;
	unsigned i;

	phase_begin(s, "page edges");
	for (len = 1; len <= 1100 + sizeof(big) / sizeof(big[0]); len++) {
		size_t l = len <= 1100 ? len : big[len - 1101];
		size_t room = end - l;

		edge_check(s, es, ed, room, room, l);
		edge_check(s, es, ed, 0, 0, l);
		edge_check(s, es, ed, l % 64 < room ? l % 64 : room, room, l);
		edge_check(s, es, ed, room, (l * 7) % 64 < room ? (l * 7) % 64 : room, l);
	}
	/* the rw area of src is never written */
	for (i = 0; i < es->rw_size; i++)
		if (es->rw[i] == POISON)
			break;
	CHECK_MSG(i == es->rw_size, "%s: page edges: src written at %u",
		  s->name, i);
	phase_end();
}

/* The probe's table in its order: what each needs, the class the policy library gives it. */
static const struct {
	const char *name;
	enum cpu_feature needs;
	enum strategy_class class;
} expected[] = {
	{ "movnt",		CPU_SSE2,	STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt_sse2",		CPU_SSE2,	STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt_avx2",		CPU_AVX,	STRATEGY_CLASS_NONTEMPORAL },
	{ "movnt_avx512",	CPU_AVX512F,	STRATEGY_CLASS_NONTEMPORAL },
	{ "movdir64b",		CPU_MOVDIR64B,	STRATEGY_CLASS_NONTEMPORAL },
	{ "clwb",		CPU_CLWB,	STRATEGY_CLASS_FLUSH },
	{ "clflushopt",		CPU_CLFLUSHOPT,	STRATEGY_CLASS_FLUSH },
	{ "clflush",		CPU_CLFLUSH,	STRATEGY_CLASS_FLUSH },
	{ "rep_movsb_clwb",	CPU_CLWB,	STRATEGY_CLASS_FLUSH },
	{ "stores8_clwb",	CPU_CLWB,	STRATEGY_CLASS_FLUSH },
	{ "memcpy_clwb",	CPU_CLWB,	STRATEGY_CLASS_FLUSH },
	{ "noflush",		CPU_SSE2,	STRATEGY_CLASS_NOFLUSH },
};

#define NR_EXPECTED ARRAY_SIZE(expected)

static void test_table(void)
{
	struct cpu_info none = { .features = 0 };
	struct cpu_info all = { .features = (1u << CPU_NR_FEATURES) - 1 };
	const char *missing;
	unsigned i, j;

	CHECK_INT(strategy_count, NR_EXPECTED);
	for (i = 0; i < strategy_count && i < NR_EXPECTED; i++) {
		const struct strategy *s = &strategy_table[i];

		CHECK_STR(s->name, expected[i].name);
		CHECK_MSG(s->needs == CPU_BIT(expected[i].needs),
			  "%s needs %#x", s->name, s->needs);
		CHECK(s->summary && s->summary[0]);
		CHECK(s->copy != NULL);
		CHECK(s->cpu_cache_domain_only == !strcmp(s->name, "noflush"));
		for (j = 0; j < i; j++)
			CHECK(strcmp(s->name, strategy_table[j].name));
		CHECK(strategy_find(s->name) == s);

		missing = "unset";
		CHECK(!strategy_supported(s, &none, &missing));
		CHECK_STR(missing, cpu_feature_name(expected[i].needs));
		CHECK(!strategy_supported(s, &none, NULL));
		CHECK(strategy_supported(s, &all, &missing));
		CHECK(missing == NULL);
		CHECK(strategy_supported(s, &all, NULL));
	}
	CHECK(strategy_find("") == NULL);
	CHECK(strategy_find("movnt_avx") == NULL);
	CHECK(strategy_find(NULL) == NULL);
}

/* PMEM_TUNE_DISABLE=clwb takes out everything that needs clwb, only that. */
static void test_disable_clwb(const struct cpu_info *base)
{
	struct cpu_info ci;
	const char *missing;
	unsigned i;

	setenv("PMEM_TUNE_DISABLE", "clwb", 1);
	CHECK_INT(cpu_detect(&ci), 0);
	unsetenv("PMEM_TUNE_DISABLE");
	CHECK(!cpu_has(&ci, CPU_CLWB));
	for (i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		bool before = strategy_supported(s, base, NULL);

		if (s->needs & CPU_BIT(CPU_CLWB)) {
			CHECK(!strategy_supported(s, &ci, &missing));
			CHECK_STR(missing, "clwb");
		} else {
			CHECK(strategy_supported(s, &ci, NULL) == before);
		}
	}
}

static void test_fill(const char *label)
{
	static const size_t offs[] = { 0, 64, 128, 4032 };
	static const size_t lens[] = { 0, 64, 128, 192, 256, 320, 1024, 4096,
				       4160, 65536 };
	size_t size = GUARD + 4096 + 65536 + GUARD;
	unsigned char *buf = aligned_alloc(64, size);	/* size % 64 == 0 */
	unsigned o, l, bad = 0;
	size_t i;

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t from = GUARD + offs[o], to = from + lens[l];

			memset(buf, 0x11, size);
			strategy_fill_nt(buf + from, lens[l]);
			for (i = 0; i < size; i++) {
				unsigned want = i >= from && i < to ?
						STRATEGY_FILL_BYTE : 0x11;

				if (buf[i] != want)
					break;
			}
			if (i < size && bad++ < MAX_REPORTS)
				fprintf(stderr, "fill_nt (%s): +%zu len %zu: byte %zu is %#x\n",
					label, offs[o], lens[l], i, buf[i]);
		}
	}
	CHECK_MSG(!bad, "fill_nt (%s): %u bad fills", label, bad);
	free(buf);
}

static const size_t pairs_full[][2] = {
	{ 0, 0 }, { 0, 7 }, { 9, 0 }, { 63, 33 }, { 1, 1 }, { 31, 32 },
	{ 48, 16 }, { 17, 62 },
};
static const size_t pairs_few[][2] = { { 0, 0 }, { 63, 33 } };

static size_t misalign_sizes[256];
static unsigned nr_misalign_sizes;
static size_t all_offs[64];
static const size_t some_offs[] = { 0, 1, 7, 8, 15, 16, 31, 32, 33, 48, 63 };

static void init_sizes(void)
{
	static const size_t extra[] = { 255, 256, 257, 383, 384, 385, 511, 512,
					513, 1023, 1024, 1025, 2047, 2049,
					4095, 4096, 4097 };
	unsigned i;

	/* every size with its own branch in a head, body loop or tail */
	for (i = 1; i <= 200; i++)
		misalign_sizes[nr_misalign_sizes++] = i;
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		misalign_sizes[nr_misalign_sizes++] = extra[i];
	for (i = 0; i < 64; i++)
		all_offs[i] = i;
}

/*
 * The full set of copy phases for every strategy ci supports; light
 * (fewer alignments and sizes) when re-running with other helpers.
 */
static void run_copies(const struct cpu_info *ci, unsigned char *none,
		       struct edge *es, struct edge *ed, bool light)
{
	const char *missing;
	unsigned i;

	for (i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		double t0 = now();

		if (!strategy_supported(s, ci, &missing)) {
			printf("skipped: %s: needs %s\n", s->name, missing);
			continue;
		}
		phase_zero(s, none);
		if (light) {
			phase_sizes(s, 1100, pairs_few, 2);
			phase_misalign(s, misalign_sizes, nr_misalign_sizes,
				       some_offs,
				       sizeof(some_offs) / sizeof(some_offs[0]));
			phase_random(s, 20);
		} else {
			phase_sizes(s, 4096, pairs_full,
				    sizeof(pairs_full) / sizeof(pairs_full[0]));
			phase_misalign(s, misalign_sizes, nr_misalign_sizes,
				       all_offs, 64);
			phase_random(s, NR_RANDOM);
			phase_edges(s, es, ed);
		}
		printf("%-15s ok%s (%.2f s)\n", s->name, light ? ", light" : "",
		       now() - t0);
	}
	cur.strategy = cur.phase = NULL;
}

static void detect_init(const char *disable, struct cpu_info *ci)
{
	if (disable)
		setenv("PMEM_TUNE_DISABLE", disable, 1);
	CHECK_INT(cpu_detect(ci), 0);
	unsetenv("PMEM_TUNE_DISABLE");
	strategy_init(ci);
}

/*
 * The policy library ranks ties and builds exports by a strategy's class;
 * a name it does not know is ranked last, silently.  Every entry of the
 * table has one, and the one that matches how the kernel persists.
 */
static void test_table_classes(void)
{
	for (unsigned i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		enum strategy_class c = strategy_class_of(s->name);

		CHECK_MSG(c != STRATEGY_CLASS_UNKNOWN,
			  "%s has no class in rule/strategy_class.c", s->name);
		CHECK_MSG((c == STRATEGY_CLASS_NOFLUSH) == s->cpu_cache_domain_only,
			  "%s: class %d, cpu_cache_domain_only %d", s->name, c,
			  s->cpu_cache_domain_only);
		CHECK_MSG(i >= NR_EXPECTED || c == expected[i].class,
			  "%s: class %d, expected %d", s->name, c, expected[i].class);
	}
}

int main(void)
{
	struct edge es, ed;
	struct cpu_info ci, masked;
	unsigned char *none;
	double t0 = now();

#ifndef __SANITIZE_ADDRESS__
	signal(SIGSEGV, on_segv);
	signal(SIGBUS, on_segv);
#endif
	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("PMEM_TUNE_DISABLE");
	page = sysconf(_SC_PAGESIZE);
	src_size = 64 + MAX_LEN + 64;
	dst_size = GUARD + 64 + MAX_LEN + GUARD;
	src = aligned_alloc(64, src_size);
	src_copy = malloc(src_size);
	dst_area = aligned_alloc(64, dst_size);
	poison = malloc(GUARD + 64);
	none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!src || !src_copy || !dst_area || !poison || none == MAP_FAILED ||
	    !edge_map(&es, 2) || !edge_map(&ed, 2)) {
		fprintf(stderr, "test_strategy: out of memory\n");
		return EXIT_FAILURE;
	}
	fill_random(src, src_size);
	memcpy(src_copy, src, src_size);
	fill_random(es.rw, es.rw_size);
	memset(poison, POISON, GUARD + 64);
	init_sizes();
	make_random_cases();

	test_table();
	test_table_classes();

	/* Before strategy_init(): clflush heads, SSE2 copies. */
	if (strategy_find("movnt_sse2") && strategy_find("noflush")) {
		phase_sizes(strategy_find("movnt_sse2"), 300, pairs_few, 2);
		phase_sizes(strategy_find("noflush"), 300, pairs_few, 2);
	}
	test_fill("before init");

	detect_init(NULL, &ci);
	test_disable_clwb(&ci);
	test_fill("widest");
	run_copies(&ci, none, &es, &ed, false);

	/* The other helpers: SSE2 cached copy, clflushopt / clflush heads. */
	printf("PMEM_TUNE_DISABLE=avx,clwb:\n");
	detect_init("avx,clwb", &masked);
	test_fill("no avx");
	run_copies(&masked, none, &es, &ed, true);
	printf("PMEM_TUNE_DISABLE=avx,clwb,clflushopt:\n");
	detect_init("avx,clwb,clflushopt", &masked);
	run_copies(&masked, none, &es, &ed, true);

	strategy_init(&ci);
	printf("total %.1f s\n", now() - t0);
	free(src);
	free(src_copy);
	free(dst_area);
	free(poison);
	return check_report("test_strategy");
}
