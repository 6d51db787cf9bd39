// SPDX-License-Identifier: GPL-2.0
/* The kernel log check of the benchmark (see kernel_log.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "kernel_log.h"

int kernel_log_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* TAG ("BUG:") as a word of its own: "DEBUGCTL" is not a BUG. */
static bool has_tag(const char *msg, const char *tag)
{
	const char *p;

	for (p = strstr(msg, tag); p; p = strstr(p + 1, tag))
		if (p == msg || !isalnum((unsigned char)p[-1]))
			return true;
	return false;
}

static const char *const kind_names[KL_KINDS] = {
	[KL_RCU_STALL] = "rcu_stall",
	[KL_SOFT_LOCKUP] = "soft_lockup",
	[KL_HUNG_TASK] = "hung_task",
	[KL_WARNING] = "warning",
	[KL_BUG] = "bug",
};

const char *kernel_log_kind_name(enum kernel_log_kind k)
{
	return k < KL_KINDS ? kind_names[k] : "unknown";
}

/* The kernel's own words: "rcu: INFO: rcu_sched self-detected stall",
 * "... detected stalls on CPUs/tasks", "BUG: soft lockup - CPU#0 stuck",
 * "INFO: task ... blocked for more than N seconds", "WARNING: CPU: 1
 * PID: ...", "kernel BUG at ...", and for a fault reported with no BUG
 * line, "Oops: int3: 0000 [#1]" and "Kernel panic - not syncing: ...".
 * A looser match catches the boot command line
 * (rcupdate.rcu_cpu_stall_..., softlockup_panic=) and DEBUGCTL.
 */
int kernel_log_classify(const char *msg)
{
	if (strstr(msg, "rcu") && strstr(msg, "detected stall"))
		return KL_RCU_STALL;
	if (has_tag(msg, "BUG:") && strstr(msg, "soft lockup"))
		return KL_SOFT_LOCKUP;
	if (strstr(msg, "INFO: task ") && strstr(msg, " blocked for more than "))
		return KL_HUNG_TASK;
	if (has_tag(msg, "WARNING:"))
		return KL_WARNING;
	if (has_tag(msg, "BUG:") || strstr(msg, "kernel BUG at") || has_tag(msg, "Oops:") ||
	    strstr(msg, "Kernel panic - not syncing"))
		return KL_BUG;
	return -1;
}

/* Each read returns one record, "prio,seq,usec,flags;text\n"; EPIPE
 * means records were overwritten before we read them, and reading goes on.
 */
void kernel_log_scan(int fd, struct kernel_log_alarms *a)
{
	char rec[2048], *text, *nl;
	ssize_t n;
	int kind;

	a->readable = fd >= 0;
	if (fd < 0)
		return;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		kind = kernel_log_classify(text);
		if (kind < 0)
			continue;
		a->by_kind[kind]++;
		if (a->matches < KERNEL_LOG_KEEP)
			snprintf(a->first[a->matches], sizeof(a->first[0]), "%.199s", text);
		a->matches++;
	}
	close(fd);
}
