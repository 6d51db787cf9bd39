// SPDX-License-Identifier: GPL-2.0
/* The change protocol's first step (change.h): a new instance. Its maps
 * are filled before the program is attached, so no packet meets a
 * half-configured program; the record is pinned with them, before the
 * attach, so that a kill from then on leaves pins that say what happened.
 * A program that libxdp loads into its dispatcher as it attaches is
 * pinned, and its id recorded, right after the attach.
 */
#include <errno.h>
#include "change.h"
#include "rule_maps.h"
#include "kernel_features.h"

/* The record of the instance as it is about to be: phase LOADING, and the
 * device's values from before any change.
 */
static int record(const struct change_load *l, const struct instance_dir *d,
		  struct steer_instance *in, struct cpusteer_instance_state *st,
		  struct device_settings *saved)
{
	state_init(st, d, l->ifindex);
	st->xdp_mode = l->xdp_mode;
	st->notouch = l->notouch;
	st->prog_id = prog_id_of_fd(in->steer_prog);
	device_hwaddr(l->ifname, st->hwaddr);
	st->kernel_features = kernel_features_probe();
	state_set_config(st, l->cpus, l->cfg, l->cm);
	if (l->dev->mask)
		device_save(l->ifname, l->dev->mask, saved);
	state_set_saved(st, saved);
	return instance_write_state(in, st);
}

/* The program libxdp loaded into its dispatcher has an id only now. Until
 * the record has it, unload finds the program by its name.
 */
static int record_prog(struct steer_instance *in, const struct instance_dir *d,
		       struct cpusteer_instance_state *st)
{
	int err;

	st->prog_id = prog_id_of_fd(in->steer_prog);
	err = st->prog_id ? instance_write_state(in, st) : -ENOENT;
	return err ? err : instance_pin_prog(in, d->fd);
}

int change_load(struct instance_dir *d, const struct change_load *l,
		struct cpusteer_instance_state *st, enum attach_path *path)
{
	struct device_settings saved = {};
	struct steer_instance in;
	int err;

	bool nic = l->cfg->hash_fn == CPUSTEER_HASH_NIC;
	struct attach_opts ao = {
		.notouch = l->notouch,
		/* libxdp's dispatcher loads its programs unbound (1.3): a
		 * program bound to the device can only be attached alone.
		 */
		.path = nic ? ATTACH_SINGLE : instance_attach_path(),
		.count_buckets = l->cfg->bucket_stats ? l->cfg->nbuckets : 0,
		.nic_ifindex = nic ? l->ifindex : 0,
	};

	err = instance_open_to_attach(&in, &ao);
	if (err) {
		instance_dir_remove(d);
		return err;
	}
	/* The rules before the configuration that looks them up. */
	if (l->rules && l->rules->n)
		err = rule_maps_fill(&in, 0, l->rules);
	if (!err)
		err = instance_configure(&in, l->cpus, l->cfg, l->cm);
	/* The entries' threads go with the map when a later step fails. */
	if (!err)
		err = cpumap_threads_schedule(instance_cpumap_id(&in), l->cpus, l->cfg->non_ip_cpu,
					      &l->cm->kthread, NULL);
	if (!err)
		err = record(l, d, &in, st, &saved);
	if (!err)
		err = instance_pin(&in, d->fd);
	if (!err)
		err = bpffs_check_libxdp_dir();
	if (!err)
		err = instance_attach(&in, d->shown, l->ifindex, l->xdp_mode);
	if (err)
		goto out_unpin;
	if (!st->prog_id) {
		err = record_prog(&in, d, st);
		if (err)
			goto out_detach;
	}
	if (l->dev->mask) {
		/* Undoes its own changes when it fails. */
		err = device_apply(l->ifname, l->dev, &saved);
		if (err)
			goto out_detach;
	}
	state_set_saved(st, &saved);
	state_set_applied(st, l->dev);
	state_enter(st, CPUSTEER_PHASE_READY);
	err = instance_write_state(&in, st);
	if (err)
		goto out_restore;
	*path = in.path;
	instance_close(&in);
	return 0;

out_restore:
	device_restore(l->ifname, &saved);
out_detach:
	instance_detach(&in);
out_unpin:
	instance_close(&in);
	instance_dir_remove(d);
	return err;
}
