// SPDX-License-Identifier: GPL-2.0
/* The bash completion script of a program, made from the same option
 * tables as the parser, --help and the man page's SYNOPSIS, so that it
 * offers exactly what the program accepts: every command, each command's
 * options (both forms of bench), the fixed values of options such as
 * --hash, interface names where an interface goes and file names where a
 * file goes. `make` writes it to build/PROGRAM.bash; `make install`
 * installs it.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "program.h"

/* What a value or an operand shown as `shown` is completed from. */
static const char *completer_of(const char *shown)
{
	if (strstr(shown, "IFACE"))
		return "_cpusteer_interfaces";
	if (strstr(shown, "FILE"))
		return "_cpusteer_files";
	return NULL;
}

/* Prints the words of "on|off" or "none|pass|drop|redirect:IFACE" that
 * are literal values (lowercase, no placeholder part), space-separated;
 * returns how many. With f NULL it only counts them.
 */
static int print_choices(const char *arg, FILE *f)
{
	const char *p = arg, *end, *q;
	bool literal;
	int n = 0;

	while (*p) {
		end = strchr(p, '|');
		if (!end)
			end = p + strlen(p);
		literal = end > p;
		for (q = p; q < end && literal; q++)
			literal = islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '-';
		if (literal && f)
			fprintf(f, "%s%.*s", n ? " " : "", (int)(end - p), p);
		n += literal;
		p = *end ? end + 1 : end;
	}
	return n;
}

static void for_each_option(const struct cli_command *cmd,
			    void (*fn)(const struct cli_option *o, FILE *f), FILE *f)
{
	const struct cli_command *form;
	const struct cli_option *o;
	int g;

	for (form = cmd; form; form = form == cmd ? cmd->variant : NULL)
		for (g = 0; g < CLI_MAX_GROUPS && form->groups[g].options; g++)
			for (o = form->groups[g].options; o->name; o++)
				fn(o, f);
}

static void print_name(const struct cli_option *o, FILE *f)
{
	fprintf(f, " --%s", o->name);
}

/* One case line per option that takes a value: its fixed values, or
 * the function that lists interfaces or files, or nothing to offer (a
 * number, a CPU list): a value is due, not another option.
 */
static void print_value_case(const struct cli_option *o, FILE *f)
{
	char choices[128];
	const char *value = cli_value_shown(o, choices, sizeof(choices)), *from;

	if (!value)
		return;
	from = completer_of(value);
	fprintf(f, "\t\t--%s) ", o->name);
	if (print_choices(value, NULL)) {
		fputs("COMPREPLY=($(compgen -W \"", f);
		print_choices(value, f);
		fputs("\" -- \"$cur\")) ;;\n", f);
	} else if (from) {
		fprintf(f, "%s ;;\n", from);
	} else {
		fputs(";;\n", f);
	}
}

static void print_command(const struct cli_command *cmd, FILE *f)
{
	const char *operand = cmd->operands ? completer_of(cmd->operands) : NULL;

	fprintf(f, "\t%s)\n\t\tcase $prev in\n", cmd->name);
	for_each_option(cmd, print_value_case, f);
	fputs("\t\t*)\n\t\t\tif [[ $cur == -* ]]; then\n", f);
	fputs("\t\t\t\tCOMPREPLY=($(compgen -W \"--help --verbose", f);
	if (cmd->variant)
		fprintf(f, " --%s", cmd->variant->selector);
	for_each_option(cmd, print_name, f);
	fputs("\" -- \"$cur\"))\n", f);
	if (operand)
		fprintf(f, "\t\t\telse\n\t\t\t\t%s\n", operand);
	fputs("\t\t\tfi ;;\n\t\tesac ;;\n", f);
}

/* The script's function for program NAME: _NAME, a '-' written '_'. */
static void print_function_name(const char *name, FILE *f)
{
	fputc('_', f);
	for (; *name; name++)
		fputc(*name == '-' ? '_' : *name, f);
}

void program_print_bash_completion(const struct cli_program *p, FILE *f)
{
	const struct cli_command *const *c;

	fprintf(f, "# bash completion for %s, made by `%s --bash-completion`\n"
		"# from its option tables.\n\n", p->name, p->name);
	fputs("_cpusteer_interfaces() {\n"
	      "\tCOMPREPLY=($(compgen -W \"$(ls /sys/class/net 2>/dev/null)\" -- \"$cur\"))\n"
	      "}\n\n"
	      "_cpusteer_files() {\n"
	      "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "}\n\n", f);
	print_function_name(p->name, f);
	fputs("() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n\n"
	      "\tCOMPREPLY=()\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"--help", f);
	for (c = p->commands; *c; c++)
		fprintf(f, " %s", (*c)->name);
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n", f);
	for (c = p->commands; *c; c++)
		print_command(*c, f);
	fputs("\tesac\n}\n\ncomplete -F ", f);
	print_function_name(p->name, f);
	fprintf(f, " %s\n", p->name);
}
