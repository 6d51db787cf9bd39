/* SPDX-License-Identifier: GPL-2.0 */
/* The command line this process runs, for hints that tell the operator
 * what to run instead (in another network namespace, say): the same
 * command with every option it was given, not a shorter one that would
 * do something else.
 */
#ifndef CPUSTEER_INVOCATION_H
#define CPUSTEER_INVOCATION_H

#include <stddef.h>

/* Remembers argv[0..argc-1], the words after "cpusteer". */
void invocation_record(int argc, char *const argv[]);

/* The remembered words, each quoted for a POSIX shell where it needs it
 * and made printable (log_printable), separated by spaces; `fallback`
 * when nothing was remembered (code run outside the command line).
 */
void invocation_format(const char *fallback, char *out, size_t len);

#endif
