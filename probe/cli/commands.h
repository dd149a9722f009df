/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pmem-tune commands other than --probe; each returns an exit
 * status.  flags: POLICY_LOAD_INSECURE (--insecure: read a policy the
 * daemon would refuse for its owner or mode, silently), READ_ONLY and
 * READ_STRICT below.
 */
#ifndef PMEM_TUNE_COMMANDS_H
#define PMEM_TUNE_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

struct policy_bundle;

/* The command only reads the policy: a file the daemon would refuse is read with a warning. */
#define READ_ONLY	(1u << 8)
/* --strict: even so, refuse it as the daemon does. */
#define READ_STRICT	(1u << 9)
/* --show --all: every strategy a column, not a column per family */
#define SHOW_ALL	(1u << 10)

/* The policy or bundle at path; NULL after saying why on stderr. */
struct policy_bundle *policy_file_load(const char *path, unsigned flags);
/*
 * The same, why it failed in err (the ownership warning still goes to
 * stderr) and errno set (ENOENT: no such file).
 */
struct policy_bundle *policy_file_load_quiet(const char *path, unsigned flags, char *err,
					    size_t errlen);
int list_cmd(bool json);
int show_cmd(const char *path, unsigned flags, bool json);
/*
 * 0 valid and for this host, 1 other platform (or, with fail_on_env, an
 * environment change), 2 missing or invalid.
 */
int check_cmd(const char *path, unsigned flags, bool json, bool fail_on_env);
/* 0 same decisions and exports, 1 different, 2 invalid. */
int diff_cmd(const char *a, const char *b, unsigned flags, bool json);
/*
 * Merge the policies in[0..nin) and those list names (NULL: none) into
 * out; a directory stands for its *.json.  0, 1 failed, 2 bad input.
 */
int merge_cmd(const char *out, char **in, int nin, const char *list, const char *weights,
	      unsigned flags);
/*
 * Prometheus text format for node-exporter's textfile collector: this
 * host's entry of the policy at path, and pmem-tuned's status files in
 * daemon_dir.  out is replaced also when the policy cannot be read (it
 * then says so): 2 for that, 1 when out cannot be written, else 0.
 */
int metrics_cmd(const char *out, const char *path, const char *daemon_dir, unsigned flags);
/*
 * The policy's curves as an SVG (plot.c), or as CSV when svg ends in
 * .csv; 0, or 2 bad policy or unwritable file.
 */
int plot_cmd(const char *svg, const char *path, unsigned flags);
/*
 * Ranges, crossovers and exports of in recomputed from its curves, against
 * baseline (NULL: none); written to out (NULL: stdout).  0, 1 failed, 2 bad input.
 */
int decide_cmd(const char *in, const char *out, const char *baseline, const char *weights,
	       unsigned flags);
int strategies_cmd(bool json);
/* 0 if every name of the comma list is a known strategy, else -EINVAL (said). */
int strategies_validate(const char *list);

#endif
