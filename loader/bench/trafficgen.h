/* SPDX-License-Identifier: GPL-2.0 */
/* The built-in traffic generator: UDP or TCP frames over IPv4 or IPv6,
 * spread over a set of flows, transmitted on a device by an XDP program
 * that BPF_PROG_TEST_RUN runs in live-frames mode (no NIC, no pktgen).
 * The device's peer must be able to receive XDP frames: on a veth, that
 * means an XDP program (cpusteer) or GRO on the peer. Where the kernel
 * refuses live-frames test runs, the same frames go out through a packet
 * socket instead (packet_tx.h).
 */
#ifndef CPUSTEER_TRAFFICGEN_H
#define CPUSTEER_TRAFFICGEN_H

#include <linux/types.h>
#include "name_table.h"

/* Live frames must fit one page less headroom and skb_shared_info:
 * 3408 bytes with 4 KiB pages (measured; larger sizes fail with EINVAL).
 */
#define TRAFFICGEN_MIN_FRAME 64
#define TRAFFICGEN_MAX_FRAME 3408
/* Source ports run from the first unprivileged port upwards. */
#define TRAFFICGEN_BASE_PORT 1024
#define TRAFFICGEN_MAX_FLOWS (65536 - TRAFFICGEN_BASE_PORT)
/* A few heavy flows among many; more would be no skew to speak of. */
#define TRAFFICGEN_MAX_ELEPHANTS 64
#define TRAFFICGEN_DEFAULT_ELEPHANT_SHARE 60

/* How the frames leave. */
enum trafficgen_transmit {
	TRAFFICGEN_TX_AUTO,		/* live frames where the kernel allows them, else a packet socket */
	TRAFFICGEN_TX_LIVE_FRAMES,
	TRAFFICGEN_TX_PACKET_SOCKET,
};

struct trafficgen_opts {
	int ifindex;            /* device to transmit on, in the caller's netns */
	const __u8 *src_mac, *dst_mac;   /* NULL: use the device's own MAC / broadcast */
	int family;             /* 4 or 6 */
	__u8 proto;             /* IPPROTO_UDP or IPPROTO_TCP */
	__u32 flows;            /* distinct flows: source ports base..base+flows-1 */
	/* The first `elephants` flows (0: none; fewer than `flows`) carry
	 * `elephant_share` percent (1-99) of the frames, in equal parts; the
	 * other flows, the mice, share the rest round-robin.
	 */
	__u32 elephants;
	__u32 elephant_share;
	__u32 frame_size;       /* total Ethernet frame bytes, 64..3408 */
	const char *src_addr, *dst_addr;  /* textual IPv4/IPv6; NULL: 10.201.0.1 -> 10.201.0.2 or fd21::1 -> fd21::2 */
	__u16 dport;            /* default 9 (discard) when 0 */
	double duration_s;      /* run time */
	int cpu;                /* CPU to run on; -1: stay where called */
	enum trafficgen_transmit transmit;
};
struct trafficgen_result {
	/* Frames transmitted: the XDP_TX verdicts the generator program
	 * counted, or the frames the packet socket took.
	 */
	__u64 sent;
	/* Frames handed to the kernel: the sum of test-run repeats, or the
	 * frames offered to the packet socket, which may refuse some for want
	 * of buffers (those are offered again).
	 */
	__u64 attempted;
	double seconds;         /* actual run time */
	enum trafficgen_transmit transmit;	/* how they left: never AUTO */
};
/* Runs until duration_s elapses or *stop becomes true (checked between test runs, each ≤ ~10 ms). */
int trafficgen_run(const struct trafficgen_opts *o, volatile int *stop, struct trafficgen_result *res);

/* The frame that flow `flow` of `o` sends (source port
 * TRAFFICGEN_BASE_PORT + flow), from o->src_mac or, without, from
 * 00:00:00:00:00:00: for callers that must know where the generator's
 * flows hash to. buf needs TRAFFICGEN_FRAME_BUF bytes. Returns the frame's
 * length, or a negative errno after one line on stderr.
 */
#define TRAFFICGEN_FRAME_BUF (TRAFFICGEN_MAX_FRAME + 512)
int trafficgen_flow_frame(const struct trafficgen_opts *o, __u32 flow, __u8 *buf);

/* The smallest frame_size trafficgen_run accepts: TRAFFICGEN_MIN_FRAME,
 * or more where the headers alone are longer (IPv6/TCP: 74).
 */
__u32 trafficgen_min_frame_size(int family, __u8 proto);

/* auto, live-frames and packet-socket: gen's --transmit and its output. */
extern const struct name_value trafficgen_transmit_names[];

#endif
