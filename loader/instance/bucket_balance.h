/* SPDX-License-Identifier: GPL-2.0 */
/* Balancing by measured load. A hash spreads flows, not packets: a few
 * heavy flows can overload the CPU their buckets share while the table's
 * shares are exact. Given each bucket's packets over an interval, this
 * plans bucket moves that bring the most loaded CPU within a threshold of
 * its weighted target, greedily: each move is the best single one, and
 * moving stops as soon as the threshold is met, so few flows are
 * reordered (the approach of RSS++, Barbette et al., CoNEXT 2019).
 * Pure: no maps, no allocation; the same input gives the same plan.
 */
#ifndef CPUSTEER_BUCKET_BALANCE_H
#define CPUSTEER_BUCKET_BALANCE_H

#include <linux/types.h>
#include "cpuset.h"

struct bucket_move {
	__u32 bucket;
	__u32 from, to;		/* CPU numbers */
	__u64 load;		/* the bucket's load in the interval */
};

struct balance_input {
	const __u32 *table;	/* owner CPU of each of nbuckets buckets */
	const __u64 *load;	/* each bucket's load (packets) over the interval */
	__u32 nbuckets;
	const struct cpuset *cpus;	/* the instance's CPUs and weights */
	/* the most loaded CPU may sit this fraction above its target: 0.1 = 10% */
	double threshold;
	__u32 max_moves;
};

/* Why a plan ended. Names, for text and JSON, from balance_stop_name(). */
enum balance_stop {
	BALANCE_BALANCED,	/* every CPU within the threshold of its target */
	BALANCE_NO_LOAD,	/* no load on a CPU the plan may balance */
	BALANCE_MAX_MOVES,	/* max_moves reached while still above the threshold */
	BALANCE_NO_BETTER_MOVE,	/* every move left the peak no lower */
};

struct balance_plan {
	struct bucket_move *moves;	/* caller's array of max_moves entries */
	__u32 nmoves;
	__u64 total;			/* sum of load over all buckets */
	/* Of total, the load of buckets owned by a CPU outside the set or of
	 * weight 0: counted in no CPU's load, never moved.
	 */
	__u64 stranded;
	/* per CPU, in cpus->cpu[] order: load before and after the moves
	 * (0 for a CPU of weight 0); after sums to total - stranded
	 */
	__u64 before[CPUSTEER_MAX_CPUS], after[CPUSTEER_MAX_CPUS];
	/* highest load / target over the CPUs with weight > 0; 0 with no load */
	double peak_before, peak_after;
	enum balance_stop stop;
};

/* Plans the moves and writes new_table[0..nbuckets): in->table with the
 * moves applied. new_table may be in->table itself (the table is then
 * changed in place) or an array that does not overlap it.
 *
 * A CPU's target is its weight's share of the load the plan can move,
 * total - stranded: buckets of CPUs outside the set or of weight 0 do not
 * occur in a table that `set` wrote, and if they do, their load is no
 * CPU's to balance. While the CPU of highest load / target (first in set
 * order on ties) is above 1 + threshold, one of its buckets moves to the
 * CPU of lowest ratio (first on ties): the bucket that leaves the higher
 * of the two ratios lowest; on ties the lighter bucket, then the lower
 * index. A move must lower that ratio, so an elephant larger than a
 * CPU's target stays where it is and no bucket moves back and forth.
 *
 * plan->moves may be NULL when max_moves is 0, which reports the load
 * and stops with BALANCE_MAX_MOVES (or a reason found before any move).
 * Returns 0; -EINVAL for bad input (NULL pointers, nbuckets 0, no CPU of
 * weight > 0, a CPU listed twice, a threshold below 0 or NaN); -EOVERFLOW
 * if the loads' sum does not fit in 64 bits. On error new_table is left
 * as it was and plan is undefined.
 */
int bucket_balance_plan(const struct balance_input *in, __u32 *new_table,
			struct balance_plan *plan);

/* "balanced", "no_load", "max_moves", "no_better_move"; "unknown" for any
 * other value. Part of the JSON schema: names are never changed.
 */
const char *balance_stop_name(enum balance_stop s);

#endif
