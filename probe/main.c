// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune: measure the copy strategies of this platform's persistent
 * memory and write the policy; read, check, compare and merge policies.
 *
 * Exit status: 0 success, 1 failure (or "differs" / "does not match"),
 * 2 bad arguments or invalid input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "policy.h"
#include "probe_cmd.h"
#include "sweep.h"

#define DEFAULT_POLICY "/etc/pmem-policy.json"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		"  pmem-tune --probe [--target T]... [--quick|--thorough] [--output FILE] [--quiet]\n"
		"            [--area-size SIZE] [--scratch-size SIZE] [--threads N]\n"
		"            [--dram-node N] [--remote]\n"
		"            [--strategies A,B,...]\n"
		"            [--destroy-data] [--json]\n"
		"            [--weights FILE]\n"
		"  pmem-tune --list [--json]\n"
		"  pmem-tune --show [FILE]\n"
		"  pmem-tune --check [FILE]\n"
		"  pmem-tune --diff A B\n"
		"  pmem-tune --merge OUT IN... [--weights FILE]\n"
		"  pmem-tune --metrics OUT [FILE]\n"
		"  pmem-tune --plot FILE.svg [FILE]\n"
		"  pmem-tune --strategies-list\n"
		"\n"
		"Targets: auto (default: every pmem region, else dram), dram, file:PATH,\n"
		"/dev/daxX.Y, region:NAME; several --target go into one policy (e.g. auto and\n"
		"dram: the pmem exports and glibc's).  FILE defaults to " DEFAULT_POLICY ".\n");
}

enum cmd {
	CMD_NONE, CMD_PROBE, CMD_LIST, CMD_SHOW, CMD_CHECK, CMD_DIFF, CMD_MERGE, CMD_METRICS,
	CMD_STRATEGIES, CMD_PLOT,
};

enum {
	OPT_AREA = 256, OPT_THREADS, OPT_STRATEGIES, OPT_DESTROY, OPT_STRATEGIES_LIST, OPT_DIFF,
	OPT_MERGE, OPT_METRICS, OPT_WEIGHTS, OPT_INSECURE,
	OPT_PLOT, OPT_SCRATCH, OPT_DRAM_NODE, OPT_REMOTE,
};

static const struct option options[] = {
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "merge", required_argument, NULL, OPT_MERGE },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "weights", required_argument, NULL, OPT_WEIGHTS },
	{ "insecure", no_argument, NULL, OPT_INSECURE },
	{ "probe", no_argument, NULL, 'p' },
	{ "list", no_argument, NULL, 'l' },
	{ "show", no_argument, NULL, 's' },
	{ "check", no_argument, NULL, 'c' },
	{ "target", required_argument, NULL, 't' },
	{ "quick", no_argument, NULL, 'q' },
	{ "thorough", no_argument, NULL, 'T' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "json", no_argument, NULL, 'j' },
	{ "area-size", required_argument, NULL, OPT_AREA },
	{ "scratch-size", required_argument, NULL, OPT_SCRATCH },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "dram-node", required_argument, NULL, OPT_DRAM_NODE },
	{ "remote", no_argument, NULL, OPT_REMOTE },
	{ "strategies", required_argument, NULL, OPT_STRATEGIES },
	{ "strategies-list", no_argument, NULL, OPT_STRATEGIES_LIST },
	{ "destroy-data", no_argument, NULL, OPT_DESTROY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int set_cmd(enum cmd *cmd, enum cmd c)
{
	if (*cmd != CMD_NONE && *cmd != c) {
		fprintf(stderr, "pmem-tune: give one command (--probe, --list, --show, --check, "
			"--diff, --merge, --metrics, --plot)\n");
		return -EINVAL;
	}
	*cmd = c;
	return 0;
}

/* --target may be repeated: each spec once, at most PROBE_MAX_TARGETS. */
static int add_target(struct probe_opts *po, const char *spec)
{
	for (unsigned i = 0; i < po->ntargets; i++)
		if (!strcmp(po->targets[i], spec)) {
			fprintf(stderr, "pmem-tune: --target %s: given twice\n", spec);
			return -EINVAL;
		}
	if (po->ntargets == PROBE_MAX_TARGETS) {
		fprintf(stderr, "pmem-tune: --target %s: at most %d targets in one probe\n", spec,
			PROBE_MAX_TARGETS);
		return -E2BIG;
	}
	po->targets[po->ntargets++] = spec;
	return 0;
}

int main(int argc, char **argv)
{
	struct probe_opts po = { .output = DEFAULT_POLICY, .mode = SWEEP_STANDARD };
	const char *cmd_arg = NULL;
	bool json = false, mode_set = false;
	unsigned flags = 0;
	enum cmd cmd = CMD_NONE;
	int c;

	while ((c = getopt_long(argc, argv, "plsct:qTo:Qjh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (set_cmd(&cmd, CMD_PROBE))
				return 2;
			break;
		case 'l':
			if (set_cmd(&cmd, CMD_LIST))
				return 2;
			break;
		case 's':
			if (set_cmd(&cmd, CMD_SHOW))
				return 2;
			break;
		case 'c':
			if (set_cmd(&cmd, CMD_CHECK))
				return 2;
			break;
		case OPT_STRATEGIES_LIST:
			if (set_cmd(&cmd, CMD_STRATEGIES))
				return 2;
			break;
		case OPT_DIFF:
			if (set_cmd(&cmd, CMD_DIFF))
				return 2;
			break;
		case OPT_MERGE:
		case OPT_METRICS:
			if (set_cmd(&cmd, c == OPT_MERGE ? CMD_MERGE : CMD_METRICS))
				return 2;
			cmd_arg = optarg;
			break;
		case OPT_PLOT:
			if (set_cmd(&cmd, CMD_PLOT))
				return 2;
			cmd_arg = optarg;
			break;
		case OPT_WEIGHTS:
			po.weights = optarg;
			break;
		case OPT_INSECURE:
			flags |= POLICY_LOAD_INSECURE;
			break;
		case 't':
			if (add_target(&po, optarg))
				return 2;
			break;
		case 'q':
		case 'T':
			if (mode_set) {
				fprintf(stderr, "pmem-tune: --quick and --thorough exclude each other\n");
				return 2;
			}
			mode_set = true;
			po.mode = c == 'q' ? SWEEP_QUICK : SWEEP_THOROUGH;
			break;
		case 'o':
			po.output = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'Q':
			po.quiet = true;
			break;
		case 'j':
			json = true;
			break;
		case OPT_AREA:
			if (policy_parse_size(optarg, &po.area_bytes) || po.area_bytes < (64u << 20)) {
				fprintf(stderr, "pmem-tune: --area-size %s: expected a size of at least "
					"64M (e.g. 512M, 2G)\n", optarg);
				return 2;
			}
			break;
		case OPT_SCRATCH:
			if (policy_parse_size(optarg, &po.scratch_bytes) ||
			    po.scratch_bytes < (64u << 20)) {
				fprintf(stderr, "pmem-tune: --scratch-size %s: expected a size of at "
					"least 64M (e.g. 1G)\n", optarg);
				return 2;
			}
			break;
		case OPT_THREADS: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 1024) {
				fprintf(stderr, "pmem-tune: --threads %s: expected 1 to 1024\n", optarg);
				return 2;
			}
			po.threads = (unsigned)n;
			break;
		}
		case OPT_DRAM_NODE: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || end == optarg || n < 0 || n > 4095) {
				fprintf(stderr, "pmem-tune: --dram-node %s: expected a node 0 to 4095\n",
					optarg);
				return 2;
			}
			po.dram_node_set = true;
			po.dram_node = (int)n;
			break;
		}
		case OPT_REMOTE:
			po.remote = true;
			break;
		case OPT_STRATEGIES:
			if (strategies_validate(optarg))
				return 2;
			po.strategies = optarg;
			break;
		case OPT_DESTROY:
			po.destroy_data = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pmem-tune %s\n", PT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	switch (cmd) {
	case CMD_PROBE:
		if (optind < argc) {
			fprintf(stderr, "pmem-tune: --probe: unexpected argument '%s'\n", argv[optind]);
			return 2;
		}
		po.json_stdout = json;
		return probe_cmd(&po);
	case CMD_LIST:
		return list_cmd(json);
	case CMD_SHOW:
		return show_cmd(optind < argc ? argv[optind] : DEFAULT_POLICY, flags);
	case CMD_CHECK:
		return check_cmd(optind < argc ? argv[optind] : DEFAULT_POLICY, flags);
	case CMD_DIFF:
		if (argc - optind != 2) {
			fprintf(stderr, "pmem-tune: --diff takes two files, A and B\n");
			return 2;
		}
		return diff_cmd(argv[optind], argv[optind + 1], flags);
	case CMD_MERGE:
		if (optind >= argc) {
			fprintf(stderr, "pmem-tune: --merge %s: no input files\n", cmd_arg);
			return 2;
		}
		return merge_cmd(cmd_arg, argv + optind, argc - optind, po.weights, flags);
	case CMD_METRICS:
		return metrics_cmd(cmd_arg, optind < argc ? argv[optind] : DEFAULT_POLICY, flags);
	case CMD_PLOT:
		if (argc - optind > 1) {
			fprintf(stderr, "pmem-tune: --plot %s: unexpected argument '%s'\n", cmd_arg,
				argv[optind + 1]);
			return 2;
		}
		return plot_cmd(cmd_arg, optind < argc ? argv[optind] : DEFAULT_POLICY, flags);
	case CMD_STRATEGIES:
		return strategies_cmd();
	case CMD_NONE:
		break;
	}
	usage(stderr);
	return 2;
}
