/* SPDX-License-Identifier: GPL-2.0 */
/* The pinned instance record (struct cpusteer_instance_state) and the
 * loader's own types: CPU sets, cpumap settings, device settings, phases.
 */
#ifndef CPUSTEER_INSTANCE_STATE_H
#define CPUSTEER_INSTANCE_STATE_H

#include "cpusteer.h"
#include "device.h"
#include "instance.h"
#include "pin_tree.h"

/* A record for a new instance of `d` on `ifindex`, in phase LOADING. */
void state_init(struct cpusteer_instance_state *st, const struct instance_dir *d, int ifindex);
/* Records the phase this process is entering. */
void state_enter(struct cpusteer_instance_state *st, enum cpusteer_phase phase);
const char *state_phase_name(__u32 phase);
/* The command that works in a phase: "load", "set", "balance", "unload". */
const char *state_phase_command(__u32 phase);
/* Whether the maps may be between two configurations, for the next set to
 * finish: a set was killed, or failed and could not go back.
 */
bool state_set_unfinished(__u32 phase);
/* Whether the instance is in service: loaded, and not being unloaded. */
bool state_in_service(__u32 phase);

/* The configuration the instance is in or moving to. */
void state_set_config(struct cpusteer_instance_state *st, const struct cpuset *cpus,
		      const struct cpusteer_config *cfg, const struct cpumap_opts *cm);
void state_get_cpus(const struct cpusteer_instance_state *st, struct cpuset *set);
void state_get_cpumap(const struct cpusteer_instance_state *st, struct cpumap_opts *cm);

/* Whether the device the instance was loaded on is at its recorded index
 * in the caller's network namespace: same index, name and hardware
 * address, not a device created since under the same name and index (nor
 * the same device renamed).
 */
bool state_device_here(const struct cpusteer_instance_state *st);
/* Whether the device the instance was loaded on (its recorded index and
 * hardware address) is in the caller's network namespace, and its name
 * now, which a rename may have changed.
 */
bool state_device_name(const struct cpusteer_instance_state *st, char name[IF_NAMESIZE]);

/* `saved`: the device's values from before cpusteer first changed them;
 * `applied`: the values cpusteer set.
 */
void state_set_saved(struct cpusteer_instance_state *st, const struct device_settings *saved);
void state_set_applied(struct cpusteer_instance_state *st, const struct device_settings *applied);
void state_get_saved(const struct cpusteer_instance_state *st, struct device_settings *saved);
void state_get_applied(const struct cpusteer_instance_state *st, struct device_settings *applied);

#endif
