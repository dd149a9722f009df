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
#include "output_path.h"
#include "policy.h"
#include "probe_cmd.h"
#include "sweep.h"

#define DEFAULT_POLICY "/etc/pmem-policy.json"

/* What the command option's run gets: every option, and the operands after them. */
struct cmd_args {
	struct probe_opts po;
	const char *arg;	/* the command option's own argument: OUT, FILE.svg */
	bool json;
	unsigned flags;		/* POLICY_LOAD_INSECURE */
	int argc;		/* operands */
	char **argv;
};

struct cmd_struct {
	const char *name;	/* --NAME selects it */
	int (*run)(struct cmd_args *a);
	const char *help;	/* its usage, for --help */
};

static int run_probe(struct cmd_args *a)
{
	if (a->argc) {
		fprintf(stderr, "pmem-tune: --probe: unexpected argument '%s'\n", a->argv[0]);
		return 2;
	}
	a->po.json_stdout = a->json;
	if (a->po.output && output_path_refused("--output", a->po.output))
		return 2;
	return probe_cmd(&a->po);
}

static int run_list(struct cmd_args *a)
{
	return list_cmd(a->json);
}

/* The one optional FILE operand of --show, --check, --metrics, --plot. */
static const char *policy_file(const struct cmd_args *a)
{
	return a->argc ? a->argv[0] : DEFAULT_POLICY;
}

static int run_show(struct cmd_args *a)
{
	return show_cmd(policy_file(a), a->flags);
}

static int run_check(struct cmd_args *a)
{
	return check_cmd(policy_file(a), a->flags);
}

static int run_diff(struct cmd_args *a)
{
	if (a->argc != 2) {
		fprintf(stderr, "pmem-tune: --diff takes two files, A and B\n");
		return 2;
	}
	return diff_cmd(a->argv[0], a->argv[1], a->flags);
}

static int run_merge(struct cmd_args *a)
{
	if (!a->argc) {
		fprintf(stderr, "pmem-tune: --merge %s: no input files\n", a->arg);
		return 2;
	}
	if (output_path_refused("--merge", a->arg))
		return 2;
	return merge_cmd(a->arg, a->argv, a->argc, a->po.weights, a->flags);
}

static int run_metrics(struct cmd_args *a)
{
	if (strcmp(a->arg, "-") && output_path_refused("--metrics", a->arg))
		return 2;
	return metrics_cmd(a->arg, policy_file(a), a->flags);
}

static int run_plot(struct cmd_args *a)
{
	if (a->argc > 1) {
		fprintf(stderr, "pmem-tune: --plot %s: unexpected argument '%s'\n", a->arg,
			a->argv[1]);
		return 2;
	}
	if (output_path_refused("--plot", a->arg))
		return 2;
	return plot_cmd(a->arg, policy_file(a), a->flags);
}

static int run_strategies(struct cmd_args *a)
{
	(void)a;
	return strategies_cmd();
}

static const struct cmd_struct commands[] = {
	{ "probe", run_probe,
	  "--probe [--target T]... [--quick|--thorough] [--output FILE] [--quiet]\n"
	  "          [--area-size SIZE] [--scratch-size SIZE] [--threads N]\n"
	  "          [--strategies A,B,...]\n"
	  "          [--destroy-data] [--json]\n"
	  "          [--weights FILE]" },
	{ "list", run_list, "--list [--json]" },
	{ "show", run_show, "--show [FILE]" },
	{ "check", run_check, "--check [FILE]" },
	{ "diff", run_diff, "--diff A B" },
	{ "merge", run_merge, "--merge OUT IN... [--weights FILE]" },
	{ "metrics", run_metrics, "--metrics OUT [FILE]" },
	{ "plot", run_plot, "--plot FILE.svg [FILE]" },
	{ "strategies-list", run_strategies, "--strategies-list" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* continuation lines line up under the first option */
		for (const char *h = commands[i].help, *nl; *h; h = *nl ? nl + 1 : nl) {
			nl = strchrnul(h, '\n');
			fprintf(f, "  %s%.*s\n", h == commands[i].help ? "pmem-tune " : "",
				(int)(nl - h), h);
		}
	}
	fprintf(f, "\n"
		"Targets: auto (default: every pmem region, else dram), dram, file:PATH,\n"
		"/dev/daxX.Y, region:NAME; several --target go into one policy (e.g. auto and\n"
		"dram: the pmem exports and glibc's).  FILE defaults to " DEFAULT_POLICY ".\n");
}

enum {
	OPT_AREA = 256, OPT_THREADS, OPT_STRATEGIES, OPT_DESTROY, OPT_STRATEGIES_LIST, OPT_DIFF,
	OPT_MERGE, OPT_METRICS, OPT_WEIGHTS, OPT_INSECURE,
	OPT_PLOT, OPT_SCRATCH,
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
	{ "strategies", required_argument, NULL, OPT_STRATEGIES },
	{ "strategies-list", no_argument, NULL, OPT_STRATEGIES_LIST },
	{ "destroy-data", no_argument, NULL, OPT_DESTROY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The command a getopt value selects (its long option is the command's name), or NULL. */
static const struct cmd_struct *cmd_of(int c)
{
	for (const struct option *o = options; o->name; o++) {
		if (o->val != c)
			continue;
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(commands[i].name, o->name))
				return &commands[i];
	}
	return NULL;
}

static int set_cmd(const struct cmd_struct **cmd, const struct cmd_struct *c)
{
	if (*cmd && *cmd != c) {
		fprintf(stderr, "pmem-tune: give one command (");
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			fprintf(stderr, "%s--%s", i ? ", " : "", commands[i].name);
		fprintf(stderr, ")\n");
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
	struct cmd_args a = { .po = { .output = DEFAULT_POLICY, .mode = SWEEP_STANDARD } };
	struct probe_opts *po = &a.po;
	const struct cmd_struct *cmd = NULL, *sel;
	bool mode_set = false;
	int c;

	while ((c = getopt_long(argc, argv, "plsct:qTo:Qjh", options, NULL)) != -1) {
		sel = cmd_of(c);
		if (sel) {
			if (set_cmd(&cmd, sel))
				return 2;
			if (optarg)
				a.arg = optarg;
			continue;
		}
		switch (c) {
		case OPT_WEIGHTS:
			po->weights = optarg;
			break;
		case OPT_INSECURE:
			a.flags |= POLICY_LOAD_INSECURE;
			break;
		case 't':
			if (add_target(po, optarg))
				return 2;
			break;
		case 'q':
		case 'T':
			if (mode_set) {
				fprintf(stderr, "pmem-tune: --quick and --thorough exclude each other\n");
				return 2;
			}
			mode_set = true;
			po->mode = c == 'q' ? SWEEP_QUICK : SWEEP_THOROUGH;
			break;
		case 'o':
			po->output = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'Q':
			po->quiet = true;
			break;
		case 'j':
			a.json = true;
			break;
		case OPT_AREA:
			if (policy_parse_size(optarg, &po->area_bytes) ||
			    po->area_bytes < (64u << 20)) {
				fprintf(stderr, "pmem-tune: --area-size %s: expected a size of at least "
					"64M (e.g. 512M, 2G)\n", optarg);
				return 2;
			}
			break;
		case OPT_SCRATCH:
			if (policy_parse_size(optarg, &po->scratch_bytes) ||
			    po->scratch_bytes < (64u << 20)) {
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
			po->threads = (unsigned)n;
			break;
		}
		case OPT_STRATEGIES:
			if (strategies_validate(optarg))
				return 2;
			po->strategies = optarg;
			break;
		case OPT_DESTROY:
			po->destroy_data = true;
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
	if (!cmd) {
		usage(stderr);
		return 2;
	}
	a.argc = argc - optind;
	a.argv = argv + optind;
	return cmd->run(&a);
}
