// SPDX-License-Identifier: GPL-2.0
/* The indirection table in user space: shares from weights, minimal
 * moves when CPUs come and go, and resizing that keeps flows on their CPU.
 *
 * "Moved" is measured two ways that must agree: exactly, by
 * indirection_moved_fraction over the 2^32 hash values, and by brute
 * force, sending pseudo-random hashes through cpusteer_bucket() in both
 * tables as the BPF program would.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpusteer.h"
#include "cpuset.h"
#include "indirection.h"
#include "test_util.h"


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

/* ---- resizing and the fraction of flows moved ---- */

#define BRUTE_HASHES 100000

/* CPUs first..last, weight 1. */
static void cpu_range(struct cpuset *set, __u32 first, __u32 last)
{
	memset(set, 0, sizeof(*set));
	for (; first <= last; first++) {
		set->cpu[set->n] = first;
		set->weight[set->n++] = 1;
	}
}

/* A table as load fills one. */
static __u32 *fresh(__u32 n, const struct cpuset *set)
{
	__u32 *table = malloc(n * sizeof(*table)), b;

	for (b = 0; b < n; b++)
		table[b] = BUCKET_UNOWNED;
	indirection_rebalance(table, n, set);
	return table;
}

/* set --buckets: resize, then correct the shares. */
static __u32 *resized(const __u32 *old, __u32 old_n, __u32 new_n, const struct cpuset *set)
{
	__u32 *table = malloc(new_n * sizeof(*table));

	indirection_resize(old, old_n, table, new_n);
	indirection_rebalance(table, new_n, set);
	return table;
}

/* The way set resized before: bucket indices kept, new ones unowned. */
static __u32 *index_kept(const __u32 *old, __u32 old_n, __u32 new_n, const struct cpuset *set)
{
	__u32 *table = malloc(new_n * sizeof(*table)), b;

	for (b = 0; b < new_n; b++)
		table[b] = b < old_n ? old[b] : BUCKET_UNOWNED;
	indirection_rebalance(table, new_n, set);
	return table;
}

/* The share of pseudo-random hashes whose CPU differs, each hash put in
 * its bucket the way the BPF program does.
 */
static double brute_moved(const __u32 *old, __u32 old_n, const __u32 *new, __u32 new_n)
{
	__u32 i, h, moved = 0;

	rng_seed(7);
	for (i = 0; i < BRUTE_HASHES; i++) {
		h = rng();
		moved += old[cpusteer_bucket(h, old_n)] != new[cpusteer_bucket(h, new_n)];
	}
	return (double)moved / BRUTE_HASHES;
}

/* The same when every flow is hashed anew: two independent hashes. */
static double brute_rehash_moved(const __u32 *old, __u32 old_n, const __u32 *new, __u32 new_n)
{
	__u32 i, moved = 0;

	rng_seed(8);
	for (i = 0; i < BRUTE_HASHES; i++)
		moved += old[cpusteer_bucket(rng(), old_n)] != new[cpusteer_bucket(rng(), new_n)];
	return (double)moved / BRUTE_HASHES;
}

static void resize_512_to_1024_moves_no_flow(void)
{
	struct cpuset set;
	__u32 *old, *new, moved;
	double exact, brute;

	cpu_range(&set, 0, 7);
	old = fresh(512, &set);
	new = malloc(1024 * sizeof(*new));
	indirection_resize(old, 512, new, 1024);
	moved = indirection_rebalance(new, 1024, &set);
	exact = indirection_moved_fraction(old, 512, new, 1024);
	brute = brute_moved(old, 512, new, 1024);
	printf("#   512 -> 1024 buckets on 8 CPUs: moved %.6f exactly, %.6f by brute force\n",
	       exact, brute);
	ASSERT_EQ(moved, 0, "buckets rebalancing moved after the resize");
	ASSERT_TRUE(exact == 0, "exact fraction moved is 0");
	ASSERT_NEAR(brute, 0, 0, "brute-force fraction moved");
	free(old);
	free(new);
}

static void resize_1024_to_512_moves_half_not_seven_eighths(void)
{
	struct cpuset set;
	__u32 *old, *new, *before, owned[8], i;
	double exact, brute, was;

	cpu_range(&set, 0, 7);
	old = fresh(1024, &set);
	new = resized(old, 1024, 512, &set);
	before = index_kept(old, 1024, 512, &set);
	exact = indirection_moved_fraction(old, 1024, new, 512);
	brute = brute_moved(old, 1024, new, 512);
	was = indirection_moved_fraction(old, 1024, before, 512);
	printf("#   1024 -> 512 buckets on 8 CPUs: moved %.6f exactly, %.6f by brute force; %.6f with indices kept\n",
	       exact, brute, was);
	ASSERT_NEAR(brute, exact, 0.01, "brute force against the exact fraction");
	/* Neighbouring buckets of an interleaved table have different CPUs,
	 * so no table of half the size can keep more than half the flows.
	 */
	ASSERT_NEAR(exact, 0.5, 1e-9, "exact fraction moved, the least possible");
	ASSERT_NEAR(was, 0.875, 1e-9, "fraction moved with indices kept, for contrast");
	indirection_count(new, 512, &set, owned);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(owned[i], 64, "buckets per CPU after the resize");
	free(old);
	free(new);
	free(before);
}

static void resize_512_to_1024_and_back_moves_no_flow(void)
{
	struct cpuset set;
	__u32 *old, *big, *back;
	double exact, brute;

	cpu_range(&set, 0, 7);
	old = fresh(512, &set);
	big = resized(old, 512, 1024, &set);
	back = resized(big, 1024, 512, &set);
	exact = indirection_moved_fraction(old, 512, back, 512);
	brute = brute_moved(old, 512, back, 512);
	printf("#   512 -> 1024 -> 512 buckets on 8 CPUs: moved %.6f exactly, %.6f by brute force\n",
	       exact, brute);
	ASSERT_TRUE(exact == 0, "exact fraction moved is 0");
	ASSERT_NEAR(brute, exact, 0.01, "brute force against the exact fraction");
	free(old);
	free(big);
	free(back);
}

static void resize_to_any_size_agrees_with_brute_force(void)
{
	static const __u32 sizes[][2] = {
		{ 500, 777 }, { 777, 500 }, { 512, 500 }, { 1000, 1024 },
		{ 3, 65536 }, { 65536, 3 }, { 4096, 4095 }, { 7, 8 },
	};
	struct cpuset set;
	__u32 *old, *new, *before, i, c;
	double exact, brute, was;
	char what[96];

	for (c = 3; c <= 8; c += 5) {
		cpu_range(&set, 0, c - 1);
		set.weight[0] = 2;	/* uneven shares too */
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			/* Fewer buckets than CPUs is refused before it gets here. */
			if (sizes[i][0] < c || sizes[i][1] < c)
				continue;
			old = fresh(sizes[i][0], &set);
			new = resized(old, sizes[i][0], sizes[i][1], &set);
			before = index_kept(old, sizes[i][0], sizes[i][1], &set);
			exact = indirection_moved_fraction(old, sizes[i][0], new, sizes[i][1]);
			brute = brute_moved(old, sizes[i][0], new, sizes[i][1]);
			was = indirection_moved_fraction(old, sizes[i][0], before, sizes[i][1]);
			printf("#   %u -> %u buckets on %u CPUs: moved %.6f exactly, %.6f by brute force; %.6f with indices kept\n",
			       sizes[i][0], sizes[i][1], c, exact, brute, was);
			snprintf(what, sizeof(what), "%u -> %u on %u CPUs: brute force against exact",
				 sizes[i][0], sizes[i][1], c);
			ASSERT_NEAR(brute, exact, 0.01, what);
			snprintf(what, sizeof(what), "%u -> %u on %u CPUs: no worse than indices kept",
				 sizes[i][0], sizes[i][1], c);
			ASSERT_TRUE(exact <= was, what);
			free(old);
			free(new);
			free(before);
		}
	}
}

static void resize_takes_owner_of_largest_overlap(void)
{
	static const __u32 abc[] = { 10, 11, 12 };
	__u32 out[3];

	/* Of 2 buckets, the first covers 2/3 of old bucket 0, the second 2/3 of old bucket 2. */
	indirection_resize(abc, 3, out, 2);
	ASSERT_EQ(out[0], 10, "3 -> 2: first bucket");
	ASSERT_EQ(out[1], 12, "3 -> 2: second bucket");
	/* One bucket covers both halves equally: the lower wins. */
	indirection_resize(abc, 2, out, 1);
	ASSERT_EQ(out[0], 10, "2 -> 1: tie goes to the lower bucket");
	indirection_resize(abc, 1, out, 3);
	ASSERT_TRUE(out[0] == 10 && out[1] == 10 && out[2] == 10, "1 -> 3: all from the one bucket");
	indirection_resize(abc, 3, out, 3);
	ASSERT_TRUE(out[0] == 10 && out[1] == 11 && out[2] == 12, "3 -> 3: a copy");
}

static void moved_fraction_counts_hash_values_exactly(void)
{
	static const __u32 abc[] = { 10, 11, 12 }, ac[] = { 10, 12 }, xy[] = { 20, 21 };

	/* Old bucket 1 holds [ceil(2^32/3), ceil(2^33/3)) = 1431655765 hashes,
	 * all of them under another CPU in the new table.
	 */
	ASSERT_NEAR(indirection_moved_fraction(abc, 3, ac, 2), 1431655765.0 / 4294967296.0, 0,
		    "{10,11,12} -> {10,12}");
	ASSERT_NEAR(indirection_moved_fraction(abc, 3, abc, 3), 0, 0, "a table against itself");
	ASSERT_NEAR(indirection_moved_fraction(abc, 3, xy, 2), 1, 0, "no CPU in common");
}

static void adding_cpus_2_5_to_2_7_moves_one_third(void)
{
	struct cpuset four, six;
	__u32 *table, *after, moved;
	double exact, brute;

	cpu_range(&four, 2, 5);
	cpu_range(&six, 2, 7);
	table = fresh(512, &four);
	after = malloc(512 * sizeof(*after));
	memcpy(after, table, 512 * sizeof(*after));
	moved = indirection_rebalance(after, 512, &six);
	exact = indirection_moved_fraction(table, 512, after, 512);
	brute = brute_moved(table, 512, after, 512);
	printf("#   CPUs 2-5 -> 2-7, 512 buckets: %u buckets moved, %.6f of flows exactly, %.6f by brute force\n",
	       moved, exact, brute);
	/* The two new CPUs need 85 buckets each (512 / 6 = 85.3); no fewer can move. */
	ASSERT_EQ(moved, 170, "buckets moved");
	ASSERT_NEAR(exact, 170.0 / 512, 0, "exact fraction moved");
	ASSERT_NEAR(exact, 1.0 / 3, 0.002, "exact fraction moved against one third");
	ASSERT_NEAR(brute, exact, 0.01, "brute force against the exact fraction");
	free(table);
	free(after);
}

/* ---- a new key or hash function: every flow hashed anew ---- */

static void rehash_on_8_equal_cpus_moves_seven_eighths(void)
{
	struct cpuset set;
	__u32 *table;
	double expect, brute;

	cpu_range(&set, 0, 7);
	table = fresh(512, &set);
	expect = indirection_rehash_moved_fraction(table, 512, table, 512);
	brute = brute_rehash_moved(table, 512, table, 512);
	printf("#   new key, 8 CPUs, 512 buckets: %.6f expected, %.6f by brute force\n", expect,
	       brute);
	ASSERT_NEAR(expect, 0.875, 1e-9, "expected fraction moved");
	ASSERT_NEAR(brute, expect, 0.01, "brute force against the expected fraction");
	free(table);
}

static void rehash_with_new_cpus_and_size_agrees_with_brute_force(void)
{
	struct cpuset four, six;
	__u32 *old, *new;
	double expect, brute;

	cpu_range(&four, 2, 5);
	cpu_range(&six, 2, 7);
	six.weight[5] = 3;
	old = fresh(512, &four);
	new = resized(old, 512, 777, &six);
	expect = indirection_rehash_moved_fraction(old, 512, new, 777);
	brute = brute_rehash_moved(old, 512, new, 777);
	printf("#   new key, CPUs 2-5 -> 2-7 weighted, 512 -> 777 buckets: %.6f expected, %.6f by brute force\n",
	       expect, brute);
	/* CPUs 2-5 keep a quarter of the old space and 1/8 of the new each. */
	ASSERT_NEAR(expect, 1 - 4 * 0.25 * (1.0 / 8), 0.002, "expected fraction moved");
	ASSERT_NEAR(brute, expect, 0.01, "brute force against the expected fraction");
	free(old);
	free(new);
}

static const struct tu_test tests[] = {
	TU_TEST(rebalance_adding_cpu_moves_only_its_share),
	TU_TEST(rebalance_removing_cpu_moves_only_its_buckets),
	TU_TEST(weights_100_1_over_2_buckets_give_one_each),
	TU_TEST(weights_1000000_1_1_1_over_512_give_every_cpu_a_bucket),
	TU_TEST(weights_5_1_1_over_3_buckets_give_one_each),
	TU_TEST(zero_weight_cpu_gets_no_bucket),
	TU_TEST(shares_within_one_of_ideal_and_total_exact),
	TU_TEST(resize_takes_owner_of_largest_overlap),
	TU_TEST(moved_fraction_counts_hash_values_exactly),
	TU_TEST(resize_512_to_1024_moves_no_flow),
	TU_TEST(resize_1024_to_512_moves_half_not_seven_eighths),
	TU_TEST(resize_512_to_1024_and_back_moves_no_flow),
	TU_TEST(resize_to_any_size_agrees_with_brute_force),
	TU_TEST(adding_cpus_2_5_to_2_7_moves_one_third),
	TU_TEST(rehash_on_8_equal_cpus_moves_seven_eighths),
	TU_TEST(rehash_with_new_cpus_and_size_agrees_with_brute_force),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
