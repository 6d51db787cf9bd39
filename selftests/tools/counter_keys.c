// SPDX-License-Identifier: GPL-2.0
/* Prints, a line each, the keys under which `cpusteer status --json`
 * gives the steering counters, from the counter registry itself
 * (loader/instance/counters.c): a test that snapshots an instance's
 * configuration leaves these out, since traffic moves them, and learns
 * of a new counter with no list to keep.
 */
#include <stdio.h>
#include "counters.h"

int main(void)
{
	const struct counter_desc *c;

	for_each_counter(c)
		if (c->status)
			printf("%s\n", c->json_total_key);
	return 0;
}
