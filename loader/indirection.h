/* SPDX-License-Identifier: GPL-2.0 */
/* The indirection table: hash buckets mapped to CPUs in proportion to
 * their weights, like a NIC's RSS table. Rebalancing moves only the
 * buckets that must move.
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

#endif
