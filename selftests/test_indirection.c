// SPDX-License-Identifier: GPL-2.0
/* The indirection table in user space: minimal moves when CPUs come and
 * go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpusteer.h"
#include "cpuset.h"
#include "indirection.h"
#include "test_util.h"

/* splitmix64, for reproducible pseudo-random hashes. */
static __u64 rng_state;

static void rng_seed(__u64 seed)
{
	rng_state = seed;
}

static __u32 rng(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (__u32)((z ^ (z >> 31)) >> 16);
}

/* ---- minimal movement of the indirection table ---- */

#define RB_BUCKETS 512

/* Fake CPU numbers, not 0..N-1, so positions and numbers cannot mix. */
static void fake_cpus(struct cpuset *set, int n)
{
	int i;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < n; i++) {
		set->cpu[i] = 3 + 7 * i;
		set->weight[i] = 1;
	}
	set->n = n;
}

static void fresh_table(__u32 *table, const struct cpuset *set)
{
	int b;

	for (b = 0; b < RB_BUCKETS; b++)
		table[b] = BUCKET_UNOWNED;
	indirection_rebalance(table, RB_BUCKETS, set);
}

/* hash % n placement of the same buckets' worth of flows, for contrast. */
static int modulo_moves(int n_before, int n_after)
{
	int i, moved = 0;
	__u32 h;

	rng_seed(99);
	for (i = 0; i < RB_BUCKETS; i++) {
		h = rng();
		moved += h % n_before != h % n_after;
	}
	return moved;
}

static void rebalance_adding_cpu_moves_only_its_share(void)
{
	__u32 before[RB_BUCKETS], after[RB_BUCKETS], owned[CPUSTEER_MAX_CPUS];
	struct cpuset set;
	char what[96];
	int n, b, changed, to_new, mod;
	__u32 moved, newcpu;
	double ideal;

	for (n = 2; n <= 7; n++) {
		fake_cpus(&set, n);
		fresh_table(before, &set);
		memcpy(after, before, sizeof(after));
		fake_cpus(&set, n + 1);
		newcpu = set.cpu[n];
		moved = indirection_rebalance(after, RB_BUCKETS, &set);
		changed = to_new = 0;
		for (b = 0; b < RB_BUCKETS; b++) {
			changed += before[b] != after[b];
			to_new += before[b] != after[b] && after[b] == newcpu;
		}
		indirection_count(after, RB_BUCKETS, &set, owned);
		ideal = (double)RB_BUCKETS / (n + 1);
		snprintf(what, sizeof(what), "%d -> %d CPUs: returned count", n, n + 1);
		ASSERT_EQ(moved, changed, what);
		snprintf(what, sizeof(what), "%d -> %d CPUs: buckets moved, all to the new CPU", n, n + 1);
		ASSERT_EQ(to_new, changed, what);
		snprintf(what, sizeof(what), "%d -> %d CPUs: moved equals the new CPU's share", n, n + 1);
		ASSERT_EQ(moved, owned[n], what);
		snprintf(what, sizeof(what), "%d -> %d CPUs: moved %u within 1 of %.1f", n, n + 1,
			 moved, ideal);
		ASSERT_TRUE(moved >= ideal - 1 && moved <= ideal + 1, what);
		mod = modulo_moves(n, n + 1);
		snprintf(what, sizeof(what), "%d -> %d CPUs: hash %% n moves %d of %d, table %u", n,
			 n + 1, mod, RB_BUCKETS, moved);
		ASSERT_TRUE(mod > RB_BUCKETS / 2 && 2 * (__u32)mod >= 3 * moved, what);
	}
}

static void rebalance_removing_cpu_moves_only_its_buckets(void)
{
	__u32 before[RB_BUCKETS], after[RB_BUCKETS], owned[CPUSTEER_MAX_CPUS];
	struct cpuset full, set;
	char what[96];
	int n, gone, b, changed, from_gone, held, i, mod;
	__u32 moved, gonecpu;

	for (n = 2; n <= 7; n++) {
		for (gone = 0; gone <= n; gone += n) {	/* first and last */
			fake_cpus(&full, n + 1);
			fresh_table(before, &full);
			memcpy(after, before, sizeof(after));
			gonecpu = full.cpu[gone];
			memset(&set, 0, sizeof(set));
			for (i = 0; i <= n; i++) {
				if (i == gone)
					continue;
				set.cpu[set.n] = full.cpu[i];
				set.weight[set.n++] = 1;
			}
			moved = indirection_rebalance(after, RB_BUCKETS, &set);
			changed = from_gone = held = 0;
			for (b = 0; b < RB_BUCKETS; b++) {
				changed += before[b] != after[b];
				from_gone += before[b] != after[b] && before[b] == gonecpu;
				held += before[b] == gonecpu;
			}
			snprintf(what, sizeof(what), "%d -> %d CPUs, CPU %u removed: returned count",
				 n + 1, n, gonecpu);
			ASSERT_EQ(moved, changed, what);
			snprintf(what, sizeof(what), "%d -> %d CPUs, CPU %u removed: moved only its buckets",
				 n + 1, n, gonecpu);
			ASSERT_EQ(from_gone, changed, what);
			ASSERT_EQ(moved, held, what);
			indirection_count(after, RB_BUCKETS, &set, owned);
			for (i = 0; i < n; i++) {
				snprintf(what, sizeof(what), "%d CPUs: CPU %u owns within 1 of %d", n,
					 set.cpu[i], RB_BUCKETS / n);
				ASSERT_TRUE(owned[i] >= (__u32)RB_BUCKETS / n &&
					    owned[i] <= (__u32)RB_BUCKETS / n + 1, what);
			}
			mod = modulo_moves(n + 1, n);
			snprintf(what, sizeof(what), "%d -> %d CPUs: hash %% n moves %d, table %u",
				 n + 1, n, mod, moved);
			ASSERT_TRUE(mod > RB_BUCKETS / 2 && 2 * (__u32)mod >= 3 * moved, what);
		}
	}
}


int main(void)
{
	RUN_TEST(rebalance_adding_cpu_moves_only_its_share);
	RUN_TEST(rebalance_removing_cpu_moves_only_its_buckets);
	return tu_total_failed ? 1 : 0;
}
