/* SPDX-License-Identifier: GPL-2.0 */
/* What `cpusteer exporter` serves: the instances it read at one scrape,
 * written in the Prometheus text exposition format 0.0.4. Every family
 * has its HELP and TYPE lines and its series together, the series of
 * every instance in one block; counters are exact counts, never rates.
 * This file only formats: exporter_scan.c reads the instances, so the
 * text can be tested without a kernel.
 *
 * Every instance series has the labels `interface` (the name as the
 * kernel has it, so that it matches node_exporter's `device`; see
 * metrics_escape()) and `netns` (the cookie of its network namespace,
 * the number in its pin folder /sys/fs/bpf/cpusteer/ns<cookie>; the
 * kernel never hands a cookie out twice).
 */
#ifndef CPUSTEER_EXPORTER_METRICS_H
#define CPUSTEER_EXPORTER_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "cpumap_threads.h"
#include "cpuset.h"
#include "cpusteer.h"
#include "ifname.h"
#include "instance_health.h"
#include "sample.h"
#include "trace.h"

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One instance as read at one scrape. */
struct metrics_instance {
	char interface[IF_NAMESIZE];		/* as the kernel has it */
	__u64 netns_cookie;
	struct cpusteer_instance_state st;	/* its record */
	struct cpusteer_config cfg;		/* live */
	struct cpuset cpus;			/* targets and weights, from the record */
	__u32 buckets[CPUSTEER_MAX_CPUS];	/* owned, parallel to cpus.cpu[] */
	bool present;		/* its interface is in its namespace */
	struct instance_health health;	/* as status judges it */
	bool traced[TP_COUNT];	/* tracepoints counted for it */
	struct cpumap_threads threads;	/* its cpumap's kthreads */
	/* Steering counters since load; tracepoint counters since the
	 * exporter attached to the instance.
	 */
	struct stats_sample sample;
};

/* Why an instance folder found at a scrape was not exported. */
enum metrics_skip {
	SKIP_LOCKED,		/* a command held its lock past the scrape's wait */
	SKIP_NOT_READY,		/* being loaded or unloaded, or left by an
				 * interrupted command */
	SKIP_UNREADABLE,	/* of another cpusteer version, a pin missing */
	SKIP_COUNT
};

struct metrics_scrape {
	int ncpus;				/* possible CPUs */
	const struct metrics_instance *const *in;	/* those exported */
	size_t n;
	/* Every instance whose record was read, exported or not (being
	 * loaded, left by a killed command): what its health series show.
	 */
	const struct metrics_instance *const *judged;
	size_t njudged;
	__u32 skipped[SKIP_COUNT];	/* instance folders not exported, by why */
	/* NULL while the state folder is usable (or not made yet), else
	 * why it is not: "refused", "unreadable".
	 */
	const char *state_dir_problem;
};

/* The exposition of `s`; 0, or -EIO when `f` failed. */
int metrics_write(FILE *f, const struct metrics_scrape *s);

/* `v` escaped for a label value (`quoted`: backslash, double quote and
 * newline) or for a HELP line (backslash and newline). Label values are
 * UTF-8: valid UTF-8 is written as it is, and each byte that is not part
 * of a valid sequence as the four characters \xNN (written \\xNN, the
 * backslash escaped).
 */
void metrics_escape(FILE *f, const char *v, bool quoted);

#endif
