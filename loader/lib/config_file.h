/* SPDX-License-Identifier: GPL-2.0 */
/* Configuration files: a command's long options written one per line as
 *
 *   # a comment
 *   cpus = 0-3
 *   symmetric = yes
 *
 * Each key is the name of an option of the command, each value what the
 * command line would take after it; a flag takes yes or no (also true or
 * false), and no gives its other form (`symmetric = no` is
 * --no-symmetric). The values go through the options' own parsers, so a
 * file accepts and refuses exactly what the command line does. A bad line
 * is one message, "FILE:LINE: what is wrong"; each value applied records
 * that place (cli_blame), for the checks made after parsing.
 *
 * Root acts on what the file says, so the file must be one that only root
 * (or the caller) can have written: a regular file, not a link, owned by
 * root or the caller and not writable by group or others, in folders
 * where no one else can replace it (the same rule as sshd's StrictModes;
 * a sticky folder such as /tmp qualifies).
 */
#ifndef CPUSTEER_CONFIG_FILE_H
#define CPUSTEER_CONFIG_FILE_H

#include "cli.h"

/* The option that names the file, which a file cannot give itself. */
#define CONFIG_OPTION "config"
#define CONFIG_MAX_BYTES (64 * 1024)

/* Applies every line of the file at `path` to `opts` as options of
 * `cmd`. Returns 0, or a negative errno after one line on stderr.
 */
int config_file_apply(const char *path, const struct cli_command *cmd, void *opts);

/* The same for a file's text already in memory, `len` bytes with one
 * more writable after them; `shown` names it in messages. The text is
 * cut into its values in place and must outlive `opts`, which may point
 * into it. The selftests give it text directly.
 */
int config_text_apply(char *text, size_t len, const char *shown,
		      const struct cli_command *cmd, void *opts);

/* The text of the file at `path`, refused unless it is one that only root
 * or the caller can have written (the rule above), at most `max` bytes,
 * NUL-terminated, to free. NULL after one line that names it as `shown`.
 * For every file root acts on: configuration files and key files.
 */
char *trusted_file_read(const char *path, const char *shown, size_t max, size_t *len);
/* The same for what is left to read of `fd`, which the caller gave and
 * so needs no check (standard input).
 */
char *trusted_fd_read(int fd, const char *shown, size_t max, size_t *len);

#endif
