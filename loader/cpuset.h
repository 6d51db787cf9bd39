/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists as operators write them ("0-3,6"), their weights, and the
 * check that each CPU exists and is online.
 */
#ifndef CPUSTEER_CPUSET_H
#define CPUSTEER_CPUSET_H

#include <stdbool.h>
#include <linux/types.h>
#include "cpusteer.h"

struct cpuset {
	__u32 n;
	__u32 cpu[CPUSTEER_MAX_CPUS];
	__u32 weight[CPUSTEER_MAX_CPUS];	/* parallel to cpu[]; default 1 */
};

/* Each returns 0 or a negative errno after printing one line that names
 * the offending item.
 */
int cpuset_parse(struct cpuset *set, const char *list);
int cpuset_parse_weights(struct cpuset *set, const char *list);
int cpuset_check_online(const struct cpuset *set);
int cpu_check_online(__u32 cpu);
/* All online CPUs, the default when --cpus is not given. */
int cpuset_online(struct cpuset *set);
bool cpuset_contains(const struct cpuset *set, __u32 cpu);
/* "0-3,6" form, for status output. */
void cpuset_format(const struct cpuset *set, char *buf, size_t len);

#endif
