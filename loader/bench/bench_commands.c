// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench's command table, apart from bench_main.c so that the
 * selftests, which link everything but the two mains, can check every
 * command's declaration.
 */
#include "bench_commands.h"
#include "version.h"

static const struct cli_command *const bench_commands[] = {
	&bench_command,
	&demo_command,
	&gen_command,
	&version_command,
	NULL,
};

const struct cli_program cpusteer_bench_program = {
	.name = BENCH_PROGRAM,
	.commands = bench_commands,
};
