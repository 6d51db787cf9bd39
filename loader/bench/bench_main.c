// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench: measures cpusteer, driving the cpusteer beside it
 * through its command line. This file only dispatches to the commands.
 */
#include "bench_commands.h"
#include "program.h"

int main(int argc, char **argv)
{
	return program_main(&cpusteer_bench_program, argc, argv);
}
