// SPDX-License-Identifier: GPL-2.0
/* The indirection table in user space: shares from weights, and minimal
 * moves when CPUs come and go.
 */
#include <math.h>
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


/* ---- shares from weights ---- */

/* Buckets per CPU when a fresh table of nbuckets is filled for weights w. */
static void shares(const __u32 *w, __u32 n, __u32 nbuckets, __u32 *owned)
{
	__u32 *table = malloc(nbuckets * sizeof(*table)), b;
	struct cpuset set;

	fake_cpus(&set, n);
	memcpy(set.weight, w, n * sizeof(*w));
	for (b = 0; b < nbuckets; b++)
		table[b] = BUCKET_UNOWNED;
	indirection_rebalance(table, nbuckets, &set);
	indirection_count(table, nbuckets, &set, owned);
	free(table);
}

static void weights_100_1_over_2_buckets_give_one_each(void)
{
	static const __u32 w[] = { 100, 1 };
	__u32 owned[2];

	shares(w, 2, 2, owned);
	ASSERT_EQ(owned[0], 1, "buckets of the CPU of weight 100");
	ASSERT_EQ(owned[1], 1, "buckets of the CPU of weight 1");
}

static void weights_1000000_1_1_1_over_512_give_every_cpu_a_bucket(void)
{
	static const __u32 w[] = { 1000000, 1, 1, 1 };
	__u32 owned[4], i, total = 0;

	shares(w, 4, 512, owned);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(owned[i] >= 1, "every weighted CPU owns a bucket");
		total += owned[i];
	}
	ASSERT_EQ(total, 512, "buckets owned in all");
	ASSERT_EQ(owned[0], 509, "buckets of the CPU of weight 1000000");
	ASSERT_EQ(owned[1], 1, "buckets of a CPU of weight 1");
}

static void weights_5_1_1_over_3_buckets_give_one_each(void)
{
	static const __u32 w[] = { 5, 1, 1 };
	__u32 owned[3], i;

	shares(w, 3, 3, owned);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(owned[i], 1, "buckets per CPU when there are as many as CPUs");
}

static void zero_weight_cpu_gets_no_bucket(void)
{
	static const __u32 w[] = { 0, 1, 1 };
	__u32 owned[3];

	shares(w, 3, 512, owned);
	ASSERT_EQ(owned[0], 0, "buckets of the CPU of weight 0");
	ASSERT_EQ(owned[1], 256, "buckets of a CPU of weight 1");
	ASSERT_EQ(owned[2], 256, "buckets of a CPU of weight 1");
}

/* Random weights and sizes: every weighted CPU at least one bucket, none
 * for weight 0, the total exact, and within one of the ideal wherever the
 * floor of one bucket does not bind.
 */
static void shares_within_one_of_ideal_and_total_exact(void)
{
	__u32 w[16], owned[16], n, nb, i, k, total, wsum, bad = 0;
	bool floor_binds;
	double ideal;

	rng_seed(5);
	for (k = 0; k < 300; k++) {
		n = 1 + rng() % 16;
		wsum = 0;
		for (i = 0; i < n; i++) {
			/* Mostly small weights, some huge, some zero. */
			w[i] = rng() % 4 ? rng() % 10 : rng() % 1000001;
			wsum += w[i];
		}
		if (!wsum)
			w[0] = wsum = 1;
		nb = n + rng() % (k % 2 ? 64 : 4096);
		shares(w, n, nb, owned);
		floor_binds = false;
		for (i = 0; i < n; i++)
			floor_binds |= w[i] && (double)nb * w[i] / wsum < 1;
		total = 0;
		for (i = 0; i < n; i++) {
			ideal = (double)nb * w[i] / wsum;
			total += owned[i];
			if ((w[i] && !owned[i]) || (!w[i] && owned[i]) ||
			    (!floor_binds && fabs(owned[i] - ideal) >= 1)) {
				if (bad++ < 5)
					printf("#   %u buckets, CPU %u of %u, weight %u of %u: owns %u, ideal %.3f\n",
					       nb, i, n, w[i], wsum, owned[i], ideal);
			}
		}
		ASSERT_EQ(total, nb, "buckets owned in all");
	}
	ASSERT_EQ(bad, 0, "shares off their ideal, or a weighted CPU without a bucket");
}

int main(void)
{
	RUN_TEST(rebalance_adding_cpu_moves_only_its_share);
	RUN_TEST(rebalance_removing_cpu_moves_only_its_buckets);
	RUN_TEST(weights_100_1_over_2_buckets_give_one_each);
	RUN_TEST(weights_1000000_1_1_1_over_512_give_every_cpu_a_bucket);
	RUN_TEST(weights_5_1_1_over_3_buckets_give_one_each);
	RUN_TEST(zero_weight_cpu_gets_no_bucket);
	RUN_TEST(shares_within_one_of_ideal_and_total_exact);
	return tu_total_failed ? 1 : 0;
}
