// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ifname.h"
#include "log.h"

#define MAX_OPTIONS 48
#define OPTION_ID_BASE 0x100	/* above every short option's letter */
#define SELECTOR_ID (OPTION_ID_BASE - 1)
#define HELP_COLUMN 19		/* where help text starts, after two spaces */
#define SHOWN_LEN 128
#define LINE_WIDTH 80
#define WHERE_LEN 288		/* "FILE:LINE" as config_file.c shows it */
#define GROUP_MAX_OPTIONS 64	/* the bits of a group's record of what was given */

const char *cli_program_name = "cpusteer";

/* The built-in options every command takes, each also as its first
 * letter (-h, -v).
 */
static const struct cli_option common_options[] = {
	{ .name = "help", .help = "show this help" },
	{ .name = "verbose", .help = "show libbpf's and libxdp's messages" },
	{}
};

/* Every declared option of `cmd` with where it parses to. */
struct option_table {
	struct cli_slot slot[MAX_OPTIONS];
	struct option longopts[MAX_OPTIONS + 4];
	int n;
};

static struct cli_slot slot_of(const struct cli_group *g, const struct cli_option *o, void *opts)
{
	char *base = opts;

	/* A declaration error, not a user's: the selftests parse every
	 * command, so it cannot ship.
	 */
	if (o - g->options >= GROUP_MAX_OPTIONS)
		abort();
	return (struct cli_slot){ .o = o, .target = base + g->offset,
				  .given = g->given ? (__u64 *)(base + g->given - 1) : NULL,
				  .bit = o - g->options };
}

static void table_build(const struct cli_command *cmd, void *opts, struct option_table *t)
{
	const struct cli_group *g;
	const struct cli_option *o;
	int i;

	t->n = 0;
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			if (t->n == MAX_OPTIONS)
				abort();	/* as in slot_of */
			t->slot[t->n] = slot_of(g, o, opts);
			t->longopts[t->n] = (struct option){ o->name,
							     cli_takes_value(o) ? required_argument : no_argument,
							     NULL, OPTION_ID_BASE + t->n };
			t->n++;
		}
	i = t->n;
	for (o = common_options; o->name; o++)
		t->longopts[i++] = (struct option){ o->name, no_argument, NULL, o->name[0] };
	if (cmd->selector)
		t->longopts[i++] = (struct option){ cmd->selector, no_argument, NULL, SELECTOR_ID };
	t->longopts[i] = (struct option){};
}

/* The option word getopt stopped at, as written: a long one whole, a
 * short one by its letter (in a cluster like -xv the word holds more).
 */
static const char *word_at(char **argv, char *buf, size_t len)
{
	const char *word = argv[optind - 1];

	if (!strncmp(word, "--", 2)) {
		log_printable(word, buf, len);
		return buf;
	}
	snprintf(buf, len, "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
	return buf;
}

static int usage_error(const struct cli_command *cmd, const char *what, const char *word)
{
	log_err("%s: %s%s%s%s (%s %s --help)", cmd->name, what, word ? " '" : "",
		word ? word : "", word ? "'" : "", cli_program_name, cmd->name);
	return -EINVAL;
}

/* getopt's '?': an unknown option, or a flag given a value (--json=x). */
static int bad_option(const struct cli_command *cmd, const struct option_table *t, char **argv)
{
	char shown[SHOWN_LEN];
	const char *word = word_at(argv, shown, sizeof(shown));

	if (optopt == 'h' || optopt == 'v' || optopt == SELECTOR_ID ||
	    (optopt >= OPTION_ID_BASE && optopt < OPTION_ID_BASE + t->n))
		return usage_error(cmd, "an option that takes no value was given one:", word);
	return usage_error(cmd, "unknown option", word);
}

static int check_operands(const struct cli_command *cmd, int argc, char **argv)
{
	int required = cmd->operands && cmd->operands[0] != '[', allowed = !!cmd->operands;
	char shown[SHOWN_LEN];
	int n = argc - optind;

	if (n < required) {
		log_err("%s: expected %s (%s %s --help)", cmd->name, cmd->operands, cli_program_name,
			cmd->name);
		return -EINVAL;
	}
	if (n > allowed) {
		log_printable(argv[optind + allowed], shown, sizeof(shown));
		return usage_error(cmd, "unexpected argument", shown);
	}
	return 0;
}

/* Where each setting's value was written, for cli_blame: an entry per
 * setting a file gave, emptied when the command line gives it again. A
 * process parses one command, and --config names one file.
 */
static struct {
	const void *setting;
	char where[WHERE_LEN];
} origins[MAX_OPTIONS];
static int norigins;

static void record_origin(const void *setting, const char *where)
{
	int i;

	for (i = 0; i < norigins && origins[i].setting != setting; i++)
		;
	if (i == norigins) {
		if (!where || i == MAX_OPTIONS)
			return;
		norigins++;
	}
	origins[i].setting = setting;
	snprintf(origins[i].where, sizeof(origins[i].where), "%s", where ? where : "");
}

void cli_origins_forget(void)
{
	norigins = 0;
}

static const char *origin(const struct cli_command *cmd, void *opts, const char *name)
{
	struct cli_slot s;
	const void *setting;
	int i;

	if (!cli_lookup(cmd, opts, name, &s))
		return NULL;
	setting = cli_setting(&s);
	for (i = 0; i < norigins; i++)
		if (origins[i].setting == setting)
			return origins[i].where[0] ? origins[i].where : NULL;
	return NULL;
}

void cli_blame(const struct cli_command *cmd, void *opts, const char *name, const char *or)
{
	const char *where = origin(cmd, opts, name);

	if (!where && or)
		where = origin(cmd, opts, or);
	log_set_where(where);
}

const void *cli_setting(const struct cli_slot *s)
{
	return s->o->kind == CLI_SWITCH ? (const void *)((char *)s->target + s->o->member)
					: (const void *)s->o;
}

bool cli_takes_value(const struct cli_option *o)
{
	return o->arg || o->names;
}

const char *cli_value_shown(const struct cli_option *o, char *buf, size_t len)
{
	if (o->arg || !o->names)
		return o->arg;
	names_choices(o->names, buf, len);
	return buf;
}

/* A whole number into the member's own width (the declaration checked it). */
static void store_whole(void *at, size_t size, unsigned long long v)
{
	if (size == 1)
		*(__u8 *)at = v;
	else if (size == 4)
		*(__u32 *)at = v;
	else
		*(__u64 *)at = v;
}

static int parse_name(const char *what, const struct cli_option *o, const char *arg, void *at)
{
	int v;
	int err = name_parse(what, o->names, arg, &v);

	if (!err)
		store_whole(at, o->size, (unsigned int)v);
	return err;
}

static int parse_name_set(const char *what, const struct cli_option *o, const char *arg,
			  unsigned int *bits)
{
	char list[256], *name, *save = NULL;
	int v;

	snprintf(list, sizeof(list), "%s", arg);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (name_parse(what, o->names, name, &v))
			return -EINVAL;
		*bits |= 1u << v;
	}
	return 0;
}

static int parse_whole(const char *what, const struct cli_option *o, const char *arg, void *at)
{
	__u32 v;
	int err = parse_u32(what, arg, o->min, o->max, &v);

	if (!err)
		store_whole(at, o->size, v);
	return err;
}

/* The value of option `o` into its member of `target`. */
static int parse_value(const struct cli_option *o, void *target, const char *arg)
{
	void *at = (char *)target + o->member;
	char what[64];

	snprintf(what, sizeof(what), "--%s", o->name);
	if (o->what)
		snprintf(what, sizeof(what), "%s", o->what);
	switch (o->kind) {
	case CLI_CALL:
		return o->parse(target, arg);
	case CLI_WHOLE:
		return parse_whole(what, o, arg, at);
	case CLI_SECONDS:
		return parse_seconds(what, arg, o->max, at);
	case CLI_FRACTION:
		return parse_fraction(what, arg, o->max, at);
	case CLI_IFACE:
		if (ifname_check(arg))
			return -EINVAL;
		/* fall through */
	case CLI_TEXT:
		*(const char **)at = arg;
		return 0;
	case CLI_ENUM:
		return parse_name(what, o, arg, at);
	case CLI_NAME_SET:
		return parse_name_set(what, o, arg, at);
	case CLI_CPUS:
		return cpuset_parse(at, arg);
	case CLI_WEIGHTS:
		cpu_weights_parse(at, arg);
		return 0;
	case CLI_CONST:
		store_whole(at, o->size, o->min);
		return 0;
	case CLI_BOOL:
		*(bool *)at = true;
		return 0;
	case CLI_SWITCH:
		*(enum cli_switch *)at = o->sets;
		return 0;
	}
	return -EINVAL;
}

static void record_given(const struct cli_slot *s, const char *where)
{
	if (s->given)
		*s->given |= CLI_BIT(s->bit);
	record_origin(cli_setting(s), where);
}

int cli_apply(const struct cli_slot *s, const char *arg, const char *where)
{
	int err = parse_value(s->o, s->target, arg);

	if (!err)
		record_given(s, where);
	return err;
}

int cli_apply_flag(const struct cli_slot *s, bool on, const char *where)
{
	void *at = (char *)s->target + s->o->member;

	if (on)
		return cli_apply(s, NULL, where);
	if (s->o->kind == CLI_SWITCH)
		*(enum cli_switch *)at = s->o->sets == CLI_ON ? CLI_OFF : CLI_ON;
	else if (s->o->kind == CLI_BOOL)
		*(bool *)at = false;
	record_given(s, where);
	return 0;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts, int *operands)
{
	struct option_table t;
	char shown[SHOWN_LEN];
	int c, i, err;

	table_build(cmd, opts, &t);
	/* Our own one-line messages instead of getopt's; optind 0 makes
	 * glibc forget a cluster a previous parse stopped inside.
	 */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":hv", t.longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return CLI_HELP_SHOWN;
		case 'v':
			log_verbose = true;
			continue;
		case ':':
			return usage_error(cmd, "a value is missing after",
					   word_at(argv, shown, sizeof(shown)));
		case '?':
			return bad_option(cmd, &t, argv);
		case SELECTOR_ID:	/* cli_form chose this form by it */
			continue;
		}
		i = c - OPTION_ID_BASE;
		err = cli_apply(&t.slot[i], optarg, NULL);
		if (err)
			return err < 0 ? err : -EINVAL;
	}
	err = check_operands(cmd, argc, argv);
	if (!err)
		*operands = optind;
	return err;
}

bool cli_lookup(const struct cli_command *cmd, void *opts, const char *name, struct cli_slot *s)
{
	const struct cli_group *g;
	const struct cli_option *o;

	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++)
			if (!strcmp(o->name, name)) {
				*s = slot_of(g, o, opts);
				return true;
			}
	return false;
}

int cli_set_option(const struct cli_command *cmd, void *opts, const char *name, const char *arg)
{
	struct cli_slot s;

	return cli_lookup(cmd, opts, name, &s) ? cli_apply(&s, arg, NULL) : -ENOENT;
}

bool cli_given(const struct cli_command *cmd, void *opts, const char *name)
{
	struct cli_slot s;

	return cli_lookup(cmd, opts, name, &s) && s.given && (*s.given & CLI_BIT(s.bit));
}

void cli_keep_unset(const struct cli_command *cmd, void *opts, const void *from)
{
	const struct cli_group *g;
	const struct cli_option *o;
	struct cli_slot s;

	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			s = slot_of(g, o, opts);
			if (!s.given || (*s.given & CLI_BIT(s.bit)) || !o->size || !cli_takes_value(o))
				continue;
			memcpy((char *)s.target + o->member,
			       (const char *)from + g->offset + o->member, o->size);
		}
}

int cli_exit_status(int parsed)
{
	return parsed == CLI_HELP_SHOWN ? EXIT_SUCCESS : EXIT_USAGE;
}

const struct cli_command *cli_form(const struct cli_command *cmd, int argc, char **argv)
{
	char flag[64];
	int i;

	if (!cmd->variant)
		return cmd;
	snprintf(flag, sizeof(flag), "--%s", cmd->variant->selector);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], flag))
			return cmd->variant;
	return cmd;
}

/* What --help says of option `o`'s default, in `buf`; NULL for nothing. */
static const char *default_shown(const struct cli_command *cmd, const struct cli_option *o,
				 char *buf, size_t len)
{
	if (!o->def || (cmd->keeps_current && o->kind == CLI_SWITCH))
		return NULL;
	if (cmd->keeps_current)
		snprintf(buf, len, "(keeps the current value)");
	else if (o->kind == CLI_SWITCH)
		snprintf(buf, len, "(the default)");
	else
		snprintf(buf, len, "(default: %s)", o->def);
	return buf;
}

static void print_option(const struct cli_command *cmd, const struct cli_option *o,
			 const char *shorthand, FILE *f)
{
	const char *line, *end, *value, *def;
	char left[64], choices[SHOWN_LEN], shown_def[SHOWN_LEN];
	int width;

	value = cli_value_shown(o, choices, sizeof(choices));
	width = snprintf(left, sizeof(left), "%s--%s%s%s", shorthand, o->name, value ? " " : "",
			 value ? value : "");
	/* A name a little too long for the column pushes its help along the
	 * line; a much longer one gets the help on the next line.
	 */
	if (width < HELP_COLUMN - 1)
		fprintf(f, "  %-*s ", HELP_COLUMN - 1, left);
	else if (width <= HELP_COLUMN + 4)
		fprintf(f, "  %s  ", left);
	else
		fprintf(f, "  %s\n%*s", left, HELP_COLUMN + 2, "");
	width = width < HELP_COLUMN - 1 || width > HELP_COLUMN + 4 ? HELP_COLUMN + 2 : width + 4;
	for (line = o->help; (end = strchr(line, '\n')); line = end + 1) {
		fprintf(f, "%.*s\n%*s", (int)(end - line), line, HELP_COLUMN + 2, "");
		width = HELP_COLUMN + 2;
	}
	fputs(line, f);
	width += strlen(line);
	def = default_shown(cmd, o, shown_def, sizeof(shown_def));
	if (def && width + strlen(def) + 1 > LINE_WIDTH)
		fprintf(f, "\n%*s%s", HELP_COLUMN + 2, "", def);
	else if (def)
		fprintf(f, " %s", def);
	fputc('\n', f);
}

static void print_usage_line(const struct cli_command *cmd, FILE *f)
{
	fprintf(f, "usage: %s %s%s%s%s%s [OPTIONS]\n", cli_program_name, cmd->name,
		cmd->selector ? " --" : "", cmd->selector ? cmd->selector : "",
		cmd->operands ? " " : "", cmd->operands ? cmd->operands : "");
}

static void print_one_form(const struct cli_command *cmd, FILE *f)
{
	const struct cli_group *g;
	const struct cli_option *o;
	char shorthand[8];

	print_usage_line(cmd, f);
	fprintf(f, "%s\n", cmd->about);
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++)
			print_option(cmd, o, "", f);
	for (o = common_options; o->name; o++) {
		snprintf(shorthand, sizeof(shorthand), "-%c, ", o->name[0]);
		print_option(cmd, o, shorthand, f);
	}
	if (cmd->details)
		fprintf(f, "\n%s", cmd->details);
}

void cli_print_help(const struct cli_command *cmd, FILE *f)
{
	print_one_form(cmd, f);
	if (cmd->variant) {
		fputc('\n', f);
		print_one_form(cmd->variant, f);
	}
}

/* Text for roff: a '-' is a hyphen unless escaped as a minus. */
static void roff_text(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* A word of the SYNOPSIS, which a narrow terminal must not hyphenate
 * ("--sym-" on one line, "metric" on the next): \% forbids it.
 */
static void roff_word(const char *s, FILE *f)
{
	fputs("\\%", f);
	roff_text(s, f);
}

static void roff_operands(const char *operands, FILE *f)
{
	size_t len = strlen(operands);

	if (operands[0] == '[' && operands[len - 1] == ']') {
		fputs(".RI [ \\%", f);
		fprintf(f, "%.*s ]\n", (int)(len - 2), operands + 1);
	} else {
		fputs(".I ", f);
		roff_word(operands, f);
		fputc('\n', f);
	}
}

static void roff_one_form(const struct cli_command *cmd, FILE *f)
{
	const struct cli_group *g;
	const struct cli_option *o;
	char choices[SHOWN_LEN];
	const char *value;

	fputs(".B ", f);
	roff_word(cli_program_name, f);
	fputc(' ', f);
	roff_word(cmd->name, f);
	if (cmd->selector) {
		fputc(' ', f);
		roff_word("--", f);
		roff_text(cmd->selector, f);
	}
	fputc('\n', f);
	if (cmd->operands)
		roff_operands(cmd->operands, f);
	for (g = cmd->groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			fputs(".RB [ ", f);
			roff_word("--", f);
			roff_text(o->name, f);
			value = cli_value_shown(o, choices, sizeof(choices));
			if (!value) {
				fputs(" ]\n", f);
				continue;
			}
			fputs("\n.IR ", f);
			roff_word(value, f);
			fputs(" ]\n", f);
		}
}

void cli_print_synopsis_roff(const struct cli_command *cmd, FILE *f)
{
	roff_one_form(cmd, f);
	if (cmd->variant) {
		fputs(".br\n", f);
		roff_one_form(cmd->variant, f);
	}
}

int parse_u32(const char *what, const char *arg, __u32 min, __u32 max, __u32 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-' || v < min || v > max) {
		log_err("bad %s '%s': expected a whole number from %u to %u", what, arg, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* `unit` names what is expected, as in "seconds above 0, at most 60". */
static int parse_positive(const char *what, const char *arg, double max, const char *unit,
			  double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*arg || *end || errno || !(v > 0) || v > max) {
		log_err("bad %s '%s': expected %s above 0, at most %g", what, arg, unit, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_seconds(const char *what, const char *arg, double max, double *out)
{
	return parse_positive(what, arg, max, "seconds", out);
}

int parse_fraction(const char *what, const char *arg, double max, double *out)
{
	return parse_positive(what, arg, max, "a fraction (0.1 for 10%)", out);
}
