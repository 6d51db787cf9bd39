// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "bucket_balance.h"

/* A move must lower the peak by more than this fraction of it. Ratios are
 * doubles: without a margin, a move that gains only a rounding error
 * would count as progress, and reordering a flow's packets is not worth
 * less than one packet in a billion.
 */
#define MIN_GAIN 1e-9

/* A CPU number and its position in the set. */
struct cpu_slot {
	__u32 cpu, idx;
};

static int by_cpu(const void *a, const void *b)
{
	const struct cpu_slot *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static bool has_weight(const struct cpuset *set)
{
	__u32 i;

	for (i = 0; i < set->n; i++)
		if (set->weight[i])
			return true;
	return false;
}

static int check_input(const struct balance_input *in, const __u32 *new_table,
		       const struct balance_plan *plan)
{
	if (!in || !new_table || !plan || !in->table || !in->load || !in->cpus)
		return -EINVAL;
	if (!in->nbuckets || in->cpus->n > CPUSTEER_MAX_CPUS || !has_weight(in->cpus))
		return -EINVAL;
	/* Written so that NaN fails too. */
	if (!(in->threshold >= 0))
		return -EINVAL;
	if (in->max_moves && !plan->moves)
		return -EINVAL;
	return 0;
}

/* The set sorted by CPU number, so that each bucket's owner is found by
 * binary search: a set of 256 CPUs searched linearly for each of 65536
 * buckets would cost 16 million comparisons. A CPU listed twice would
 * make "the buckets of this CPU" belong to two positions: refused.
 */
static int sort_cpus(const struct cpuset *set, struct cpu_slot *slots)
{
	__u32 i;

	for (i = 0; i < set->n; i++) {
		slots[i].cpu = set->cpu[i];
		slots[i].idx = i;
	}
	qsort(slots, set->n, sizeof(*slots), by_cpu);
	for (i = 1; i < set->n; i++)
		if (slots[i].cpu == slots[i - 1].cpu)
			return -EINVAL;
	return 0;
}

/* The position of a bucket's owner if the plan may balance it (a CPU of
 * the set with a weight), else -1.
 */
static int owner_of(const struct cpuset *set, const struct cpu_slot *slots, __u32 cpu)
{
	struct cpu_slot key = { .cpu = cpu }, *s;

	s = bsearch(&key, slots, set->n, sizeof(*slots), by_cpu);
	if (!s || !set->weight[s->idx])
		return -1;
	return s->idx;
}

static int count_loads(const struct balance_input *in, const struct cpu_slot *slots,
		       struct balance_plan *plan)
{
	__u32 b;
	int c;

	for (b = 0; b < in->nbuckets; b++) {
		if (__builtin_add_overflow(plan->total, in->load[b], &plan->total))
			return -EOVERFLOW;
		c = owner_of(in->cpus, slots, in->table[b]);
		if (c < 0)
			plan->stranded += in->load[b];
		else
			plan->before[c] += in->load[b];
	}
	return 0;
}

/* Each weighted CPU's share of the load that can move; 0 marks a CPU of
 * weight 0, which takes part in nothing below.
 */
static void set_targets(const struct cpuset *set, __u64 movable, double *target)
{
	__u64 wsum = 0;
	__u32 i;

	for (i = 0; i < set->n; i++)
		wsum += set->weight[i];
	for (i = 0; i < set->n; i++)
		target[i] = (double)movable * set->weight[i] / wsum;
}

/* The weighted CPU of highest (or lowest) load / target, first in set
 * order on ties, so that the plan does not depend on rounding order.
 */
static int pick(const struct cpuset *set, const __u64 *load, const double *target,
		bool highest)
{
	double r, best_r = 0;
	int best = -1;
	__u32 i;

	for (i = 0; i < set->n; i++) {
		if (!set->weight[i])
			continue;
		r = load[i] / target[i];
		if (best < 0 || (highest ? r > best_r : r < best_r)) {
			best = i;
			best_r = r;
		}
	}
	return best;
}

static double peak(const struct cpuset *set, const __u64 *load, const double *target)
{
	int h = pick(set, load, target, true);

	return load[h] / target[h];
}

/* The bucket of CPU h whose move to CPU l leaves the higher of their two
 * ratios lowest (the lighter bucket, then the lower index, on ties). Only
 * the pair is weighed: the other CPUs keep their load, and none is above
 * h. Returns false if h has no bucket with load.
 */
static bool best_bucket(const struct balance_input *in, const __u32 *table,
			const __u64 *load, const double *target, int h, int l,
			__u32 *bucket, double *new_peak)
{
	__u32 cpu = in->cpus->cpu[h], b;
	double ph, pl, p, best_p = 0;
	__u64 x, best_x = 0;
	bool found = false;

	for (b = 0; b < in->nbuckets; b++) {
		x = in->load[b];
		if (table[b] != cpu || !x)
			continue;
		ph = (load[h] - x) / target[h];
		pl = (load[l] + x) / target[l];
		p = ph > pl ? ph : pl;
		if (!found || p < best_p || (p == best_p && x < best_x)) {
			found = true;
			best_p = p;
			best_x = x;
			*bucket = b;
		}
	}
	*new_peak = best_p;
	return found;
}

static void apply_move(const struct balance_input *in, __u32 *table, struct balance_plan *plan,
		       int h, int l, __u32 b)
{
	__u64 x = in->load[b];

	table[b] = in->cpus->cpu[l];
	plan->after[h] -= x;
	plan->after[l] += x;
	plan->moves[plan->nmoves++] = (struct bucket_move){
		.bucket = b,
		.from = in->cpus->cpu[h],
		.to = in->cpus->cpu[l],
		.load = x,
	};
}

/* Each move replaces the peak ratio by two lower ones and leaves the
 * others alone, so the ratios sorted from the top fall in lexicographic
 * order with every move: no state comes back, the peak never rises, and
 * the loop ends even without max_moves.
 */
static enum balance_stop run(const struct balance_input *in, __u32 *table,
			     struct balance_plan *plan, const double *target)
{
	const struct cpuset *set = in->cpus;
	double r_h, new_peak;
	__u32 b = 0;
	int h, l;

	for (;;) {
		h = pick(set, plan->after, target, true);
		r_h = plan->after[h] / target[h];
		if (r_h <= 1 + in->threshold)
			return BALANCE_BALANCED;
		if (plan->nmoves == in->max_moves)
			return BALANCE_MAX_MOVES;
		l = pick(set, plan->after, target, false);
		/* l == h only when every ratio rounds to the same value. */
		if (l == h || !best_bucket(in, table, plan->after, target, h, l, &b, &new_peak) ||
		    new_peak >= r_h * (1 - MIN_GAIN))
			return BALANCE_NO_BETTER_MOVE;
		apply_move(in, table, plan, h, l, b);
	}
}

int bucket_balance_plan(const struct balance_input *in, __u32 *new_table,
			struct balance_plan *plan)
{
	struct cpu_slot slots[CPUSTEER_MAX_CPUS];
	double target[CPUSTEER_MAX_CPUS];
	struct bucket_move *moves;
	int err;

	err = check_input(in, new_table, plan);
	if (err)
		return err;
	err = sort_cpus(in->cpus, slots);
	if (err)
		return err;
	moves = plan->moves;
	memset(plan, 0, sizeof(*plan));
	plan->moves = moves;
	err = count_loads(in, slots, plan);
	if (err)
		return err;

	if (new_table != in->table)
		memcpy(new_table, in->table, (size_t)in->nbuckets * sizeof(*new_table));
	memcpy(plan->after, plan->before, sizeof(plan->after));
	if (plan->total == plan->stranded) {
		plan->stop = BALANCE_NO_LOAD;
		return 0;
	}
	set_targets(in->cpus, plan->total - plan->stranded, target);
	plan->peak_before = peak(in->cpus, plan->before, target);
	plan->stop = run(in, new_table, plan, target);
	plan->peak_after = peak(in->cpus, plan->after, target);
	return 0;
}

const char *balance_stop_name(enum balance_stop s)
{
	switch (s) {
	case BALANCE_BALANCED:
		return "balanced";
	case BALANCE_NO_LOAD:
		return "no_load";
	case BALANCE_MAX_MOVES:
		return "max_moves";
	case BALANCE_NO_BETTER_MOVE:
		return "no_better_move";
	}
	return "unknown";
}
