/* SPDX-License-Identifier: GPL-2.0 */
/* Conversions between the pinned instance record and the loader's own
 * types (CPU sets, device settings, options).
 */
#ifndef CPUSTEER_STATE_H
#define CPUSTEER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include "cpusteer.h"
#include "device.h"
#include "load_opts.h"

void state_from_opts(struct cpusteer_instance_state *st, const struct load_opts *lo, int ifindex);
void state_set_cpus(struct cpusteer_instance_state *st, const struct cpuset *set);
void state_get_cpus(const struct cpusteer_instance_state *st, struct cpuset *set);
void state_set_device(struct cpusteer_instance_state *st, const struct device_settings *saved,
		      const struct device_settings *applied);
void state_get_saved(const struct cpusteer_instance_state *st, struct device_settings *saved);
void state_get_applied(const struct cpusteer_instance_state *st, struct device_settings *applied);
__u64 current_netns_ino(void);
bool state_in_current_netns(const struct cpusteer_instance_state *st);
/* The name under /run/netns of the namespace the instance was loaded in,
 * when there is one.
 */
bool state_netns_name(const struct cpusteer_instance_state *st, char *name, size_t len);
void state_get_cpumap(const struct cpusteer_instance_state *st, struct cpumap_opts *cm);

#endif
