// SPDX-License-Identifier: GPL-2.0
/* Configuration files (loader/lib/config_file.c) as load and set read
 * them: lines become the same options the command line gives, a bad line
 * is one message naming the file and the line, the command line wins
 * over the file, and a file that someone other than root could have
 * written is refused. Reads dist/example.conf from the current folder
 * (selftests/run.sh runs from the top of the tree).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "commands.h"
#include "config_file.h"
#include "load_opts.h"
#include "log.h"
#include "test_util.h"

#define EXAMPLE "dist/example.conf"
#define KEY "000102030405060708090a0b0c0d0e0f"

struct applied {
	int ret;
	struct tu_caught c;
	char text[CONFIG_MAX_BYTES + 2];	/* the values point into it */
};

static void apply_text(const char *text, struct load_opts *lo, struct applied *a)
{
	memset(lo, 0, sizeof(*lo));
	snprintf(a->text, sizeof(a->text), "%s", text);
	tu_catch_begin(&a->c);
	a->ret = config_text_apply(a->text, strlen(a->text), "x.conf", &load_command, lo);
	tu_catch_end(&a->c);
}

static void test_lines_apply_as_options(void)
{
	struct load_opts lo;
	struct applied a;

	apply_text("# comment\n\n  cpus=0\t\n"
		   "qsize = 64\r\n"
		   "key = " KEY "\n"
		   "  # indented comment\n"
		   "hash = siphash13\n"
		   "gro = off\n"
		   "xdp-mode = skb\n"
		   "bucket-stats = yes\n"
		   "symmetric = no\n"
		   "remote = drop", &lo, &a);
	ASSERT_EQ(a.ret, 0, "the file applies");
	ASSERT_EQ(a.c.err_lines, 0, "nothing on stderr");
	ASSERT_EQ(cli_given(&load_command, &lo, "cpus"), 1, "cpus given");
	ASSERT_EQ(lo.steer.cpus.n, 1, "one CPU");
	ASSERT_EQ(lo.cm.qsize, 64, "qsize, the line ended by CR LF");
	ASSERT_EQ(cli_given(&load_command, &lo, "qsize"), 1, "qsize given");
	ASSERT_EQ(lo.steer.cfg.key[0], 0x0706050403020100ULL, "key, k0");
	ASSERT_EQ(lo.steer.cfg.hash_fn, CPUSTEER_HASH_SIPHASH13, "hash");
	ASSERT_EQ(load_opts_device_mask(&lo), DEV_GRO, "only gro asked of the device");
	ASSERT_EQ(lo.dev.gro, 0, "gro off");
	ASSERT_EQ(cli_given(&load_command, &lo, "xdp-mode"), 1, "xdp-mode given");
	ASSERT_EQ(lo.bucket_stats_given, CLI_ON, "a flag set by yes");
	ASSERT_EQ(lo.steer.symmetric, CLI_OFF, "symmetric = no gives --no-symmetric");
	ASSERT_EQ(cli_given(&load_command, &lo, "remote"), 1, "the last line, without a newline");

	apply_text("bucket-stats = false\nsymmetric = true\nno-touch = no\n", &lo, &a);
	ASSERT_EQ(a.ret, 0, "true and false");
	ASSERT_EQ(lo.bucket_stats_given, CLI_OFF, "bucket-stats = false gives --no-bucket-stats");
	ASSERT_EQ(lo.steer.symmetric, CLI_ON, "symmetric = true");
	ASSERT_EQ(lo.notouch_given, CLI_OFF, "no-touch = no gives --touch");
}

static void expect_bad_line(const char *text, const char *where, const char *mention)
{
	char what[1024], shown[128];
	struct load_opts lo;
	struct applied a;

	apply_text(text, &lo, &a);
	log_printable(text, shown, sizeof(shown));
	snprintf(what, sizeof(what), "'%s' refused", shown);
	ASSERT_TRUE(a.ret < 0, what);
	snprintf(what, sizeof(what), "'%s': one line on stderr", shown);
	ASSERT_EQ(a.c.err_lines, 1, what);
	snprintf(what, sizeof(what), "'%s': says 'cpusteer: %s' and '%s': %s", shown, where, mention,
		 a.c.err);
	ASSERT_TRUE(!strncmp(a.c.err, "cpusteer: ", 10) && !strncmp(a.c.err + 10, where, strlen(where)) &&
		    strstr(a.c.err, mention), what);
}

static void test_bad_lines_name_file_and_line(void)
{
	expect_bad_line("cpus = 0\nqsize = 0\n", "x.conf:2: ", "bad --qsize '0'");
	expect_bad_line("# c\nqueue = 4\n", "x.conf:2: ", "unknown key 'queue'");
	expect_bad_line("cpus = 0\n\ncpus = 1\n", "x.conf:3: ", "'cpus' is given twice, also on line 1");
	expect_bad_line("symmetric = yes\nno-symmetric = yes\n", "x.conf:2: ",
			"'no-symmetric' and 'symmetric' on line 1 are one flag");
	expect_bad_line("cpus 0\n", "x.conf:1: ", "expected KEY = VALUE");
	expect_bad_line(" = 0\n", "x.conf:1: ", "expected KEY = VALUE");
	expect_bad_line("cpus =\n", "x.conf:1: ", "'cpus' needs a value");
	expect_bad_line("symmetric = maybe\n", "x.conf:1: ", "expected yes or no");
	expect_bad_line("config = /etc/other.conf\n", "x.conf:1: ", "cannot be given in a file");
	expect_bad_line("cpus = 0 # the first\n", "x.conf:1: ", "0 # the first");
	expect_bad_line("remote = redirect:\x1b[2J\n", "x.conf:1: ", "\\x1b[2J");
	expect_bad_line("help = yes\n", "x.conf:1: ", "unknown key 'help'");
}

static void test_nul_byte_refused(void)
{
	struct load_opts lo = {};
	char text[] = "cpus = 0\n\0qsize = 1\n";
	struct tu_caught c;
	int ret;

	tu_catch_begin(&c);
	ret = config_text_apply(text, sizeof(text) - 1, "x.conf", &load_command, &lo);
	tu_catch_end(&c);
	ASSERT_TRUE(ret < 0, "a NUL byte refused");
	ASSERT_EQ(cli_given(&load_command, &lo, "cpus"), 0, "before any line applies");
	ASSERT_TRUE(strstr(c.err, "NUL byte") != NULL, c.err);
}

/* A folder of our own under /tmp, and files in it. */
static char dir[64];

static int make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cpusteer-config.XXXXXX");
	return mkdtemp(dir) ? 0 : -errno;
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

static void remove_dir(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("#   cannot remove %s\n", dir);
}

struct parsed {
	int ret;
	struct load_opts lo;
	struct tu_caught c;
};

/* load_opts_parse on "COMMAND eth0 ARGS..." where the word FILE stands
 * for the path of `name` in the folder.
 */
static void parse_with(const struct cli_command *cmd, const char *name, struct parsed *p, ...)
{
	char *argv[16], path[128], *arg;
	int argc = 0;
	va_list ap;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	argv[argc++] = (char *)cmd->name;
	argv[argc++] = "eth0";
	va_start(ap, p);
	while ((arg = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = strcmp(arg, "FILE") ? arg : path;
	va_end(ap);
	argv[argc] = NULL;
	tu_catch_begin(&p->c);
	p->ret = load_opts_parse(&p->lo, cmd, argc, argv);
	tu_catch_end(&p->c);
}

static void test_command_line_wins_over_the_file(void)
{
	struct parsed p;

	if (make_dir())
		SKIP("no folder in /tmp");
	write_file("eth0.conf", "cpus = 0\nqsize = 128\nxdp-mode = skb\n", 0600);
	parse_with(&load_command, "eth0.conf", &p, "--qsize", "64", "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "load --qsize 64 --config FILE");
	ASSERT_EQ(p.lo.cm.qsize, 64, "the command line's qsize, given before --config");
	ASSERT_EQ(cli_given(&load_command, &p.lo, "cpus"), 1, "the file's cpus");
	ASSERT_EQ(cli_given(&load_command, &p.lo, "xdp-mode"), 1, "the file's xdp-mode");
	ASSERT_TRUE(p.lo.ifname && !strcmp(p.lo.ifname, "eth0"), "the interface");
	parse_with(&load_command, "eth0.conf", &p, "--config", "FILE", "--qsize", "32", NULL);
	ASSERT_EQ(p.lo.cm.qsize, 32, "the command line's qsize, given after --config");
	parse_with(&load_command, "eth0.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(p.lo.cm.qsize, 128, "the file's qsize");
	/* set takes load's file, xdp-mode and all: it checks those against
	 * the running instance itself.
	 */
	parse_with(&set_command, "eth0.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "set --config with a file for load");
	ASSERT_EQ(cli_given(&load_command, &p.lo, "xdp-mode"), 1, "set sees the file's xdp-mode");
	write_file("bad.conf", "cpus = 0\nqsize = big\n", 0600);
	parse_with(&set_command, "bad.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(cli_exit_status(p.ret), 2, "a bad file is a usage error");
	ASSERT_EQ(p.c.err_lines, 1, "one line");
	ASSERT_TRUE(strstr(p.c.err, "bad.conf:2: bad --qsize 'big'") != NULL, p.c.err);
	parse_with(&load_command, "eth0.conf", &p, "--config", "FILE", "--qsize", "0", NULL);
	ASSERT_EQ(p.c.err_lines, 1, "a bad command line with a good file: one line");
	ASSERT_TRUE(strstr(p.c.err, "bad --qsize '0'") && !strstr(p.c.err, "conf:"), p.c.err);
	remove_dir();
}

/* What each flag of load comes to once load has resolved it, by the form
 * that turns it on. The walk below fails on a flag it cannot find here,
 * so that a new flag gets a line.
 */
static int symmetric_of(struct load_opts *lo)
{
	return steer_opts_finish(&lo->steer) ? -1 : (int)lo->steer.cfg.symmetric;
}

static int notouch_of(struct load_opts *lo)
{
	return lo->notouch;
}

static int bucket_stats_of(struct load_opts *lo)
{
	return lo->bucket_stats;
}

static const struct {
	const char *on;
	int (*value)(struct load_opts *lo);
} load_flags[] = {
	{ "symmetric", symmetric_of },
	{ "no-touch", notouch_of },
	{ "bucket-stats", bucket_stats_of },
};

/* The form of flag `name` that undoes it: no-NAME, or NAME without its
 * "no-" when the flag is itself a negative (no-touch, touch).
 */
static const char *other_form(const char *name, char *buf, size_t len)
{
	struct load_opts lo;
	struct cli_slot s;

	snprintf(buf, len, "no-%s", name);
	if (cli_lookup(&load_command, &lo, buf, &s))
		return buf;
	if (!strncmp(name, "no-", 3) && cli_lookup(&load_command, &lo, name + 3, &s))
		return name + 3;
	return NULL;
}

/* One case of the walk: a file that gives the flag (NULL: no --config),
 * then the command line's words. "ON" and "OFF" stand for the flag's two
 * forms.
 */
struct flag_case {
	const char *file_form, *file_value;
	const char *word[2];
	bool on;
};

static void check_flag_case(int flag, const char *on, const char *off, const struct flag_case *fc)
{
	char line[64], words[2][64], what[256];
	char *argv[4] = { NULL };
	struct parsed p;
	int i, n = 0, used;

	used = snprintf(what, sizeof(what), "load --cpus 0");
	for (i = 0; i < 2 && fc->word[i]; i++) {
		snprintf(words[i], sizeof(words[i]), "--%s", !strcmp(fc->word[i], "ON") ? on : off);
		argv[n++] = words[i];
		used += snprintf(what + used, sizeof(what) - used, " %s", words[i]);
	}
	if (fc->file_form) {
		snprintf(line, sizeof(line), "%s = %s", !strcmp(fc->file_form, "ON") ? on : off,
			 fc->file_value);
		write_file("flag.conf", line, 0600);
		argv[n++] = "--config";
		argv[n++] = "FILE";
		used += snprintf(what + used, sizeof(what) - used, " --config '%s'", line);
	}
	snprintf(what + used, sizeof(what) - used, ": --%s %s", on, fc->on ? "on" : "off");
	parse_with(&load_command, "flag.conf", &p, "--cpus", "0", argv[0], argv[1], argv[2],
		   argv[3], NULL);
	ASSERT_EQ(p.ret, 0, what);
	ASSERT_EQ(load_flags[flag].value(&p.lo), fc->on, what);
}

/* Every flag of load (the tables', so a new one is walked too): the last
 * form given on the command line wins, and the command line wins over the
 * file. "ON" and "OFF" stand for the flag's two forms.
 */
static void test_every_flag_last_word_wins(void)
{
	static const struct flag_case cases[] = {
		{ NULL, NULL, { NULL }, false },
		{ NULL, NULL, { "ON" }, true },
		{ NULL, NULL, { "ON", "OFF" }, false },
		{ NULL, NULL, { "OFF", "ON" }, true },
		{ "ON", "yes", { NULL }, true },
		{ "ON", "no", { NULL }, false },
		{ "ON", "yes", { "OFF" }, false },
		{ "ON", "no", { "ON" }, true },
		{ "OFF", "yes", { "ON" }, true },
		{ "OFF", "no", { "OFF" }, false },
	};
	const struct cli_group *g;
	const struct cli_option *o;
	char buf[64], what[128];
	const char *off;
	size_t f, c, walked = 0;

	if (make_dir())
		SKIP("no folder in /tmp");
	for (g = load_command.groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			if (cli_takes_value(o))
				continue;
			for (f = 0; f < ARRAY_SIZE(load_flags); f++)
				if (!strcmp(load_flags[f].on, o->name))
					break;
			off = other_form(o->name, buf, sizeof(buf));
			snprintf(what, sizeof(what), "load's flag --%s has a form that undoes it", o->name);
			ASSERT_TRUE(off, what);
			if (f == ARRAY_SIZE(load_flags)) {
				/* The undoing form of a flag the walk knows. */
				for (f = 0; off && f < ARRAY_SIZE(load_flags); f++)
					if (!strcmp(load_flags[f].on, off))
						break;
				snprintf(what, sizeof(what), "the walk knows what --%s comes to", o->name);
				ASSERT_TRUE(off && f < ARRAY_SIZE(load_flags), what);
				continue;
			}
			if (!off)
				continue;
			for (c = 0; c < ARRAY_SIZE(cases); c++)
				check_flag_case(f, o->name, off, &cases[c]);
			walked++;
		}
	ASSERT_EQ(walked, ARRAY_SIZE(load_flags), "every flag the walk knows is one of load's");
	remove_dir();
}

/* load_opts_parse, then steer_opts_finish as load runs it: one line on
 * stderr from either, which must start with `where` ("" for none) and
 * name `mention`.
 */
static void expect_refused_after_parsing(const char *name, const char *where, const char *mention,
					 ...)
{
	char what[768], *argv[8], *arg;
	struct tu_caught c;
	struct parsed p;
	int argc = 0, err;
	va_list ap;

	va_start(ap, mention);
	while ((arg = va_arg(ap, char *)) && argc < 7)
		argv[argc++] = arg;
	va_end(ap);
	argv[argc] = NULL;
	parse_with(&load_command, name, &p, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5],
		   argv[6], NULL);
	c = p.c;
	err = p.ret;
	if (!err) {
		tu_catch_begin(&c);
		err = steer_opts_finish(&p.lo.steer);
		tu_catch_end(&c);
	}
	snprintf(what, sizeof(what), "%s %s: refused", name, mention);
	ASSERT_TRUE(err < 0, what);
	snprintf(what, sizeof(what), "%s: one line, 'cpusteer: %s' and '%s': %s", name, where,
		 mention, c.err);
	ASSERT_EQ(c.err_lines, 1, what);
	ASSERT_TRUE(!strncmp(c.err, "cpusteer: ", 10) && !strncmp(c.err + 10, where, strlen(where)) &&
		    strstr(c.err, mention), what);
}

/* A value that parses but is refused once every option is in is reported
 * where the file gave it, as a line that does not parse is.
 */
static void test_values_refused_after_parsing_name_file_and_line(void)
{
	char where[128];

	if (make_dir())
		SKIP("no folder in /tmp");
	write_file("weights.conf", "cpus = 0\nweights = 0\n", 0600);
	snprintf(where, sizeof(where), "%s/weights.conf:2: ", dir);
	expect_refused_after_parsing("weights.conf", where, "bad weights '0'", "--config", "FILE",
				     NULL);
	/* Without cpus, the weights meet the CPUs only when load finishes. */
	write_file("weights.conf", "# weights = 0,0 of every online CPU\nweights = 0,0\n", 0600);
	expect_refused_after_parsing("weights.conf", where, "bad weights '0,0'", "--config", "FILE",
				     NULL);
	write_file("cpus.conf", "cpus = 65535\n", 0600);
	snprintf(where, sizeof(where), "%s/cpus.conf:1: ", dir);
	expect_refused_after_parsing("cpus.conf", where, "bad CPU 65535", "--config", "FILE", NULL);
	write_file("buckets.conf", "cpus = 0,1\nbuckets = 1\n", 0600);
	snprintf(where, sizeof(where), "%s/buckets.conf:2: ", dir);
	expect_refused_after_parsing("buckets.conf", where, "bad bucket count 1", "--config", "FILE",
				     NULL);
	write_file("nic.conf", "hash = nic\nsymmetric = yes\n", 0600);
	snprintf(where, sizeof(where), "%s/nic.conf:1: ", dir);
	expect_refused_after_parsing("nic.conf", where, "cannot go with --symmetric", "--config",
				     "FILE", NULL);
	/* What the command line gave is its own: no file named. */
	expect_refused_after_parsing("cpus.conf", "bad CPU 65534", "bad CPU 65534", "--config", "FILE",
				     "--cpus", "65534", NULL);
	write_file("weights.conf", "cpus = 0,1\n", 0600);
	expect_refused_after_parsing("weights.conf", "bad weights '0,0'", "every weight is 0",
				     "--config", "FILE", "--weights", "0,0", NULL);
	remove_dir();
}

/* A key file as load and set read it: applied, refused with one line that
 * does not show what the file holds, and one way to give the key only.
 */
static void test_key_file(void)
{
	static const char *const good[] = { KEY, KEY "\n", KEY "\r\n" };
	static const char *const bad[] = { "", "0011\n", KEY "\n\n", KEY "0\n", "\n" KEY };
	char what[768], key_path[128];
	int fd, stdin_saved;
	struct parsed p;
	size_t i;

	if (make_dir())
		SKIP("no folder in /tmp");
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		write_file("k.key", good[i], 0600);
		parse_with(&load_command, "k.key", &p, "--key-file", "FILE", NULL);
		snprintf(what, sizeof(what), "key file %zu of the good ones: applied", i);
		ASSERT_EQ(p.ret, 0, what);
		ASSERT_EQ(cli_given(&load_command, &p.lo, "key"), 1, what);
		ASSERT_EQ(p.lo.steer.cfg.key[0], 0x0706050403020100ULL, what);
		ASSERT_EQ(p.lo.steer.cfg.key[1], 0x0f0e0d0c0b0a0908ULL, what);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		write_file("k.key", bad[i], 0600);
		parse_with(&load_command, "k.key", &p, "--key-file", "FILE", NULL);
		snprintf(what, sizeof(what), "key file %zu of the bad ones: one line, the file named, its text not shown: %s",
			 i, p.c.err);
		ASSERT_EQ(cli_exit_status(p.ret), 2, what);
		ASSERT_EQ(p.c.err_lines, 1, what);
		ASSERT_TRUE(strstr(p.c.err, "bad key in ") && strstr(p.c.err, "k.key") &&
			    !strstr(p.c.err, "0011") && !strstr(p.c.err, "0a0b"), what);
	}
	write_file("k.key", KEY "\n", 0620);
	parse_with(&load_command, "k.key", &p, "--key-file", "FILE", NULL);
	ASSERT_EQ(p.c.err_lines, 1, "a key file its group may write: one line");
	ASSERT_TRUE(p.ret < 0 && strstr(p.c.err, "writable by no one else"), p.c.err);

	write_file("k.key", KEY "\n", 0600);
	parse_with(&load_command, "k.key", &p, "--key", KEY, "--key-file", "FILE", NULL);
	ASSERT_EQ(cli_exit_status(p.ret), 2, "--key and --key-file: a usage error");
	ASSERT_EQ(p.c.err_lines, 1, "--key and --key-file: one line");
	ASSERT_TRUE(strstr(p.c.err, "both give the hash key") != NULL, p.c.err);
	parse_with(&load_command, "k.key", &p, "--key-file", "FILE", "--key", KEY, NULL);
	ASSERT_TRUE(p.ret < 0 && strstr(p.c.err, "both give the hash key"), "--key-file, then --key");

	/* A file's key, given either way, gives way to the command line's. */
	snprintf(key_path, sizeof(key_path), "%s/k.key", dir);
	write_file("key.conf", "key-file = /nonexistent/k.key\n", 0600);
	parse_with(&load_command, "key.conf", &p, "--config", "FILE", "--key", KEY, NULL);
	ASSERT_EQ(p.ret, 0, "--key over the file's key-file, which is not read");
	ASSERT_EQ(p.lo.steer.cfg.key[0], 0x0706050403020100ULL, "the command line's key");
	write_file("key.conf", "key = 0f0e0d0c0b0a09080706050403020100\n", 0600);
	parse_with(&load_command, "key.conf", &p, "--key-file", key_path, "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "--key-file over the file's key");
	ASSERT_EQ(p.lo.steer.cfg.key[0], 0x0706050403020100ULL, "the key file's key");
	snprintf(what, sizeof(what), "key = " KEY "\nkey-file = %s\n", key_path);
	write_file("both.conf", what, 0600);
	parse_with(&load_command, "both.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(p.c.err_lines, 1, "key and key-file in one file: one line");
	ASSERT_TRUE(p.ret < 0 && strstr(p.c.err, "both.conf:2: --key and --key-file both give"),
		    p.c.err);

	/* Standard input, read once though load reads its command line
	 * twice around a --config file.
	 */
	stdin_saved = dup(0);
	fd = open(key_path, O_RDONLY);
	ASSERT_TRUE(stdin_saved >= 0 && fd >= 0 && dup2(fd, 0) == 0, "the key file as standard input");
	parse_with(&load_command, "key.conf", &p, "--key-file", "-", "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "--key-file - with a --config file");
	ASSERT_EQ(p.lo.steer.cfg.key[1], 0x0f0e0d0c0b0a0908ULL, "the key from standard input");
	parse_with(&load_command, "key.conf", &p, "--key-file", "-", NULL);
	ASSERT_TRUE(p.ret < 0 && strstr(p.c.err, "bad key in standard input"),
		    "standard input read to its end: no key left, and nothing shown");
	dup2(stdin_saved, 0);
	close(stdin_saved);
	close(fd);
	remove_dir();
}

/* Refused with one line naming `mention`, and nothing of it applied. */
static void expect_refused(const char *name, const char *mention, const char *what)
{
	char msg[1024];
	struct parsed p;

	parse_with(&load_command, name, &p, "--config", "FILE", NULL);
	snprintf(msg, sizeof(msg), "%s: refused", what);
	ASSERT_TRUE(p.ret < 0, msg);
	snprintf(msg, sizeof(msg), "%s: one line", what);
	ASSERT_EQ(p.c.err_lines, 1, msg);
	snprintf(msg, sizeof(msg), "%s: says '%s': %s", what, mention, p.c.err);
	ASSERT_TRUE(strstr(p.c.err, mention) != NULL, msg);
	snprintf(msg, sizeof(msg), "%s: no option applied", what);
	ASSERT_EQ(cli_given(&load_command, &p.lo, "qsize"), 0, msg);
}

static void test_files_others_could_write_are_refused(void)
{
	char path[128], big[CONFIG_MAX_BYTES + 64];
	struct parsed p;

	if (geteuid())
		SKIP("needs root: files owned by another user");
	if (make_dir())
		SKIP("no folder in /tmp");
	write_file("group.conf", "qsize = 64\n", 0620);
	expect_refused("group.conf", "writable by no one else", "a file its group may write");
	write_file("world.conf", "qsize = 64\n", 0602);
	expect_refused("world.conf", "writable by no one else", "a file anyone may write");
	write_file("nobody.conf", "qsize = 64\n", 0600);
	snprintf(path, sizeof(path), "%s/nobody.conf", dir);
	ASSERT_EQ(chown(path, 65534, 65534), 0, "chown to nobody");
	expect_refused("nobody.conf", "owned by uid 65534", "another user's file");
	write_file("good.conf", "qsize = 64\n", 0644);
	snprintf(path, sizeof(path), "%s/link.conf", dir);
	ASSERT_EQ(symlink("good.conf", path), 0, "a link to a good file");
	expect_refused("link.conf", "a symbolic link", "a link");
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	ASSERT_EQ(mkfifo(path, 0600), 0, "a FIFO");
	expect_refused("fifo.conf", "not a regular file", "a FIFO, which must not hang the read");
	snprintf(path, sizeof(path), "%s/folder.conf", dir);
	ASSERT_EQ(mkdir(path, 0700), 0, "a folder");
	expect_refused("folder.conf", "not a regular file", "a folder");
	expect_refused("missing.conf", "No such file", "a missing file");
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	write_file("big.conf", big, 0600);
	expect_refused("big.conf", "larger than", "a file of more than 64 KiB");

	parse_with(&load_command, "good.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "root's file, mode 0644, in root's folder 0700 under sticky /tmp");
	ASSERT_EQ(p.lo.cm.qsize, 64, "and applied");
	ASSERT_EQ(chmod(dir, 0777), 0, "the folder made writable by all");
	expect_refused("good.conf", "lets others replace it", "a file in a folder anyone may write");
	ASSERT_EQ(chmod(dir, 01777), 0, "the folder made sticky");
	parse_with(&load_command, "good.conf", &p, "--config", "FILE", NULL);
	ASSERT_EQ(p.ret, 0, "a file in a sticky folder");
	ASSERT_EQ(chmod(dir, 0700), 0, "the folder back to 0700");
	ASSERT_EQ(chown(dir, 65534, 65534), 0, "the folder given to nobody");
	expect_refused("good.conf", "lets others replace it", "a file in another user's folder");
	remove_dir();
}

/* The example holds every option a service would set, each line valid
 * once uncommented; only the bench's floor, the forms that undo a flag
 * and key-file (shown, but as the other way to give the key) are left
 * out.
 */
static void test_example_holds_every_option(void)
{
	static const char *const left_out[] = { CONFIG_OPTION, "no-touch", "touch", "no-symmetric",
						"no-bucket-stats", "key-file" };
	char *text = NULL, *uncommented, *line, *end, key[80];
	const struct cli_group *g;
	const struct cli_option *o;
	struct load_opts lo;
	struct applied a;
	size_t len = 0, i;
	FILE *f = fopen(EXAMPLE, "r");
	bool listed;

	if (!f || getdelim(&text, &len, '\0', f) < 0) {
		ASSERT_TRUE(0, "read " EXAMPLE);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	for (g = load_command.groups; g->options; g++)
		for (o = g->options; o->name; o++) {
			snprintf(key, sizeof(key), "\n#%s = ", o->name);
			listed = strstr(text, key);
			for (i = 0; i < ARRAY_SIZE(left_out); i++)
				listed |= !strcmp(o->name, left_out[i]);
			ASSERT_TRUE(listed, key + 2);
		}
	/* "#cpus = 0-3" as "cpus = 0-3", every other line blank. */
	uncommented = calloc(1, strlen(text) + 1);
	for (line = text, i = 0; uncommented && *line; line = end + !!*end) {
		end = line + strcspn(line, "\n");
		if (line[0] == '#' && line[1] >= 'a' && line[1] <= 'z')
			i += sprintf(uncommented + i, "%.*s", (int)(end - line - 1), line + 1);
		uncommented[i++] = '\n';
	}
	apply_text(uncommented ? uncommented : "", &lo, &a);
	ASSERT_EQ(a.ret, 0, "every line of the example applies uncommented");
	ASSERT_EQ(a.c.err_lines, 0, a.c.err);
	ASSERT_EQ(cli_given(&load_command, &lo, "cpus") && cli_given(&load_command, &lo, "hash") && cli_given(&load_command, &lo, "qsize") && cli_given(&load_command, &lo, "xdp-mode"), 1,
		  "the uncommented lines were applied");
	free(uncommented);
	free(text);
}

int main(void)
{
	static const struct tu_test tests[] = {
		TU_TEST(test_lines_apply_as_options),
		TU_TEST(test_bad_lines_name_file_and_line),
		TU_TEST(test_nul_byte_refused),
		TU_TEST(test_command_line_wins_over_the_file),
		TU_TEST(test_every_flag_last_word_wins),
		TU_TEST(test_values_refused_after_parsing_name_file_and_line),
		TU_TEST(test_key_file),
		TU_TEST(test_files_others_could_write_are_refused),
		TU_TEST(test_example_holds_every_option),
	};

	return tu_run(tests, ARRAY_SIZE(tests));
}
