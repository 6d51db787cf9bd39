// SPDX-License-Identifier: GPL-2.0
/* kernel_log_kinds: reads kernel messages, one per line and without the
 * record prefix (`dmesg --notime`), and prints how many of each alarming
 * kind there were, as "kind count" lines, then up to KERNEL_LOG_KEEP of
 * the alarming lines, each after "line ". The kinds are the benchmark's
 * (loader/bench/kernel_log.c), so a kernel test run and a bench count the
 * same things.
 */
#include <stdio.h>
#include <string.h>
#include "kernel_log.h"

int main(void)
{
	unsigned int count[KL_KINDS] = { 0 }, kept = 0;
	char line[1024], first[KERNEL_LOG_KEEP][200];
	int kind;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		kind = kernel_log_classify(line);
		if (kind < 0)
			continue;
		count[kind]++;
		/* Kept cut to the bench's length: enough to find it in the log. */
		if (kept < KERNEL_LOG_KEEP)
			snprintf(first[kept++], sizeof(first[0]), "%.*s", (int)sizeof(first[0]) - 1,
				 line);
	}
	for (kind = 0; kind < KL_KINDS; kind++)
		printf("%s %u\n", kernel_log_kind_name(kind), count[kind]);
	for (unsigned int i = 0; i < kept; i++)
		printf("line %s\n", first[i]);
	return ferror(stdin) ? 1 : 0;
}
