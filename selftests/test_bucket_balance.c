// SPDX-License-Identifier: GPL-2.0
/* Balancing by measured load: which buckets move where, for hand-made
 * loads whose best moves can be worked out on paper, and for random ones
 * replayed move by move against the rules bucket_balance.h states.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpusteer.h"
#include "cpuset.h"
#include "bucket_balance.h"
#include "stats_math.h"
#include "test_util.h"

#define MAX_MOVES 4096

/* Fake CPU numbers, not 0..N-1, so positions and numbers cannot mix. */
#define CPU(i) (3 + 7 * (i))

static struct bucket_move moves[MAX_MOVES], moves2[MAX_MOVES];

static void fake_cpus(struct cpuset *set, __u32 n, const __u32 *weight)
{
	__u32 i;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < n; i++) {
		set->cpu[i] = CPU(i);
		set->weight[i] = weight ? weight[i] : 1;
	}
	set->n = n;
}

/* Bucket b to the set's CPU b mod n, as a fresh equal-weight table. */
static void interleave(__u32 *table, __u32 nbuckets, const struct cpuset *set)
{
	__u32 b;

	for (b = 0; b < nbuckets; b++)
		table[b] = set->cpu[b % set->n];
}

static int plan_with(const struct balance_input *in, __u32 *new_table,
		     struct balance_plan *plan, struct bucket_move *buf)
{
	plan->moves = buf;
	return bucket_balance_plan(in, new_table, plan);
}

/* The plan's moves against the expected list, field by field. */
static void expect_moves(const struct balance_plan *plan, const struct bucket_move *want,
			 __u32 n, const char *what)
{
	char msg[128];
	__u32 i;

	snprintf(msg, sizeof(msg), "%s: moves", what);
	ASSERT_EQ(plan->nmoves, n, msg);
	for (i = 0; i < n && i < plan->nmoves; i++) {
		snprintf(msg, sizeof(msg), "%s: move %u bucket", what, i);
		ASSERT_EQ(plan->moves[i].bucket, want[i].bucket, msg);
		snprintf(msg, sizeof(msg), "%s: move %u from", what, i);
		ASSERT_EQ(plan->moves[i].from, want[i].from, msg);
		snprintf(msg, sizeof(msg), "%s: move %u to", what, i);
		ASSERT_EQ(plan->moves[i].to, want[i].to, msg);
		snprintf(msg, sizeof(msg), "%s: move %u load", what, i);
		ASSERT_EQ(plan->moves[i].load, want[i].load, msg);
	}
}

/* How many entries differ; the tables must differ nowhere else than at
 * the plan's buckets.
 */
static __u32 table_changes(const __u32 *old, const __u32 *new, __u32 nbuckets,
			   const struct balance_plan *plan)
{
	__u32 b, i, changed = 0, unplanned = 0;
	bool planned;

	for (b = 0; b < nbuckets; b++) {
		if (old[b] == new[b])
			continue;
		changed++;
		planned = false;
		for (i = 0; i < plan->nmoves; i++)
			planned |= plan->moves[i].bucket == b;
		unplanned += !planned;
	}
	ASSERT_EQ(unplanned, 0, "table entries changed by no move");
	return changed;
}

static bool same_plan(const struct balance_plan *a, const struct balance_plan *b)
{
	__u32 i;

	if (a->nmoves != b->nmoves || a->total != b->total || a->stranded != b->stranded ||
	    a->stop != b->stop || a->peak_before != b->peak_before ||
	    a->peak_after != b->peak_after ||
	    memcmp(a->before, b->before, sizeof(a->before)) ||
	    memcmp(a->after, b->after, sizeof(a->after)))
		return false;
	for (i = 0; i < a->nmoves; i++)
		if (a->moves[i].bucket != b->moves[i].bucket ||
		    a->moves[i].from != b->moves[i].from ||
		    a->moves[i].to != b->moves[i].to || a->moves[i].load != b->moves[i].load)
			return false;
	return true;
}

/* Jain's index of load / weight: 1 when every CPU is at its target. */
static double weighted_jain(const struct cpuset *set, const __u64 *load)
{
	double x[CPUSTEER_MAX_CPUS];
	__u32 i, n = 0;

	for (i = 0; i < set->n; i++)
		if (set->weight[i])
			x[n++] = (double)load[i] / set->weight[i];
	return jain_index(x, n);
}


/* ---- hand-made loads ---- */

/* The largest hand-made case: four elephants among 512 buckets. */
#define HAND_BUCKETS 512

/* What a hand-made case plans with: the set's CPUs, a table that deals
 * the buckets over them in turn, and the plan and new table that come
 * back. The loads stay in the test, beside the figures worked out from
 * them. A test may change hc.in between plans (max_moves, a table of its
 * own): hand_plan() plans what is there at the time.
 */
struct hand_case {
	__u32 table[HAND_BUCKETS], new_table[HAND_BUCKETS];
	struct cpuset set;
	struct balance_input in;
	struct balance_plan plan;
};

/* ncpus CPUs of the given weights (NULL: all 1), bucket b on CPU b mod
 * ncpus. A case too large for the fixture fails its test rather than
 * write past the tables.
 */
static void hand_setup(struct hand_case *hc, const __u64 *load, __u32 nbuckets, __u32 ncpus,
		       const __u32 *weight, double threshold, __u32 max_moves)
{
	ASSERT_TRUE(nbuckets <= HAND_BUCKETS, "hand-made case fits the fixture");
	if (nbuckets > HAND_BUCKETS)
		nbuckets = HAND_BUCKETS;
	fake_cpus(&hc->set, ncpus, weight);
	interleave(hc->table, nbuckets, &hc->set);
	hc->in = (struct balance_input){
		.table = hc->table, .load = load, .nbuckets = nbuckets, .cpus = &hc->set,
		.threshold = threshold, .max_moves = max_moves,
	};
}

static int hand_plan(struct hand_case *hc)
{
	return plan_with(&hc->in, hc->new_table, &hc->plan, moves);
}

/* No entry of the new table differs from the fixture's own table. */
static bool table_kept(const struct hand_case *hc)
{
	return !memcmp(hc->new_table, hc->table, hc->in.nbuckets * sizeof(*hc->table));
}

static void even_load(__u64 *load, __u32 nbuckets, __u64 packets)
{
	__u32 b;

	for (b = 0; b < nbuckets; b++)
		load[b] = packets;
}

static void already_balanced_input_moves_nothing(void)
{
	struct hand_case hc;
	__u64 load[16];
	__u32 b;

	/* 415, 420, 425, 415 packets: 1.5% above the mean at most. */
	for (b = 0; b < 16; b++)
		load[b] = 100 + (b % 3) * 5;
	hand_setup(&hc, load, 16, 4, NULL, 0.1, 8);
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	ASSERT_EQ(hc.plan.nmoves, 0, "moves");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "stop reason");
	ASSERT_TRUE(table_kept(&hc), "new table equals the table");
	ASSERT_TRUE(!memcmp(hc.plan.before, hc.plan.after, sizeof(hc.plan.before)),
		    "after equals before");
	ASSERT_EQ(hc.plan.total, 1675, "total");
	ASSERT_EQ(hc.plan.before[2], 425, "load of the third CPU");
	ASSERT_NEAR(hc.plan.peak_before, 425 / 418.75, 1e-12, "peak before");
	ASSERT_TRUE(hc.plan.peak_after == hc.plan.peak_before, "peak after equals peak before");
}

/* CPU A holds 160 of 200 packets in buckets of 10, 60, 10 and 80. The
 * 60 evens the pair exactly; the heaviest, 80, would only turn it round.
 */
static void two_cpus_80_20_move_the_bucket_that_evens_them(void)
{
	static const __u64 load[8] = { 10, 10, 60, 10, 10, 10, 80, 10 };
	static const struct bucket_move want[] = { { 2, CPU(0), CPU(1), 60 } };
	struct hand_case hc;

	hand_setup(&hc, load, 8, 2, NULL, 0.1, 8);
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	expect_moves(&hc.plan, want, 1, "80/20");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "stop reason");
	ASSERT_EQ(hc.plan.before[0], 160, "A before");
	ASSERT_EQ(hc.plan.before[1], 40, "B before");
	ASSERT_EQ(hc.plan.after[0], 100, "A after");
	ASSERT_EQ(hc.plan.after[1], 100, "B after");
	ASSERT_NEAR(hc.plan.peak_before, 1.6, 1e-12, "peak before");
	ASSERT_NEAR(hc.plan.peak_after, 1.0, 1e-12, "peak after");
	ASSERT_EQ(hc.new_table[2], CPU(1), "bucket 2's new owner");
	ASSERT_EQ(table_changes(hc.table, hc.new_table, 8, &hc.plan), 1, "table entries changed");
}

/* Four flows carry 60% of the load, all in buckets of the first of four
 * CPUs; 508 buckets of 100 packets carry the rest. Each CPU's target is
 * 31750. The two heaviest elephants go to the two emptiest CPUs; the
 * third move takes the 16200 rather than the heavier 18000, which would
 * put the last CPU at 30800 instead of leaving the first at 30400.
 */
static void four_elephants_on_one_cpu_spread_in_three_moves(void)
{
	static const struct bucket_move want[] = {
		{ 4, CPU(0), CPU(1), 22000 },
		{ 12, CPU(0), CPU(2), 20000 },
		{ 8, CPU(0), CPU(3), 16200 },
	};
	struct hand_case hc;
	__u64 load[512];
	double before, after;

	even_load(load, 512, 100);
	load[0] = 18000;
	load[4] = 22000;
	load[8] = 16200;
	load[12] = 20000;
	hand_setup(&hc, load, 512, 4, NULL, 0.1, 5);	/* 1% of the buckets */
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	ASSERT_EQ(hc.plan.total, 127000, "total");
	ASSERT_EQ((load[0] + load[4] + load[8] + load[12]) * 10, hc.plan.total * 6,
		  "elephants are 60% of the load");
	expect_moves(&hc.plan, want, 3, "elephants");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "stop reason");
	ASSERT_EQ(hc.plan.after[0], 30400, "first CPU after");
	ASSERT_EQ(hc.plan.after[1], 34800, "second CPU after");
	ASSERT_EQ(hc.plan.after[2], 32800, "third CPU after");
	ASSERT_EQ(hc.plan.after[3], 29000, "fourth CPU after");
	ASSERT_EQ(hc.new_table[0], CPU(0), "the elephant that fits stays");
	ASSERT_EQ(table_changes(hc.table, hc.new_table, 512, &hc.plan), 3, "table entries changed");
	before = weighted_jain(&hc.set, hc.plan.before);
	after = weighted_jain(&hc.set, hc.plan.after);
	printf("#   Jain index %.4f before, %.4f after %u moves; peak %.3f -> %.3f\n", before,
	       after, hc.plan.nmoves, hc.plan.peak_before, hc.plan.peak_after);
	ASSERT_TRUE(after >= 0.95, "Jain index after the plan");
	ASSERT_TRUE(hc.plan.nmoves <= 5, "at most 1% of the buckets moved");
	ASSERT_TRUE(hc.plan.peak_after <= 1.1, "peak within the threshold");
}

/* Equal load over weights 1 and 3: the first CPU is at twice its target
 * of 25%, and gives up buckets until it holds exactly that.
 */
static void weights_1_3_give_targets_of_25_and_75_percent(void)
{
	static const __u32 weight[] = { 1, 3 };
	static const struct bucket_move want[] = {
		{ 0, CPU(0), CPU(1), 10 }, { 2, CPU(0), CPU(1), 10 },
		{ 4, CPU(0), CPU(1), 10 }, { 6, CPU(0), CPU(1), 10 },
	};
	struct hand_case hc;
	__u64 load[16];

	even_load(load, 16, 10);
	hand_setup(&hc, load, 16, 2, weight, 0.1, 16);
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	expect_moves(&hc.plan, want, 4, "weights 1 and 3");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "stop reason");
	ASSERT_NEAR(hc.plan.peak_before, 2.0, 1e-12, "peak before: 80 against a target of 40");
	ASSERT_EQ(hc.plan.after[0] * 4, hc.plan.total, "weight 1 holds 25%");
	ASSERT_EQ(hc.plan.after[1] * 4, hc.plan.total * 3, "weight 3 holds 75%");
	ASSERT_NEAR(hc.plan.peak_after, 1.0, 1e-12, "peak after");
}

/* An elephant of 300 packets beside a target of 185: moving it would put
 * the other CPU at 370. The mice beside it leave; the elephant stays.
 */
static void elephant_above_its_target_stays_and_mice_leave(void)
{
	static const __u64 load[8] = { 300, 10, 10, 10, 10, 10, 10, 10 };
	static const struct bucket_move want[] = {
		{ 2, CPU(0), CPU(1), 10 }, { 4, CPU(0), CPU(1), 10 }, { 6, CPU(0), CPU(1), 10 },
	};
	struct hand_case hc;

	hand_setup(&hc, load, 8, 2, NULL, 0.1, 100);
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	expect_moves(&hc.plan, want, 3, "elephant");
	ASSERT_EQ(hc.plan.stop, BALANCE_NO_BETTER_MOVE, "stop reason");
	ASSERT_EQ(hc.new_table[0], CPU(0), "the elephant's bucket");
	ASSERT_EQ(hc.plan.after[0], 300, "the elephant's CPU after");
	ASSERT_EQ(hc.plan.after[1], 70, "the other CPU after");
	ASSERT_NEAR(hc.plan.peak_after, 300.0 / 185, 1e-12, "peak after");
	ASSERT_TRUE(hc.plan.peak_after < hc.plan.peak_before, "the peak fell");
}

/* The weights 1 and 3 case cut short: the plan is the first moves of the
 * full one, and the table changes only there.
 */
static void max_moves_cuts_the_full_plan_short(void)
{
	static const __u32 weight[] = { 1, 3 };
	__u32 full_table[16], k;
	struct balance_plan full;
	struct hand_case hc;
	__u64 load[16];
	char what[64];

	even_load(load, 16, 10);
	hand_setup(&hc, load, 16, 2, weight, 0.1, 16);
	ASSERT_EQ(plan_with(&hc.in, full_table, &full, moves2), 0, "return value, full plan");
	ASSERT_EQ(full.nmoves, 4, "moves of the full plan");
	for (k = 1; k < 4; k++) {
		hc.in.max_moves = k;
		snprintf(what, sizeof(what), "max_moves %u", k);
		ASSERT_EQ(hand_plan(&hc), 0, what);
		expect_moves(&hc.plan, full.moves, k, what);
		ASSERT_EQ(hc.plan.stop, BALANCE_MAX_MOVES, what);
		ASSERT_EQ(table_changes(hc.table, hc.new_table, 16, &hc.plan), k, what);
		ASSERT_EQ(hc.plan.after[0], 80 - 10 * k, what);
	}
	/* Balanced as the fourth move lands: that, not the limit, stopped it. */
	hc.in.max_moves = 4;
	ASSERT_EQ(hand_plan(&hc), 0, "max_moves 4");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "max_moves 4: stop reason");
	/* No moves at all: a report of the load, with no array to fill. */
	hc.in.max_moves = 0;
	ASSERT_EQ(plan_with(&hc.in, hc.new_table, &hc.plan, NULL), 0, "max_moves 0");
	ASSERT_EQ(hc.plan.nmoves, 0, "max_moves 0: moves");
	ASSERT_EQ(hc.plan.stop, BALANCE_MAX_MOVES, "max_moves 0: stop reason");
	ASSERT_TRUE(table_kept(&hc), "max_moves 0: table unchanged");
	ASSERT_NEAR(hc.plan.peak_after, 2.0, 1e-12, "max_moves 0: peak after");
}

static void ties_go_to_lower_bucket_lighter_bucket_and_first_cpu(void)
{
	/* Buckets 0-5 on A, 6-8 on B, 9-11 on C, 10 packets each. B and C
	 * tie for the lowest: B first; six buckets of A tie: the lowest.
	 */
	static const __u32 t1[12] = { CPU(0), CPU(0), CPU(0), CPU(0), CPU(0), CPU(0),
				      CPU(1), CPU(1), CPU(1), CPU(2), CPU(2), CPU(2) };
	static const struct bucket_move w1[] = {
		{ 0, CPU(0), CPU(1), 10 }, { 1, CPU(0), CPU(2), 10 },
	};
	/* Buckets 0-4 on A, 5-9 on B: A and B tie for the highest, A first. */
	static const __u32 t2[12] = { CPU(0), CPU(0), CPU(0), CPU(0), CPU(0), CPU(1),
				      CPU(1), CPU(1), CPU(1), CPU(1), CPU(2), CPU(2) };
	static const struct bucket_move w2[] = {
		{ 0, CPU(0), CPU(2), 10 }, { 5, CPU(1), CPU(2), 10 },
	};
	/* A's 90 and 70 leave the pair at 90/110 and 110/90, the same peak:
	 * the lighter goes, though its index is higher.
	 */
	static const __u64 l3[6] = { 90, 20, 70, 0, 20, 0 };
	static const struct bucket_move w3[] = { { 2, CPU(0), CPU(1), 70 } };
	struct hand_case hc;
	__u64 load[12];

	even_load(load, 12, 10);
	/* The ties need the buckets bunched, not dealt in turn. */
	hand_setup(&hc, load, 12, 3, NULL, 0.1, 12);
	hc.in.table = t1;
	ASSERT_EQ(hand_plan(&hc), 0, "return value, lowest tie");
	expect_moves(&hc.plan, w1, 2, "lowest tie");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "lowest tie: stop reason");
	hc.in.table = t2;
	ASSERT_EQ(hand_plan(&hc), 0, "return value, highest tie");
	expect_moves(&hc.plan, w2, 2, "highest tie");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "highest tie: stop reason");

	hand_setup(&hc, l3, 6, 2, NULL, 0.2, 12);
	ASSERT_EQ(hand_plan(&hc), 0, "return value, peak tie");
	expect_moves(&hc.plan, w3, 1, "peak tie");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "peak tie: stop reason");
}

static void zero_load_stops_with_no_load(void)
{
	struct hand_case hc;
	__u64 load[8] = {};

	hand_setup(&hc, load, 8, 2, NULL, 0.1, 8);
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	ASSERT_EQ(hc.plan.stop, BALANCE_NO_LOAD, "stop reason");
	ASSERT_EQ(hc.plan.nmoves, 0, "moves");
	ASSERT_EQ(hc.plan.total, 0, "total");
	ASSERT_TRUE(hc.plan.peak_before == 0 && hc.plan.peak_after == 0, "peaks are 0");
	ASSERT_TRUE(table_kept(&hc), "table unchanged");

	/* Load only where no move may go is no load to balance. */
	hc.table[3] = 999;
	load[3] = 50;
	ASSERT_EQ(hand_plan(&hc), 0, "return value, stranded load");
	ASSERT_EQ(hc.plan.stop, BALANCE_NO_LOAD, "stranded load: stop reason");
	ASSERT_EQ(hc.plan.total, 50, "stranded load: total");
	ASSERT_EQ(hc.plan.stranded, 50, "stranded load: stranded");
	ASSERT_TRUE(hc.plan.peak_before == 0 && hc.plan.peak_after == 0,
		    "stranded load: peaks are 0");
}

/* A (weight 1) holds 150, B (weight 1) 30, Z (weight 0) 500 and CPU 999,
 * outside the set, 700. Only A and B's 180 is balanced: 90 each. Against
 * the whole 1380, A would look far below its share and nothing would move.
 */
static void buckets_outside_the_set_or_of_weight_0_neither_count_nor_move(void)
{
	static const __u32 weight[] = { 1, 1, 0 };
	static const __u64 load[8] = { 50, 10, 50, 10, 500, 700, 50, 10 };
	static const __u32 table[8] = { CPU(0), CPU(1), CPU(0), CPU(1), CPU(2), 999, CPU(0),
					CPU(1) };
	static const struct bucket_move want[] = { { 0, CPU(0), CPU(1), 50 } };
	struct hand_case hc;

	hand_setup(&hc, load, 8, 3, weight, 0.2, 8);
	hc.in.table = table;	/* Z holds one bucket, not every third */
	ASSERT_EQ(hand_plan(&hc), 0, "return value");
	ASSERT_EQ(hc.plan.total, 1380, "total");
	ASSERT_EQ(hc.plan.stranded, 1200, "stranded");
	ASSERT_EQ(hc.plan.before[0], 150, "A before");
	ASSERT_EQ(hc.plan.before[1], 30, "B before");
	ASSERT_EQ(hc.plan.before[2], 0, "Z before: weight 0 counts nothing");
	ASSERT_NEAR(hc.plan.peak_before, 150.0 / 90, 1e-12, "peak before");
	expect_moves(&hc.plan, want, 1, "stranded");
	ASSERT_EQ(hc.plan.stop, BALANCE_BALANCED, "stop reason");
	ASSERT_EQ(hc.new_table[4], CPU(2), "Z's bucket stays");
	ASSERT_EQ(hc.new_table[5], 999, "the outside CPU's bucket stays");
	ASSERT_EQ(hc.plan.after[2], 0, "Z after");
	ASSERT_EQ(hc.plan.after[0] + hc.plan.after[1] + hc.plan.after[2] + hc.plan.stranded,
		  hc.plan.total, "after and stranded add up to total");
}

static void bad_input_is_einval_and_leaves_the_table(void)
{
	struct balance_input in, ok;
	struct hand_case hc;
	struct cpuset bad;
	__u64 load[8];
	__u32 b;

	for (b = 0; b < 8; b++)
		load[b] = b == 0 ? 1000 : 1;
	hand_setup(&hc, load, 8, 2, NULL, 0.1, 8);
	ok = hc.in;
	hc.plan.moves = moves;
	for (b = 0; b < 8; b++)
		hc.new_table[b] = 0xdeadbeef;

#define EXPECT_ERR(err, nt, p, what)                                                \
	ASSERT_EQ(bucket_balance_plan(&in, nt, p), err, what)

	in = ok;
	ASSERT_EQ(bucket_balance_plan(NULL, hc.new_table, &hc.plan), -EINVAL, "no input");
	EXPECT_ERR(-EINVAL, NULL, &hc.plan, "no new table");
	EXPECT_ERR(-EINVAL, hc.new_table, NULL, "no plan");
	in.table = NULL;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "no table");
	in = ok;
	in.load = NULL;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "no loads");
	in = ok;
	in.cpus = NULL;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "no CPU set");
	in = ok;
	in.nbuckets = 0;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "0 buckets");
	in = ok;
	in.threshold = -0.1;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "threshold below 0");
	in.threshold = NAN;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "threshold NaN");
	in = ok;
	hc.plan.moves = NULL;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "max_moves 8 and no array");
	hc.plan.moves = moves;

	in = ok;
	in.cpus = &bad;
	fake_cpus(&bad, 0, NULL);
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "empty set");
	fake_cpus(&bad, 2, NULL);
	bad.weight[0] = bad.weight[1] = 0;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "no CPU with a weight");
	fake_cpus(&bad, 3, NULL);
	bad.cpu[2] = bad.cpu[0];
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "a CPU listed twice");
	fake_cpus(&bad, 2, NULL);
	bad.n = CPUSTEER_MAX_CPUS + 1;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "more CPUs than a set holds");
	for (b = 0; b < 8; b++)
		ASSERT_EQ(hc.new_table[b], 0xdeadbeef, "new table untouched after -EINVAL");

	/* In place: the table itself must come back as it was. */
	fake_cpus(&bad, 3, NULL);
	bad.cpu[1] = bad.cpu[0];
	memcpy(hc.new_table, hc.table, 8 * sizeof(*hc.table));
	in.table = hc.new_table;
	EXPECT_ERR(-EINVAL, hc.new_table, &hc.plan, "a CPU listed twice, in place");
	ASSERT_TRUE(table_kept(&hc), "table untouched in place");

	in = ok;
	load[5] = ~0ULL;
	for (b = 0; b < 8; b++)
		hc.new_table[b] = 0xdeadbeef;
	EXPECT_ERR(-EOVERFLOW, hc.new_table, &hc.plan, "loads summing past 2^64");
	ASSERT_EQ(hc.new_table[0], 0xdeadbeef, "new table untouched after -EOVERFLOW");
#undef EXPECT_ERR
}

static void stop_names_are_stable(void)
{
	ASSERT_TRUE(!strcmp(balance_stop_name(BALANCE_BALANCED), "balanced"), "balanced");
	ASSERT_TRUE(!strcmp(balance_stop_name(BALANCE_NO_LOAD), "no_load"), "no_load");
	ASSERT_TRUE(!strcmp(balance_stop_name(BALANCE_MAX_MOVES), "max_moves"), "max_moves");
	ASSERT_TRUE(!strcmp(balance_stop_name(BALANCE_NO_BETTER_MOVE), "no_better_move"),
		    "no_better_move");
	ASSERT_TRUE(!strcmp(balance_stop_name((enum balance_stop)42), "unknown"), "out of range");
}


/* ---- random loads, replayed against the rules ---- */

#define RND_BUCKETS 2048

struct case_buf {
	struct cpuset set;
	__u32 table[RND_BUCKETS], new_table[RND_BUCKETS], other[RND_BUCKETS];
	__u64 load[RND_BUCKETS];
	struct balance_input in;
};

static struct case_buf cb;

/* 2..8 CPUs, some of weight 0; a few buckets on a CPU outside the set;
 * mostly mice, some silent buckets, a few elephants.
 */
static void random_case(struct case_buf *c)
{
	static const double thresholds[] = { 0, 0.01, 0.1, 0.5 };
	__u32 n = 2 + rng() % 7, i, b, nbuckets;
	__u32 weight[8];

	for (i = 0; i < n; i++)
		weight[i] = rng() % 5 ? 1 + rng() % 4 : 0;
	weight[rng() % n] |= 1;
	fake_cpus(&c->set, n, weight);
	nbuckets = n + rng() % 1024;
	for (b = 0; b < nbuckets; b++) {
		c->table[b] = rng() % 50 ? c->set.cpu[rng() % n] : 1000 + rng() % 3;
		if (!(rng() % 8))
			c->load[b] = 0;
		else if (!(rng() % 40))
			c->load[b] = 1 + rng() % 100000;
		else
			c->load[b] = 1 + rng() % 100;
	}
	c->in = (struct balance_input){
		.table = c->table, .load = c->load, .nbuckets = nbuckets, .cpus = &c->set,
		.threshold = thresholds[rng() % 4],
		.max_moves = rng() % 2 ? rng() % 32 : MAX_MOVES,
	};
}

/* Count a failure, but print only the first few of a random run. */
static int printed;
#define CHECK(cond, ...)                                                            \
	do {                                                                       \
		if (!(cond)) {                                                     \
			if (printed++ < 10) {                                      \
				printf("#   %s:%d ", __FILE__, __LINE__);          \
				printf(__VA_ARGS__);                               \
				printf("\n");                                      \
			}                                                          \
			tu_failures++;                                             \
		}                                                                  \
	} while (0)

static int position(const struct cpuset *set, __u32 cpu)
{
	__u32 i;

	for (i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu && set->weight[i])
			return i;
	return -1;
}

/* Highest (or lowest) ratio, first in set order on ties. */
static int extreme(const struct cpuset *set, const __u64 *load, const double *target,
		   bool highest)
{
	int i, best = -1;

	for (i = 0; i < (int)set->n; i++) {
		if (!set->weight[i])
			continue;
		if (best < 0 || (highest ? load[i] / target[i] > load[best] / target[best]
					 : load[i] / target[i] < load[best] / target[best]))
			best = i;
	}
	return best;
}

/* The best move from h to l by the stated rule, -1 if h has no load. */
static long best_move(const struct balance_input *in, const __u32 *table, const __u64 *load,
		      const double *target, int h, int l, double *peak)
{
	double p, best_p = 0;
	long b, best = -1;
	__u64 x;

	for (b = 0; b < in->nbuckets; b++) {
		x = in->load[b];
		if (table[b] != in->cpus->cpu[h] || !x)
			continue;
		p = fmax((load[h] - x) / target[h], (load[l] + x) / target[l]);
		if (best < 0 || p < best_p || (p == best_p && x < in->load[best])) {
			best = b;
			best_p = p;
		}
	}
	*peak = best_p;
	return best;
}

/* Replays the plan's moves one by one: each must be the best move from
 * the highest CPU to the lowest, the peak must never rise, and the stop
 * reason must hold of the final state.
 */
static void check_plan(const struct balance_input *in, const __u32 *new_table,
		       const struct balance_plan *p, const char *what)
{
	const struct cpuset *set = in->cpus;
	__u64 load[CPUSTEER_MAX_CPUS] = {}, total = 0, stranded = 0, wsum = 0, sum = 0;
	double target[CPUSTEER_MAX_CPUS] = {}, peak_now, peak_next, best_p, limit;
	__u32 *table = malloc(in->nbuckets * sizeof(*table)), b, k, i;
	const struct bucket_move *m;
	int c, h, l;
	long best;

	if (!table) {
		CHECK(0, "%s: out of memory", what);
		return;
	}
	limit = 1 + in->threshold;
	memcpy(table, in->table, in->nbuckets * sizeof(*table));
	for (b = 0; b < in->nbuckets; b++) {
		total += in->load[b];
		c = position(set, in->table[b]);
		if (c < 0)
			stranded += in->load[b];
		else
			load[c] += in->load[b];
	}
	CHECK(p->total == total, "%s: total %llu, want %llu", what, (unsigned long long)p->total,
	      (unsigned long long)total);
	CHECK(p->stranded == stranded, "%s: stranded", what);
	CHECK(!memcmp(p->before, load, sizeof(load)), "%s: before", what);
	if (total == stranded) {
		CHECK(p->stop == BALANCE_NO_LOAD && !p->nmoves, "%s: no load", what);
		goto out;
	}
	for (i = 0; i < set->n; i++)
		wsum += set->weight[i];
	for (i = 0; i < set->n; i++)
		target[i] = (double)(total - stranded) * set->weight[i] / wsum;
	h = extreme(set, load, target, true);
	peak_now = load[h] / target[h];
	CHECK(fabs(p->peak_before - peak_now) <= 1e-12 * peak_now, "%s: peak before", what);

	for (k = 0; k < p->nmoves; k++) {
		m = &p->moves[k];
		h = extreme(set, load, target, true);
		l = extreme(set, load, target, false);
		CHECK(load[h] / target[h] > limit, "%s: move %u while balanced", what, k);
		CHECK(m->from == set->cpu[h], "%s: move %u from CPU %u, highest is %u", what, k,
		      m->from, set->cpu[h]);
		CHECK(m->to == set->cpu[l], "%s: move %u to CPU %u, lowest is %u", what, k, m->to,
		      set->cpu[l]);
		CHECK(m->bucket < in->nbuckets, "%s: move %u bucket in range", what, k);
		if (m->bucket >= in->nbuckets || m->from != set->cpu[h] || m->to != set->cpu[l])
			goto out;
		CHECK(table[m->bucket] == m->from, "%s: move %u: bucket %u not on CPU %u", what, k,
		      m->bucket, m->from);
		CHECK(m->load == in->load[m->bucket] && m->load, "%s: move %u load", what, k);
		best = best_move(in, table, load, target, h, l, &best_p);
		CHECK(best == m->bucket, "%s: move %u took bucket %u, best is %ld", what, k,
		      m->bucket, best);
		CHECK(best_p < peak_now, "%s: move %u does not lower the pair", what, k);
		table[m->bucket] = m->to;
		load[h] -= m->load;
		load[l] += m->load;
		h = extreme(set, load, target, true);
		peak_next = load[h] / target[h];
		CHECK(peak_next <= peak_now, "%s: move %u raised the peak %.9f -> %.9f", what, k,
		      peak_now, peak_next);
		peak_now = peak_next;
	}
	CHECK(!memcmp(table, new_table, in->nbuckets * sizeof(*table)),
	      "%s: new table is not the table with the moves applied", what);
	CHECK(!memcmp(p->after, load, sizeof(load)), "%s: after", what);
	for (i = 0; i < set->n; i++)
		sum += p->after[i];
	CHECK(sum + p->stranded == p->total, "%s: after and stranded add to total", what);
	CHECK(fabs(p->peak_after - peak_now) <= 1e-12 * peak_now, "%s: peak after", what);
	CHECK(p->peak_after <= p->peak_before, "%s: peak rose", what);

	h = extreme(set, load, target, true);
	l = extreme(set, load, target, false);
	switch (p->stop) {
	case BALANCE_BALANCED:
		CHECK(peak_now <= limit, "%s: balanced at %.6f", what, peak_now);
		break;
	case BALANCE_MAX_MOVES:
		CHECK(peak_now > limit && p->nmoves == in->max_moves, "%s: max_moves", what);
		break;
	case BALANCE_NO_BETTER_MOVE:
		best = best_move(in, table, load, target, h, l, &best_p);
		CHECK(peak_now > limit && p->nmoves < in->max_moves &&
		      (best < 0 || h == l || best_p >= peak_now * (1 - 1e-9)),
		      "%s: no better move, yet bucket %ld takes the peak %.9f -> %.9f", what, best,
		      peak_now, best_p);
		break;
	default:
		CHECK(0, "%s: stop reason %d", what, p->stop);
	}
out:
	free(table);
}

static void random_plans_follow_the_rules(void)
{
	struct balance_plan plan;
	__u32 k, stops[4] = {}, nmoves = 0;
	char what[64];

	rng_seed(11);
	printed = 0;
	for (k = 0; k < 500; k++) {
		random_case(&cb);
		snprintf(what, sizeof(what), "case %u", k);
		ASSERT_EQ(plan_with(&cb.in, cb.new_table, &plan, moves), 0, what);
		check_plan(&cb.in, cb.new_table, &plan, what);
		table_changes(cb.table, cb.new_table, cb.in.nbuckets, &plan);
		if (plan.stop < 4)
			stops[plan.stop]++;
		nmoves += plan.nmoves;
	}
	printf("#   500 cases, %u moves: %u balanced, %u no load, %u max_moves, %u no better move\n",
	       nmoves, stops[BALANCE_BALANCED], stops[BALANCE_NO_LOAD], stops[BALANCE_MAX_MOVES],
	       stops[BALANCE_NO_BETTER_MOVE]);
	/* The cases must reach every way of stopping but the rare no load. */
	ASSERT_TRUE(stops[BALANCE_BALANCED] && stops[BALANCE_MAX_MOVES] &&
		    stops[BALANCE_NO_BETTER_MOVE], "every stop reason reached");
}

static void same_input_gives_same_plan_in_place_or_not(void)
{
	struct balance_plan a, b;
	__u32 k;
	char what[64];

	rng_seed(12);
	for (k = 0; k < 50; k++) {
		random_case(&cb);
		snprintf(what, sizeof(what), "case %u", k);
		ASSERT_EQ(plan_with(&cb.in, cb.new_table, &a, moves), 0, what);
		ASSERT_EQ(plan_with(&cb.in, cb.other, &b, moves2), 0, what);
		ASSERT_TRUE(same_plan(&a, &b), what);
		ASSERT_TRUE(!memcmp(cb.new_table, cb.other, cb.in.nbuckets * sizeof(__u32)), what);
		/* In place: the table itself becomes the new table. */
		memcpy(cb.other, cb.table, cb.in.nbuckets * sizeof(__u32));
		cb.in.table = cb.other;
		ASSERT_EQ(plan_with(&cb.in, cb.other, &b, moves2), 0, what);
		ASSERT_TRUE(same_plan(&a, &b), what);
		ASSERT_TRUE(!memcmp(cb.new_table, cb.other, cb.in.nbuckets * sizeof(__u32)), what);
	}
}

/* The largest instance: 256 CPUs, 65536 buckets, 16 elephants on CPU 0. */
static void largest_table_and_set_follow_the_rules(void)
{
	__u32 nb = CPUSTEER_MAX_BUCKETS, b, *table = malloc(nb * sizeof(*table));
	__u32 *new_table = malloc(nb * sizeof(*new_table));
	__u64 *load = malloc(nb * sizeof(*load));
	struct balance_plan plan;
	struct cpuset set;
	struct balance_input in = {
		.table = table, .load = load, .nbuckets = nb, .cpus = &set,
		.threshold = 0.1, .max_moves = MAX_MOVES,
	};

	if (!table || !new_table || !load) {
		free(table);
		free(new_table);
		free(load);
		SKIP("out of memory");
	}
	fake_cpus(&set, CPUSTEER_MAX_CPUS, NULL);
	interleave(table, nb, &set);
	rng_seed(13);
	for (b = 0; b < nb; b++)
		load[b] = rng() % 200;
	for (b = 0; b < 16; b++)
		load[b * CPUSTEER_MAX_CPUS] = 20000;
	printed = 0;
	ASSERT_EQ(plan_with(&in, new_table, &plan, moves), 0, "return value");
	check_plan(&in, new_table, &plan, "256 CPUs");
	printf("#   256 CPUs, 65536 buckets: %u moves, peak %.3f -> %.3f, %s\n", plan.nmoves,
	       plan.peak_before, plan.peak_after, balance_stop_name(plan.stop));
	ASSERT_EQ(plan.stop, BALANCE_BALANCED, "stop reason");
	free(table);
	free(new_table);
	free(load);
}

static const struct tu_test tests[] = {
	TU_TEST(already_balanced_input_moves_nothing),
	TU_TEST(two_cpus_80_20_move_the_bucket_that_evens_them),
	TU_TEST(four_elephants_on_one_cpu_spread_in_three_moves),
	TU_TEST(weights_1_3_give_targets_of_25_and_75_percent),
	TU_TEST(elephant_above_its_target_stays_and_mice_leave),
	TU_TEST(max_moves_cuts_the_full_plan_short),
	TU_TEST(ties_go_to_lower_bucket_lighter_bucket_and_first_cpu),
	TU_TEST(zero_load_stops_with_no_load),
	TU_TEST(buckets_outside_the_set_or_of_weight_0_neither_count_nor_move),
	TU_TEST(bad_input_is_einval_and_leaves_the_table),
	TU_TEST(stop_names_are_stable),
	TU_TEST(random_plans_follow_the_rules),
	TU_TEST(same_input_gives_same_plan_in_place_or_not),
	TU_TEST(largest_table_and_set_follow_the_rules),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
