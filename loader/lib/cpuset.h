/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists as operators write them ("0-3,6"), their weights, and the
 * check of each CPU against the machine.
 *
 * Two kinds of set: `struct cpuset` is what one instance targets, at most
 * CPUSTEER_MAX_CPUS entries in list order with a weight each;
 * `struct cpu_bitmap` is a machine's own list (online, possible), which
 * can be far longer than any one instance's targets.
 */
#ifndef CPUSTEER_CPUSET_H
#define CPUSTEER_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "cpusteer.h"

/* Highest CPU number a list may name. Far above any machine today (the
 * kernel's NR_CPUS tops out at 8192), low enough that a typo such as
 * 10000000 is refused as one; the machine's lists then decide.
 */
#define CPU_NUMBER_MAX 65535

struct cpuset {
	__u32 n;
	__u32 cpu[CPUSTEER_MAX_CPUS];
	__u32 weight[CPUSTEER_MAX_CPUS];	/* parallel to cpu[]; default 1 */
};

/* --weights as given, parsed once; they fit a CPU list only when it is
 * known (cpuset_weigh), so a list of the wrong form is refused there too,
 * with the count it should have had.
 */
struct cpu_weights {
	__u32 n;
	__u32 weight[CPUSTEER_MAX_CPUS];
	bool malformed;		/* not n comma-separated numbers (0 to 1000000) */
	const char *list;	/* as given, for the message */
};

struct cpu_bitmap {
	__u32 nbits;			/* bits held: the highest CPU + 1 */
	unsigned long *words;
};

/* The machine's CPUs as the kernel lists them. `possible` is what may
 * exist (the cpumap refuses any other key), `online` what runs now.
 */
struct cpu_machine {
	struct cpu_bitmap possible;
	struct cpu_bitmap online;
};

/* Each returns 0 or a negative errno after printing one line that names
 * the offending item. Parsing checks the form only; the machine is
 * checked by cpuset_check.
 */
int cpuset_parse(struct cpuset *set, const char *list);
/* Never refuses: cpuset_weigh says what is wrong, knowing the CPUs. */
void cpu_weights_parse(struct cpu_weights *w, const char *list);
/* The weights, one per CPU of `set` in its order, into `set`. */
int cpuset_weigh(struct cpuset *set, const struct cpu_weights *w);
bool cpuset_contains(const struct cpuset *set, __u32 cpu);
/* "0-3,6" form, for status output. */
void cpuset_format(const struct cpuset *set, char *buf, size_t len);

/* A kernel CPU list ("0-383", "0,4095", or empty) into a bitmap. Prints
 * nothing: the caller names where the list came from.
 */
int cpu_bitmap_parse(struct cpu_bitmap *bm, const char *list);
/* The list in a sysfs file such as /sys/devices/system/cpu/online. */
int cpu_bitmap_read(struct cpu_bitmap *bm, const char *path);
bool cpu_bitmap_test(const struct cpu_bitmap *bm, __u32 cpu);
__u32 cpu_bitmap_count(const struct cpu_bitmap *bm);
void cpu_bitmap_free(struct cpu_bitmap *bm);

/* This machine, from /sys/devices/system/cpu/{possible,online}. */
int cpu_machine_read(struct cpu_machine *m);
void cpu_machine_free(struct cpu_machine *m);

/* In the functions below, a NULL machine means this one, read from sysfs
 * on each call; tests pass a fixture instead.
 */

/* Every CPU of `set` must exist; every CPU not in `running` (NULL: none)
 * must also be online. A CPU the running instance already targets may
 * have gone offline since it was chosen, and refusing it would make every
 * later `set` fail until it comes back.
 */
int cpuset_check(const struct cpuset *set, const struct cpuset *running,
		 const struct cpu_machine *m);
int cpu_check(__u32 cpu, const struct cpu_machine *m);
/* All online CPUs, the default when --cpus is not given; refused when
 * there are more than one instance can target.
 */
int cpuset_all_online(struct cpuset *set, const struct cpu_machine *m);
/* The CPUs of `set` that are not online now, weights kept, for a warning. */
int cpuset_offline(const struct cpuset *set, const struct cpu_machine *m,
		   struct cpuset *offline);

/* The above on this machine. */
int cpu_check_online(__u32 cpu);
int cpuset_online(struct cpuset *set);

#endif
