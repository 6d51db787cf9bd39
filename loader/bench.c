// SPDX-License-Identifier: GPL-2.0
/* cpusteer bench: option parsing and dispatch to the benchmark kinds. */
#include <stdio.h>
#include "bench.h"
#include "commands.h"
#include "log.h"
#include "options.h"

static const char bench_usage[] =
	"usage: cpusteer bench --program [--runs N] [--repeat N] [--json]\n"
	"Measures the steering program's cost per packet with BPF_PROG_TEST_RUN:\n"
	"an XDP_DROP floor, the no-touch redirect, and steering of IPv4/UDP,\n"
	"IPv4/TCP, IPv6/UDP and IPv6 with two extension headers, each the median\n"
	"of N runs (default 9) of R repeats (default 2000000) and a ratio to the\n"
	"no-touch redirect.\n";

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "program", no_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	__u32 runs = 9, repeat = 2000000;
	bool program = false, as_json = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			program = true;
			break;
		case 'r':
			if (parse_u32("run count", optarg, 1, 101, &runs))
				return 1;
			break;
		case 'R':
			if (parse_u32("repeat count", optarg, 1, 100000000, &repeat))
				return 1;
			break;
		case 'j':
			as_json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(bench_usage, stdout);
			return 0;
		default:
			fputs(bench_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!program) {
		log_err("bench: only --program is available in this version (throughput runs on veth are not built yet)");
		return EXIT_USAGE;
	}
	return bench_program(runs, repeat, as_json) ? 1 : 0;
}
