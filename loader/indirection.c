// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "indirection.h"

/* How far CPU i is below its ideal share nbuckets * w / W, times W so the
 * comparison stays in integers (at most 2^16 * 2^28: no overflow).
 */
static __s64 shortfall(const struct cpuset *set, __u32 nbuckets, __u64 total,
		       const __u32 *share, __u32 i)
{
	return (__s64)nbuckets * set->weight[i] - (__s64)share[i] * total;
}

/* The weighted CPU furthest below its ideal (most_below) or furthest above
 * it among those that can give one up, lowest index on ties; -1 if none.
 */
static int pick(const struct cpuset *set, __u32 nbuckets, __u64 total,
		const __u32 *share, bool most_below)
{
	int best = -1;
	__u32 i;

	for (i = 0; i < set->n; i++) {
		if (!set->weight[i] || (!most_below && share[i] <= 1))
			continue;
		if (best < 0 ||
		    (most_below ? shortfall(set, nbuckets, total, share, i) >
				  shortfall(set, nbuckets, total, share, best)
				: shortfall(set, nbuckets, total, share, i) <
				  shortfall(set, nbuckets, total, share, best)))
			best = i;
	}
	return best;
}

/* Largest-remainder apportionment with a floor of one bucket per weighted
 * CPU: a CPU of weight 1 beside one of weight 1000000 still gets traffic,
 * as its weight asks. Start from max(1, floor(ideal)); hand what is left
 * to the CPUs furthest below their ideal, or, when the floor of one took
 * more than there is, take back from those furthest above it. Shares then
 * add up to nbuckets exactly (if nbuckets is at least the number of
 * weighted CPUs) and, where the floor does not bind, differ from the ideal
 * by less than one. Returns false if no CPU has a weight.
 */
static bool compute_shares(const struct cpuset *set, __u32 nbuckets, __u32 *share)
{
	__u64 total = 0, given = 0;
	__u32 i;
	int p;

	for (i = 0; i < set->n; i++)
		total += set->weight[i];
	if (!total)
		return false;
	for (i = 0; i < set->n; i++) {
		share[i] = (__u64)nbuckets * set->weight[i] / total;
		if (!share[i] && set->weight[i])
			share[i] = 1;
		given += share[i];
	}
	for (; given < nbuckets; given++)
		share[pick(set, nbuckets, total, share, true)]++;
	for (; given > nbuckets && (p = pick(set, nbuckets, total, share, false)) >= 0; given--)
		share[p]--;
	return true;
}

static int index_of(const struct cpuset *set, __u32 cpu)
{
	__u32 i;

	for (i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu)
			return i;
	return -1;
}

__u32 indirection_rebalance(__u32 *table, __u32 nbuckets, const struct cpuset *set)
{
	__u32 share[CPUSTEER_MAX_CPUS], held[CPUSTEER_MAX_CPUS] = {};
	__u32 b, i, moved = 0;

	if (!compute_shares(set, nbuckets, share))
		return 0;

	/* Keep every bucket whose owner stays and is within its share. */
	for (b = 0; b < nbuckets; b++) {
		int idx = index_of(set, table[b]);

		if (idx >= 0 && held[idx] < share[idx])
			held[idx]++;
		else
			table[b] = BUCKET_UNOWNED;
	}
	/* Hand each freed bucket to the CPU with the largest shortfall; the
	 * lowest index wins ties, which interleaves a fresh table.
	 */
	for (b = 0; b < nbuckets; b++) {
		__u32 best = 0;

		if (table[b] != BUCKET_UNOWNED)
			continue;
		for (i = 1; i < set->n; i++)
			if ((__s64)share[i] - held[i] > (__s64)share[best] - held[best])
				best = i;
		table[b] = set->cpu[best];
		held[best]++;
		moved++;
	}
	return moved;
}

void indirection_count(const __u32 *table, __u32 nbuckets,
		       const struct cpuset *set, __u32 *owned)
{
	__u32 b;

	for (b = 0; b < set->n; b++)
		owned[b] = 0;
	for (b = 0; b < nbuckets; b++) {
		int idx = index_of(set, table[b]);

		if (idx >= 0)
			owned[idx]++;
	}
}
