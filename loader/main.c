// SPDX-License-Identifier: GPL-2.0
/* cpusteer: spreads incoming packets over CPUs with XDP and a cpumap.
 * This file only dispatches to the commands.
 */
#include "commands.h"
#include "program.h"

int main(int argc, char **argv)
{
	return program_main(&cpusteer_program, argc, argv);
}
