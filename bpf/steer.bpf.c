// SPDX-License-Identifier: GPL-2.0
/* The steering program and its cpumap second stages.
 *
 * cpusteer_steer parses each frame, hashes its flow with the per-load key,
 * and redirects it through the cpumap to the CPU that owns the flow's
 * bucket; with --inner, the flow inside a tunnel (bpf/tunnel.h) is the
 * one hashed. cpusteer_classify is the same program recording each
 * decision; cpusteer_steer_nic (steer_nic.bpf.c) takes the hash the NIC
 * computed where the driver gives one (--hash nic).
 * cpusteer_notouch redirects without reading the frame: it is the floor
 * that benchmarks compare steering against. The cpusteer_remote_*
 * programs run on the target CPU, in the cpumap kthread.
 *
 * Every program here is frags-aware, and every one touches the cpumap (as
 * its user or as its entries' program), where the kernel wants one "has
 * frags" flag: the first program to use a cpumap fixes it, and a program
 * with the other flag is refused (a second stage reported as ENOMEM). So
 * the sections leave the flag out and the loader sets it on all of them:
 * on, except where libxdp loads the steering program into its dispatcher,
 * which it does without the flag.
 */
#include "steer.h"

SEC("xdp")
int cpusteer_steer(struct xdp_md *ctx)
{
	return steer_frame(ctx, false);
}

/* cpusteer_steer that also records each decision, for `cpusteer classify`
 * and the program tests: what it reports is what the kernel chose.
 */
SEC("xdp")
int cpusteer_classify(struct xdp_md *ctx)
{
	return steer_frame(ctx, true);
}

/* The benchmark floor: the same counters, configuration, table lookup and
 * redirect as cpusteer_steer, but buckets are taken round-robin and the
 * frame is never read.
 */
SEC("xdp")
int cpusteer_notouch(struct xdp_md *ctx)
{
	struct packet pk = { .ctx = ctx, .f = NULL, .record = false };
	const struct cpusteer_config *cfg;
	__u32 zero = 0, bucket;

	pk.cnt = bpf_map_lookup_elem(&counters, &zero);
	cfg = active_config();
	if (!pk.cnt || !cfg)
		return XDP_PASS; /* cannot happen: arrays with entries 0 and 0-1 */
	pk.cnt->rx_packets++;
	if (!cfg->nbuckets)
		return fail_with(&pk, 0, 0, CPUSTEER_NON_IP_PASS, CPUSTEER_ERR_BAD_BUCKET);
	bucket = pk.cnt->rx_packets % cfg->nbuckets;
	return redirect_via_bucket(&pk, cfg, 0, bucket);
}

static __always_inline struct cpusteer_remote_counters *remote_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&remote_counters, &zero);
}

SEC("xdp/cpumap")
int cpusteer_remote_pass(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();

	if (rc)
		rc->passed++;
	return XDP_PASS;
}

SEC("xdp/cpumap")
int cpusteer_remote_drop(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();

	if (rc)
		rc->dropped++;
	return XDP_DROP;
}

/* An empty devmap slot makes the redirect fail; the frame is then dropped
 * and counted, since the cpumap kthread has nowhere else to send it.
 */
SEC("xdp/cpumap")
int cpusteer_remote_redirect(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();
	int act = bpf_redirect_map(&remote_devmap, 0, XDP_DROP);

	if (rc) {
		if (act == XDP_REDIRECT)
			rc->redirected++;
		else
			rc->redirect_errors++;
	}
	return act;
}

char LICENSE[] SEC("license") = "GPL";
