/* SPDX-License-Identifier: GPL-2.0 */
/* The steering program's counters, each declared once: where it sits in
 * the value of the counters map (struct cpusteer_counters, then a
 * redirect slot per possible CPU), its name, the sum it adds to, its help
 * line and unit, and where each output shows it. The stats table and
 * JSON, status's text and JSON and the exporter iterate this table, so a
 * new counter is one entry here (selftests/test_counters.c fails while a
 * field of struct cpusteer_counters has none, and test_steer_counters
 * while no frame makes one move).
 */
#ifndef CPUSTEER_COUNTERS_H
#define CPUSTEER_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "cpusteer.h"

/* The sum a counter adds to. Every packet counts once as received and
 * once as redirected, passed or an error, so these three add up to the
 * received count; a note counts packets already counted, once more.
 */
enum counter_group {
	COUNTER_RECEIVED,
	COUNTER_REDIRECTED,
	COUNTER_PASSED,
	COUNTER_ERROR,
	COUNTER_NOTE,
};

/* When status's text shows a counter; its JSON always does. */
enum counter_shown {
	SHOWN_ALWAYS,
	SHOWN_WITH_INNER,	/* --inner names a tunnel */
	SHOWN_WITH_NIC_HASH,	/* --hash nic */
};

struct counter_desc {
	/* Its member of struct cpusteer_counters; NULL for the redirect
	 * slots, which follow the struct.
	 */
	const char *field;
	size_t offset;		/* of its first __u64 in the map's value */
	/* Its __u64s: 1 for a single counter, an array's entries, or 0 for
	 * one per possible CPU (the redirect slots, by target CPU).
	 */
	__u32 n;
	const char *(*entry_name)(__u32 index);	/* an array's */
	enum counter_group group;
	const char *help;	/* a line: the exporter's HELP */
	const char *unit;	/* what one count is, as a metric name says it */

	/* Where the outputs show it; NULL: not there, or (received and the
	 * redirect slots, which go by CPU) by code of their own.
	 */
	const char *title;		/* stats table: its block's header */
	const char *json_key;		/* stats --json: in each per-CPU object */
	const char *json_total_key;	/* stats --json "totals"; status --json */
	const char *status;		/* status text: its line's label */
	enum counter_shown shown;	/* status text: when */
	const char *metric;		/* exporter: cpusteer_METRIC_UNIT_total */
	const char *label;		/* exporter: what names an array's entries */
	bool per_cpu;	/* exporter: a series per CPU, not the sum over CPUs */
};

extern const struct counter_desc counter_descs[];
extern const size_t ncounter_descs;

#define for_each_counter(d) for ((d) = counter_descs; (d) < counter_descs + ncounter_descs; (d)++)

/* The name of entry `i`: an array's entry, or a single counter's field. */
const char *counter_entry_name(const struct counter_desc *d, __u32 i);

/* Entry `i` of counter `d` in `c` (not for the redirect slots, which
 * are past struct cpusteer_counters).
 */
static inline __u64 counter_value(const struct counter_desc *d, const struct cpusteer_counters *c,
				  __u32 i)
{
	return ((const __u64 *)((const char *)c + d->offset))[i];
}

#endif
