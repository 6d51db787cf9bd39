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

/* The kernel's own words: "rcu: INFO: rcu_sched self-detected stall",
 * "... detected stalls on CPUs/tasks", "WARNING: CPU: 1 PID: ...",
 * "BUG: soft lockup", "kernel BUG at ...". A looser match catches the
 * boot command line (rcupdate.rcu_cpu_stall_...) and DEBUGCTL.
 */
static bool alarming(const char *msg)
{
	return (strstr(msg, "rcu") && strstr(msg, "detected stall")) ||
	       has_tag(msg, "WARNING:") || has_tag(msg, "BUG:") || strstr(msg, "kernel BUG at");
}

/* Each read returns one record, "prio,seq,usec,flags;text\n"; EPIPE
 * means records were overwritten before we read them, and reading goes on.
 */
void kernel_log_scan(int fd, struct kernel_log_alarms *a)
{
	char rec[2048], *text, *nl;
	ssize_t n;

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
		if (!alarming(text))
			continue;
		if (a->matches < KERNEL_LOG_KEEP)
			snprintf(a->first[a->matches], sizeof(a->first[0]), "%.199s", text);
		a->matches++;
	}
	close(fd);
}
