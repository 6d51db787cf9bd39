/* SPDX-License-Identifier: GPL-2.0 */
/* What the main of each program does, given its command table (struct
 * cli_program): cpusteer's main.c and cpusteer-bench's bench_main.c only
 * call program_main, so both answer --help, a usage error, an unknown
 * command and the generators of their man page and completion alike.
 */
#ifndef CPUSTEER_PROGRAM_H
#define CPUSTEER_PROGRAM_H

#include <stdio.h>
#include "cli.h"

/* Runs the command argv[1] of `p` and returns the exit status. */
int program_main(const struct cli_program *p, int argc, char **argv);

/* The man page's SYNOPSIS section, in roff, made from the declarations
 * the parser uses (`make man` writes it into the program's page).
 */
void program_print_synopsis(const struct cli_program *p, FILE *f);

/* The bash completion script, made from the same declarations (`make`
 * writes it to build/PROGRAM.bash).
 */
void program_print_bash_completion(const struct cli_program *p, FILE *f);

#endif
