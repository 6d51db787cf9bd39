// SPDX-License-Identifier: GPL-2.0
/* The option layer and every command's declaration, of both programs
 * (cpusteer and cpusteer-bench): each declared option is in the
 * command's --help and described in its program's man page, each page's
 * SYNOPSIS is the one the tables make, and usage errors are one line and
 * exit status 2. Reads PROGRAM.8 from the current folder
 * (selftests/run.sh runs from the top of the tree).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_commands.h"
#include "commands.h"
#include "load_opts.h"
#include "program.h"
#include "test_util.h"
#include "version.h"

static const struct cli_program *const programs[] = { &cpusteer_program, &cpusteer_bench_program };

/* Calls fn(cmd, ctx) for every command of `p` and every variant of one,
 * with usage lines naming `p`.
 */
static void for_each_form_of(const struct cli_program *p,
			     void (*fn)(const struct cli_command *cmd, void *ctx), void *ctx)
{
	const struct cli_command *const *c;
	const char *was = cli_program_name;

	cli_program_name = p->name;
	for (c = p->commands; *c; c++) {
		fn(*c, ctx);
		if ((*c)->variant)
			fn((*c)->variant, ctx);
	}
	cli_program_name = was;
}

/* The same for both programs. */
static void for_each_form(void (*fn)(const struct cli_command *cmd, void *ctx), void *ctx)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(programs); i++)
		for_each_form_of(programs[i], fn, ctx);
}

/* What `print` wrote, as a string to free. */
static char *printed(void (*print)(const struct cli_command *cmd, FILE *f),
		     const struct cli_command *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	print(cmd, f);
	fclose(f);
	return buf;
}

static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The man page split at its SYNOPSIS section: the section's lines, and
 * everything else.
 */
struct man_page {
	char path[64];
	char *synopsis, *body;
};

/* The page of program `p`, PROGRAM.8. */
static int man_page_read(const struct cli_program *p, struct man_page *m)
{
	char *text, *start, *end;

	snprintf(m->path, sizeof(m->path), "%s.8", p->name);
	m->synopsis = m->body = NULL;
	text = read_file(m->path);
	if (!text)
		return -errno;
	start = strstr(text, ".SH SYNOPSIS\n");
	end = start ? strstr(start + 1, "\n.SH ") : NULL;
	if (!end) {
		free(text);
		return -EINVAL;
	}
	start += strlen(".SH SYNOPSIS\n");
	m->synopsis = strndup(start, end + 1 - start);
	memmove(start, end + 1, strlen(end + 1) + 1);
	m->body = text;
	return 0;
}

static void man_page_free(struct man_page *m)
{
	free(m->synopsis);
	free(m->body);
}

/* "--name" as roff writes it: every '-' escaped. */
static void roff_option(const char *name, char *out, size_t len)
{
	size_t n = 0;

	for (n += snprintf(out, len, "\\-\\-"); *name && n + 3 < len; name++) {
		if (*name == '-')
			out[n++] = '\\';
		out[n++] = *name;
	}
	out[n] = '\0';
}

static void check_help_lists_options(const struct cli_command *cmd, void *ctx)
{
	char *help = printed(cli_print_help, cmd), want[96], what[160], choices[64];
	const struct cli_group *g;
	const struct cli_option *o;
	const char *value;

	(void)ctx;
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			value = cli_value_shown(o, choices, sizeof(choices));
			snprintf(want, sizeof(want), "\n  --%s%s%s", o->name, value ? " " : "",
				 value ? value : "");
			snprintf(what, sizeof(what), "%s --help lists --%s", cmd->name, o->name);
			ASSERT_TRUE(strstr(help, want), what);
		}
	snprintf(what, sizeof(what), "%s --help lists -h and -v", cmd->name);
	ASSERT_TRUE(strstr(help, "\n  -h, --help") && strstr(help, "\n  -v, --verbose"), what);
	free(help);
}

static void test_every_option_is_in_help(void)
{
	for_each_form(check_help_lists_options, NULL);
}

static void check_help_fits(const struct cli_command *cmd, void *ctx)
{
	char *help = printed(cli_print_help, cmd), *line, *save = NULL, what[160];

	(void)ctx;
	for (line = strtok_r(help, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		snprintf(what, sizeof(what), "%s --help: line within 80 columns: %.40s...",
			 cmd->name, line);
		ASSERT_TRUE(strlen(line) <= 80, what);
	}
	free(help);
}

static void test_help_fits_a_terminal(void)
{
	for_each_form(check_help_fits, NULL);
}

static void check_man_describes_options(const struct cli_command *cmd, void *ctx)
{
	const struct man_page *m = ctx;
	const struct cli_group *g;
	const struct cli_option *o;
	char want[96], what[160];

	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			roff_option(o->name, want, sizeof(want));
			snprintf(what, sizeof(what), "%s describes %s --%s outside SYNOPSIS",
				 m->path, cmd->name, o->name);
			ASSERT_TRUE(strstr(m->body, want), what);
		}
}

static void test_every_option_is_in_the_man_page(void)
{
	struct man_page m;
	char what[160];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(programs); i++) {
		err = man_page_read(programs[i], &m);
		snprintf(what, sizeof(what), "reading the SYNOPSIS and body of %s "
			 "(run from the top of the tree)", m.path);
		ASSERT_EQ(err, 0, what);
		if (err)
			continue;
		for_each_form_of(programs[i], check_man_describes_options, &m);
		snprintf(what, sizeof(what), "%s describes -h/--help and -v/--verbose", m.path);
		ASSERT_TRUE(strstr(m.body, "\\-h") && strstr(m.body, "\\-\\-help") &&
			    strstr(m.body, "\\-v") && strstr(m.body, "\\-\\-verbose"), what);
		man_page_free(&m);
	}
}

static void check_synopsis(const struct cli_program *p)
{
	char *made = NULL, what[160];
	size_t len = 0;
	struct man_page m;
	FILE *f = open_memstream(&made, &len);
	int err = man_page_read(p, &m);

	snprintf(what, sizeof(what), "reading the SYNOPSIS of %s (run from the top of the tree)",
		 m.path);
	ASSERT_EQ(err, 0, what);
	program_print_synopsis(p, f);
	fclose(f);
	if (!err) {
		if (strcmp(m.synopsis, made))
			printf("#   the SYNOPSIS of %s differs from the option tables: run make man\n",
			       m.path);
		snprintf(what, sizeof(what), "the SYNOPSIS of %s matches the tables", m.path);
		ASSERT_EQ(strcmp(m.synopsis, made), 0, what);
		man_page_free(&m);
	}
	free(made);
}

static void test_man_synopsis_is_made_from_the_tables(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(programs); i++)
		check_synopsis(programs[i]);
}

/* cpusteer names the commands that moved to cpusteer-bench without
 * linking them: the names must be those of cpusteer-bench's table, and
 * no command may be in both programs.
 */
static void test_moved_commands_are_the_bench_s(void)
{
	const struct cli_command *const *c, *const *o;
	const char *const *m = cpusteer_program.moved;
	char what[160];

	ASSERT_TRUE(cpusteer_program.moved_to &&
		    !strcmp(cpusteer_program.moved_to, cpusteer_bench_program.name),
		    "cpusteer's moved commands went to cpusteer-bench");
	for (c = cpusteer_bench_program.commands; *c; c++, m++) {
		/* The one command both programs have on purpose. */
		if (*c == &version_command) {
			m--;
			continue;
		}
		snprintf(what, sizeof(what), "cpusteer names %s as moved, in the bench's order",
			 (*c)->name);
		ASSERT_TRUE(m && *m && !strcmp(*m, (*c)->name), what);
		if (!m || !*m)
			return;
		for (o = cpusteer_program.commands; *o; o++) {
			snprintf(what, sizeof(what), "%s is not a command of both programs",
				 (*c)->name);
			ASSERT_TRUE(strcmp((*o)->name, (*c)->name), what);
		}
	}
	ASSERT_TRUE(!*m, "cpusteer names no moved command the bench does not have");
}

static void check_names_unique(const struct cli_command *cmd, void *ctx)
{
	const struct cli_group *g, *h;
	const struct cli_option *o, *p;
	char what[160];

	(void)ctx;
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			snprintf(what, sizeof(what), "%s declares --%s once (not help or verbose)",
				 cmd->name, o->name);
			ASSERT_TRUE(strcmp(o->name, "help") && strcmp(o->name, "verbose"), what);
			for (h = cmd->groups; h->options; h++)
				for (p = h->options; p->name; p++)
					if (p != o && !strcmp(p->name, o->name))
						ASSERT_TRUE(0, what);
		}
}

static void test_each_option_is_declared_once(void)
{
	for_each_form(check_names_unique, NULL);
}

/* Runs cli_parse on a command line with stdout and stderr caught. */
struct parse_run {
	int ret, operand;
	struct tu_caught c;
};

static void parse_args(const struct cli_command *cmd, void *opts, struct parse_run *r, ...)
{
	char *argv[16], *arg;
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)cmd->name;
	va_start(ap, r);
	while ((arg = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = arg;
	va_end(ap);
	argv[argc] = NULL;
	tu_catch_begin(&r->c);
	r->operand = -1;
	r->ret = cli_parse(cmd, argc, argv, opts, &r->operand);
	tu_catch_end(&r->c);
}

/* One line on stderr, "cpusteer: COMMAND: ...", and exit status 2. */
static void expect_usage_error(const struct parse_run *r, const char *mention, const char *what)
{
	char msg[768];

	snprintf(msg, sizeof(msg), "%s: refused", what);
	ASSERT_TRUE(r->ret < 0, msg);
	snprintf(msg, sizeof(msg), "%s: exit status", what);
	ASSERT_EQ(cli_exit_status(r->ret), 2, msg);
	snprintf(msg, sizeof(msg), "%s: lines on stderr", what);
	ASSERT_EQ(r->c.err_lines, 1, msg);
	snprintf(msg, sizeof(msg), "%s: stderr says 'cpusteer: ' and '%s': %s", what, mention, r->c.err);
	ASSERT_TRUE(!strncmp(r->c.err, "cpusteer: ", 10) && strstr(r->c.err, mention), msg);
}

static void test_usage_errors_are_one_line(void)
{
	struct load_opts lo = {};
	struct parse_run r;

	parse_args(&load_command, &lo, &r, "--bogus", "eth0", NULL);
	expect_usage_error(&r, "unknown option '--bogus'", "load --bogus");
	parse_args(&load_command, &lo, &r, "eth0", "-x", NULL);
	expect_usage_error(&r, "unknown option '-x'", "load -x");
	parse_args(&load_command, &lo, &r, "eth0", "--qsize", NULL);
	expect_usage_error(&r, "a value is missing after '--qsize'", "load --qsize at the end");
	parse_args(&load_command, &lo, &r, "eth0", "--no-touch=yes", NULL);
	expect_usage_error(&r, "--no-touch=yes", "a flag given a value");
	parse_args(&load_command, &lo, &r, NULL);
	expect_usage_error(&r, "expected IFACE", "load without an interface");
	parse_args(&load_command, &lo, &r, "eth0", "eth1", NULL);
	expect_usage_error(&r, "unexpected argument 'eth1'", "load with two interfaces");
	parse_args(&load_command, &lo, &r, "eth0", "--qsize", "0", NULL);
	expect_usage_error(&r, "'0'", "a value its parser refuses");
	parse_args(&set_command, &lo, &r, "eth0", "--xdp-mode", "skb", NULL);
	expect_usage_error(&r, "--xdp-mode", "set does not take load's attach options");
	parse_args(&unload_command, NULL, &r, "eth0", "--\x1b[2J", NULL);
	expect_usage_error(&r, "\\x1b[2J", "a terminal control in an option is escaped");
}

static void check_help_exits_zero(const struct cli_command *cmd, void *ctx)
{
	char want[64], what[768];
	struct parse_run r;

	(void)ctx;
	snprintf(want, sizeof(want), "usage: %s %s", cli_program_name, cmd->name);
	/* No options struct: --help ends the parse before any parser runs. */
	parse_args(cmd, NULL, &r, "--help", NULL);
	snprintf(what, sizeof(what), "%s --help: exit status 0", cmd->name);
	ASSERT_EQ(cli_exit_status(r.ret), 0, what);
	snprintf(what, sizeof(what), "%s --help: nothing on stderr", cmd->name);
	ASSERT_EQ(r.c.err_lines, 0, what);
	snprintf(what, sizeof(what), "%s --help starts '%s': %s", cmd->name, want, r.c.out_first);
	ASSERT_TRUE(!strncmp(r.c.out_first, want, strlen(want)), what);
}

static void test_help_exits_zero(void)
{
	for_each_form(check_help_exits_zero, NULL);
}

static void test_options_land_in_their_struct(void)
{
	struct load_opts lo;
	char *argv[] = { "load", "eth0", "--cpus", "0", "--qsize", "64", "--no-touch",
			 "--gro", "off", "--key", "000102030405060708090a0b0c0d0e0f", NULL };

	ASSERT_EQ(load_opts_parse(&lo, &load_command, 11, argv), 0, "load options parse");
	ASSERT_EQ(cli_given(&load_command, &lo, "cpus"), 1, "--cpus reached the steering group");
	ASSERT_EQ(lo.steer.cpus.n, 1, "one CPU");
	ASSERT_EQ(cli_given(&load_command, &lo, "key"), 1, "--key reached the steering group");
	/* SipHash's key layout: k0 is bytes 0-7, read little-endian. */
	ASSERT_EQ(lo.steer.cfg.key[0], 0x0706050403020100ULL, "key, k0");
	ASSERT_EQ(lo.steer.cfg.key[1], 0x0f0e0d0c0b0a0908ULL, "key, k1");
	ASSERT_EQ(lo.cm.qsize, 64, "--qsize");
	ASSERT_EQ(cli_given(&load_command, &lo, "qsize"), 1, "--qsize given");
	ASSERT_EQ(lo.notouch, 1, "--no-touch, a declared flag");
	ASSERT_EQ(lo.steer.symmetric, CLI_UNSET, "neither --symmetric nor --no-symmetric given");
	ASSERT_EQ(lo.dev.mask, DEV_GRO, "only --gro asked of the device");
	ASSERT_EQ(lo.dev.gro, 0, "--gro off");
	ASSERT_TRUE(lo.ifname && !strcmp(lo.ifname, "eth0"), "the operand after permutation");
}

static void test_double_dash_ends_options(void)
{
	struct parse_run r;
	char *argv[] = { "bench", "--", "--program", NULL };

	parse_args(&unload_command, NULL, &r, "--", "-x", NULL);
	ASSERT_EQ(r.ret, 0, "unload -- -x: -x is an operand");
	ASSERT_EQ(r.operand, 2, "the operand's index");
	ASSERT_TRUE(cli_form(&bench_command, 3, argv) == &bench_command,
		    "--program after -- does not choose bench --program");
	argv[1] = "--runs";
	ASSERT_TRUE(cli_form(&bench_command, 3, argv) == bench_command.variant,
		    "--program chooses bench --program");
}

/* The value `at` holds for option `o`, as --help would show it; false for
 * a kind that holds none to show.
 */
static bool value_shown(const struct cli_option *o, const char *at, char *buf, size_t len)
{
	switch (o->kind) {
	case CLI_WHOLE:
		snprintf(buf, len, "%llu", o->size == sizeof(__u64) ? *(const __u64 *)at
			 : (unsigned long long)*(const __u32 *)at);
		return true;
	case CLI_SECONDS:
	case CLI_FRACTION:
		snprintf(buf, len, "%g", *(const double *)at);
		return true;
	case CLI_ENUM:
		snprintf(buf, len, "%s", name_of(o->names, *(const int *)at, "?"));
		return true;
	default:
		return false;
	}
}

/* Whether a default is shown as a value, a number ("9") or a name
 * ("native"), rather than in words ("all online", "1% of the buckets"),
 * which describe what the command works out later.
 */
static bool shown_as_value(const struct cli_option *o)
{
	char *end;

	if (o->kind == CLI_ENUM)
		return true;
	strtod(o->def, &end);
	return end != o->def && !*end;
}

static bool same_value(const struct cli_option *o, const char *a, const char *b)
{
	return o->kind == CLI_ENUM ? !strcmp(a, b) : strtod(a, NULL) == strtod(b, NULL);
}

/* A command whose options keep the instance's current value (set) shows
 * no default of the options it shares with load: each option with one
 * says it keeps the current value instead.
 */
static void check_keeps_current(const struct cli_command *cmd)
{
	char *help = printed(cli_print_help, cmd), *entry, *next, want[96], what[160];
	const struct cli_group *g;
	const struct cli_option *o;

	snprintf(what, sizeof(what), "%s --help shows no default", cmd->name);
	ASSERT_TRUE(!strstr(help, "(default: ") && !strstr(help, "(the default)"), what);
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			if (!o->def || o->kind == CLI_SWITCH)
				continue;
			snprintf(want, sizeof(want), "\n  --%s ", o->name);
			entry = strstr(help, want);
			next = entry ? strstr(entry + 1, "\n  -") : NULL;
			if (next)
				*next = '\0';
			snprintf(what, sizeof(what), "%s --help: --%s keeps the current value",
				 cmd->name, o->name);
			ASSERT_TRUE(entry && strstr(entry, "(keeps the current value)"), what);
			if (next)
				*next = '\n';
		}
	free(help);
}

/* A default shown as a value is the value the command starts with. */
static void check_shown_defaults(const struct cli_command *cmd, void *ctx)
{
	const struct cli_group *g;
	const struct cli_option *o;
	char what[160], value[64];

	(void)ctx;
	if (cmd->keeps_current) {
		check_keeps_current(cmd);
		return;
	}
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			if (!o->def || !shown_as_value(o))
				continue;
			snprintf(what, sizeof(what), "%s --%s (default: %s) is where %s starts",
				 cmd->name, o->name, o->def, cmd->name);
			ASSERT_TRUE(cmd->start, what);
			if (!cmd->start || !value_shown(o, (const char *)cmd->start + g->offset + o->member,
							value, sizeof(value)))
				continue;
			if (!same_value(o, value, o->def))
				printf("#   it starts with %s\n", value);
			ASSERT_TRUE(same_value(o, value, o->def), what);
		}
}

static void test_shown_defaults_are_where_commands_start(void)
{
	for_each_form(check_shown_defaults, NULL);
	ASSERT_TRUE(set_command.keeps_current, "set keeps the current value of what is not given");
	ASSERT_TRUE(!load_command.keeps_current, "load starts from its defaults");
}

int main(void)
{
	static const struct tu_test tests[] = {
		TU_TEST(test_every_option_is_in_help),
		TU_TEST(test_help_fits_a_terminal),
		TU_TEST(test_every_option_is_in_the_man_page),
		TU_TEST(test_man_synopsis_is_made_from_the_tables),
		TU_TEST(test_moved_commands_are_the_bench_s),
		TU_TEST(test_each_option_is_declared_once),
		TU_TEST(test_usage_errors_are_one_line),
		TU_TEST(test_help_exits_zero),
		TU_TEST(test_options_land_in_their_struct),
		TU_TEST(test_double_dash_ends_options),
		TU_TEST(test_shown_defaults_are_where_commands_start),
	};

	return tu_run(tests, ARRAY_SIZE(tests));
}
