// SPDX-License-Identifier: GPL-2.0
/* cpusteer: spreads incoming packets over CPUs with XDP and a cpumap.
 * This file only dispatches to the commands.
 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "invocation.h"
#include "log.h"

static void usage(FILE *f)
{
	const struct cli_command *const *c;

	fputs("usage: cpusteer COMMAND [OPTIONS]   (cpusteer COMMAND --help for more)\n\n", f);
	for (c = cpusteer_commands; *c; c++)
		fprintf(f, "  %-12s %s\n", (*c)->name, (*c)->summary);
}

int main(int argc, char **argv)
{
	const struct cli_command *const *c;

	log_setup_libs();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* For `make man` and `make`, not for operators: not listed. */
	if (!strcmp(argv[1], "--man-synopsis")) {
		commands_print_synopsis(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--bash-completion")) {
		commands_print_bash_completion(stdout);
		return 0;
	}
	invocation_record(argc - 1, argv + 1);
	for (c = cpusteer_commands; *c; c++)
		if (!strcmp(argv[1], (*c)->name))
			return cli_form(*c, argc - 1, argv + 1)->run(argc - 1, argv + 1);
	log_err("unknown command '%s' (cpusteer --help lists them)", argv[1]);
	return EXIT_USAGE;
}
