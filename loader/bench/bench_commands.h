/* SPDX-License-Identifier: GPL-2.0 */
/* cpusteer-bench, the program that measures cpusteer: its commands, each
 * declared with its options in one struct cli_command (cli.h), and its
 * table. Exit codes as cpusteer's (commands.h).
 */
#ifndef CPUSTEER_BENCH_COMMANDS_H
#define CPUSTEER_BENCH_COMMANDS_H

#include "cli.h"

#define BENCH_PROGRAM "cpusteer-bench"

int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_gen(int argc, char **argv);

extern const struct cli_command bench_command, demo_command, gen_command;

/* cpusteer-bench: bench, demo and gen, in the order its --help and man
 * page list them.
 */
extern const struct cli_program cpusteer_bench_program;

#endif
