// SPDX-License-Identifier: GPL-2.0
/* cpusteer bench: option parsing and dispatch to the benchmark kinds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_live.h"
#include "commands.h"
#include "ifname.h"
#include "log.h"
#include "options.h"

static const char bench_usage[] =
	"usage: cpusteer bench [--duration S] [--runs N] [--flows N] [--scenario NAME...]\n"
	"                      [--json FILE] [--dev IFACE]\n"
	"       cpusteer bench --program [--runs N] [--repeat N] [--json]\n"
	"\n"
	"Throughput (the default): builds a veth pair with its receiving end in a\n"
	"namespace of its own, loads cpusteer there through this CLI, floods it\n"
	"with 64-byte UDP from the live-frames generator (pinned to CPU 0) or\n"
	"runs iperf3 through it, and removes everything afterwards, also after\n"
	"Ctrl-C (exit status 130). Scenarios:\n"
	"  steering-cost   no-touch floor against 5-tuple steering, 1 flow and\n"
	"                  --flows flows; also times `set` and `unload` under load\n"
	"  remote-actions  second stage pass against drop\n"
	"  cpumap-vs-rps   cpumap into the stack against RPS without XDP\n"
	"  tcp             iperf3 steered (--remote pass) against no XDP, GRO on/off\n"
	"Each figure is the median of N runs and a ratio to its baseline in the\n"
	"same run: received Mpps or Gbit/s, frames sent/received/dropped, per-CPU\n"
	"redirected and kthread packets, cpumap queue-full drops, Jain index,\n"
	"BPF ns/packet, function-call and rescheduling IPIs, softnet per CPU.\n"
	"\n"
	"  --duration S     seconds per case and run (default 5)\n"
	"  --runs N         runs per case, 1-101 (default 3; --program: 9)\n"
	"  --flows N        flows of the multi-flow cases (default 1000)\n"
	"  --scenario NAME  run only these (repeat the option or list them with\n"
	"                   commas; default: all)\n"
	"  --json FILE      write every figure to FILE and a bar chart to FILE\n"
	"                   with .svg in place of .json; nothing is written without\n"
	"  --dev IFACE      measure a real interface under outside traffic for\n"
	"                   --duration: receive rates, per CPU, softnet, IPIs\n"
	"\n"
	"--program measures the steering program's cost per packet with\n"
	"BPF_PROG_TEST_RUN: an XDP_DROP floor, the no-touch redirect, and steering\n"
	"of IPv4/UDP, IPv4/TCP, IPv6/UDP and IPv6 with two extension headers, each\n"
	"the median of N runs of R repeats (default 2000000) and a ratio to the\n"
	"no-touch redirect; its --json prints JSON on stdout.\n";

enum {
	OPT_PROGRAM = 0x100,
	OPT_RUNS,
	OPT_REPEAT,
	OPT_JSON,
	OPT_DURATION,
	OPT_FLOWS,
	OPT_SCENARIO,
	OPT_DEV,
};

/* --program's --json takes no file (it prints to stdout) while the
 * throughput bench's does, so each kind has its own table.
 */
static bool wants_program(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--program"))
			return true;
	return false;
}

static int usage_error(void)
{
	fputs(bench_usage, stderr);
	return EXIT_USAGE;
}

static int cmd_bench_program(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "program", no_argument, NULL, OPT_PROGRAM },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	__u32 runs = 9, repeat = 2000000;
	bool as_json = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_PROGRAM:
			break;
		case OPT_RUNS:
			if (parse_u32("run count", optarg, 1, 101, &runs))
				return EXIT_USAGE;
			break;
		case OPT_REPEAT:
			if (parse_u32("repeat count", optarg, 1, 100000000, &repeat))
				return EXIT_USAGE;
			break;
		case OPT_JSON:
			as_json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(bench_usage, stdout);
			return 0;
		default:
			return usage_error();
		}
	}
	return bench_program(runs, repeat, as_json) ? 1 : 0;
}

/* A comma-separated list of scenario names into bits of `mask`. */
static int parse_scenarios(const char *arg, unsigned int *mask)
{
	char buf[256], *name, *save = NULL;
	int sc;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		for (sc = 0; sc < SC_EXTERNAL; sc++)
			if (!strcmp(name, bench_scenario_name(sc)))
				break;
		if (sc == SC_EXTERNAL) {
			log_err("bad --scenario '%s': expected steering-cost, remote-actions, cpumap-vs-rps or tcp",
				name);
			return -1;
		}
		*mask |= 1u << sc;
	}
	return 0;
}

/* Options of the throughput bench; returns 0, 1 after --help, or -1. */
static int parse_live(int argc, char **argv, struct bench_live_opts *o)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "flows", required_argument, NULL, OPT_FLOWS },
		{ "scenario", required_argument, NULL, OPT_SCENARIO },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, err = 0;

	while (!err && (opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_DURATION:
			err = parse_seconds("--duration", optarg, 3600, &o->duration);
			break;
		case OPT_RUNS:
			err = parse_u32("run count", optarg, 1, BENCH_MAX_RUNS, &o->runs) ? -1 : 0;
			break;
		case OPT_FLOWS:
			err = parse_u32("flow count", optarg, 1, TRAFFICGEN_MAX_FLOWS, &o->flows) ? -1 : 0;
			break;
		case OPT_SCENARIO:
			err = parse_scenarios(optarg, &o->scenarios);
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_DEV:
			o->dev = optarg;
			err = ifname_check(optarg) ? -1 : 0;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(bench_usage, stdout);
			return 1;
		default:
			fputs(bench_usage, stderr);
			return -1;
		}
	}
	if (!err && optind < argc) {
		log_err("bench: unexpected argument '%s' (cpusteer bench --help)", argv[optind]);
		err = -1;
	}
	return err;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_live_opts o = { .duration = 5, .runs = 3, .flows = 1000 };
	int err;

	if (wants_program(argc, argv))
		return cmd_bench_program(argc, argv);
	err = parse_live(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (!o.scenarios)
		o.scenarios = (1u << SC_EXTERNAL) - 1;
	return bench_live(&o);
}
