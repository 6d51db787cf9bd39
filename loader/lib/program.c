// SPDX-License-Identifier: GPL-2.0
/* The dispatch both programs share: a program's main only names its
 * command table.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "invocation.h"
#include "log.h"
#include "program.h"
#include "version.h"

static void usage(const struct cli_program *p, FILE *f)
{
	const struct cli_command *const *c;

	fprintf(f, "usage: %s COMMAND [OPTIONS]   (%s COMMAND --help for more)\n\n", p->name,
		p->name);
	for (c = p->commands; *c; c++)
		fprintf(f, "  %-12s %s\n", (*c)->name, (*c)->summary);
}

static bool moved(const struct cli_program *p, const char *name)
{
	const char *const *m;

	for (m = p->moved; m && *m; m++)
		if (!strcmp(name, *m))
			return true;
	return false;
}

void program_print_synopsis(const struct cli_program *p, FILE *f)
{
	const struct cli_command *const *c;
	const char *was = cli_program_name;

	cli_program_name = p->name;
	for (c = p->commands; *c; c++) {
		if (c != p->commands)
			fputs(".br\n", f);
		cli_print_synopsis_roff(*c, f);
	}
	cli_program_name = was;
}

int program_main(const struct cli_program *p, int argc, char **argv)
{
	const struct cli_command *const *c;

	cli_program_name = p->name;
	log_setup_libs();
	if (argc < 2) {
		usage(p, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(p, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(1, (char *[]){ "version", NULL });
	/* For `make man` and `make`, not for operators: not listed. */
	if (!strcmp(argv[1], "--man-synopsis")) {
		program_print_synopsis(p, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--bash-completion")) {
		program_print_bash_completion(p, stdout);
		return 0;
	}
	invocation_record(argc - 1, argv + 1);
	for (c = p->commands; *c; c++)
		if (!strcmp(argv[1], (*c)->name))
			return cli_form(*c, argc - 1, argv + 1)->run(argc - 1, argv + 1);
	if (moved(p, argv[1]))
		log_err("%s moved to a program of its own: run %s %s", argv[1], p->moved_to,
			argv[1]);
	else
		log_err("unknown command '%s' (%s --help lists them)", argv[1], p->name);
	return EXIT_USAGE;
}
