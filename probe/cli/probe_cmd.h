/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMEM_TUNE_PROBE_CMD_H
#define PMEM_TUNE_PROBE_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/sweep.h"

#define PROBE_MAX_TARGETS 8

struct probe_opts {
	/*
	 * Probed in this order into one policy: "auto", "region:NAME",
	 * "dram", "file:PATH", "/dev/daxX.Y".  ntargets 0 = "auto".
	 */
	const char *targets[PROBE_MAX_TARGETS];
	unsigned ntargets;
	const char *output;		/* policy path; NULL = print only */
	/*
	 * The installed policy when it is a fleet's (policy_is_fleet_file()):
	 * output is then the kept probe in the state directory, and this
	 * file, never replaced, is the first baseline.  fleet_why says what
	 * it is, for the line that says where the policy went.  NULL = none.
	 */
	const char *fleet_file;
	const char *fleet_why;
	enum sweep_mode mode;
	uint64_t area_bytes;		/* 0 = default */
	uint64_t scratch_bytes;		/* scratch namespace size, 0 = from the LLC */
	unsigned threads;		/* 0 = every CPU of the target's node */
	bool dram_node_set;		/* bind the dram target to dram_node, else the caller's */
	int dram_node;
	bool remote;			/* time the best strategies from the farthest node too */
	const char *strategies;		/* comma list, NULL = all */
	bool destroy_data;
	bool keep_samples;		/* every cell's samples into the policy */
	bool quiet;
	bool json_stdout;		/* print the policy instead of the table */
	const char *weights;		/* size distribution for the regrets */
	/*
	 * The policy whose decisions a re-probe keeps unless beaten by the
	 * margin; NULL = the output file when it is this host's.
	 */
	const char *baseline;
	/* --insecure: a baseline and a scratch record the ownership rule refuses */
	bool insecure;
};

/* Run a probe as the CLI does; returns the process exit status. */
int probe_cmd(const struct probe_opts *o);

#endif
