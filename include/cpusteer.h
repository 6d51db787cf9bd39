/* SPDX-License-Identifier: GPL-2.0 */
/* The contract between the BPF programs and the cpusteer loader: limits,
 * the live configuration, the counters and the per-packet decision record.
 * Plain fixed-width types only, with explicit padding, so both sides agree
 * on every offset.
 */
#ifndef CPUSTEER_H
#define CPUSTEER_H

#ifdef __BPF__
#include "vmlinux.h"
#else
#include <linux/types.h>
#endif

/* Upper bound on the number of target CPUs of one instance (the pinned
 * record lists them). CPU numbers themselves are bounded only by the
 * machine's possible CPUs, which size the cpumap and the redirect counters.
 */
#define CPUSTEER_MAX_CPUS 256

/* The indirection table is allocated at its largest size once, so that the
 * bucket count can change on a running instance without replacing a map.
 */
#define CPUSTEER_MAX_BUCKETS 65536
#define CPUSTEER_DEFAULT_BUCKETS 512

/* IPv6 extension headers walked before giving up on finding the L4 header. */
#define CPUSTEER_MAX_EXT_HEADERS 8

#define CPUSTEER_NON_IP_PASS 0xffffffffu

/* The bucket of a flow hash in a table of `nbuckets`. Multiply-shift maps
 * the hash onto any bucket count without a division and keeps the high
 * hash bits, which mix best; bucket b holds the hashes from
 * ceil(b * 2^32 / nbuckets) up to the next bucket's first. User space
 * uses the same ranges to keep flows on their CPU when the table is
 * resized.
 */
static inline __u32 cpusteer_bucket(__u32 hash, __u32 nbuckets)
{
	return ((__u64)hash * nbuckets) >> 32;
}

/* Tunnels whose inner flow can decide the CPU (`--inner`). A frame of an
 * enabled kind is steered by the flow it carries, one level deep, so the
 * many flows that share one tunnel's outer 5-tuple spread over the CPUs.
 */
enum cpusteer_tunnel {
	CPUSTEER_TUNNEL_VXLAN = 0,	/* UDP, 4789 and ports given */
	CPUSTEER_TUNNEL_GENEVE,		/* UDP, 6081 and ports given */
	CPUSTEER_TUNNEL_GRE,		/* IP protocol 47, RFC 2784/2890 */
	CPUSTEER_TUNNEL_IPIP,		/* IP protocol 4: IPv4 in IPv4 or IPv6 */
	CPUSTEER_TUNNEL_SIT,		/* IP protocol 41: IPv6 in IPv4 or IPv6 */
	CPUSTEER_TUNNEL_ERSPAN,		/* GRE protocol 0x88BE or 0x22EB: a
					 * mirrored Ethernet frame */
	CPUSTEER_TUNNEL_GTPU,		/* UDP, 2152 and ports given: a GTP-U
					 * G-PDU, by the IP datagram it carries */
	CPUSTEER_TUNNEL_GTPU_TEID,	/* the same frames by tunnel: the outer
					 * addresses and the TEID */
	CPUSTEER_TUNNELS		/* also: not a tunnel, in a decision */
};

/* GTP-U extension headers walked before the payload; a longer chain is
 * a limit of the parser (the unsupported fallback).
 */
#define CPUSTEER_MAX_GTPU_EXT_HEADERS 4

/* UDP destination ports recognised as VXLAN, GENEVE or GTP-U at once. */
#define CPUSTEER_MAX_UDP_TUNNEL_PORTS 4

/* Why a tunnelled frame was steered by its outer flow after all. The
 * frame is never dropped for it: its outer key still names a CPU.
 */
enum cpusteer_inner_fallback {
	CPUSTEER_INNER_TRUNCATED = 0,	/* tunnel or inner headers cut short */
	CPUSTEER_INNER_UNSUPPORTED,	/* tunnel version or flags, or an inner
					 * protocol, the parser does not read */
	CPUSTEER_INNER_MALFORMED,	/* inner IP header fails the checks an
					 * outer one must pass */
	CPUSTEER_INNER_OUTER_FRAGMENT,	/* only the first fragment of the outer
					 * datagram holds the inner headers */
	CPUSTEER_INNER_SIGNALLING,	/* a tunnel message that carries no
					 * user frame (GTP-U echo, error
					 * indication, end marker, ...) */
	CPUSTEER_INNER_FALLBACKS	/* also: none, in a decision */
};

enum cpusteer_hash_fn {
	/* The default: a few multiply-adds, pairwise independent under the
	 * key; docs/hash-choice.md says when to choose SipHash instead.
	 */
	CPUSTEER_HASH_MULTILINEAR = 0,
	CPUSTEER_HASH_SIPHASH13 = 1,
	/* The RX hash the NIC computed (XDP metadata), for frames it gives
	 * one for; multilinear with the key for the others.
	 */
	CPUSTEER_HASH_NIC = 2,
};

/* With --hash nic, where each frame's hash came from. */
enum cpusteer_nic_hash {
	CPUSTEER_NIC_HASH_USED = 0,	/* the NIC's, of an IP header or more */
	CPUSTEER_NIC_HASH_NONE,		/* the driver gave none for this frame */
	CPUSTEER_NIC_HASH_L2,		/* the NIC's covers no IP header: the
					 * frame may be no IP at all */
	CPUSTEER_NIC_HASH_OUTCOMES
};

/* VLAN tags the parser skips before the EtherType: an access network's
 * customer and service tags, with room for a carrier's above them. One
 * more is passed as vlan_depth.
 */
#define CPUSTEER_MAX_VLAN_TAGS 4

/* MPLS label stack entries the parser walks looking for the bottom of
 * the stack; a deeper stack is passed as mpls_depth.
 */
#define CPUSTEER_MAX_MPLS_LABELS 8

/* What the parser walked between a frame's Ethernet header and its
 * network header (or the place it stopped), as a decision record's
 * `path` names it: at least one whole VLAN tag, a whole PPPoE session
 * header, at least one whole MPLS label stack entry. Of a tunnelled
 * frame, the outer frame's.
 */
#define CPUSTEER_PATH_VLAN	0x01
#define CPUSTEER_PATH_PPPOE	0x10
#define CPUSTEER_PATH_MPLS	0x20
#define CPUSTEER_PATH_BITS (CPUSTEER_PATH_VLAN | CPUSTEER_PATH_PPPOE | CPUSTEER_PATH_MPLS)

/* The same three, as the counters of frames by layer-2 path index them. */
enum cpusteer_path_kind {
	CPUSTEER_PATH_KIND_VLAN = 0,
	CPUSTEER_PATH_KIND_PPPOE,
	CPUSTEER_PATH_KIND_MPLS,
	CPUSTEER_PATH_KINDS
};

/* Live configuration. The config map holds two slots and the config_slot
 * map the index of the one in force: `cpusteer set` fills the other slot,
 * then flips the index, then waits until no program can still be reading
 * the old slot. So a packet reads one whole configuration, never half of
 * an old key and half of a new one.
 */
#define CPUSTEER_CONFIG_SLOTS 2

/* The multilinear hash's 32-bit message words: 10 for IPv6, 4 for IPv4.
 * It has a key word per message word and one more, added to the sum.
 */
#define CPUSTEER_MULTILINEAR_WORDS 10
/* The key words stored folded (struct cpusteer_config): 2, 6 and 8, the
 * high halves of IPv6 address words 0, 2 and 3, of which word 0 is IPv4's
 * address pair. Word 4, the high half of IPv6 address word 1, is IPv4's
 * last word too and stays as drawn.
 */
#define CPUSTEER_MULTILINEAR_FOLDED ((1u << 2) | (1u << 6) | (1u << 8))

struct cpusteer_config {
	__u64 key[2];		/* 128-bit hash key */
	__u32 nbuckets;		/* used entries of the indirection table */
	__u32 non_ip_cpu;	/* CPUSTEER_NON_IP_PASS or a CPU number */
	__u16 symmetric;	/* nonzero: both directions hash alike */
	/* CPUSTEER_RULES_*: the kinds of prefix rule the program looks up,
	 * a superset of those the tries of the copy in force hold, and that
	 * copy; 0: no rules, and no trie is read. In one 64-bit word with
	 * `symmetric` and `hash_fn`, which is zero for the default path.
	 */
	__u16 rules;
	__u32 hash_fn;		/* enum cpusteer_hash_fn */
	__u32 inner;		/* bits 1 << CPUSTEER_TUNNEL_*: tunnels
				 * steered by their inner flow */
	__u32 udp_tunnel_ports;	/* entries used in the two arrays below */
	__be16 udp_tunnel_port[CPUSTEER_MAX_UDP_TUNNEL_PORTS];	/* network order */
	__u8 udp_tunnel_kind[CPUSTEER_MAX_UDP_TUNNEL_PORTS];	/* VXLAN or GENEVE */
	__u32 bucket_stats;	/* nonzero: count each bucket's load */
	/* Bit (port % 64) set for each port above: one test turns away
	 * nearly all UDP that is no tunnel before any port is compared.
	 */
	__u64 udp_tunnel_filter;
	/* Drawn from `key` by the loader whenever it writes a slot, so that
	 * --key alone decides every family's hash (docs/flow-hash.md), and
	 * stored folded: the multiplier of the high half of an address word
	 * has its low half's, shifted up, taken out (MULTILINEAR_FOLDED), so
	 * that the program multiplies the whole word instead of cutting out
	 * its low half. The hash is the same.
	 */
	__u64 multilinear_key[CPUSTEER_MULTILINEAR_WORDS + 1];
};

/* Prefix rules (`cpusteer rule`): a flow whose source or destination
 * address falls in a rule's prefix goes to the rule's CPU, or to one of
 * its CPUs chosen by the flow's hash, ahead of the bucket table. Each
 * address family has its rules in an LPM trie keyed by the direction
 * and the address, and each trie has two copies, one in force
 * (CPUSTEER_RULES_COPY_1 in cpusteer_config.rules): a change fills the other copy and then
 * moves the configuration over to it, so packets meet the old rules or
 * the new ones, never a mix.
 */
#define CPUSTEER_MAX_RULE_CPUS 16	/* a power of two: masks bound the pick */
#define CPUSTEER_MAX_RULES 1048576	/* per address family */

enum cpusteer_rule_direction {
	CPUSTEER_RULE_NONE = 0,		/* in a decision: no rule matched */
	CPUSTEER_RULE_SRC = 1,		/* matched on the source address */
	CPUSTEER_RULE_DST = 2,		/* matched on the destination address */
};

#define CPUSTEER_RULES_IPV4_SRC 0x1
#define CPUSTEER_RULES_IPV4_DST 0x2
#define CPUSTEER_RULES_IPV6_SRC 0x4
#define CPUSTEER_RULES_IPV6_DST 0x8
#define CPUSTEER_RULES_COPY_1 0x8000	/* the tries of copy 1 are in force */

/* An LPM trie key: `prefixlen` counts the direction's 8 bits and then
 * the prefix's own; the padding is zero.
 */
struct cpusteer_rule_key_ipv4 {
	__u32 prefixlen;
	__u8 direction;		/* enum cpusteer_rule_direction */
	__u8 addr[4];		/* network order */
	__u8 pad[3];
};

struct cpusteer_rule_key_ipv6 {
	__u32 prefixlen;
	__u8 direction;
	__u8 addr[16];
	__u8 pad[3];
};

/* What a rule does; the trie gives the value only, so it repeats the
 * direction and prefix length of its key, which a match reports.
 */
struct cpusteer_rule {
	__u16 direction;	/* enum cpusteer_rule_direction */
	__u16 prefixlen;	/* of the address alone: 0-32 or 0-128 */
	__u32 ncpus;		/* 1 to CPUSTEER_MAX_RULE_CPUS */
	__u32 cpu[CPUSTEER_MAX_RULE_CPUS];
};

/* The fields that decide a flow's CPU and nothing else. IPv4 addresses sit
 * in word 0 with the rest zero; `family` keeps an IPv4 flow apart from an
 * IPv6 one with the same bits. Ports are zero when the protocol has none or
 * the packet is a fragment.
 */
struct cpusteer_flow_key {
	__u32 saddr[4];
	__u32 daddr[4];
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 family;		/* 4 or 6; 0 for non-IP */
	__u8 pad[2];
};

/* Why a packet was passed to the local stack instead of redirected. */
enum cpusteer_pass_reason {
	CPUSTEER_PASS_NON_IP = 0,	/* ARP, LLDP, ... with non-ip=pass */
	CPUSTEER_PASS_TRUNC_L2,		/* Ethernet or VLAN header cut short */
	CPUSTEER_PASS_TRUNC_L3,		/* IP header cut short */
	CPUSTEER_PASS_BAD_L3,		/* bad IP version or IHL */
	CPUSTEER_PASS_TRUNC_L4,		/* TCP/UDP/SCTP ports cut short */
	CPUSTEER_PASS_EXT_HDRS,		/* IPv6 extension chain too long or cut */
	CPUSTEER_PASS_VLAN_DEPTH,	/* more than CPUSTEER_MAX_VLAN_TAGS VLAN tags */
	CPUSTEER_PASS_BAD_LENGTH,	/* IP length field below the header or past the frame */
	CPUSTEER_PASS_HEADERS_IN_FRAGS,	/* headers continue past the linear part */
	CPUSTEER_PASS_MPLS_DEPTH,	/* no bottom of stack in CPUSTEER_MAX_MPLS_LABELS labels */
	CPUSTEER_PASS_MPLS_PAYLOAD,	/* below the labels no IPv4 or IPv6 (a
					 * pseudowire control word, Ethernet, ...) */
	CPUSTEER_PASS_REASONS
};

/* Outcomes that are not a choice but a failure; the packet is passed. */
enum cpusteer_error {
	CPUSTEER_ERR_NO_CPUMAP_ENTRY = 0, /* bucket names a CPU with no entry */
	CPUSTEER_ERR_BAD_BUCKET,	/* bucket or the CPU it names out of range */
	CPUSTEER_ERRORS
};

/* Per-CPU counters of the steering program. Every packet adds one to
 * `rx_packets` and exactly one to either a redirect slot, a `passed`
 * reason or an `errors` slot, so the three always add up to `rx_packets`.
 * The `seen_*` counters are notes on packets already counted above.
 *
 * The counters map's value is this struct followed by one __u64 per
 * possible CPU: the packets redirected to that CPU. The loader sizes the
 * value to the machine, so any CPU can be a target, and the hot path
 * counts a redirect in the value it already holds.
 */
struct cpusteer_counters {
	__u64 rx_packets;
	__u64 passed[CPUSTEER_PASS_REASONS];
	__u64 errors[CPUSTEER_ERRORS];
	__u64 seen_fragments;
	__u64 seen_vlan;
	__u64 seen_l3_only;	/* IP protocols without ports we parse */
	__u64 seen_pppoe;	/* frames with a whole PPPoE session header */
	__u64 seen_mpls;	/* frames with a whole MPLS label stack entry */
	__u64 inner_steered[CPUSTEER_TUNNELS];	/* by tunnel kind */
	__u64 inner_fallback[CPUSTEER_INNER_FALLBACKS];	/* by reason */
	__u64 tunnel_fallback[CPUSTEER_TUNNELS];	/* the same frames, by tunnel */
	/* Frames that came by a layer-2 path (as seen_vlan, seen_pppoe and
	 * seen_mpls count them), by kind: hashed by their flow, or passed
	 * with a reason. The rest went to the --non-ip CPU.
	 */
	__u64 path_steered[CPUSTEER_PATH_KINDS];
	__u64 path_passed[CPUSTEER_PATH_KINDS];
	__u64 nic_hash[CPUSTEER_NIC_HASH_OUTCOMES];	/* --hash nic */
};

#define CPUSTEER_COUNTERS_VALUE_SIZE(ncpus) \
	(sizeof(struct cpusteer_counters) + (ncpus) * sizeof(__u64))

/* What each bucket carried, per receiving CPU, with --bucket-stats: the
 * load `cpusteer balance` moves buckets by. Every frame hashed to the
 * bucket counts, whatever became of it after.
 */
struct cpusteer_bucket_load {
	__u64 packets;
	__u64 bytes;		/* of each frame's first buffer: all of it
				 * but for a multi-buffer frame */
};

/* Per-CPU counters of the second-stage (cpumap) programs. */
struct cpusteer_remote_counters {
	__u64 passed;
	__u64 dropped;
	__u64 redirected;
	__u64 redirect_errors;
};

/* Outcome codes in a decision record. */
enum cpusteer_outcome {
	CPUSTEER_OUT_REDIRECT = 0,
	CPUSTEER_OUT_PASS = 1,	/* `reason` holds the cpusteer_pass_reason */
	CPUSTEER_OUT_ERROR = 2,	/* `reason` holds the cpusteer_error */
};

/* What the program decided for the last packet. Written only when the
 * program is loaded for `cpusteer classify`, so the CPU reported is the
 * one the kernel program chose, not a user-space re-computation.
 */
struct cpusteer_decision {
	struct cpusteer_flow_key key;	/* the flow hashed */
	__u32 hash;
	__u32 bucket;
	__u32 cpu;
	__u32 outcome;
	__u32 reason;
	__u32 tunnel;		/* enum cpusteer_tunnel; CPUSTEER_TUNNELS: none */
	__u32 inner_fallback;	/* with a tunnel: why `key` is the outer
				 * flow; CPUSTEER_INNER_FALLBACKS: it is not */
	__u32 path;		/* CPUSTEER_PATH_* bits */
	struct cpusteer_flow_key outer;	/* with a tunnel: the outer flow */
	__u32 rule;		/* enum cpusteer_rule_direction of the rule
				 * that chose the CPU; `bucket` is then
				 * CPUSTEER_NO_BUCKET */
	__u32 rule_prefixlen;	/* its prefix length */
};

#define CPUSTEER_NO_BUCKET 0xffffffffu

/* Device settings as the loader records them: `mask` says which fields
 * hold a value (bits DEV_* in loader/device/device.h).
 */
struct cpusteer_device_record {
	__u32 mask;
	__u32 gro;
	__u32 threaded;
	__u32 defer_hard_irqs;
	__u64 gro_flush_timeout;
};

/* Where an instance is in its life. A command records the phase it is
 * about to enter before it changes anything, so whatever a killed command
 * left behind can be explained by `status` and undone by `unload`.
 */
enum cpusteer_phase {
	CPUSTEER_PHASE_LOADING = 1,	/* pinned; attach and device settings under way */
	CPUSTEER_PHASE_READY,		/* the recorded configuration is in force */
	CPUSTEER_PHASE_SETTING,		/* moving to the recorded configuration */
	CPUSTEER_PHASE_UNLOADING,	/* detach, restore and unpin under way */
	/* balance moving buckets between the recorded CPUs: every table
	 * entry names one of them at any moment, so a killed step leaves a
	 * whole configuration behind, with some of its moves made.
	 */
	CPUSTEER_PHASE_BALANCING,
	/* A set failed and so did its way back: the maps may be between two
	 * configurations, as after a killed set, but no command is at work.
	 */
	CPUSTEER_PHASE_SET_FAILED,
};

/* How the cpumap's kernel threads of an instance are scheduled
 * (--kthread-sched), in its record.
 */
enum cpusteer_kthread_policy {
	CPUSTEER_KTHREAD_UNSET = 0,	/* left as the kernel made them */
	CPUSTEER_KTHREAD_OTHER,		/* SCHED_OTHER at a nice value */
	CPUSTEER_KTHREAD_FIFO,		/* SCHED_FIFO at a priority 1-99 */
	CPUSTEER_KTHREAD_RR,		/* SCHED_RR at a priority 1-99 */
};

/* Bumped whenever the record or a pinned map changes shape or meaning:
 * a record of another version is refused, not misread. 9: the multilinear
 * key words are stored folded; 10: the record holds the cpumap kthreads'
 * scheduling (kthread_policy, kthread_priority); 11: the counters hold
 * seen_pppoe and seen_mpls, and two more pass reasons (mpls_depth,
 * mpls_payload); 12: a sixth tunnel kind, erspan, in the config's
 * `inner` and the counters; 13: GTP-U's two kinds, gtpu and gtpu-teid,
 * and the signalling fallback; fallbacks by tunnel, and frames steered
 * and passed by layer-2 path; 14: prefix rules, their maps and the
 * config's `rules`, which makes `symmetric` 16 bits.
 */
#define CPUSTEER_STATE_VERSION 14

/* What the instance is meant to be and what it changed, pinned with the
 * maps so that set, status and unload in later processes know it. The
 * programs never read it. `cpus`, `weights`, `qsize`, `remote`, `cfg`
 * and the kthreads' scheduling are the configuration the instance is
 * moving to or is in (see `phase`); `saved` holds the device's values
 * from before cpusteer first changed them, recorded before any change
 * is made.
 */
struct cpusteer_instance_state {
	__u32 version;		/* CPUSTEER_STATE_VERSION */
	__u32 phase;		/* enum cpusteer_phase */
	__u32 phase_pid;	/* the command that entered the phase */
	__u32 ifindex;
	__u64 netns_cookie;	/* the network namespace the ifindex belongs to */
	__u64 netns_ino;	/* the same namespace's inode, to find its name */
	char ifname[16];	/* IFNAMSIZ */
	__u8 hwaddr[6];		/* the device's address at load: with the */
	__u8 pad[2];		/* name and index, tells it from a replacement */
	__u32 xdp_mode;		/* 1 native, 2 skb (libxdp's enum) */
	__u32 prog_id;		/* the steering program, attached once loaded */
	__u32 notouch;		/* the no-touch floor program instead */
	__u32 kernel_features;	/* the loader's KF_* bits, probed at load */
	__u32 qsize;
	__u32 remote;		/* the loader's enum remote_action */
	__u32 redirect_ifindex;
	__u32 ncpus;
	__u32 cpus[CPUSTEER_MAX_CPUS];
	__u32 weights[CPUSTEER_MAX_CPUS];
	struct cpusteer_config cfg;
	struct cpusteer_device_record saved;	/* values before cpusteer */
	struct cpusteer_device_record applied;	/* values cpusteer set */
	__u32 kthread_policy;	/* enum cpusteer_kthread_policy */
	__s32 kthread_priority;	/* fifo and rr: 1-99; other: the nice value */
};

#endif /* CPUSTEER_H */
