// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "indirection.h"

#define HASH_SPACE (1ULL << 32)

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

/* First hash of bucket j of n, ceil(j * 2^32 / n); j = n gives 2^32. The
 * inverse of cpusteer_bucket().
 */
static __u64 bucket_start(__u32 j, __u32 n)
{
	return (((__u64)j << 32) + n - 1) / n;
}

void indirection_resize(const __u32 *old_table, __u32 old_n, __u32 *new_table, __u32 new_n)
{
	__u64 lo, hi, from, to, best_len;
	__u32 i, j, best;

	for (j = 0; j < new_n; j++) {
		lo = bucket_start(j, new_n);
		hi = bucket_start(j + 1, new_n);
		best = cpusteer_bucket(lo, old_n);
		best_len = 0;
		/* Old buckets from the one holding lo to the one holding hi - 1:
		 * consecutive new buckets share at most one, so the whole
		 * resize is O(old_n + new_n).
		 */
		for (i = best; i < old_n && bucket_start(i, old_n) < hi; i++) {
			from = bucket_start(i, old_n) > lo ? bucket_start(i, old_n) : lo;
			to = bucket_start(i + 1, old_n) < hi ? bucket_start(i + 1, old_n) : hi;
			if (to - from > best_len) {
				best_len = to - from;
				best = i;
			}
		}
		new_table[j] = old_table[best];
	}
}

double indirection_moved_fraction(const __u32 *old_table, __u32 old_n,
				  const __u32 *new_table, __u32 new_n)
{
	__u64 pos = 0, old_end, new_end, end, moved = 0;
	__u32 i = 0, j = 0;

	/* Walk the two partitions of the hash space side by side: each piece
	 * between consecutive boundaries lies in one bucket of each table.
	 */
	while (i < old_n && j < new_n) {
		old_end = bucket_start(i + 1, old_n);
		new_end = bucket_start(j + 1, new_n);
		end = old_end < new_end ? old_end : new_end;
		if (old_table[i] != new_table[j])
			moved += end - pos;
		pos = end;
		i += old_end == end;
		j += new_end == end;
	}
	/* moved is at most 2^32, so the quotient is exact in a double. */
	return (double)moved / HASH_SPACE;
}

struct cpu_space {
	__u32 cpu;
	__u64 in_old, in_new;	/* hash values owned in each table */
};

static int by_cpu(const void *a, const void *b)
{
	const struct cpu_space *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

double indirection_rehash_moved_fraction(const __u32 *old_table, __u32 old_n,
					 const __u32 *new_table, __u32 new_n)
{
	struct cpu_space *s = calloc((size_t)old_n + new_n, sizeof(*s));
	double stay = 0, in_old, in_new;
	__u32 i, k, n = old_n + new_n;

	if (!s)
		return -1;
	/* One row per bucket, sorted so each CPU's rows are adjacent: table
	 * entries are arbitrary numbers, so there is no array to index.
	 */
	for (i = 0; i < old_n; i++) {
		s[i].cpu = old_table[i];
		s[i].in_old = bucket_start(i + 1, old_n) - bucket_start(i, old_n);
	}
	for (i = 0; i < new_n; i++) {
		s[old_n + i].cpu = new_table[i];
		s[old_n + i].in_new = bucket_start(i + 1, new_n) - bucket_start(i, new_n);
	}
	qsort(s, n, sizeof(*s), by_cpu);
	for (i = 0; i < n; i = k) {
		in_old = in_new = 0;
		for (k = i; k < n && s[k].cpu == s[i].cpu; k++) {
			in_old += s[k].in_old;
			in_new += s[k].in_new;
		}
		stay += in_old / HASH_SPACE * (in_new / HASH_SPACE);
	}
	free(s);
	return 1 - stay;
}
