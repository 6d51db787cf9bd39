// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench bench: option parsing and dispatch to the benchmark
 * kinds.
 */
#include <stdlib.h>
#include "bench.h"
#include "bench_commands.h"
#include "bench_live.h"
#include "cli.h"
#include "commands.h"
#include "log.h"

struct program_opts {
	__u32 runs, repeat;
	bool as_json;
};

static const struct cli_option program_options[] = {
	CLI_WHOLE_OPTION("runs", "N", struct program_opts, runs, 1, BENCH_MAX_RUNS,
			 "runs per case, 1-" CLI_NUMBER(BENCH_MAX_RUNS), "9", .what = "run count"),
	CLI_WHOLE_OPTION("repeat", "N", struct program_opts, repeat, 1, 100000000,
			 "test-run repeats per run", "2000000", .what = "repeat count"),
	CLI_FLAG("json", struct program_opts, as_json, "print every figure as JSON on stdout"),
	{}
};

static int cmd_bench_program(int argc, char **argv);

static const struct program_opts program_start = { .runs = 9, .repeat = 2000000 };

static const struct cli_command bench_program_command = {
	.name = "bench",
	.selector = "program",
	.about = "Measures the steering program's cost per packet with BPF_PROG_TEST_RUN:\n"
		 "an XDP_DROP floor, the no-touch redirect, and steering of IPv4/UDP,\n"
		 "IPv4/TCP, IPv6/UDP and IPv6 with two extension headers, each the median\n"
		 "of N runs of R repeats and a ratio to the no-touch redirect.\n",
	.groups = { { program_options, 0 } },
	.start = &program_start,
	.run = cmd_bench_program,
};

static int cmd_bench_program(int argc, char **argv)
{
	struct program_opts o = program_start;
	int operand, err;

	err = cli_parse(&bench_program_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	return bench_program(o.runs, o.repeat, o.as_json) ? 1 : 0;
}

static const struct cli_option live_options[] = {
	CLI_SECONDS_OPTION("duration", "S", struct bench_live_opts, duration, 3600,
			   "seconds per case and run", "5"),
	CLI_SECONDS_OPTION("flood-duration", "S", struct bench_live_opts, flood_duration, 3600,
			   "seconds of each threaded-napi flood", "60"),
	CLI_WHOLE_OPTION("runs", "N", struct bench_live_opts, runs, 1, BENCH_MAX_RUNS,
			 "runs per case, 1-" CLI_NUMBER(BENCH_MAX_RUNS), "3", .what = "run count"),
	CLI_WHOLE_OPTION("flows", "N", struct bench_live_opts, flows, 1, TRAFFICGEN_MAX_FLOWS,
			 "flows of the multi-flow cases", "1000", .what = "flow count"),
	CLI_NAME_SET_OPTION("scenario", "NAME", bench_scenario_names, struct bench_live_opts, scenarios,
	  "run only these; repeat the option or list them\n"
	  "with commas", "all but skewed and threaded-napi"),
	CLI_TEXT_OPTION("json", "FILE", struct bench_live_opts, json,
	  "write every figure to FILE and a bar chart to FILE\n"
	  "with .svg in place of .json; nothing is written without", NULL),
	CLI_ENUM_OPTION("transmit", trafficgen_transmit_names, struct bench_live_opts, transmit,
	  "how the generator's frames leave (see gen --help);\n"
	  "packet-socket compares kernels that refuse live frames\n"
	  "with those that allow them", "auto"),
	CLI_IFACE_OPTION("dev", "IFACE", struct bench_live_opts, dev,
	  "measure a real interface under outside traffic for\n"
	  "--duration: receive rates, per CPU, softnet, IPIs; with\n"
	  "--scenario peer, xdp-bench and cpusteer in turn on it", NULL),
	{}
};

static const struct bench_live_opts live_start = {
	.duration = 5, .flood_duration = 60, .runs = 3, .flows = 1000
};

const struct cli_command bench_command = {
	.name = "bench",
	.summary = "measure throughput on a veth test bed (--program: per-packet ns)",
	.about = "Throughput (the default): builds a veth pair with its receiving end in a\n"
		 "namespace of its own, loads cpusteer there through its CLI, floods it\n"
		 "with 64-byte UDP from the live-frames generator (pinned to CPU 0) or\n"
		 "runs iperf3 through it, and removes everything afterwards, also after\n"
		 "Ctrl-C (exit status 130).\n",
	.details = "Scenarios:\n"
		   "  steering-cost   no-touch floor against 5-tuple steering, 1 flow and\n"
		   "                  --flows flows; also times `set` and `unload` under load\n"
		   "  receive-bound   the same with --flows flows and cpusteer over every CPU\n"
		   "                  but the generator's: the core that generates and runs\n"
		   "                  the program is the bottleneck, steering costs it frames\n"
		   "  peer            xdp-bench redirect-cpu (xdp-tools) in its no-touch,\n"
		   "                  round-robin and l4-hash modes beside cpusteer's floor and\n"
		   "                  steering, --flows flows, same CPUs, --remote drop: Mpps\n"
		   "                  delivered to the target CPUs, each side's ratio to its own\n"
		   "                  no-touch, steering's to l4-hash; a mode that fails says so\n"
		   "                  and is left out. With --dev, on that interface\n"
		   "  remote-actions  second stage pass against drop\n"
		   "  cpumap-vs-rps   cpumap into the stack against RPS without XDP\n"
		   "  tcp             iperf3 steered (--remote pass) against no XDP, GRO on/off\n"
		   "  nic-hash        iperf3 UDP through the sender's stack, steered by multilinear\n"
		   "                  against --hash nic: the BPF ns per packet of each\n"
		   "  skewed          " CLI_NUMBER(SKEW_ELEPHANTS) " of the --flows flows carry "
		   CLI_NUMBER(SKEW_SHARE) "% of the frames, all on one\n"
		   "                  CPU by the hash key bench picks for them: the static table\n"
		   "                  against `cpusteer balance --interval " CLI_NUMBER(SKEW_INTERVAL) "`, which first gets\n"
		   "                  a " CLI_NUMBER(SKEW_SETTLE_S) " s flood to settle on; Jain index, Mpps, buckets\n"
		   "                  moved. Long: runs only when named\n"
		   "  threaded-napi   steering with threaded NAPI off, then on, each under one\n"
		   "                  flood of --flood-duration while a loop times `ip link set\n"
		   "                  mtu` (a change), the same MTU again (a netlink no-op) and\n"
		   "                  `cpusteer set`; worst and p99 ms, drops, kernel log lines\n"
		   "                  by kind. Long: runs only when named, once per side\n"
		   "Each figure is the median of N runs and a ratio to its baseline in the\n"
		   "same run: received Mpps (peer: delivered) or Gbit/s, frames\n"
		   "sent/received/dropped, per-CPU redirected and kthread packets, cpumap\n"
		   "queue-full drops, Jain index, BPF ns/packet, function-call and\n"
		   "rescheduling IPIs, softnet per CPU.\n",
	.groups = { { live_options, 0, CLI_GIVEN_AT(struct bench_live_opts, given) } },
	.start = &live_start,
	.variant = &bench_program_command,
	.run = cmd_bench,
};

int cmd_bench(int argc, char **argv)
{
	struct bench_live_opts o = live_start;
	int operand, err;

	err = cli_parse(&bench_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	/* --dev alone measures the device as it is; peer, the one scenario
	 * that needs no generator, runs on it.
	 */
	if (o.dev && (o.scenarios & ~(1u << SC_PEER))) {
		log_err("bad --scenario with --dev: only peer runs on a real interface (the others need the generator)");
		return EXIT_USAGE;
	}
	if (!o.scenarios && !o.dev)
		o.scenarios = BENCH_DEFAULT_SCENARIOS;
	/* An option that would change nothing is a mistake worth saying. */
	if (cli_given(&bench_command, &o, "flood-duration") &&
	    !(o.scenarios & (1u << SC_THREADED_NAPI))) {
		log_err("bad --flood-duration: it applies to --scenario threaded-napi only");
		return EXIT_USAGE;
	}
	if (cli_given(&bench_command, &o, "transmit") && o.dev) {
		log_err("bad --transmit with --dev: the bench sends nothing on a real interface");
		return EXIT_USAGE;
	}
	if ((o.scenarios & (1u << SC_SKEWED)) && o.flows <= SKEW_ELEPHANTS) {
		log_err("bad --flows %u: the skewed scenario needs more flows than its %u elephants",
			o.flows, SKEW_ELEPHANTS);
		return EXIT_USAGE;
	}
	return bench_live(&o);
}
