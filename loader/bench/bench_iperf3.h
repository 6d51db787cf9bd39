/* SPDX-License-Identifier: GPL-2.0 */
/* The tcp scenario's traffic: an iperf3 server in the test bed's
 * namespace and a client on the host, instead of the generator.
 */
#ifndef CPUSTEER_BENCH_IPERF3_H
#define CPUSTEER_BENCH_IPERF3_H

#include <stdbool.h>
#include <stddef.h>
#include "observer.h"
#include "testbed.h"

/* One run of `seconds` (rounded up): the server started, the figures
 * marked, the client run while `ob` prints its lines under LABEL. *f gets
 * the figures once the counts settle, with the receiver's goodput (TCP).
 * With `udp`, four UDP streams of 18-byte datagrams as fast as the
 * client can send: frames through the sender's stack, many per second.
 */
int iperf3_run(struct testbed *b, const char *iperf3, bool udp, double seconds,
	       struct observer *ob, const char *label, struct bench_figures *f);

#endif
