// SPDX-License-Identifier: GPL-2.0
/* cpusteer set: changes a running instance in place. Only the options
 * given change; the CPU set moves only the buckets that must move, and the
 * program is never detached.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "indirection.h"
#include "load_opts.h"
#include "log.h"
#include "state.h"

/* Starts from the running configuration and lays the given options over
 * it, then checks the result as load would.
 */
static int merge(struct load_opts *lo, const struct cpusteer_instance_state *st,
		 const struct cpusteer_config *cur)
{
	struct steer_opts *o = &lo->steer;
	struct cpuset running;

	state_get_cpus(st, &running);
	if (!o->cpus_given)
		o->cpus = running;
	if (o->weights_given && cpuset_parse_weights(&o->cpus, o->weights_arg))
		return -EINVAL;
	if (!o->key_given)
		memcpy(o->cfg.key, cur->key, sizeof(o->cfg.key));
	if (!o->buckets_given)
		o->cfg.nbuckets = cur->nbuckets;
	if (!o->non_ip_given)
		o->cfg.non_ip_cpu = cur->non_ip_cpu;
	if (!o->hash_given)
		o->cfg.hash_fn = cur->hash_fn;
	o->cfg.symmetric = lo->symmetric_off ? 0 : o->symmetric_given ? 1 : cur->symmetric;
	if (!lo->qsize_given)
		lo->cm.qsize = st->qsize;
	if (!lo->remote_given) {
		lo->cm.remote = st->remote;
		lo->cm.redirect_ifindex = st->redirect_ifindex;
	}
	return steer_opts_validate(o, &running);
}

/* The current table, with buckets beyond the old count unowned. */
static __u32 *current_table(struct steer_instance *in, __u32 old_n, __u32 new_n)
{
	__u32 *table = malloc(new_n * sizeof(*table)), b;

	if (!table)
		return NULL;
	for (b = 0; b < new_n; b++)
		table[b] = BUCKET_UNOWNED;
	if (instance_read_table(in, table, old_n < new_n ? old_n : new_n)) {
		free(table);
		return NULL;
	}
	return table;
}

static int apply_device(struct load_opts *lo, struct cpusteer_instance_state *st)
{
	struct device_settings saved, applied;
	int err;

	if (!lo->dev.mask)
		return 0;
	state_get_saved(st, &saved);
	state_get_applied(st, &applied);
	err = device_apply(lo->ifname, &lo->dev, &saved);
	if (err)
		return err;
	applied.mask |= lo->dev.mask;
	if (lo->dev.mask & DEV_GRO)
		applied.gro = lo->dev.gro;
	if (lo->dev.mask & DEV_THREADED_NAPI)
		applied.threaded = lo->dev.threaded;
	if (lo->dev.mask & DEV_DEFER_HARD_IRQS)
		applied.defer_hard_irqs = lo->dev.defer_hard_irqs;
	if (lo->dev.mask & DEV_GRO_FLUSH_TIMEOUT)
		applied.gro_flush_timeout = lo->dev.gro_flush_timeout;
	state_set_device(st, &saved, &applied);
	return 0;
}

static int set(struct load_opts *lo)
{
	struct cpusteer_instance_state st;
	struct cpusteer_config cur;
	struct steer_instance in;
	struct cpumap_opts old_cm;
	struct cpuset old_cpus;
	__u32 *table = NULL, moved;
	int err;

	err = instance_open_pinned(&in, lo->ifname);
	if (err)
		return err;
	err = instance_read_state(&in, &st);
	if (!err)
		err = instance_read_config(&in, &cur);
	if (err) {
		log_err("cannot read the running configuration on %s: %s", lo->ifname, strerror(-err));
		goto out;
	}
	err = merge(lo, &st, &cur);
	if (err)
		goto out;
	table = current_table(&in, cur.nbuckets, lo->steer.cfg.nbuckets);
	if (!table) {
		err = -ENOMEM;
		goto out;
	}
	/* Device first: it is the step that can still fail on good input
	 * (a veth without NAPI), and it undoes itself when it does.
	 */
	err = apply_device(lo, &st);
	if (err)
		goto out;
	state_get_cpus(&st, &old_cpus);
	state_get_cpumap(&st, &old_cm);
	err = instance_apply(&in, &lo->steer, &old_cpus, &old_cm, table, &lo->cm, &moved);
	if (err)
		goto out;
	state_set_cpus(&st, &lo->steer.cpus);
	st.qsize = lo->cm.qsize;
	st.remote = lo->cm.remote;
	st.redirect_ifindex = lo->cm.redirect_ifindex;
	err = instance_write_state(&in, &st);
	if (!err)
		printf("cpusteer: updated %s: %u of %u buckets moved\n", lo->ifname, moved,
		       lo->steer.cfg.nbuckets);
out:
	free(table);
	instance_close(&in);
	return err;
}

int cmd_set(int argc, char **argv)
{
	struct load_opts lo;
	int err = load_opts_parse(&lo, "set", argc, argv);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (require_root("set"))
		return 1;
	return set(&lo) ? 1 : 0;
}
