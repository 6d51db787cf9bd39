/* SPDX-License-Identifier: GPL-2.0 */
/* Which flow the traffic generator's n-th frame belongs to, and the
 * checksum update that moves a frame to it: shared by the generator's XDP
 * program (bpf/trafficgen.bpf.c), which rewrites frames in live-frames
 * mode, and the packet-socket transmitter (loader/bench/packet_tx.c),
 * which rewrites them in user space where a kernel refuses that mode. Both
 * must send the same sequence, which tests count flow by flow.
 */
#ifndef CPUSTEER_TRAFFICGEN_FLOW_H
#define CPUSTEER_TRAFFICGEN_FLOW_H

/* Frame n's flow. Each run of 100 frames gives its first `share` slots to
 * the `elephants` in turn and the rest to the mice, which walk their flows
 * round-robin by the count of mouse frames so far: over whole runs of 100
 * the shares are exact, and the same count always picks the same flow.
 * With elephants 0 every flow takes its turn.
 */
static inline __attribute__((always_inline)) __u32
trafficgen_flow_of(__u64 n, __u32 flows, __u32 elephants, __u32 share)
{
	__u32 slot;

	if (!elephants)
		return n % flows;
	slot = n % 100;
	if (slot < share)
		return slot % elephants;
	return elephants + (n / 100 * (100 - share) + slot - share) % (flows - elephants);
}

/* RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m'). One's complement sums do not
 * care about byte order, so the fields are used as they sit in the frame.
 */
static inline __attribute__((always_inline)) __u16
trafficgen_csum_replace2(__u16 check, __u16 old, __u16 new_value)
{
	__u32 sum = (__u16)~check + (__u16)~old + new_value;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* The checksum a frame carries after its source port changed from `old`
 * to `new_value`. In UDP a zero checksum means "none", so a sum of zero
 * goes out as its one's complement twin, which says the same.
 */
static inline __attribute__((always_inline)) __u16
trafficgen_port_csum(__u16 check, __u16 old, __u16 new_value, int is_udp)
{
	__u16 sum = trafficgen_csum_replace2(check, old, new_value);

	return is_udp && !sum ? 0xffff : sum;
}

#endif
