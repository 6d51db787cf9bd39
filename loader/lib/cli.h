/* SPDX-License-Identifier: GPL-2.0 */
/* The command line of every command, declared once: the getopt table,
 * `--help`, the one-line usage errors with their exit status, and the
 * man page's SYNOPSIS are all made from the same declaration, so that
 * none of them can drift from what the parser accepts.
 *
 * Every command also takes -h/--help and -v/--verbose, which this layer
 * handles itself.
 */
#ifndef CPUSTEER_CLI_H
#define CPUSTEER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "cpuset.h"
#include "name_table.h"

/* A flag's state: which of its two forms (--X, --no-X) was given last, on
 * the command line or in a file, or neither. The command turns it into a
 * setting once, with cli_switch_on(): against its default when it loads,
 * against the running value when it changes an instance. So the last
 * word wins and the command line wins over the file, for every flag.
 */
enum cli_switch { CLI_UNSET, CLI_ON, CLI_OFF };

static inline bool cli_switch_on(enum cli_switch s, bool otherwise)
{
	return s == CLI_UNSET ? otherwise : s == CLI_ON;
}

/* What an option's value is, and so how cli.c parses it into the member
 * the option writes (`member`, `size` bytes at that offset of the
 * group's struct). Each kind prints one line naming the option when the
 * value is bad.
 */
enum cli_kind {
	CLI_CALL,	/* `parse` does it: a value no kind describes */
	CLI_WHOLE,	/* a whole number from `min` to `max` (4 or 8 bytes) */
	CLI_SECONDS,	/* a double: seconds above 0, at most `max` */
	CLI_FRACTION,	/* a double: a fraction above 0, at most `max` */
	CLI_TEXT,	/* the value itself, kept as a const char * */
	CLI_IFACE,	/* an interface name, checked, kept as a const char * */
	CLI_ENUM,	/* an int: the value `names` gives the word */
	CLI_NAME_SET,	/* names of `names`, comma-separated or repeated: bit
			 * 1 << value of an unsigned int each */
	CLI_CPUS,	/* a CPU list into a struct cpuset */
	CLI_WEIGHTS,	/* a list of weights into a struct cpu_weights */
	CLI_CONST,	/* a flag that writes `min` */
	CLI_BOOL,	/* a flag that writes true to a bool */
	CLI_SWITCH,	/* one form of a switch: writes `sets` */
};

/* One option. `parse` (CLI_CALL) gets the command's option struct (moved
 * by the group's offset) and the value; it returns 0, or a negative errno
 * after printing one line that says why the value is bad.
 */
struct cli_option {
	const char *name;	/* long name, without the dashes */
	/* The value as shown ("LIST"); NULL for a flag, and for an option
	 * with `names`, whose words are shown ("on|off").
	 */
	const char *arg;
	enum cli_kind kind;
	int (*parse)(void *opts, const char *arg);
	const char *help;	/* '\n' continues it under the help column */
	/* The default as shown, or NULL; for one form of a switch, any text:
	 * that form is the default, shown "(the default)".
	 */
	const char *def;
	size_t member;		/* what the option writes, */
	size_t size;		/* and how many bytes; 0 for CLI_CALL: its own */
	enum cli_switch sets;
	/* How error messages name the value ("bucket count"); NULL: --NAME. */
	const char *what;
	__u32 min;
	double max;
	const struct name_value *names;	/* CLI_ENUM's words, or a CLI_CALL's */
};

/* The offset of member `m_` of `type_`, refused at compile time unless
 * the member passes `ok_`, a test of its size: a kind writes exactly the
 * bytes of the member it names.
 */
#define CLI_AT_(type_, m_, ok_) \
	(offsetof(type_, m_) + 0 * sizeof(char[(ok_) ? 1 : -1]))
#define CLI_SIZE_(type_, m_) sizeof(((type_ *)0)->m_)
#define CLI_SIZED_(type_, m_, n_) \
	.member = CLI_AT_(type_, m_, CLI_SIZE_(type_, m_) == (n_)), .size = (n_)

/* What an option with a callback writes, for set's merge (cli_keep_unset):
 * the members from first_ to last_.
 */
#define CLI_SPAN(type_, first_, last_) \
	.member = offsetof(type_, first_), \
	.size = offsetof(type_, last_) + CLI_SIZE_(type_, last_) - offsetof(type_, first_)

#define CLI_OPTION(name_, arg_, parse_, help_, def_) \
	{ .name = (name_), .arg = (arg_), .parse = (parse_), .help = (help_), .def = (def_) }
/* A whole number from min_ to max_ into a 4- or 8-byte member. */
#define CLI_WHOLE_OPTION(name_, arg_, type_, member_, min_, max_, help_, def_, ...)          \
	{ .name = (name_), .arg = (arg_), .kind = CLI_WHOLE, .help = (help_), .def = (def_), \
	  .member = CLI_AT_(type_, member_, CLI_SIZE_(type_, member_) == 4 ||                 \
					   CLI_SIZE_(type_, member_) == 8),                   \
	  .size = CLI_SIZE_(type_, member_), .min = (min_), .max = (max_), __VA_ARGS__ }
#define CLI_SECONDS_OPTION(name_, arg_, type_, member_, max_, help_, def_, ...)                \
	{ .name = (name_), .arg = (arg_), .kind = CLI_SECONDS, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(double)), .max = (max_), __VA_ARGS__ }
#define CLI_FRACTION_OPTION(name_, arg_, type_, member_, max_, help_, def_)                     \
	{ .name = (name_), .arg = (arg_), .kind = CLI_FRACTION, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(double)), .max = (max_) }
#define CLI_TEXT_OPTION(name_, arg_, type_, member_, help_, def_)                           \
	{ .name = (name_), .arg = (arg_), .kind = CLI_TEXT, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(const char *)) }
#define CLI_IFACE_OPTION(name_, arg_, type_, member_, help_, def_)                           \
	{ .name = (name_), .arg = (arg_), .kind = CLI_IFACE, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(const char *)) }
#define CLI_ENUM_OPTION(name_, names_, type_, member_, help_, def_, ...)                     \
	{ .name = (name_), .names = (names_), .kind = CLI_ENUM, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(int)), __VA_ARGS__ }
#define CLI_NAME_SET_OPTION(name_, arg_, names_, type_, member_, help_, def_)                      \
	{ .name = (name_), .arg = (arg_), .names = (names_), .kind = CLI_NAME_SET, .help = (help_), \
	  .def = (def_), CLI_SIZED_(type_, member_, sizeof(unsigned int)) }
#define CLI_CPUS_OPTION(name_, arg_, type_, member_, help_, def_)                           \
	{ .name = (name_), .arg = (arg_), .kind = CLI_CPUS, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(struct cpuset)) }
#define CLI_WEIGHTS_OPTION(name_, arg_, type_, member_, help_, def_)                           \
	{ .name = (name_), .arg = (arg_), .kind = CLI_WEIGHTS, .help = (help_), .def = (def_), \
	  CLI_SIZED_(type_, member_, sizeof(struct cpu_weights)) }
/* A flag that writes `value_` into a 1- or 4-byte member. */
#define CLI_CONST_FLAG(name_, type_, member_, value_, help_)                               \
	{ .name = (name_), .kind = CLI_CONST, .help = (help_),                             \
	  .member = CLI_AT_(type_, member_, CLI_SIZE_(type_, member_) == 1 ||              \
					   CLI_SIZE_(type_, member_) == 4),                \
	  .size = CLI_SIZE_(type_, member_), .min = (value_) }
/* A flag that only sets a bool member of the group's struct, for commands
 * that read no file: nothing there can give it first, so it needs no
 * --no- form.
 */
#define CLI_FLAG(name_, type_, member_, help_) \
	{ .name = (name_), .kind = CLI_BOOL, .help = (help_), CLI_SIZED_(type_, member_, sizeof(bool)) }
/* The two forms of a switch (an enum cli_switch member): every flag of a
 * command that reads a --config file is one, with both forms declared,
 * so that the command line can undo what the file says.
 */
#define CLI_SWITCH_ON(name_, type_, member_, help_)                           \
	{ .name = (name_), .kind = CLI_SWITCH, .help = (help_),               \
	  CLI_SIZED_(type_, member_, sizeof(enum cli_switch)), .sets = CLI_ON }
#define CLI_SWITCH_OFF(name_, type_, member_, help_, ...)                     \
	{ .name = (name_), .kind = CLI_SWITCH, .help = (help_),               \
	  CLI_SIZED_(type_, member_, sizeof(enum cli_switch)), .sets = CLI_OFF, __VA_ARGS__ }
/* In a switch's declaration: this form is the default. */
#define CLI_DEFAULT_FORM .def = "the default"

/* Whether the option takes a value; and that value as --help shows it,
 * in `buf` when it is made from the option's names.
 */
bool cli_takes_value(const struct cli_option *o);
const char *cli_value_shown(const struct cli_option *o, char *buf, size_t len);

/* Options shared by several commands are declared once as a group and
 * parse into a member of each command's own option struct.
 */
struct cli_group {
	const struct cli_option *options;	/* ended by an entry without name */
	size_t offset;				/* of that member */
	/* Where in the command's option struct a __u64 records which of the
	 * group's options were given, bit i for options[i] (CLI_BIT), as
	 * CLI_GIVEN_AT puts it; 0 for a group whose command need not know.
	 */
	size_t given;
};

#define CLI_GIVEN_AT(type_, m_) (CLI_AT_(type_, m_, CLI_SIZE_(type_, m_) == sizeof(__u64)) + 1)
#define CLI_BIT(i_) (1ull << (i_))

/* One option of a command, as the parser reaches it. */
struct cli_slot {
	const struct cli_option *o;
	void *target;		/* the group's struct */
	__u64 *given;		/* the group's record of what was given, or NULL */
	unsigned int bit;
};

/* load has four groups: one entry more, so that every list ends with a
 * NULL group, which the walks over it stop at.
 */
#define CLI_MAX_GROUPS 5

struct cli_command {
	const char *name;
	const char *summary;		/* one line for `cpusteer --help` */
	/* The one operand after the options, as shown: "IFACE" when it is
	 * required, "[IFACE]" when it may be left out; NULL for none.
	 */
	const char *operands;
	const char *about;		/* what the command does, for --help */
	const char *details;		/* after the option list, or NULL */
	struct cli_group groups[CLI_MAX_GROUPS];	/* ended by a NULL group */
	/* The option struct the command starts from, before any option is
	 * applied: the defaults its --help shows are these values, which
	 * test_cli holds them to.
	 */
	const void *start;
	/* A second form of the command, chosen by its `selector` flag
	 * anywhere before "--", with options of its own (bench --program,
	 * whose --json takes no file).
	 */
	const struct cli_command *variant;
	const char *selector;		/* in the variant: its flag, no dashes */
	/* An option not given keeps the instance's current value (set): the
	 * defaults the options declare are another command's, and --help
	 * shows "(keeps the current value)" in their place.
	 */
	bool keeps_current;
	int (*run)(int argc, char **argv);
};

/* A program of commands: cpusteer, the operator's, and cpusteer-bench,
 * which measures it. Each has its own main, command table, --help, man
 * page and bash completion, all made from these tables.
 */
struct cli_program {
	const char *name;				/* as usage lines give it */
	const struct cli_command *const *commands;	/* ended by NULL */
	/* Names of commands it once had, now another program's: not
	 * linked, only named, so that an old command line is told where to
	 * go. Ended by NULL; NULL for none.
	 */
	const char *const *moved;
	const char *moved_to;				/* that program */
};

/* The name usage lines and their hints give the running program: its
 * main sets it before it parses (cpusteer, the default, or
 * cpusteer-bench).
 */
extern const char *cli_program_name;

/* A numeric default shown from the constant the code uses. */
#define CLI_NUMBER(x) CLI_STRINGIFY_(x)
#define CLI_STRINGIFY_(x) #x

/* What cli_parse found. */
#define CLI_HELP_SHOWN 1

/* The exit status of a usage error, in every command of every program
 * (cpusteer.8, EXIT STATUS).
 */
#define EXIT_USAGE 2

/* Parses the options of argv (argv[0] is the command's name) into `opts`
 * and checks the operand count. Returns 0 with *operands set to the
 * index of the first operand, CLI_HELP_SHOWN after printing --help, or
 * -EINVAL after one line on stderr.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts, int *operands);

/* The exit status for a cli_parse result that is not 0: 0 after --help,
 * the usage error status otherwise.
 */
int cli_exit_status(int parsed);

/* The form of `cmd` that argv asks for: its variant when the variant's
 * flag is among the options.
 */
const struct cli_command *cli_form(const struct cli_command *cmd, int argc, char **argv);

/* The option `name` among all of cmd's groups, with where in `opts` it
 * parses to; false when the command has no such option.
 */
bool cli_lookup(const struct cli_command *cmd, void *opts, const char *name, struct cli_slot *s);
/* Applies one option as the command line would: `arg` is its value, NULL
 * for a flag. `where` is the "FILE:LINE" it was written at, NULL for the
 * command line (see cli_blame).
 */
int cli_apply(const struct cli_slot *s, const char *arg, const char *where);
/* A flag given as yes (`on`) or no, as a file gives it: no to a switch
 * gives its other form.
 */
int cli_apply_flag(const struct cli_slot *s, bool on, const char *where);
/* cli_lookup, then cli_apply, for callers without a command line (the
 * selftests); -ENOENT when there is no such option.
 */
int cli_set_option(const struct cli_command *cmd, void *opts, const char *name, const char *arg);

/* What an option sets, the same for both forms of a switch: an option
 * "given twice" is a setting given twice.
 */
const void *cli_setting(const struct cli_slot *s);

/* Whether option `name` of `cmd` was given, on the command line or in a
 * file, to `opts`.
 */
bool cli_given(const struct cli_command *cmd, void *opts, const char *name);

/* Keeps the values of `from` (a struct like `opts`) for every option of
 * `cmd` that was not given and that holds a value (flags excepted: a
 * switch keeps its own "unset"): what `set` does with the running
 * configuration.
 */
void cli_keep_unset(const struct cli_command *cmd, void *opts, const void *from);

/* Until log_set_where(NULL), messages start with the "FILE:LINE" where
 * option `name` of `cmd` got the value it holds, when a file gave it
 * (not the command line), or else that of option `or` (NULL for none).
 * For a value refused only after parsing (a CPU that is offline, weights
 * that do not fit the CPUs): its message names the line it came from.
 * cli_origins_forget() starts a new parse.
 */
void cli_blame(const struct cli_command *cmd, void *opts, const char *name, const char *or);
void cli_origins_forget(void);

void cli_print_help(const struct cli_command *cmd, FILE *f);
/* The command's lines of the man page's SYNOPSIS, in roff. */
void cli_print_synopsis_roff(const struct cli_command *cmd, FILE *f);

/* Values for option parsers; each prints one line naming `what` when the
 * value is bad. A whole number from min to max:
 */
int parse_u32(const char *what, const char *arg, __u32 min, __u32 max, __u32 *out);
/* Seconds, fractions allowed, above 0 and at most `max`. */
int parse_seconds(const char *what, const char *arg, double max, double *out);
/* A fraction, such as 0.05 for 5%, above 0 and at most `max`. */
int parse_fraction(const char *what, const char *arg, double max, double *out);

#endif
