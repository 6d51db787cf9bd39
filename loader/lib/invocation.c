// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "invocation.h"
#include "log.h"

/* The words as given: getopt_long later permutes argv's pointers (the
 * operand after the options), not the strings they point at.
 */
#define MAX_WORDS 64
static int saved_argc;
static const char *saved_argv[MAX_WORDS];

void invocation_record(int argc, char *const argv[])
{
	int i;

	saved_argc = argc < MAX_WORDS ? argc : MAX_WORDS;
	for (i = 0; i < saved_argc; i++)
		saved_argv[i] = argv[i];
}

/* Words of only these characters read the same to a shell unquoted. */
static bool needs_quotes(const char *word)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789-_./:=,@%+";

	return !*word || strspn(word, plain) != strlen(word);
}

/* `word` between single quotes, each quote in it written '\'' */
static void quote(const char *word, char *out, size_t len)
{
	size_t used = 0;

	used += snprintf(out + used, len - used, "'");
	for (; *word && used < len; word++)
		used += snprintf(out + used, len - used, *word == '\'' ? "'\\''" : "%c", *word);
	if (used < len)
		snprintf(out + used, len - used, "'");
}

void invocation_format(const char *fallback, char *out, size_t len)
{
	char quoted[512], shown[4 * sizeof(quoted)];
	size_t used = 0;
	int i;

	if (!saved_argc) {
		snprintf(out, len, "%s", fallback);
		return;
	}
	out[0] = '\0';
	for (i = 0; i < saved_argc && used < len; i++) {
		if (needs_quotes(saved_argv[i]))
			quote(saved_argv[i], quoted, sizeof(quoted));
		else
			snprintf(quoted, sizeof(quoted), "%s", saved_argv[i]);
		log_printable(quoted, shown, sizeof(shown));
		used += snprintf(out + used, len - used, "%s%s", i ? " " : "", shown);
	}
}
