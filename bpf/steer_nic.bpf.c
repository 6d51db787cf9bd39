// SPDX-License-Identifier: GPL-2.0
/* cpusteer_steer_nic (--hash nic), alone in its object: see steer.h. */
#include "steer.h"

/* The NIC's RX hash (Linux 6.3 and later). Weak, so that the object loads
 * on kernels without it; there the loader refuses --hash nic before it
 * would load cpusteer_steer_nic.
 */
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym __weak;

/* A weak kernel symbol's address is 0 where the kernel lacks it, and the
 * verifier removes the branch that would call it (libbpf 1.2 has this as
 * bpf_ksym_exists; Debian 12's 1.1 does not).
 */
#define ksym_present(sym) (!!(sym))

/* Hash types that cover an IP header: a frame the NIC hashed so is IP,
 * and its hash spreads its flows. veth reports XDP_RSS_L4 (any L4) for a
 * hash that covers the ports, XDP_RSS_TYPE_NONE for one that does not.
 */
#define NIC_HASH_OF_IP (XDP_RSS_L3_IPV4 | XDP_RSS_L3_IPV6 | XDP_RSS_L4)

/* cpusteer_steer for --hash nic: loaded bound to the device, which the
 * kernel asks of a program that reads RX metadata. A frame the NIC gave
 * an IP hash for goes to its bucket unread; any other is parsed and
 * hashed as cpusteer_steer does it, so non-IP frames keep their --non-ip
 * verdict and their pass reasons.
 */
SEC("xdp")
int cpusteer_steer_nic(struct xdp_md *ctx)
{
	struct packet pk = { .ctx = ctx, .f = NULL, .record = false };
	enum xdp_rss_hash_type type = XDP_RSS_TYPE_NONE;
	const struct cpusteer_config *cfg;
	__u32 zero = 0, hash = 0;
	int err = -1;

	pk.cnt = bpf_map_lookup_elem(&counters, &zero);
	cfg = active_config();
	if (!pk.cnt || !cfg)
		return XDP_PASS; /* cannot happen: arrays with entries 0 and 0-1 */
	pk.cnt->rx_packets++;
	if (ksym_present(bpf_xdp_metadata_rx_hash))
		err = bpf_xdp_metadata_rx_hash(ctx, &hash, &type);
	if (!err && (type & NIC_HASH_OF_IP)) {
		pk.cnt->nic_hash[CPUSTEER_NIC_HASH_USED]++;
		return redirect_by_hash(&pk, cfg, hash);
	}
	pk.cnt->nic_hash[err ? CPUSTEER_NIC_HASH_NONE : CPUSTEER_NIC_HASH_L2]++;
	return parse_and_steer(ctx, pk.cnt, cfg, false);
}

char LICENSE[] SEC("license") = "GPL";
