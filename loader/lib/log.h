/* SPDX-License-Identifier: GPL-2.0 */
/* Messages to people: one line on stderr per problem, "cpusteer: what: why". */
#ifndef CPUSTEER_LOG_H
#define CPUSTEER_LOG_H

#include <stdbool.h>
#include <stddef.h>

extern bool log_verbose;

/* None of these changes errno, even when the write fails: a caller may
 * report a failure and then return -errno.
 */
__attribute__((format(printf, 1, 2))) void log_err(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);
/* "cpusteer: note: ..." on stderr: how a command went about its work when
 * that is not what the user would assume, without spoiling its output.
 */
__attribute__((format(printf, 1, 2))) void log_note(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_debug(const char *fmt, ...);

/* Until set back to NULL, log_err's lines start with `where` (such as
 * "FILE:LINE"): a value's parser says what is wrong with it, and this
 * says where it was written.
 */
void log_set_where(const char *where);

/* `in` with every byte outside printable ASCII, and the backslash,
 * written as \xNN, cut to fit `len`: names and arguments from the command
 * line or the system may hold terminal controls.
 */
void log_printable(const char *in, char *out, size_t len);

/* One line and -EPERM unless running as root. */
int require_root(const char *command);

/* Route libbpf's and libxdp's own output through -v. */
void log_setup_libs(void);

#endif
