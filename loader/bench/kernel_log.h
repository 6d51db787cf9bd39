/* SPDX-License-Identifier: GPL-2.0 */
/* Whether a run provoked the kernel into complaining: RCU stalls, soft
 * lockups, hung tasks, WARNINGs and BUGs read from /dev/kmsg between the
 * start of the run and its end, counted by kind.
 */
#ifndef CPUSTEER_KERNEL_LOG_H
#define CPUSTEER_KERNEL_LOG_H

#include <stdbool.h>

#define KERNEL_LOG_KEEP 5

/* One kind per line, the first that fits in this order: the kernel
 * reports a soft lockup as "BUG: soft lockup", which is a lockup here and
 * not a BUG.
 */
enum kernel_log_kind {
	KL_RCU_STALL,		/* "rcu: INFO: rcu_sched self-detected stall on CPU" */
	KL_SOFT_LOCKUP,		/* "watchdog: BUG: soft lockup - CPU#1 stuck for 22s!" */
	KL_HUNG_TASK,		/* "INFO: task X:123 blocked for more than 120 seconds." */
	KL_WARNING,		/* "WARNING: CPU: 1 PID: 2 at net/core/dev.c:..." */
	KL_BUG,			/* "BUG: ...", "kernel BUG at ...", "Oops: ...",
				 * "Kernel panic - not syncing: ..." */
	KL_KINDS
};

struct kernel_log_alarms {
	bool readable;			/* /dev/kmsg could be opened */
	unsigned int matches;		/* of every kind */
	unsigned int by_kind[KL_KINDS];
	char first[KERNEL_LOG_KEEP][200];	/* the first few, as logged */
};

/* "rcu_stall", "soft_lockup", "hung_task", "warning", "bug". */
const char *kernel_log_kind_name(enum kernel_log_kind k);
/* The kind of one log message (its text, without the record prefix), or
 * -1 when it is none of them.
 */
int kernel_log_classify(const char *msg);

/* /dev/kmsg positioned at its end, so only what follows is read; a
 * negative value when it cannot be opened.
 */
int kernel_log_open(void);
/* Reads what was logged since kernel_log_open returned `fd` and closes
 * it; fd < 0 only records that the log was not readable.
 */
void kernel_log_scan(int fd, struct kernel_log_alarms *a);

#endif
