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
#include "trafficgen_flow.h"

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
 * flow (trafficgen_flow_of).
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
	__u16 *sport = data + sport_off, *csum = data + csum_off, port;
	__u32 zero = 0;
	__u64 *count;

	count = bpf_map_lookup_elem(&sent, &zero);
	if (!count)
		return XDP_ABORTED; /* cannot happen: an array has entry 0 */
	if ((void *)(sport + 1) > end || (void *)(csum + 1) > end)
		return drop_short();

	/* Without elephants the verifier knows their branch is never taken
	 * (rodata is frozen) and removes it: the plain path costs what it did.
	 */
	port = bpf_htons(base_port + trafficgen_flow_of(*count, flows, elephants, elephant_share));
	if (csum_off)
		*csum = trafficgen_port_csum(*csum, *sport, port, csum_is_udp);
	*sport = port;
	(*count)++;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
