// SPDX-License-Identifier: GPL-2.0
/* The command table, apart from main.c so that the selftests, which link
 * everything but the two mains, can check every command's declaration.
 */
#include "commands.h"
#include "version.h"

const struct cli_command *const cpusteer_commands[] = {
	&load_command,
	&set_command,
	&status_command,
	&unload_command,
	&stats_command,
	&exporter_command,
	&balance_command,
	&rule_command,
	&classify_command,
	&sample_pcap_command,
	&version_command,
	NULL,
};

/* The commands cpusteer had until the bench became a program of its own:
 * an old command line is told where they went (test_cli holds this list
 * to cpusteer-bench's table).
 */
static const char *const bench_moved[] = { "bench", "demo", "gen", NULL };

const struct cli_program cpusteer_program = {
	.name = "cpusteer",
	.commands = cpusteer_commands,
	.moved = bench_moved,
	.moved_to = "cpusteer-bench",
};
