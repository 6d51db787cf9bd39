// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <xdp/libxdp.h>
#include "names.h"

static const char *const pass_reasons[CPUSTEER_PASS_REASONS] = {
	[CPUSTEER_PASS_NON_IP] = "non_ip",
	[CPUSTEER_PASS_TRUNC_L2] = "truncated_l2",
	[CPUSTEER_PASS_TRUNC_L3] = "truncated_l3",
	[CPUSTEER_PASS_BAD_L3] = "bad_l3",
	[CPUSTEER_PASS_TRUNC_L4] = "truncated_l4",
	[CPUSTEER_PASS_EXT_HDRS] = "ipv6_ext_headers",
	[CPUSTEER_PASS_VLAN_DEPTH] = "vlan_depth",
	[CPUSTEER_PASS_BAD_LENGTH] = "bad_ip_length",
	[CPUSTEER_PASS_HEADERS_IN_FRAGS] = "headers_in_frags",
	[CPUSTEER_PASS_MPLS_DEPTH] = "mpls_depth",
	[CPUSTEER_PASS_MPLS_PAYLOAD] = "mpls_payload",
};

static const char *const errors[CPUSTEER_ERRORS] = {
	[CPUSTEER_ERR_NO_CPUMAP_ENTRY] = "no_cpumap_entry",
	[CPUSTEER_ERR_BAD_BUCKET] = "bad_bucket",
};

static const char *const tunnels[CPUSTEER_TUNNELS] = {
	[CPUSTEER_TUNNEL_VXLAN] = "vxlan",
	[CPUSTEER_TUNNEL_GENEVE] = "geneve",
	[CPUSTEER_TUNNEL_GRE] = "gre",
	[CPUSTEER_TUNNEL_IPIP] = "ipip",
	[CPUSTEER_TUNNEL_SIT] = "sit",
	[CPUSTEER_TUNNEL_ERSPAN] = "erspan",
	[CPUSTEER_TUNNEL_GTPU] = "gtpu",
	[CPUSTEER_TUNNEL_GTPU_TEID] = "gtpu-teid",
};

static const char *const inner_fallbacks[CPUSTEER_INNER_FALLBACKS] = {
	[CPUSTEER_INNER_TRUNCATED] = "truncated",
	[CPUSTEER_INNER_UNSUPPORTED] = "unsupported",
	[CPUSTEER_INNER_MALFORMED] = "malformed",
	[CPUSTEER_INNER_OUTER_FRAGMENT] = "outer_fragment",
	[CPUSTEER_INNER_SIGNALLING] = "signalling",
};

const char *tunnel_name(__u32 kind)
{
	return kind < CPUSTEER_TUNNELS ? tunnels[kind] : "none";
}

const char *inner_fallback_name(__u32 why)
{
	return why < CPUSTEER_INNER_FALLBACKS ? inner_fallbacks[why] : "none";
}

const char *pass_reason_name(__u32 reason)
{
	return reason < CPUSTEER_PASS_REASONS ? pass_reasons[reason] : "unknown";
}

const char *error_name(__u32 err)
{
	return err < CPUSTEER_ERRORS ? errors[err] : "unknown";
}

const char *xdp_verdict_name(int verdict)
{
	switch (verdict) {
	case XDP_ABORTED:
		return "aborted";
	case XDP_DROP:
		return "drop";
	case XDP_PASS:
		return "pass";
	case XDP_TX:
		return "tx";
	case XDP_REDIRECT:
		return "redirect";
	default:
		return "unknown";
	}
}

/* In the order --help and error messages list them. */
const struct name_value hash_fn_names[] = {
	{ .name = "multilinear", .value = CPUSTEER_HASH_MULTILINEAR },
	{ .name = "siphash13", .value = CPUSTEER_HASH_SIPHASH13 },
	{ .name = "nic", .value = CPUSTEER_HASH_NIC },
	{}
};

const char *hash_fn_name(__u32 fn)
{
	return name_of(hash_fn_names, fn, "multilinear");
}

const char *nic_hash_name(__u32 outcome)
{
	static const char *const names[CPUSTEER_NIC_HASH_OUTCOMES] = {
		[CPUSTEER_NIC_HASH_USED] = "used",
		[CPUSTEER_NIC_HASH_NONE] = "none",
		[CPUSTEER_NIC_HASH_L2] = "not_ip",
	};

	return outcome < CPUSTEER_NIC_HASH_OUTCOMES ? names[outcome] : "unknown";
}

const char *path_kind_name(__u32 kind)
{
	static const char *const names[CPUSTEER_PATH_KINDS] = {
		[CPUSTEER_PATH_KIND_VLAN] = "vlan",
		[CPUSTEER_PATH_KIND_PPPOE] = "pppoe",
		[CPUSTEER_PATH_KIND_MPLS] = "mpls",
	};

	return kind < CPUSTEER_PATH_KINDS ? names[kind] : "unknown";
}

const struct name_value remote_action_names[] = {
	{ .name = "none", .value = REMOTE_NONE },
	{ .name = "pass", .value = REMOTE_PASS },
	{ .name = "drop", .value = REMOTE_DROP },
	{ .name = "redirect", .value = REMOTE_REDIRECT, .operand = ":IFACE" },
	{}
};

const char *remote_action_name(enum remote_action remote)
{
	return name_of(remote_action_names, remote, "none");
}

const struct name_value xdp_mode_names[] = {
	{ .name = "native", .value = XDP_MODE_NATIVE },
	{ .name = "skb", .value = XDP_MODE_SKB },
	{}
};

const char *xdp_mode_name(int mode)
{
	return name_of(xdp_mode_names, mode, "native");
}

/* --kthread-sched: other takes an optional nice value, which its own
 * parser reads; fifo and rr a priority.
 */
const struct name_value kthread_policy_names[] = {
	{ .name = "other", .value = CPUSTEER_KTHREAD_OTHER },
	{ .name = "fifo", .value = CPUSTEER_KTHREAD_FIFO, .operand = ":PRIO" },
	{ .name = "rr", .value = CPUSTEER_KTHREAD_RR, .operand = ":PRIO" },
	{}
};

const char *sched_policy_name(int policy)
{
	static const char *const names[] = {
		[SCHED_OTHER] = "other", [SCHED_FIFO] = "fifo", [SCHED_RR] = "rr",
		[SCHED_BATCH] = "batch", [SCHED_IDLE] = "idle", [6] = "deadline", [7] = "ext",
	};

	if (policy < 0 || policy >= (int)(sizeof(names) / sizeof(names[0])) || !names[policy])
		return "unknown";
	return names[policy];
}

const char *ip_proto_name(__u8 proto)
{
	static char buf[8];

	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_SCTP:
		return "sctp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	default:
		snprintf(buf, sizeof(buf), "%u", proto);
		return buf;
	}
}
