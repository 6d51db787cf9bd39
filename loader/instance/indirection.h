/* SPDX-License-Identifier: GPL-2.0 */
/* The indirection table: hash buckets mapped to CPUs in proportion to
 * their weights, like a NIC's RSS table. Rebalancing moves only the
 * buckets that must move; resizing keeps each flow's CPU where the new
 * size allows.
 */
#ifndef CPUSTEER_INDIRECTION_H
#define CPUSTEER_INDIRECTION_H

#include <stdbool.h>
#include <linux/types.h>
#include "cpuset.h"

/* Entry value for a bucket that no CPU owns yet. */
#define BUCKET_UNOWNED 0xffffffffu

/* Rewrites table[0..nbuckets) for the CPUs and weights in `set`. Each CPU
 * with a non-zero weight gets at least one bucket (given nbuckets is at
 * least the number of such CPUs), and otherwise a share as close to
 * nbuckets * w / W as whole buckets allow. Entries that already name a
 * CPU of the set are kept while that CPU is within its share; the rest
 * are handed to the CPUs furthest below theirs. A table of BUCKET_UNOWNED
 * entries is filled interleaved (0,1,2,0,1,2,...). A set where no CPU has
 * a weight leaves the table alone.
 * Returns how many buckets changed owner (new buckets included).
 */
__u32 indirection_rebalance(__u32 *table, __u32 nbuckets, const struct cpuset *set);

/* How many buckets each CPU of `set` owns, in set order. */
void indirection_count(const __u32 *table, __u32 nbuckets,
		       const struct cpuset *set, __u32 *owned);

/* Seeds new_table[0..new_n) from old_table[0..old_n) so that each flow
 * keeps its CPU wherever the new size allows. The program puts a hash in
 * bucket cpusteer_bucket(hash, n), so bucket j covers the hashes from
 * ceil(j * 2^32 / n) up to the next bucket's first; each new bucket takes
 * the owner of the old bucket covering the largest part of its range
 * (ties: the lower old bucket). Doubling the size moves no flow; halving
 * keeps the first half of each new bucket. indirection_rebalance then
 * corrects the shares.
 */
void indirection_resize(const __u32 *old_table, __u32 old_n, __u32 *new_table, __u32 new_n);

/* The exact fraction of the 2^32 hash values whose entry differs between
 * the two tables, for the same hash function and key.
 */
double indirection_moved_fraction(const __u32 *old_table, __u32 old_n,
				  const __u32 *new_table, __u32 new_n);

/* The expected fraction of flows that change CPU when every flow is
 * hashed anew (another key, hash function or symmetric mode) and the
 * table changes from old to new: a flow stays only by chance, so this is
 * 1 - the sum over CPUs of (share of hash space in old) * (share in new).
 * Returns a negative value if memory runs out.
 */
double indirection_rehash_moved_fraction(const __u32 *old_table, __u32 old_n,
					 const __u32 *new_table, __u32 new_n);

#endif
