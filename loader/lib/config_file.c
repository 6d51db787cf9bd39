// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "config_file.h"
#include "log.h"

#define MAX_KEYS 64		/* more lines than any command has options */
#define SHOWN_LEN 256

/* One line of the file, split. */
struct config_line {
	unsigned number;
	char *key, *value;	/* trimmed, NUL-terminated in the text */
};

static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* Every folder above `real` (a path without links): one that someone
 * else could write to could have the file swapped under it, unless it is
 * sticky, where only the file's owner may replace the file.
 */
static int check_folders(const char *real, const char *shown)
{
	char dir[PATH_MAX], dir_shown[SHOWN_LEN];
	struct stat st;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", real);
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';	/* "/etc" ends as "/" */
		log_printable(dir, dir_shown, sizeof(dir_shown));
		if (stat(dir, &st)) {
			log_err("cannot check %s: %s: %s", shown, dir_shown, strerror(errno));
			return -errno;
		}
		if (!trusted_owner(st.st_uid) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			log_err("refusing %s: its folder %s (mode %04o, uid %u) lets others replace it",
				shown, dir_shown, st.st_mode & 07777, st.st_uid);
			return -EPERM;
		}
		if (slash == dir)
			return 0;
	}
	return 0;
}

static int check_file(int fd, const char *path, const char *shown)
{
	struct stat st, real_st;
	char real[PATH_MAX];

	if (fstat(fd, &st)) {
		log_err("cannot read %s: %s", shown, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		log_err("refusing %s: not a regular file", shown);
		return -EINVAL;
	}
	if (!trusted_owner(st.st_uid) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		log_err("refusing %s: owned by uid %u with mode %04o; it must be root's (or the caller's) and writable by no one else",
			shown, st.st_uid, st.st_mode & 07777);
		return -EPERM;
	}
	/* The folders are checked on the path without links; it must still
	 * lead to the file that was opened.
	 */
	if (!realpath(path, real) || stat(real, &real_st) ||
	    real_st.st_dev != st.st_dev || real_st.st_ino != st.st_ino) {
		log_err("refusing %s: it was replaced while being read", shown);
		return -EAGAIN;
	}
	return check_folders(real, shown);
}

char *trusted_fd_read(int fd, const char *shown, size_t max, size_t *len)
{
	char *text = malloc(max + 1);
	ssize_t n = 0;

	*len = 0;
	while (text && (n = read(fd, text + *len, max + 1 - *len)) > 0)
		*len += n;
	if (text && n >= 0 && *len <= max) {
		text[*len] = '\0';
		return text;
	}
	if (!text || n < 0)
		log_err("cannot read %s: %s", shown, strerror(text ? errno : ENOMEM));
	else
		log_err("refusing %s: larger than %zu bytes", shown, max);
	free(text);
	return NULL;
}

char *trusted_file_read(const char *path, const char *shown, size_t max, size_t *len)
{
	char *text;
	int fd;

	/* O_NONBLOCK: a FIFO planted as the file must not hang the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			log_err("refusing %s: a symbolic link; give the file it points to", shown);
		else
			log_err("cannot read %s: %s", shown, strerror(errno));
		return NULL;
	}
	text = check_file(fd, path, shown) ? NULL : trusted_fd_read(fd, shown, max, len);
	close(fd);
	return text;
}

static char *trim(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*end = '\0';
	return s;
}

/* Splits the next line of `*text` into `line`; false at the end. A blank
 * or comment line has no key.
 */
static bool next_line(char **text, char *end, struct config_line *line)
{
	char *start = *text, *eol, *eq;

	if (start >= end)
		return false;
	eol = memchr(start, '\n', end - start);
	if (!eol)
		eol = end;
	*text = eol + 1;
	line->number++;
	line->key = trim(start, eol);
	line->value = NULL;
	if (*line->key == '#' || !*line->key) {
		line->key = NULL;
		return true;
	}
	eq = strchr(line->key, '=');
	if (eq) {
		line->value = trim(eq + 1, line->key + strlen(line->key));
		trim(line->key, eq);
	}
	return true;
}

static int apply_flag(const struct cli_slot *s, const struct config_line *line, const char *where)
{
	char shown[64];

	if (!strcmp(line->value, "yes") || !strcmp(line->value, "true"))
		return cli_apply_flag(s, true, where);
	if (!strcmp(line->value, "no") || !strcmp(line->value, "false"))
		return cli_apply_flag(s, false, where);
	log_printable(line->value, shown, sizeof(shown));
	log_err("bad %s '%s': expected yes or no", s->o->name, shown);
	return -EINVAL;
}

/* Lines already applied, by what they set: both forms of a flag set one
 * thing, so `symmetric = yes` and `no-symmetric = yes` contradict or
 * repeat each other, as one key given twice does.
 */
struct given {
	const void *setting[MAX_KEYS];
	const struct cli_option *option[MAX_KEYS];
	unsigned line[MAX_KEYS];
	int n;
};

static int apply_line(const struct cli_command *cmd, void *opts, const struct config_line *line,
		      const char *where, struct given *given)
{
	char shown[64], choices[128];
	const struct cli_option *o;
	const void *setting;
	struct cli_slot s;
	int i;

	log_printable(line->key, shown, sizeof(shown));
	if (!line->value || !*line->key) {
		log_err("expected KEY = VALUE, one option of cpusteer %s per line", cmd->name);
		return -EINVAL;
	}
	if (!strcmp(line->key, CONFIG_OPTION)) {
		log_err("'%s' cannot be given in a file: one file cannot name another", shown);
		return -EINVAL;
	}
	if (!cli_lookup(cmd, opts, line->key, &s)) {
		log_err("unknown key '%s': cpusteer %s has no option --%s (cpusteer %s --help)",
			shown, cmd->name, shown, cmd->name);
		return -EINVAL;
	}
	o = s.o;
	setting = cli_setting(&s);
	for (i = 0; i < given->n; i++) {
		if (given->setting[i] != setting)
			continue;
		if (given->option[i] == o)
			log_err("'%s' is given twice, also on line %u", shown, given->line[i]);
		else
			log_err("'%s' and '%s' on line %u are one flag: give one of them", shown,
				given->option[i]->name, given->line[i]);
		return -EINVAL;
	}
	if (given->n == MAX_KEYS) {
		log_err("more than %d options", MAX_KEYS);
		return -EINVAL;
	}
	given->setting[given->n] = setting;
	given->option[given->n] = o;
	given->line[given->n++] = line->number;
	if (!cli_takes_value(o))
		return apply_flag(&s, line, where);
	if (!*line->value) {
		log_err("'%s' needs a value: %s", shown, cli_value_shown(o, choices, sizeof(choices)));
		return -EINVAL;
	}
	return cli_apply(&s, line->value, where);
}

int config_text_apply(char *text, size_t len, const char *shown, const struct cli_command *cmd,
		      void *opts)
{
	struct config_line line = { 0 };
	char where[SHOWN_LEN + 16];
	struct given given = { .n = 0 };
	char *end = text + len;
	int err = 0;

	if (memchr(text, '\0', len)) {
		log_err("refusing %s: it holds a NUL byte, so it is not a text file", shown);
		return -EINVAL;
	}
	while (!err && next_line(&text, end, &line)) {
		if (!line.key && !line.value)
			continue;
		snprintf(where, sizeof(where), "%s:%u", shown, line.number);
		log_set_where(where);
		err = apply_line(cmd, opts, &line, where, &given);
		log_set_where(NULL);
	}
	return err;
}

int config_file_apply(const char *path, const struct cli_command *cmd, void *opts)
{
	char shown[SHOWN_LEN];
	size_t len;
	char *text;

	log_printable(path, shown, sizeof(shown));
	text = trusted_file_read(path, shown, CONFIG_MAX_BYTES, &len);
	/* Not freed: option parsers may keep pointers into their values, as
	 * they do into argv.
	 */
	return text ? config_text_apply(text, len, shown, cmd, opts) : -EINVAL;
}
