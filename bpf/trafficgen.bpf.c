// SPDX-License-Identifier: GPL-2.0
/* The traffic generator's program, run by BPF_PROG_TEST_RUN in live-frames
 * mode on a template frame that the loader builds. Each run gives the frame
 * the next source port of the flow set, fixes the L4 checksum to match and
 * returns XDP_TX, which live mode turns into a transmit on the device named
 * by the test run's ingress_ifindex.
 *
 * With elephants, a few flows carry a fixed share of the frames: the skew
 * a hash spreads badly, which `cpusteer balance` is there to correct.
 *
 * Live mode copies the template into its page pool once per page and then
 * recycles pages with whatever the last run left in them, so the program
 * never assumes it sees the template: it reads the port that is there and
 * updates the checksum from it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Set by the loader from the template it built. */
const volatile __u32 flows = 1;
const volatile __u16 base_port = 1024;
const volatile __u32 sport_off = 0;	/* L4 source port, from the frame start */
const volatile __u32 csum_off = 0;	/* L4 checksum; 0: none to keep (IPv4 UDP sent with 0) */
const volatile bool csum_is_udp = false;
/* The first `elephants` flows carry `elephant_share` percent of the
 * frames between them; 0: every flow the same.
 */
const volatile __u32 elephants = 0;
const volatile __u32 elephant_share = 0;

/* Frames given the XDP_TX verdict. The count also picks each frame's
 * flow (flow_of).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} sent SEC(".maps");

/* Frames too short for the offsets above: a loader bug, never expected. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} short_frames SEC(".maps");

/* RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m'). One's complement sums do not
 * care about byte order, so the fields are used as they sit in the frame.
 */
static __always_inline __u16 csum_replace2(__u16 check, __u16 old, __u16 new)
{
	__u32 sum = (__u16)~check + (__u16)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* Frame n's flow. Each run of 100 frames gives its first elephant_share
 * slots to the elephants in turn and the rest to the mice, which walk their
 * flows round-robin by the count of mouse frames so far: over whole runs
 * of 100 the shares are exact, and the same count always picks the same
 * flow. Without elephants the verifier knows the branch is never taken
 * (rodata is frozen) and removes it: the plain path costs what it did.
 */
static __always_inline __u32 flow_of(__u64 n)
{
	__u32 slot;

	if (!elephants)
		return n % flows;
	slot = n % 100;
	if (slot < elephant_share)
		return slot % elephants;
	return elephants + (n / 100 * (100 - elephant_share) + slot - elephant_share) %
			   (flows - elephants);
}

static __always_inline int drop_short(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&short_frames, &zero);

	if (n)
		(*n)++;
	return XDP_DROP;
}

SEC("xdp")
int trafficgen_tx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u16 *sport = data + sport_off, *csum = data + csum_off, port, check;
	__u32 zero = 0;
	__u64 *count;

	count = bpf_map_lookup_elem(&sent, &zero);
	if (!count)
		return XDP_ABORTED; /* cannot happen: an array has entry 0 */
	if ((void *)(sport + 1) > end || (void *)(csum + 1) > end)
		return drop_short();

	port = bpf_htons(base_port + flow_of(*count));
	if (csum_off) {
		check = csum_replace2(*csum, *sport, port);
		/* In UDP a zero checksum means "none"; its one's complement
		 * twin says the same sum.
		 */
		if (csum_is_udp && !check)
			check = 0xffff;
		*csum = check;
	}
	*sport = port;
	(*count)++;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
