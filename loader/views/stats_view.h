/* SPDX-License-Identifier: GPL-2.0 */
/* What one block of `cpusteer stats` output is drawn from, and its two
 * forms: the table for people (stats_table.c) and one JSON object per
 * interval (stats_json.c), both summing samples as sample.h does.
 * stats.c samples the counters and fills the view; the views never touch
 * the instance.
 */
#ifndef CPUSTEER_STATS_VIEW_H
#define CPUSTEER_STATS_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "sample.h"
#include "trace.h"

struct stats_view {
	const char *ifname;		/* as the kernel has it, for JSON */
	const char *ifname_shown;	/* escaped for a terminal (log.h) */
	const char *hash;		/* the flow hash in force, by name */
	int ncpus;
	bool extended;			/* --extended: rows at zero, per-CPU rows */
	bool *configured;		/* [cpu]: a target of the instance's set */
	bool remote_configured;		/* the cpumap entries carry a program */
	const struct tracer *tracer;	/* which tracepoints count */
	struct stats_sample delta;	/* over the last interval */
	struct stats_sample total;	/* since stats started */
	/* The table's per-CPU rows: those of cpus[0..ncpus_shown), in that
	 * order, and a last line saying how many CPUs with figures were left
	 * out. The totals and the JSON cover every CPU.
	 */
	const int *cpus;
	int ncpus_shown;
	int cpus_left_out;
};

#define for_each_shown_cpu(v, i, cpu) \
	for ((i) = 0; (i) < (v)->ncpus_shown && ((cpu) = (v)->cpus[i], 1); (i)++)

static inline double per_second(__u64 count, double dt)
{
	return dt > 0 ? count / dt : 0;
}

void stats_print_table(FILE *f, const struct stats_view *v, double dt, const struct timespec *wall);
void stats_print_json(const struct stats_view *v, double dt, const struct timespec *wall);

#endif
