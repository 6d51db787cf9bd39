// SPDX-License-Identifier: GPL-2.0
/* cpusteer: spreads incoming packets over CPUs with XDP and a cpumap.
 * This file only dispatches to the commands.
 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "load", cmd_load, "attach to an interface, maps filled first" },
	{ "set", cmd_set, "change CPUs, weights, queues, key on a running instance" },
	{ "status", cmd_status, "show instances, their settings and kernel features" },
	{ "unload", cmd_unload, "detach, restore device settings, remove pins" },
	{ "stats", cmd_stats, "live per-CPU rates: receive, enqueue, kthread, XDP errors" },
	{ "classify", cmd_classify, "run a capture through the steering program, per-packet CPU" },
	{ "sample-pcap", cmd_sample_pcap, "write a capture that exercises every parsing path" },
	{ "bench", cmd_bench, "measure throughput on a veth test bed (--program: per-packet ns)" },
	{ "demo", cmd_demo, "flood a namespaced veth and watch cpusteer spread it over CPUs" },
	{ "gen", cmd_gen, "transmit UDP/TCP flows on an interface from XDP live frames" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: cpusteer COMMAND [OPTIONS]   (cpusteer COMMAND --help for more)\n\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	log_setup_libs();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	log_err("unknown command '%s' (cpusteer --help lists them)", argv[1]);
	return EXIT_USAGE;
}
