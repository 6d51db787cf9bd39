/* SPDX-License-Identifier: GPL-2.0 */
/* One entry point per subcommand; main.c only dispatches. Each returns an
 * exit code: 0 success, 1 bad input or failure, 2 bad usage.
 */
#ifndef CPUSTEER_COMMANDS_H
#define CPUSTEER_COMMANDS_H

#define EXIT_USAGE 2

int cmd_classify(int argc, char **argv);
int cmd_sample_pcap(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_gen(int argc, char **argv);

#endif
