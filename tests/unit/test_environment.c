// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * environment.c: kernel and microcode are the environment, never the
 * platform.  Every policy of tests/data keeps its fingerprint and loads;
 * another kernel is a change, one of the kernels a merged entry's hosts
 * ran is not; --merge records every kernel of its hosts, and the file
 * holds them (merged.kernels, merged.microcodes) under its bounds.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/environment.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "rule/fleet.h"

static const char *data_dir;

static struct policy_bundle *load(const char *rel)
{
	char path[4096], err[512];
	struct policy_bundle *b;

	snprintf(path, sizeof(path), "%s/%s", data_dir, rel);
	b = policy_bundle_load(path, POLICY_LOAD_INSECURE, err, sizeof(err));
	CHECK_MSG(b != NULL, "%s", err);
	if (!b)
		exit(check_report("test_environment"));
	return b;
}

/* A probe of intel-avx512-kvm as host n: its own id, kernel and microcode. */
static struct policy_bundle *probe_as(int n, const char *kernel, const char *microcode)
{
	struct policy_bundle *b = load("intel-avx512-kvm/quick-01.json");
	struct policy *p = b->entries[0];

	snprintf(p->generator.host_id, sizeof(p->generator.host_id),
		 "sha256:%064d", n);
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "%s", kernel);
	snprintf(p->platform.cpu.microcode, sizeof(p->platform.cpu.microcode), "%s", microcode);
	return b;
}

static struct policy *host_running(const char *kernel, const char *microcode)
{
	struct policy *h = mkpolicy_new(NULL, NULL);

	snprintf(h->platform.kernel, sizeof(h->platform.kernel), "%s", kernel);
	snprintf(h->platform.cpu.microcode, sizeof(h->platform.cpu.microcode), "%s", microcode);
	return h;
}

static void compare(const struct policy *entry, const char *kernel, const char *microcode,
		    struct policy_env_report *r)
{
	struct policy *h = host_running(kernel, microcode);

	policy_env_compare(entry, h, r);
	policy_free(h);
}

/* Every policy there: loads, its fingerprint is what the hash of its platform gives. */
static void test_data_fingerprints(void)
{
	const char *dirs[] = { "amd-f26-kvm", "amd-f26-kvm-quiet", "amd-f26-kvm-samples",
			       "intel-avx512-kvm", "intel-avx512-kvm-samples" };
	size_t files = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[4096], rel[4096 + 256];
		struct dirent *de;
		DIR *d;

		snprintf(dir, sizeof(dir), "%s/%s", data_dir, dirs[i]);
		d = opendir(dir);
		CHECK_MSG(d != NULL, "%s: cannot open", dir);
		while (d && (de = readdir(d))) {
			struct policy_bundle *b;
			struct policy_env_report r;
			size_t len = strlen(de->d_name);

			if (len < 5 || strcmp(de->d_name + len - 5, ".json"))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", dirs[i], de->d_name);
			b = load(rel);
			for (size_t e = 0; e < b->n; e++) {
				const struct policy *p = b->entries[e];
				char fp[FINGERPRINT_LEN];

				CHECK_INT(fingerprint_compute(p, fp), 0);
				CHECK_MSG(!strcmp(fp, p->platform.fingerprint),
					  "%s: %s, computed %s",
					  rel, p->platform.fingerprint, fp);
				/* the probing host itself has no change */
				policy_env_compare(p, p, &r);
				CHECK_INT(r.nchanged, 0);
				CHECK(r.item[POLICY_ENV_KERNEL].compared);
			}
			policy_bundle_free(b);
			files++;
		}
		if (d)
			closedir(d);
	}
	CHECK_MSG(files >= 40, "only %zu policies in %s", files, data_dir);
}

/* The fingerprint does not see the environment at all. */
static void test_not_in_fingerprint(void)
{
	struct policy_bundle *a = probe_as(1, "6.1.0-a", "0x1"), *b = probe_as(2, "6.9.0-b", "0x2");
	char fa[FINGERPRINT_LEN], fb[FINGERPRINT_LEN];

	CHECK_INT(fingerprint_compute(a->entries[0], fa), 0);
	CHECK_INT(fingerprint_compute(b->entries[0], fb), 0);
	CHECK_STR(fa, fb);
	CHECK_STR(fa, a->entries[0]->platform.fingerprint);
	policy_bundle_free(a);
	policy_bundle_free(b);
}

static void test_compare_single(void)
{
	struct policy_bundle *b = probe_as(1, "6.1.0-a", "0x2b000571");
	const struct policy *p = b->entries[0];
	struct policy_env_report r;
	char line[256];

	compare(p, "6.1.0-a", "0x2b000571", &r);
	CHECK_INT(r.nchanged, 0);
	CHECK(r.item[POLICY_ENV_KERNEL].compared && r.item[POLICY_ENV_MICROCODE].compared);

	compare(p, "6.1.0-b", "0x2b000571", &r);
	CHECK_INT(r.nchanged, 1);
	CHECK(r.item[POLICY_ENV_KERNEL].changed);
	CHECK(!r.item[POLICY_ENV_MICROCODE].changed);
	CHECK_STR(r.item[POLICY_ENV_KERNEL].host, "6.1.0-b");
	policy_env_describe(p, &r, POLICY_ENV_KERNEL, line, sizeof(line));
	CHECK_STR(line, "kernel 6.1.0-b, probed on 6.1.0-a");

	compare(p, "6.1.0-a", "0x2b000600", &r);
	CHECK_INT(r.nchanged, 1);
	CHECK(r.item[POLICY_ENV_MICROCODE].changed);

	/* a value the host cannot read (a guest without "microcode") is no change */
	compare(p, "6.1.0-a", "", &r);
	CHECK_INT(r.nchanged, 0);
	CHECK(!r.item[POLICY_ENV_MICROCODE].compared);
	compare(p, "unknown", "0x2b000571", &r);
	CHECK(!r.item[POLICY_ENV_KERNEL].compared && !r.item[POLICY_ENV_KERNEL].changed);
	/* nor one the probe did not record */
	b->entries[0]->platform.kernel[0] = '\0';
	compare(p, "6.1.0-b", "0x2b000571", &r);
	CHECK(!r.item[POLICY_ENV_KERNEL].compared);
	CHECK_INT(r.nchanged, 0);
	policy_env_describe(p, &r, POLICY_ENV_KERNEL, line, sizeof(line));
	CHECK_STR(line, "kernel 6.1.0-b, not recorded by the probe");
	policy_bundle_free(b);
}

static struct policy_bundle *merge(struct policy_bundle **in, size_t n)
{
	struct policy_bundle *out = NULL;
	char err[512];

	CHECK_MSG(policy_merge(in, n, NULL, &out, err, sizeof(err)) == 0, "merge: %s", err);
	if (!out || out->n != 1)
		exit(check_report("test_environment"));
	return out;
}

static void check_list(const struct policy_env_values *l, const char *const *want, size_t n)
{
	CHECK_INT(l->n, n);
	for (size_t i = 0; i < l->n && i < n; i++)
		CHECK_STR(l->v[i], want[i]);
}

/* The repro: one probe as two hosts on two kernels is one platform. */
static void test_merge_kernels(void)
{
	static const char *const ab[] = { "6.1.0-a", "6.1.0-b" }, *const abc[] = {
		"6.1.0-a", "6.1.0-b", "6.1.0-c" }, *const x[] = { "0x1" };
	struct policy_bundle *in[3] = { probe_as(1, "6.1.0-b", "0x1"),
					probe_as(2, "6.1.0-a", "0x1") };
	struct policy_bundle *m, *m2, *back;
	struct policy_env_report r;
	char err[512], line[256], *text;
	const struct policy *e;

	m = merge(in, 2);
	e = m->entries[0];
	CHECK_INT(e->merged.hosts, 2);
	check_list(&e->merged.kernels, ab, 2);
	check_list(&e->merged.microcodes, x, 1);
	/* no one kernel for all of them: "" (older readers then compare nothing) */
	CHECK_STR(e->platform.kernel, "");
	CHECK_STR(e->platform.cpu.microcode, "0x1");
	CHECK_STR(e->platform.fingerprint, in[0]->entries[0]->platform.fingerprint);

	/* a host on either kernel: no change; on a third: a change, both named */
	compare(e, "6.1.0-a", "0x1", &r);
	CHECK_INT(r.nchanged, 0);
	compare(e, "6.1.0-b", "0x1", &r);
	CHECK_INT(r.nchanged, 0);
	CHECK(r.item[POLICY_ENV_KERNEL].compared);
	compare(e, "6.2.0-c", "0x1", &r);
	CHECK_INT(r.nchanged, 1);
	policy_env_describe(e, &r, POLICY_ENV_KERNEL, line, sizeof(line));
	CHECK_STR(line, "kernel 6.2.0-c, probed on 6.1.0-a, 6.1.0-b");

	/* the file holds them, sorted, and loads them back */
	text = policy_bundle_to_string(m);
	CHECK(text && strstr(text, "\"kernels\": [\n      \"6.1.0-a\",\n      \"6.1.0-b\"\n    ]"));
	back = text ? policy_bundle_parse(text, strlen(text), err, sizeof(err)) : NULL;
	CHECK_MSG(back != NULL, "%s", err);
	if (back) {
		check_list(&back->entries[0]->merged.kernels, ab, 2);
		check_list(&back->entries[0]->merged.microcodes, x, 1);
		policy_bundle_free(back);
	}
	free(text);

	/* merged again with a third host: the union */
	in[2] = probe_as(3, "6.1.0-c", "0x1");
	m2 = merge((struct policy_bundle *[]){ m, in[2] }, 2);
	check_list(&m2->entries[0]->merged.kernels, abc, 3);
	CHECK_INT(m2->entries[0]->merged.hosts, 3);
	policy_bundle_free(m2);

	/* hosts that agree: that value, listed and as the entry's own */
	snprintf(in[1]->entries[0]->platform.kernel, sizeof(in[1]->entries[0]->platform.kernel),
		 "6.1.0-b");
	m2 = merge(in, 2);
	CHECK_STR(m2->entries[0]->platform.kernel, "6.1.0-b");
	check_list(&m2->entries[0]->merged.kernels, ab + 1, 1);
	policy_bundle_free(m2);

	/* a host that recorded none adds none */
	in[1]->entries[0]->platform.cpu.microcode[0] = '\0';
	m2 = merge(in, 2);
	check_list(&m2->entries[0]->merged.microcodes, x, 1);
	policy_bundle_free(m2);

	policy_bundle_free(m);
	for (size_t i = 0; i < 3; i++)
		policy_bundle_free(in[i]);
}

/* More distinct kernels than a file lists: none listed, none compared. */
static void test_merge_too_many(void)
{
	struct policy_bundle *in[POLICY_MAX_ENV_VALUES + 1], *m;
	struct policy_env_report r;
	char k[32];

	for (size_t i = 0; i < POLICY_MAX_ENV_VALUES + 1; i++) {
		snprintf(k, sizeof(k), "6.1.%zu", i);
		in[i] = probe_as((int)i + 1, k, "0x1");
	}
	m = merge(in, POLICY_MAX_ENV_VALUES);
	CHECK_INT(m->entries[0]->merged.kernels.n, POLICY_MAX_ENV_VALUES);
	policy_bundle_free(m);
	m = merge(in, POLICY_MAX_ENV_VALUES + 1);
	CHECK_INT(m->entries[0]->merged.kernels.n, 0);
	CHECK_STR(m->entries[0]->platform.kernel, "");
	compare(m->entries[0], "6.1.0", "0x1", &r);
	CHECK(!r.item[POLICY_ENV_KERNEL].compared);
	CHECK_INT(m->entries[0]->merged.microcodes.n, 1);
	policy_bundle_free(m);
	for (size_t i = 0; i < POLICY_MAX_ENV_VALUES + 1; i++)
		policy_bundle_free(in[i]);
}

/* What the loader refuses in merged.kernels and merged.microcodes. */
static void test_json_invalid(void)
{
	static const struct {
		const char *edit, *err;
	} cases[] = {
		{ "\"kernels\": [\"a\", \"a\"]", "merged.kernels: 'a' is there twice" },
		{ "\"kernels\": [\"\"]", "merged.kernels[0]: expected a non-empty string" },
		{ "\"kernels\": [1]", "merged.kernels[0]: expected a non-empty string" },
		{ "\"kernels\": \"6.1\"", "merged.kernels" },
		{ "\"kernels\": [\"a\\nb\"]", "merged.kernels[0]: control character" },
		{ "\"microcodes\": [\"0x12345678901234567890123456789012\"]",
		  "merged.microcodes[0]: string longer than 31 bytes" },
	};
	struct policy_bundle *in[2] = { probe_as(1, "6.1.0-a", "0x1"),
					probe_as(2, "6.1.0-b", "0x1") };
	struct policy_bundle *m = merge(in, 2);
	char *text = policy_bundle_to_string(m), err[512];

	for (size_t i = 0; text && i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *at = strstr(text, "\"hosts\":"), *key;
		char *bad = malloc(strlen(text) + 256), *tail, name[32];
		struct policy_bundle *b;

		if (!at || !bad)
			exit(EXIT_FAILURE);
		/* the case's member first in "merged", before the writer's own */
		sprintf(bad, "%.*s%s, %s", (int)(at - text), text, cases[i].edit, at);
		/* the writer's member of that name renamed (json-c keeps the last of two) */
		key = strchr(cases[i].edit + 1, '"') + 1;
		snprintf(name, sizeof(name), "%.*s", (int)(key - cases[i].edit), cases[i].edit);
		tail = strstr(bad + (at - text) + strlen(cases[i].edit), name);
		if (tail)
			tail[1] = 'x';
		b = policy_bundle_parse(bad, strlen(bad), err, sizeof(err));
		CHECK_MSG(!b && strstr(err, cases[i].err), "case %zu: %s", i, b ? "loaded" : err);
		policy_bundle_free(b);
		free(bad);
	}
	free(text);
	policy_bundle_free(m);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);
}

int main(int argc, char **argv)
{
	data_dir = check_data_dir(argc, argv, "test_environment");
	test_data_fingerprints();
	test_not_in_fingerprint();
	test_compare_single();
	test_merge_kernels();
	test_merge_too_many();
	test_json_invalid();
	return check_report("test_environment");
}
