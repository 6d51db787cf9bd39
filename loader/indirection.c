// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "indirection.h"

/* Largest-remainder apportionment: shares add up to nbuckets exactly and
 * differ from the ideal nbuckets * w / W by less than one.
 */
static void compute_shares(const struct cpuset *set, __u32 nbuckets, __u32 *share)
{
	__u64 total = 0, given = 0, rem[CPUSTEER_MAX_CPUS];
	__u32 i;

	for (i = 0; i < set->n; i++)
		total += set->weight[i];
	for (i = 0; i < set->n; i++) {
		__u64 scaled = (__u64)nbuckets * set->weight[i];

		share[i] = scaled / total;
		rem[i] = scaled % total;
		given += share[i];
	}
	while (given < nbuckets) {
		__u32 best = 0;

		for (i = 1; i < set->n; i++)
			if (rem[i] > rem[best])
				best = i;
		share[best]++;
		rem[best] = 0;
		given++;
	}
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

	compute_shares(set, nbuckets, share);

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
			if (share[i] - held[i] > share[best] - held[best])
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
