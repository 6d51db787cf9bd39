// SPDX-License-Identifier: GPL-2.0
/* The bash completion script of a program, made from the same option
 * tables as the parser, --help and the man page's SYNOPSIS, so that it
 * offers exactly what the program accepts: every command, each command's
 * options (each form of a command with a variant on its own, once the
 * variant's flag is on the line), the fixed values of options such as
 * --hash, the first part of a value such as redirect:IFACE and then what
 * goes after it, the names of a list such as bench --scenario, interface
 * names where an interface goes and file names where a file goes. `make`
 * writes it to build/PROGRAM.bash; `make install` installs it.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "program.h"

#define CHOICES_LEN 256

/* The shell functions every script starts with. Each completer offers
 * what may complete its argument, the word or the part of it after a
 * "PREFIX:". bash splits the line at ':' too (COMP_WORDBREAKS), so the
 * script first puts such words together again, and a completion after a
 * ':' replaces only what follows it.
 */
static const char script_functions[] =
	"_cpusteer_interfaces() {\n"
	"\tCOMPREPLY=($(compgen -W \"$(ls /sys/class/net 2>/dev/null)\" -- \"$1\"))\n"
	"}\n\n"
	"# Directories get their '/' and no space after them.\n"
	"_cpusteer_files() {\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tCOMPREPLY=($(compgen -f -- \"$1\"))\n"
	"}\n\n"
	"_cpusteer_cpus() {\n"
	"\tlocal online range cpus=\n\n"
	"\tonline=$(cat /sys/devices/system/cpu/online 2>/dev/null)\n"
	"\tfor range in ${online//,/ }; do\n"
	"\t\tcpus+=\" $(seq \"${range%-*}\" \"${range#*-}\")\"\n"
	"\tdone\n"
	"\tCOMPREPLY=($(compgen -W \"$cpus\" -- \"$1\"))\n"
	"}\n\n"
	"# The words up to the cursor as typed, in $words, and $cur and $prev.\n"
	"_cpusteer_words() {\n"
	"\tlocal i\n\n"
	"\twords=()\n"
	"\tfor ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"\t\tif ((i > 2)) && [[ ${COMP_WORDS[i]} == : || ${COMP_WORDS[i - 1]} == : ]]; then\n"
	"\t\t\twords[${#words[@]} - 1]+=${COMP_WORDS[i]}\n"
	"\t\telse\n"
	"\t\t\twords+=(\"${COMP_WORDS[i]}\")\n"
	"\t\tfi\n"
	"\tdone\n"
	"\tcur=${words[${#words[@]} - 1]}\n"
	"\tprev=${words[${#words[@]} - 2]}\n"
	"}\n\n"
	"# Whether flag $1, which chooses a command's other form, comes before\n"
	"# the cursor (and before any \"--\").\n"
	"_cpusteer_chose() {\n"
	"\tlocal w\n\n"
	"\tfor w in \"${words[@]:2:${#words[@]} - 3}\"; do\n"
	"\t\t[[ $w == -- ]] && return 1\n"
	"\t\t[[ $w == \"$1\" ]] && return 0\n"
	"\tdone\n"
	"\treturn 1\n"
	"}\n\n"
	"# The words of $1 that start as $cur does; one that ends in ':' wants\n"
	"# the rest of its value right after it.\n"
	"_cpusteer_offer() {\n"
	"\tCOMPREPLY=($(compgen -W \"$1\" -- \"$cur\"))\n"
	"\tif [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]]; then\n"
	"\t\tcompopt -o nospace 2>/dev/null\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n\n"
	"# What follows prefix $1 in $cur, by completer $2.\n"
	"_cpusteer_after() {\n"
	"\t\"$2\" \"${cur#\"$1\"}\"\n"
	"\tif [[ $COMP_WORDBREAKS != *:* ]]; then\n"
	"\t\tCOMPREPLY=(\"${COMPREPLY[@]/#/$1}\")\n"
	"\tfi\n"
	"}\n\n"
	"# The names of $1 for the last of a comma-separated list.\n"
	"_cpusteer_list() {\n"
	"\tlocal before=\n\n"
	"\t[[ $cur == *,* ]] && before=${cur%,*},\n"
	"\tCOMPREPLY=($(compgen -P \"$before\" -W \"$1\" -- \"${cur##*,}\"))\n"
	"}\n\n";

/* What a value shown as `shown` (IFACE, FILE, cpu:N) is completed from:
 * a function of script_functions, or NULL for nothing to offer.
 */
static const char *completer_of(const char *shown)
{
	if (strstr(shown, "IFACE"))
		return "_cpusteer_interfaces";
	if (strstr(shown, "FILE"))
		return "_cpusteer_files";
	if (!strncmp(shown, "cpu:", 4))
		return "_cpusteer_cpus";
	return NULL;
}

/* The length of the literal start of a choice (lowercase, digits, '-'),
 * which is typed as it is.
 */
static size_t literal_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && (islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) ||
			   s[n] == '-'))
		n++;
	return n;
}

/* Calls fn for each choice of "none|pass|drop|redirect:IFACE". */
static void for_each_choice(const char *shown, void (*fn)(const char *c, size_t len, FILE *f),
			    FILE *f)
{
	const char *end;

	for (; *shown; shown = *end ? end + 1 : end) {
		end = strchr(shown, '|');
		if (!end)
			end = shown + strlen(shown);
		fn(shown, end - shown, f);
	}
}

/* A choice typed whole ("pass"), or the prefix of one ("redirect:"),
 * each after a space.
 */
static void print_offered(const char *c, size_t len, FILE *f)
{
	size_t n = literal_len(c, len);

	if (n == len)
		fprintf(f, " %.*s", (int)len, c);
	else if (n && c[n] == ':')
		fprintf(f, " %.*s", (int)n + 1, c);
}

/* What completes the part after a choice's prefix: "redirect:*)". */
static void print_after_prefix(const char *c, size_t len, FILE *f)
{
	size_t n = literal_len(c, len);
	char choice[CHOICES_LEN];
	const char *from;

	snprintf(choice, sizeof(choice), "%.*s", (int)len, c);
	from = completer_of(choice);
	if (n && n < len && c[n] == ':' && from)
		fprintf(f, "\t\t\t%.*s*) _cpusteer_after %.*s %s ;;\n", (int)n + 1, c, (int)n + 1,
			c, from);
}

/* One case per option that takes a value: its fixed values and
 * prefixes, a list's names, or the function that lists interfaces or
 * files, or nothing to offer (a number, a CPU list): a value is due,
 * not another option.
 */
static void print_value_case(const struct cli_option *o, FILE *f)
{
	char choices[CHOICES_LEN], *p;
	const char *value = cli_value_shown(o, choices, sizeof(choices)), *from;

	if (!value)
		return;
	fprintf(f, "\t\t--%s)", o->name);
	if (o->kind == CLI_NAME_SET) {
		names_choices(o->names, choices, sizeof(choices));
		for (p = choices; (p = strchr(p, '|')); )
			*p = ' ';
		fprintf(f, " _cpusteer_list \"%s\" ;;\n", choices);
		return;
	}
	if (!strchr(value, '|')) {
		from = completer_of(value);
		if (from)
			fprintf(f, " %s \"$cur\"", from);
		fputs(" ;;\n", f);
		return;
	}
	if (!strchr(value, ':')) {
		fputs(" _cpusteer_offer \"", f);
		for_each_choice(value, print_offered, f);
		fputs("\" ;;\n", f);
		return;
	}
	fputs("\n\t\t\tcase $cur in\n", f);
	for_each_choice(value, print_after_prefix, f);
	fputs("\t\t\t*) _cpusteer_offer \"", f);
	for_each_choice(value, print_offered, f);
	fputs("\" ;;\n\t\t\tesac ;;\n", f);
}

static void print_name(const struct cli_option *o, FILE *f)
{
	fprintf(f, " --%s", o->name);
}

static void for_each_option(const struct cli_command *form,
			    void (*fn)(const struct cli_option *o, FILE *f), FILE *f)
{
	const struct cli_option *o;
	int g;

	for (g = 0; g < CLI_MAX_GROUPS && form->groups[g].options; g++)
		for (o = form->groups[g].options; o->name; o++)
			fn(o, f);
}

/* The completion of one form of a command, `indent` tabs in: the value
 * after an option, or its options (and the flag of its other form,
 * `chooser`, when it has one), or its operand.
 */
static void print_form(const struct cli_command *form, const char *chooser, const char *indent,
		       FILE *f)
{
	const char *operand = form->operands ? completer_of(form->operands) : NULL;
	char *cases = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cases, &len);
	const char *line, *end;

	if (!m)
		return;
	fputs("\t\tcase $prev in\n", m);
	for_each_option(form, print_value_case, m);
	fputs("\t\t*)\n\t\t\tif [[ $cur == -* ]]; then\n", m);
	fputs("\t\t\t\tCOMPREPLY=($(compgen -W \"--help --verbose", m);
	if (chooser)
		fprintf(m, " --%s", chooser);
	for_each_option(form, print_name, m);
	fputs("\" -- \"$cur\"))\n", m);
	if (operand)
		fprintf(m, "\t\t\telse\n\t\t\t\t%s \"$cur\"\n", operand);
	fputs("\t\t\tfi ;;\n\t\tesac", m);
	fclose(m);
	for (line = cases; (end = strchr(line, '\n')); line = end + 1)
		fprintf(f, "%s%.*s\n", indent, (int)(end - line), line);
	fprintf(f, "%s%s", indent, line);
	free(cases);
}

static void print_command(const struct cli_command *cmd, FILE *f)
{
	fprintf(f, "\t%s)\n", cmd->name);
	if (!cmd->variant) {
		print_form(cmd, NULL, "", f);
		fputs(" ;;\n", f);
		return;
	}
	fprintf(f, "\t\tif _cpusteer_chose --%s; then\n", cmd->variant->selector);
	print_form(cmd->variant, NULL, "\t", f);
	fputs("\n\t\telse\n", f);
	print_form(cmd, cmd->variant->selector, "\t", f);
	fputs("\n\t\tfi ;;\n", f);
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
	fputs(script_functions, f);
	print_function_name(p->name, f);
	fputs("() {\n"
	      "\tlocal words cur prev\n\n"
	      "\tCOMPREPLY=()\n"
	      "\t_cpusteer_words\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"--help --version", f);
	for (c = p->commands; *c; c++)
		fprintf(f, " %s", (*c)->name);
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n", f);
	for (c = p->commands; *c; c++)
		print_command(*c, f);
	fputs("\tesac\n}\n\ncomplete -F ", f);
	print_function_name(p->name, f);
	fprintf(f, " %s\n", p->name);
}
