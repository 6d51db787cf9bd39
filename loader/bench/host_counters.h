/* SPDX-License-Identifier: GPL-2.0 */
/* Counters the host keeps whatever receives the traffic: IPIs from
 * /proc/interrupts, per-CPU softnet from /proc/net/softnet_stat, a
 * device's receive counts from /proc/net/dev, and a BPF program's run
 * time. Each reads the cumulative value; the caller takes differences.
 */
#ifndef CPUSTEER_HOST_COUNTERS_H
#define CPUSTEER_HOST_COUNTERS_H

#include <linux/types.h>
#include "cpusteer.h"

struct softnet_counts {
	__u64 processed[CPUSTEER_MAX_CPUS];
	__u64 dropped[CPUSTEER_MAX_CPUS];	/* backlog full */
	__u64 squeeze[CPUSTEER_MAX_CPUS];	/* NAPI ran out of budget or time */
};

/* Function-call (CAL) and rescheduling (RES) IPIs, summed over every CPU;
 * zero when /proc/interrupts cannot be read.
 */
void read_ipi_counts(__u64 *call, __u64 *resched);
/* Zero for CPUs without a line (offline) or when the file is missing. */
void read_softnet_counts(struct softnet_counts *s);
/* rx_packets and rx_dropped of IFNAME from an open /proc/net/dev (read
 * again from the start each time). -ENODEV when IFNAME has no line.
 */
int read_netdev_rx(int fd, const char *ifname, __u64 *rx, __u64 *drop);
/* Total run time and run count of the program behind `fd`; zero when fd
 * is negative or the kernel keeps no statistics (BPF_STATS_RUN_TIME off).
 */
void read_prog_run_time(int fd, __u64 *ns, __u64 *cnt);
/* An fd of the program whose run time holds PROG_ID's: PROG_ID itself, or
 * the libxdp dispatcher it is an extension of. -1 when neither opens.
 */
int open_run_time_prog(__u32 prog_id);

#endif
