/* SPDX-License-Identifier: GPL-2.0 */
/* The traffic generator's second way to transmit, for kernels that refuse
 * XDP live-frames test runs: a packet socket that sends batches of copies
 * of the template frame, each moved to its flow in user space, with the
 * same flow sequence as the live-frames program. It costs the sending CPU
 * more per frame (an skb each, and on a veth a copy into a page before the
 * peer's XDP program runs), so its rates are lower; what reaches the
 * receiver is the same.
 */
#ifndef CPUSTEER_PACKET_TX_H
#define CPUSTEER_PACKET_TX_H

#include <stdbool.h>
#include <linux/types.h>
#include "trafficgen.h"

struct packet_tx_template {
	const __u8 *data;
	__u32 len;
	__u32 sport_off;	/* the L4 source port, from the frame start */
	__u32 csum_off;		/* the L4 checksum; 0: none to keep */
};

/* Sends on `ifindex` (`label` names it in messages) from the calling
 * thread until monotonic time `end_ns` or *stop. res->sent counts the
 * frames the socket took, res->attempted those offered to it. Returns 0,
 * or a negative errno after one line on stderr.
 */
int packet_tx_run(int ifindex, const char *label, const struct packet_tx_template *t,
		  const struct trafficgen_opts *o, volatile int *stop, double end_ns,
		  struct trafficgen_result *res);

#endif
