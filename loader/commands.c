// SPDX-License-Identifier: GPL-2.0
/* The command table, apart from main.c so that the selftests, which link
 * everything but main.c, can check every command's declaration.
 */
#include "commands.h"

const struct cli_command *const cpusteer_commands[] = {
	&load_command,
	&set_command,
	&status_command,
	&unload_command,
	&stats_command,
	&exporter_command,
	&balance_command,
	&classify_command,
	&sample_pcap_command,
	&bench_command,
	&demo_command,
	&gen_command,
	NULL,
};

const struct cli_program cpusteer_program = {
	.name = "cpusteer",
	.commands = cpusteer_commands,
};
