/* SPDX-License-Identifier: GPL-2.0 */
/* The change protocol: how an instance is made, changed and taken down so
 * that a kill at any instruction leaves state that says what happened.
 * Every change records in the pinned record what is about to change (the
 * phase, the configuration it moves to, the device's values from before)
 * before it changes anything; then the maps move, then the device; then
 * the record commits (phase READY), or every step taken is undone. A
 * killed change leaves its phase: status reports it, the next set
 * finishes a set, and unload undoes whatever is left.
 *
 * The commands decide what to change and check it; they call these with
 * the instance's folder open and locked (DIR_LOCK_EX) and signals
 * deferred, and never write the record themselves.
 */
#ifndef CPUSTEER_CHANGE_H
#define CPUSTEER_CHANGE_H

#include <stdbool.h>
#include "device.h"
#include "instance.h"
#include "instance_state.h"
#include "pin_tree.h"
#include "prefix_rule.h"

/* What load makes: the instance and the device settings it applies. */
struct change_load {
	const char *ifname;
	int ifindex;
	const struct cpuset *cpus;
	const struct cpusteer_config *cfg;
	const struct cpumap_opts *cm;
	const struct device_settings *dev;	/* dev->mask: what to apply */
	int xdp_mode;				/* libxdp enum xdp_attach_mode */
	bool notouch;
	/* Prefix rules, checked, put in copy 0, which cfg->rules names. */
	const struct prefix_rules *rules;
};

/* Makes the instance `l` describes in the empty folder `d`: programs
 * loaded and every map filled, the record (phase LOADING) pinned with
 * them, then the program attached and the device changed, then the record
 * committed. A failure undoes every step and removes the folder's
 * contents. On success *st is the committed record and *path the way the
 * program was attached.
 */
int change_load(struct instance_dir *d, const struct change_load *l,
		struct cpusteer_instance_state *st, enum attach_path *path);

/* A configuration of the maps: the recorded one a change starts from,
 * the one the packets see now, or the one it moves to.
 */
struct instance_config {
	struct cpuset cpus;
	struct cpusteer_config cfg;
	struct cpumap_opts cm;
	__u32 *table;		/* cfg.nbuckets entries; the caller frees it */
};

/* What record `st` says the instance is in (or moving to, after a killed
 * set) into *recorded, with no table; and the configuration and table the
 * packets see now into *live, whose CPUs also hold every CPU a bucket
 * names: a killed set may have left the live table behind the recorded
 * one, and a change that fails goes back to it.
 */
int change_read_current(struct steer_instance *in, const struct cpusteer_instance_state *st,
			struct instance_config *recorded, struct instance_config *live);

/* Moves the running instance from `live` to `next` and applies `given`
 * (the device settings asked for) on device `ifname`: all or nothing. *st
 * is the record read at the start; a change that finishes an interrupted
 * set also applies again every device setting recorded. On success *st
 * is the committed record. On failure the maps are put back as the
 * packets saw them, and the record says so, or that the way back failed
 * too (phase SET_FAILED, for the next set to finish).
 */
int change_set(struct steer_instance *in, const char *ifname, struct cpusteer_instance_state *st,
	       const struct instance_config *live, const struct instance_config *next,
	       const struct device_settings *given);

/* Writes `table` (nbuckets entries, each naming a CPU of the instance)
 * as the bucket table of the instance in `d`, leaving every other setting
 * as it is (phase BALANCING while it moves). Refused with one line when
 * an interrupted command left the instance between configurations, and
 * with -ESTALE, silently, when the live table no longer has `nbuckets`
 * buckets (a set resized it since the caller read it).
 */
int change_table(const struct instance_dir *d, struct steer_instance *in, const __u32 *table,
		 __u32 nbuckets);

/* Whether record `st` lets a command change the instance as it stands
 * (phase ready, or a balance step killed, which left a whole table):
 * else one line, "cannot VERB of SHOWN: why", and -EBUSY.
 */
int change_check_running(const struct instance_dir *d, const struct cpusteer_instance_state *st,
			 const char *verb);

/* Makes `rules` the configuration's CPUSTEER_RULES_* (phase SETTING
 * while it moves), leaving every other setting as it is; refused like
 * change_table when a command left the instance between configurations.
 */
int change_rules_config(const struct instance_dir *d, struct steer_instance *in, __u16 rules);

/* What became of the device and its settings when an instance went. */
struct change_unload_outcome {
	char how[400];
	bool restored;	/* false: some settings could not be put back (said on stderr) */
};

/* Takes the instance in `d` down: records phase UNLOADING, detaches its
 * program wherever it is attached (the device may have moved to another
 * namespace or been renamed) and restores the recorded device settings
 * on that device, then removes the folder's contents. With no record it
 * can read, the cpusteer program on the interface that no readable
 * record owns goes with the pins. `here`: the instance belongs to the
 * caller's network namespace, else to one that is gone.
 */
int change_unload(struct instance_dir *d, bool here, struct change_unload_outcome *o);

#endif
