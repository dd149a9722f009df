// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune: measure the copy strategies of this platform's persistent
 * memory and write the policy; read, check, compare and merge policies.
 *
 * Exit status: 0 success, 1 failure (or "differs" / "does not match"),
 * 2 bad arguments or invalid input.
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output_path.h"
#include "cli/probe_cmd.h"
#include "common/getopt_whole.h"
#include "common/macros.h"
#include "common/path.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "policy/fleet_file.h"
#include "policy/policy.h"

#define DEFAULT_POLICY "/etc/pmem-policy.json"
/* pmem-tuned's --state-dir */
#define DEFAULT_DAEMON_DIR "/run/pmem-tuned"


/* --output's default, told apart from the same path given explicitly */
static const char default_policy[] = DEFAULT_POLICY;

/* What the command option's run gets: every option, and the operands after them. */
struct cmd_args {
	struct probe_opts po;
	const char *arg;	/* the command option's own argument: OUT, FILE.svg */
	bool json;
	unsigned flags;		/* POLICY_LOAD_INSECURE, READ_* */
	const char *daemon_dir;	/* --metrics: pmem-tuned's status files */
	bool fail_on_env;	/* --check: an environment change fails it */
	const char *from_list;	/* --merge: a file of input paths */
	int argc;		/* operands */
	char **argv;
};

struct cmd_struct {
	const char *name;	/* --NAME or the subcommand NAME selects it */
	int (*run)(struct cmd_args *a);
	const char *help;	/* its usage, for --help */
	const char *takes;	/* the options it takes, each ",NAME," (--help, --version: any) */
};

/*
 * A probe never replaces a fleet's file (a bundle, a merged entry, a
 * link the fleet keeps): its policy goes to the kept probe in the state
 * directory, where the fleet collects it.  Non-zero (said why) when the
 * output cannot be told apart.
 */
static int probe_keeps_fleet_file(struct cmd_args *a)
{
	static char why[512], kept[PATH_MAX];
	int rc = policy_is_fleet_file(a->po.output, why, sizeof(why));

	if (rc < 0) {
		fprintf(stderr, "pmem-tune: --output %s: cannot tell whether it is a fleet's "
			"policy: %s\n", a->po.output, strerror(-rc));
		return 1;
	}
	if (!rc)
		return 0;
	if (policy_kept_probe_path(kept, sizeof(kept)) < 0) {
		fprintf(stderr, "pmem-tune: %s: path too long\n", policy_probe_state_dir());
		return 1;
	}
	/* made now, so that the output check below sees where the probe will go */
	rc = mkdir_p(policy_probe_state_dir(), 0700);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot create it: %s\n",
			policy_probe_state_dir(), strerror(-rc));
		return 1;
	}
	a->po.fleet_file = a->po.output;
	a->po.fleet_why = why;
	a->po.output = kept;
	return 0;
}

static int run_probe(struct cmd_args *a)
{
	if (a->argc) {
		fprintf(stderr, "pmem-tune: --probe: unexpected argument '%s'\n", a->argv[0]);
		return 2;
	}
	a->po.json_stdout = a->json;
	a->po.insecure = a->flags & POLICY_LOAD_INSECURE;
	if (a->po.output && probe_keeps_fleet_file(a))
		return 2;
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

static int one_file(const struct cmd_args *a, const char *cmd)
{
	if (a->argc > 1) {
		fprintf(stderr, "pmem-tune: --%s: unexpected argument '%s'\n", cmd, a->argv[1]);
		return 2;
	}
	return 0;
}

static int run_show(struct cmd_args *a)
{
	return one_file(a, "show") ?: show_cmd(policy_file(a), a->flags | READ_ONLY, a->json);
}

/*
 * Not READ_ONLY: its answer decides whether the probe unit measures and
 * whether a playbook installs the file, so it takes the daemon's rule.
 */
static int run_check(struct cmd_args *a)
{
	return one_file(a, "check") ?: check_cmd(policy_file(a), a->flags, a->json,
						 a->fail_on_env);
}

static int run_diff(struct cmd_args *a)
{
	if (a->argc != 2) {
		fprintf(stderr, "pmem-tune: --diff takes two files, A and B\n");
		return 2;
	}
	return diff_cmd(a->argv[0], a->argv[1], a->flags | READ_ONLY, a->json);
}

static int run_merge(struct cmd_args *a)
{
	if (!a->argc && !a->from_list) {
		fprintf(stderr, "pmem-tune: --merge %s: no input files\n", a->arg);
		return 2;
	}
	if (output_path_refused("--merge", a->arg))
		return 2;
	return merge_cmd(a->arg, a->argv, a->argc, a->from_list, a->po.weights, a->flags);
}

static int run_metrics(struct cmd_args *a)
{
	if (one_file(a, "metrics"))
		return 2;
	if (strcmp(a->arg, "-") && output_path_refused("--metrics", a->arg))
		return 2;
	return metrics_cmd(a->arg, policy_file(a), a->daemon_dir ?: DEFAULT_DAEMON_DIR,
			   a->flags | READ_ONLY);
}

static int run_plot(struct cmd_args *a)
{
	if (one_file(a, "plot"))
		return 2;
	/* '-' is stdout, no file */
	if (strcmp(a->arg, "-") && output_path_refused("--plot", a->arg))
		return 2;
	return plot_cmd(a->arg, policy_file(a), a->flags | READ_ONLY);
}

static int run_decide(struct cmd_args *a)
{
	if (a->argc) {
		fprintf(stderr, "pmem-tune: --decide %s: unexpected argument '%s'\n", a->arg,
			a->argv[0]);
		return 2;
	}
	if (a->po.output != default_policy && a->po.output &&
	    output_path_refused("--output", a->po.output))
		return 2;
	/*
	 * no --output: print, never overwrite the installed policy by default.
	 * Not READ_ONLY: what it writes is a policy, as --merge's.
	 */
	return decide_cmd(a->arg, a->po.output == default_policy ? NULL : a->po.output,
			  a->po.baseline, a->po.weights, a->flags);
}

static int run_strategies(struct cmd_args *a)
{
	if (a->argc) {
		fprintf(stderr, "pmem-tune: --strategies-list: unexpected argument '%s'\n",
			a->argv[0]);
		return 2;
	}
	return strategies_cmd(a->json);
}

/* Options of the commands that read a policy: who may own it. */
#define READ_OPTS ",insecure,strict,"

static const struct cmd_struct commands[] = {
	{ "probe", run_probe,
	  "--probe [--target T]... [--quick|--thorough] [--output FILE] [--quiet]\n"
	  "          [--area-size SIZE] [--scratch-size SIZE] [--threads N]\n"
	  "          [--strategies A,B,...]\n"
	  "          [--destroy-data] [--json]\n"
	  "          [--dram-node N] [--remote] [--weights FILE] [--baseline FILE]\n"
	  "          [--keep-samples] [--insecure]",
	  ",target,quick,thorough,output,quiet,json,area-size,scratch-size,threads,strategies,"
	  "destroy-data,weights,baseline,dram-node,remote,keep-samples,insecure," },
	{ "list", run_list, "--list [--json]", ",json," },
	{ "show", run_show, "--show [--all] [--json] [--insecure|--strict] [FILE]",
	  ",all,json" READ_OPTS },
	{ "check", run_check,
	  "--check [--json] [--fail-on-environment-change] [--insecure|--strict] [FILE]",
	  ",json,fail-on-environment-change" READ_OPTS },
	{ "diff", run_diff, "--diff [--json] [--insecure|--strict] A B", ",json" READ_OPTS },
	{ "merge", run_merge,
	  "--merge OUT [IN|DIR]... [--from-list FILE] [--weights FILE] [--insecure]",
	  ",weights,insecure,from-list," },
	{ "metrics", run_metrics, "--metrics OUT [--daemon-state DIR] [--insecure|--strict] [FILE]",
	  ",daemon-state" READ_OPTS },
	{ "plot", run_plot, "--plot FILE.svg|FILE.csv|FILE.png [--insecure|--strict] [FILE]",
	  READ_OPTS },
	{ "decide", run_decide,
	  "--decide IN [--output OUT] [--baseline FILE] [--weights FILE] [--insecure|--strict]",
	  ",output,baseline,weights" READ_OPTS },
	{ "strategies-list", run_strategies, "--strategies-list [--json]", ",json," },
};

/* Every option, with what --help says of it. */
static const struct opt_help {
	const char *name, *arg, *help;
} opt_help[] = {
	{ "target", "T", "what to probe (below); may be repeated" },
	{ "quick", NULL, "a short probe: a x4 grid, fewer samples" },
	{ "thorough", NULL, "a long probe: tighter intervals, more bisection" },
	{ "output", "FILE", "where --probe writes the policy; - for none" },
	{ "quiet", NULL, "-q: no progress and no notices on stderr" },
	{ "json", NULL, "-j: print JSON instead of text" },
	{ "all", NULL, "--show: every strategy a column, not one per family" },
	{ "area-size", "SIZE", "destination area per target (at least 64M)" },
	{ "scratch-size", "SIZE", "scratch namespace on a region (at least 64M)" },
	{ "threads", "N", "the most threads (default: the target node's CPUs)" },
	{ "dram-node", "N", "put the dram target's memory on NUMA node N" },
	{ "remote", NULL, "also time the best strategies from the farthest node" },
	{ "strategies", "A,B,...", "measure only these (see --strategies-list)" },
	{ "destroy-data", NULL, "allow writing over a file, device or region with data" },
	{ "weights", "FILE", "lines of SIZE WEIGHT: weigh the exports' regret by them" },
	{ "baseline", "FILE", "keep this policy's decisions unless beaten by the margin" },
	{ "keep-samples", NULL, "write every cell's samples into the policy, for --decide" },
	{ "insecure", NULL, "read what the ownership rule refuses (below)" },
	{ "strict", NULL, "refuse such a policy as the daemon does (exit 2)" },
	{ "daemon-state", "DIR", "where pmem-tuned's status files are (" DEFAULT_DAEMON_DIR ")" },
	{ "fail-on-environment-change", NULL, "--check: exit 1 when this host runs another "
					      "kernel or microcode" },
	{ "from-list", "FILE", "--merge: also the inputs named in FILE, one a line (- stdin)" },
	{ "help", NULL, "-h: this help" },
	{ "version", NULL, "-V: the version" },
};

static void cmd_usage(FILE *f, const struct cmd_struct *cmd)
{
	/* continuation lines line up under the first option */
	for (const char *h = cmd->help, *nl; *h; h = *nl ? nl + 1 : nl) {
		nl = strchrnul(h, '\n');
		fprintf(f, "  %s%.*s\n", h == cmd->help ? "pmem-tune " : "", (int)(nl - h), h);
	}
}

static void opt_usage(FILE *f, const struct opt_help *o)
{
	char lhs[40];

	snprintf(lhs, sizeof(lhs), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ?: "");
	fprintf(f, "  %-26s %s\n", lhs, o->help);
}

/* One command's help: its usage and the options it takes. */
static void cmd_help(FILE *f, const struct cmd_struct *cmd)
{
	char key[64];

	fprintf(f, "Usage:\n");
	cmd_usage(f, cmd);
	fprintf(f, "  (or: pmem-tune %s ..., with the same options)\n\nOptions:\n", cmd->name);
	for (size_t i = 0; i < ARRAY_SIZE(opt_help); i++) {
		snprintf(key, sizeof(key), ",%s,", opt_help[i].name);
		if (strstr(cmd->takes, key))
			opt_usage(f, &opt_help[i]);
	}
	fprintf(f, "  %-26s %s\n", "--help", "-h: this help");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		cmd_usage(f, &commands[i]);
	fprintf(f, "\nEach --COMMAND is also a subcommand: pmem-tune COMMAND [options]\n"
		"(pmem-tune probe --quick, pmem-tune merge OUT IN...); pmem-tune COMMAND --help\n"
		"says what it takes.  Options are taken by their whole names only.\n");
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < ARRAY_SIZE(opt_help); i++)
		opt_usage(f, &opt_help[i]);
	fprintf(f, "\n"
		"Targets: auto (default: every pmem region, else dram), dram, file:PATH,\n"
		"/dev/daxX.Y, region:NAME; several --target go into one policy (e.g. auto and\n"
		"dram: the pmem exports and glibc's).  FILE defaults to " DEFAULT_POLICY ".\n"
		"A policy or scratch record owned by neither root nor the caller, or writable\n"
		"by group or others (a scratch record's directories too), is refused as\n"
		"pmem-tuned does (exit 2); --show, --diff, --metrics and --plot only warn\n"
		"(--strict refuses); --insecure reads it.\n"
		"NO_COLOR turns colour off.\n");
}

enum {
	OPT_AREA = 256, OPT_THREADS, OPT_STRATEGIES, OPT_DESTROY, OPT_STRATEGIES_LIST, OPT_DIFF,
	OPT_MERGE, OPT_METRICS, OPT_WEIGHTS, OPT_INSECURE,
	OPT_PLOT, OPT_SCRATCH, OPT_QUICK, OPT_STRICT, OPT_DAEMON_STATE, OPT_DECIDE,
	OPT_BASELINE, OPT_DRAM_NODE, OPT_REMOTE, OPT_KEEP_SAMPLES, OPT_ALL, OPT_FAIL_ON_ENV,
	OPT_FROM_LIST,
};

static const struct option options[] = {
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "merge", required_argument, NULL, OPT_MERGE },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "decide", required_argument, NULL, OPT_DECIDE },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "weights", required_argument, NULL, OPT_WEIGHTS },
	{ "insecure", no_argument, NULL, OPT_INSECURE },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "daemon-state", required_argument, NULL, OPT_DAEMON_STATE },
	{ "fail-on-environment-change", no_argument, NULL, OPT_FAIL_ON_ENV },
	{ "from-list", required_argument, NULL, OPT_FROM_LIST },
	{ "probe", no_argument, NULL, 'p' },
	{ "list", no_argument, NULL, 'l' },
	{ "show", no_argument, NULL, 's' },
	{ "check", no_argument, NULL, 'c' },
	{ "target", required_argument, NULL, 't' },
	/* -q is --quiet, as everywhere; --quick has no short form */
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "thorough", no_argument, NULL, 'T' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "json", no_argument, NULL, 'j' },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "area-size", required_argument, NULL, OPT_AREA },
	{ "scratch-size", required_argument, NULL, OPT_SCRATCH },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "dram-node", required_argument, NULL, OPT_DRAM_NODE },
	{ "remote", no_argument, NULL, OPT_REMOTE },
	{ "keep-samples", no_argument, NULL, OPT_KEEP_SAMPLES },
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
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(commands[i].name, o->name))
				return &commands[i];
	}
	return NULL;
}

static const char *opt_name(int c)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* An option the command does not take is an error, never silently ignored. */
static int check_taken(const struct cmd_struct *cmd, const int *given, size_t ngiven)
{
	char key[64];

	for (size_t i = 0; i < ngiven; i++) {
		snprintf(key, sizeof(key), ",%s,", opt_name(given[i]));
		if (!strstr(cmd->takes, key)) {
			fprintf(stderr, "pmem-tune: --%s does not take --%s\n", cmd->name,
				opt_name(given[i]));
			return -EINVAL;
		}
	}
	return 0;
}

/* A size of at least 64M for option opt; -EINVAL and one line naming opt when not. */
static int parse_big_size(const char *opt, const char *arg, const char *example, uint64_t *bytes)
{
	if (!policy_parse_size(arg, bytes) && *bytes >= (64u << 20))
		return 0;
	fprintf(stderr, "pmem-tune: %s %s: expected a size of at least 64M (e.g. %s)\n", opt, arg,
		example);
	return -EINVAL;
}

static const struct cmd_struct *cmd_named(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	/* "strategies" reads better as a subcommand than "strategies-list" */
	if (!strcmp(name, "strategies"))
		return cmd_named("strategies-list");
	return NULL;
}

/*
 * "pmem-tune COMMAND ..." is "pmem-tune --COMMAND ...": argv[1] is rewritten
 * in place, so that one parser serves both forms.  Returns the command, NULL
 * when argv[1] is an option, or sets *bad when it is neither.
 */
static const struct cmd_struct *subcommand(int argc, char **argv, bool *bad)
{
	static char word[32];
	const struct cmd_struct *cmd;

	*bad = false;
	if (argc < 2 || argv[1][0] == '-')
		return NULL;
	cmd = cmd_named(argv[1]);
	if (!cmd) {
		fprintf(stderr, "pmem-tune: %s: not a command (pmem-tune --help lists them)\n",
			argv[1]);
		*bad = true;
		return NULL;
	}
	snprintf(word, sizeof(word), "--%s", cmd->name);
	argv[1] = word;
	return cmd;
}

/* COMMAND --help (or -h) anywhere before "--": that command's help. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int set_cmd(const struct cmd_struct **cmd, const struct cmd_struct *c)
{
	if (*cmd && *cmd != c) {
		fprintf(stderr, "pmem-tune: give one command (");
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
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
	/* a mistyped target is refused before any other is measured */
	if (!target_spec_known(spec) && strcmp(spec, "auto") &&
	    (strncmp(spec, "region:", 7) || !spec[7])) {
		fprintf(stderr, "pmem-tune: --target %s: unknown target (auto, dram, region:NAME, "
			"file:PATH, /dev/daxX.Y)\n", spec);
		return -EINVAL;
	}
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

/* What the command line says: the command, its arguments, the options given. */
struct cmdline {
	struct cmd_args a;
	const struct cmd_struct *cmd;
	bool mode_set;		/* --quick or --thorough given */
	int given[ARRAY_SIZE(options)];	/* the options given, each once, for check_taken() */
	size_t ngiven;
};

/* Each option given, once: however many times it is repeated, every one is checked. */
static void note_given(struct cmdline *cl, int c)
{
	for (size_t i = 0; i < cl->ngiven; i++)
		if (cl->given[i] == c)
			return;
	assert(cl->ngiven < ARRAY_SIZE(cl->given));
	cl->given[cl->ngiven++] = c;
}

/* --threads N: 1 to 1024. */
static int parse_threads(struct probe_opts *po, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || n < 1 || n > 1024) {
		fprintf(stderr, "pmem-tune: --threads %s: expected 1 to 1024\n", arg);
		return -EINVAL;
	}
	po->threads = (unsigned)n;
	return 0;
}

/* --dram-node N: a node 0 to 4095. */
static int parse_dram_node(struct probe_opts *po, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || end == arg || n < 0 || n > 4095) {
		fprintf(stderr, "pmem-tune: --dram-node %s: expected a node 0 to 4095\n", arg);
		return -EINVAL;
	}
	po->dram_node_set = true;
	po->dram_node = (int)n;
	return 0;
}

/*
 * An option that goes into struct probe_opts: the probe's, and --baseline
 * and --weights.  -EINVAL (said why) for a bad value or, from
 * getopt_whole(), which said what, an unknown option.
 */
static int take_probe_option(struct cmdline *cl, int c, const char *arg)
{
	struct probe_opts *po = &cl->a.po;

	switch (c) {
	case OPT_BASELINE:
		po->baseline = arg;
		return 0;
	case OPT_WEIGHTS:
		po->weights = arg;
		return 0;
	case 't':
		return add_target(po, arg);
	case OPT_QUICK:
	case 'T':
		if (cl->mode_set) {
			fprintf(stderr, "pmem-tune: --quick and --thorough exclude each other\n");
			return -EINVAL;
		}
		cl->mode_set = true;
		po->mode = c == OPT_QUICK ? SWEEP_QUICK : SWEEP_THOROUGH;
		return 0;
	case 'o':
		po->output = strcmp(arg, "-") ? arg : NULL;
		return 0;
	case 'q':
		po->quiet = true;
		return 0;
	case OPT_KEEP_SAMPLES:
		po->keep_samples = true;
		return 0;
	case OPT_AREA:
		return parse_big_size("--area-size", arg, "512M, 2G", &po->area_bytes);
	case OPT_SCRATCH:
		return parse_big_size("--scratch-size", arg, "1G", &po->scratch_bytes);
	case OPT_THREADS:
		return parse_threads(po, arg);
	case OPT_DRAM_NODE:
		return parse_dram_node(po, arg);
	case OPT_REMOTE:
		po->remote = true;
		return 0;
	case OPT_STRATEGIES:
		if (strategies_validate(arg))
			return -EINVAL;
		po->strategies = arg;
		return 0;
	case OPT_DESTROY:
		po->destroy_data = true;
		return 0;
	default:
		/* getopt_whole() said what was wrong, in one line */
		return -EINVAL;
	}
}

/* An option into cl; -EINVAL (said why) when it cannot be taken. */
static int take_option(struct cmdline *cl, int c, const char *arg)
{
	struct cmd_args *a = &cl->a;

	switch (c) {
	case OPT_INSECURE:
	case OPT_STRICT:
		if (a->flags & (POLICY_LOAD_INSECURE | READ_STRICT)) {
			fprintf(stderr, "pmem-tune: --insecure and --strict exclude each other\n");
			return -EINVAL;
		}
		a->flags |= c == OPT_STRICT ? READ_STRICT : POLICY_LOAD_INSECURE;
		return 0;
	case OPT_DAEMON_STATE:
		a->daemon_dir = arg;
		return 0;
	case OPT_FAIL_ON_ENV:
		a->fail_on_env = true;
		return 0;
	case OPT_FROM_LIST:
		a->from_list = arg;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	case OPT_ALL:
		a->flags |= SHOW_ALL;
		return 0;
	default:
		return take_probe_option(cl, c, arg);
	}
}

/*
 * Every option into cl, up to the operands.  -1 when the command is to
 * run; else the exit status: 0 after --help or --version, 2 (said why)
 * for a bad command line.
 */
static int parse_cmdline(int argc, char **argv, struct cmdline *cl)
{
	const struct cmd_struct *sel;
	int c;

	while ((c = getopt_whole(argc, argv, "plsct:qTo:jhV", options, "pmem-tune")) != -1) {
		sel = cmd_of(c);
		if (sel) {
			if (set_cmd(&cl->cmd, sel))
				return 2;
			if (optarg)
				cl->a.arg = optarg;
			continue;
		}
		if (c != 'h' && c != 'V' && c != '?')
			note_given(cl, c);
		if (c == 'h') {
			if (cl->cmd)
				cmd_help(stdout, cl->cmd);
			else
				usage(stdout);
			return 0;
		}
		if (c == 'V') {
			printf("pmem-tune %s\n", PT_VERSION);
			return 0;
		}
		if (take_option(cl, c, optarg))
			return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct cmdline cl = { .a.po = { .output = default_policy, .mode = SWEEP_STANDARD } };
	const struct cmd_struct *sub;
	bool bad;
	int rc;

	sub = subcommand(argc, argv, &bad);
	if (bad)
		return 2;
	if (sub && wants_help(argc, argv)) {
		cmd_help(stdout, sub);
		return 0;
	}
	rc = parse_cmdline(argc, argv, &cl);
	if (rc >= 0)
		return rc;
	if (!cl.cmd) {
		usage(stderr);
		return 2;
	}
	if (check_taken(cl.cmd, cl.given, cl.ngiven))
		return 2;
	cl.a.argc = argc - optind;
	cl.a.argv = argv + optind;
	return cl.cmd->run(&cl.a);
}
