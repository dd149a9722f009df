// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Prometheus text of pmem-tune --metrics: label values escaped and
 * valid UTF-8 whatever the bytes (common/prom_text.c), "never switch"
 * written as the -1 its HELP promises, a policy that could not be read
 * reported as such.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/metrics_text.h"
#include "common/prom_text.h"
#include "common/utf8.h"
#include "mkpolicy.h"
#include "policy/policy.h"

static const char *data_dir;

static bool is_utf8(const char *s)
{
	size_t left = strlen(s), n;

	for (; left; s += n, left -= n)
		if (!(n = utf8_seq_len((const unsigned char *)s, left, NULL)))
			return false;
	return true;
}

static void test_label_value(void)
{
	char buf[64], small[8];

	prom_label_value(buf, sizeof(buf), "a\"b\\c\nd");
	CHECK_STR(buf, "a\\\"b\\\\c\\nd");
	/* a byte that is no UTF-8 becomes U+FFFD; valid multi-byte text stays */
	prom_label_value(buf, sizeof(buf), "/etc/\xff\xfe-\xc3\xa9.json");
	CHECK_STR(buf, "/etc/\xef\xbf\xbd\xef\xbf\xbd-\xc3\xa9.json");
	/* overlong forms, surrogates and a truncated sequence are not UTF-8 either */
	prom_label_value(buf, sizeof(buf), "\xc0\xaf|\xed\xa0\x80|\xe2\x82");
	CHECK(is_utf8(buf));
	CHECK(strstr(buf, "\xc0") == NULL && strstr(buf, "\xed") == NULL);
	/* cut short between characters and escapes, never inside one */
	prom_label_value(small, sizeof(small), "ab\"cdef");
	CHECK_STR(small, "ab\\\"cde");
	prom_label_value(small, sizeof(small), "abcdef\"");
	CHECK_STR(small, "abcdef");
	prom_label_value(small, sizeof(small), "abcde\xff");
	CHECK_STR(small, "abcde");
	prom_label_value(small, sizeof(small), "abcd\xc3\xa9\xc3\xa9");
	CHECK_STR(small, "abcd\xc3\xa9");
	prom_label_value(small, 1, "abc");
	CHECK_STR(small, "");
}

static char *text_of(const char *path, const struct policy_bundle *b, const char *fp)
{
	struct policy *host = mkpolicy_new(fp, NULL);
	struct metrics_in in = { .path = path, .bundle = b, .host = host };
	size_t len = 0;
	char *t;

	t = metrics_text(&in, &len);
	policy_free(host);

	CHECK(t != NULL);
	if (t)
		CHECK_INT(strlen(t), len);
	return t;
}

/* A policy from tests/data whose kernel export is null: non-temporal at every size. */
static struct policy_bundle *load(const char *rel, char *fp, size_t fplen)
{
	char path[4096], err[512];
	struct policy_bundle *b;

	snprintf(path, sizeof(path), "%s/%s", data_dir, rel);
	b = policy_bundle_load(path, POLICY_LOAD_INSECURE, err, sizeof(err));
	CHECK_MSG(b != NULL, "%s", err);
	if (!b)
		exit(check_report("test_metrics_text"));
	snprintf(fp, fplen, "%s", b->entries[0]->platform.fingerprint);
	return b;
}

static void test_never_switch(void)
{
	char fp[80], *t;
	struct policy_bundle *b = load("intel-avx512-kvm/quick-01.json", fp, sizeof(fp));

	CHECK(b->entries[0]->exports.kernel.present);
	CHECK(b->entries[0]->exports.kernel.threshold_bytes == POLICY_SIZE_OPEN);
	t = text_of("/etc/pmem-policy.json", b, fp);
	CHECK_MSG(t && strstr(t, "\npmem_tune_export_threshold_bytes{consumer=\"kernel\"} -1\n"),
		  "never switch is not -1:\n%s", t ? t : "(none)");
	CHECK(t && !strstr(t, "e+19"));
	free(t);
	/* a finite threshold is the number itself */
	b->entries[0]->exports.kernel.threshold_bytes = 786432;
	t = text_of("/etc/pmem-policy.json", b, fp);
	CHECK(t && strstr(t, "\npmem_tune_export_threshold_bytes{consumer=\"kernel\"} 786432\n"));
	free(t);
	policy_bundle_free(b);
}

/* A path that is not UTF-8 (a file name is any bytes) still gives a UTF-8 file. */
static void test_path_not_utf8(void)
{
	char fp[80], *t;
	struct policy_bundle *b = load("intel-avx512-kvm/quick-01.json", fp, sizeof(fp));

	t = text_of("/etc/pmem-\xff\"policy\".json", b, fp);
	CHECK(t && is_utf8(t));
	CHECK(t && strstr(t, "file=\"/etc/pmem-\xef\xbf\xbd\\\"policy\\\".json\""));
	free(t);
	policy_bundle_free(b);
}

/* A file that could not be read says so, and nothing an older file said. */
static void test_read_failed(void)
{
	char *t = text_of("/etc/pmem-policy.json", NULL, "sha256:0");

	CHECK(t && strstr(t, "\npmem_tune_policy_read_ok{file=\"/etc/pmem-policy.json\"} 0\n"));
	CHECK(t && !strstr(t, "pmem_tune_policy_host_match"));
	CHECK(t && !strstr(t, "pmem_tune_probe_timestamp_seconds"));
	/* pmem-tuned's state is not the file's: still there */
	CHECK(t && strstr(t, "\npmem_tuned_policy_applied 0\n"));
	free(t);
}

/* The environment: a what label, never a version; only what both sides know. */
static void test_environment(void)
{
	char fp[80];
	struct policy_bundle *b = load("intel-avx512-kvm/quick-01.json", fp, sizeof(fp));
	struct policy *host = mkpolicy_new(fp, NULL);
	struct metrics_in in = { .path = "p.json", .bundle = b, .host = host };
	size_t len;
	char *t;

	snprintf(host->platform.kernel, sizeof(host->platform.kernel), "9.9.9-new");
	t = metrics_text(&in, &len);
	CHECK(t && strstr(t, "\npmem_tune_environment_changed{what=\"kernel\"} 1\n"));
	CHECK(t && !strstr(t, "9.9.9"));
	/* this host reads no microcode: not compared, no series */
	CHECK(t && !strstr(t, "what=\"microcode\""));
	free(t);
	snprintf(host->platform.kernel, sizeof(host->platform.kernel), "%s",
		 b->entries[0]->platform.kernel);
	snprintf(host->platform.cpu.microcode, sizeof(host->platform.cpu.microcode), "%s",
		 b->entries[0]->platform.cpu.microcode);
	t = metrics_text(&in, &len);
	CHECK(t && strstr(t, "\npmem_tune_environment_changed{what=\"kernel\"} 0\n"));
	CHECK(t && strstr(t, "\npmem_tune_environment_changed{what=\"microcode\"} 0\n"));
	free(t);
	policy_free(host);
	policy_bundle_free(b);
}

/* A daemon that writes its own metrics file: the apply's are its, the verify's still here. */
static void test_daemon_writes_its_own(void)
{
	struct json_object *st = json_tokener_parse(
		"{\"format\":\"pmem-tuned-status/1\",\"time\":1700000000,\"applied\":true,"
		"\"set\":3,\"unchanged\":1,\"failed\":0,\"refused\":0,"
		"\"metrics_file\":\"/var/lib/prometheus/node-exporter/pmem_tuned.prom\"}");
	struct json_object *vf = json_tokener_parse(
		"{\"format\":\"pmem-tuned-status/1\",\"time\":1700000100,\"verified\":true,"
		"\"drift\":2}");
	struct metrics_in in = { .path = "p.json", .status = st, .verify = vf };
	size_t len;
	char *t = metrics_text(&in, &len);

	CHECK(t && !strstr(t, "pmem_tuned_policy_applied"));
	CHECK(t && !strstr(t, "pmem_tuned_knobs"));
	CHECK(t && !strstr(t, "pmem_tuned_last_apply_timestamp_seconds"));
	CHECK(t && strstr(t, "\npmem_tuned_drift_knobs 2\n"));
	free(t);
	/* without the key: as before */
	json_object_object_del(st, "metrics_file");
	t = metrics_text(&in, &len);
	CHECK(t && strstr(t, "\npmem_tuned_policy_applied 1\n"));
	CHECK(t && strstr(t, "\npmem_tuned_knobs{result=\"set\"} 3\n"));
	free(t);
	json_object_put(st);
	json_object_put(vf);
}

int main(int argc, char **argv)
{
	data_dir = check_data_dir(argc, argv, "test_metrics_text");
	test_label_value();
	test_never_switch();
	test_path_not_utf8();
	test_read_failed();
	test_environment();
	test_daemon_writes_its_own();
	return check_report("test_metrics_text");
}
