/* SPDX-License-Identifier: GPL-2.0 */
/* One entry point per subcommand, each declared with its options in one
 * struct cli_command (cli.h); main.c only dispatches (program.h). Each
 * returns an exit code, the same in every command (cpusteer.8, EXIT
 * STATUS):
 *   0    success
 *   1    the command could not do what it was asked (no such interface,
 *        not loaded, busy, the kernel refused, not root)
 *   2    usage: an unknown option, a bad option value or interface name,
 *        a missing or extra argument
 *   130  interrupted by a signal before it changed anything
 */
#ifndef CPUSTEER_COMMANDS_H
#define CPUSTEER_COMMANDS_H

#include <errno.h>
#include <stdlib.h>
#include "cli.h"

#define EXIT_INTERRUPTED 130

/* The exit code for a command's result (0 or a negative errno). */
static inline int exit_code(int err)
{
	if (!err)
		return EXIT_SUCCESS;
	return err == -EINTR ? EXIT_INTERRUPTED : EXIT_FAILURE;
}

int cmd_load(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_exporter(int argc, char **argv);
int cmd_balance(int argc, char **argv);
int cmd_rule(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_sample_pcap(int argc, char **argv);

extern const struct cli_command load_command, set_command, status_command, unload_command,
	stats_command, exporter_command, balance_command, rule_command, classify_command,
	sample_pcap_command;

/* Every command, in the order `cpusteer --help` and the man page list
 * them; ended by NULL.
 */
extern const struct cli_command *const cpusteer_commands[];

/* cpusteer: those commands; bench, demo and gen are cpusteer-bench's
 * (bench_commands.h), which cpusteer neither links nor lists.
 */
extern const struct cli_program cpusteer_program;

#endif
