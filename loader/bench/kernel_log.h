/* SPDX-License-Identifier: GPL-2.0 */
/* Whether a run provoked the kernel into complaining: RCU stalls,
 * WARNINGs and BUGs read from /dev/kmsg between the start of the run and
 * its end.
 */
#ifndef CPUSTEER_KERNEL_LOG_H
#define CPUSTEER_KERNEL_LOG_H

#include <stdbool.h>

#define KERNEL_LOG_KEEP 5

struct kernel_log_alarms {
	bool readable;			/* /dev/kmsg could be opened */
	unsigned int matches;
	char first[KERNEL_LOG_KEEP][200];	/* the first few, as logged */
};

/* /dev/kmsg positioned at its end, so only what follows is read; a
 * negative value when it cannot be opened.
 */
int kernel_log_open(void);
/* Reads what was logged since kernel_log_open returned `fd` and closes
 * it; fd < 0 only records that the log was not readable.
 */
void kernel_log_scan(int fd, struct kernel_log_alarms *a);

#endif
