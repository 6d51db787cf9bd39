// SPDX-License-Identifier: GPL-2.0
/* The sums over CPUs that the stats table and the JSON both show. */
#include <stddef.h>
#include <string.h>
#include "names.h"
#include "stats_view.h"

const struct counter_group counter_groups[COUNTER_GROUPS] = {
	[GROUP_PASSED] = { "PASSED", "pass", "pass_reasons", offsetof(struct cpusteer_counters, passed),
	  CPUSTEER_PASS_REASONS, pass_reason_name },
	[GROUP_ERRORS] = { "ERRORS (passed)", "errors", "errors", offsetof(struct cpusteer_counters, errors),
	  CPUSTEER_ERRORS, error_name },
	[GROUP_INNER_STEERED] = { "INNER FLOW STEERED", "inner_steered", "inner_steered",
	  offsetof(struct cpusteer_counters, inner_steered), CPUSTEER_TUNNELS, tunnel_name },
	[GROUP_INNER_FALLBACK] = { "OUTER FLOW STEERED (tunnel)", "inner_fallback", "inner_fallback",
	  offsetof(struct cpusteer_counters, inner_fallback), CPUSTEER_INNER_FALLBACKS,
	  inner_fallback_name },
	[GROUP_NIC_HASH] = { "NIC HASH (--hash nic)", "nic_hash", "nic_hash",
	  offsetof(struct cpusteer_counters, nic_hash), CPUSTEER_NIC_HASH_OUTCOMES, nic_hash_name },
};

/* Every counter struct is made of __u64 words (trace.h), so one loop adds
 * up any of them: *sum += the `count` structs of `size` bytes that start
 * at `first`, `stride` bytes apart.
 */
static void add_up(void *sum, const void *first, size_t size, size_t count, size_t stride)
{
	const char *p = first;
	__u64 *out = sum;
	size_t i, w;

	for (i = 0; i < count; i++, p += stride)
		for (w = 0; w < size / sizeof(__u64); w++)
			out[w] += ((const __u64 *)p)[w];
}

struct rx_sum sample_rx_sum(const struct stats_sample *s, int n, int cpu)
{
	int first = cpu < 0 ? 0 : cpu, last = cpu < 0 ? n - 1 : cpu, c, i;
	struct rx_sum sum = {};

	for (c = first; c <= last; c++) {
		const struct cpusteer_counters *k = &s->rx[c];

		sum.rx += k->rx_packets;
		for (i = 0; i < n; i++)
			sum.redirect += s->redirected[(size_t)c * n + i];
		for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
			sum.pass += k->passed[i];
		for (i = 0; i < CPUSTEER_ERRORS; i++)
			sum.error += k->errors[i];
	}
	return sum;
}

__u64 sample_redirected_to(const struct stats_sample *s, int n, int to)
{
	__u64 sum = 0;
	int from;

	for (from = 0; from < n; from++)
		sum += s->redirected[(size_t)from * n + to];
	return sum;
}

void sample_rx_all(struct cpusteer_counters *sum, const struct stats_sample *s, int n)
{
	memset(sum, 0, sizeof(*sum));
	add_up(sum, s->rx, sizeof(*sum), n, sizeof(*sum));
}

/* Enqueues to `to`, summed over the source CPUs. */
struct enqueue_count sample_enqueue_to(const struct stats_sample *s, int n, int to)
{
	struct enqueue_count e = {};

	add_up(&e, &s->enqueue[to], sizeof(e), n, n * sizeof(e));
	return e;
}

struct enqueue_count sample_enqueue_all(const struct stats_sample *s, int n)
{
	struct enqueue_count e = {};

	add_up(&e, s->enqueue, sizeof(e), (size_t)n * n, sizeof(e));
	return e;
}

struct kthread_count sample_kthread_all(const struct stats_sample *s, int n)
{
	struct kthread_count k = {};

	add_up(&k, s->kthread, sizeof(k), n, sizeof(k));
	return k;
}

struct cpusteer_remote_counters sample_remote_all(const struct stats_sample *s, int n)
{
	struct cpusteer_remote_counters r = {};

	add_up(&r, s->remote, sizeof(r), n, sizeof(r));
	return r;
}

const char *exception_slot_name(int slot)
{
	return slot <= XDP_REDIRECT ? xdp_verdict_name(slot) : "other";
}
