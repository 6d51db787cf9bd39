// SPDX-License-Identifier: GPL-2.0
/* cpusteer set: changes a running instance in place, all or nothing.
 * Only the options given change. Holding the instance's lock with signals
 * deferred, it records the configuration it is moving to (and the
 * device's values before any new change) first, then brings the maps
 * there, then the device; when a step fails, the maps and the device go
 * back to where they were. A kill in between leaves the record in phase
 * SETTING: the next set (with no options, or any) finishes the move, and
 * unload still restores every recorded setting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "elsewhere.h"
#include "indirection.h"
#include "load_opts.h"
#include "lock.h"
#include "log.h"
#include "instance_health.h"
#include "instance_state.h"
#include "set.h"

/* A configuration of the maps: the recorded one a set starts from, the
 * one the packets see now, or the one it moves to.
 */
struct change {
	struct cpuset cpus;
	struct cpusteer_config cfg;
	struct cpumap_opts cm;
	__u32 *table;		/* cfg.nbuckets entries */
};

/* Starts from the recorded configuration and lays the given options over
 * it, then checks the result as load would, except that CPUs the instance
 * already uses may have gone offline since: `set --cpus` with the others
 * must still work.
 */
static int merge(struct load_opts *lo, const struct change *cur)
{
	struct load_opts running = { 0 };
	struct steer_opts *o = &lo->steer;

	running.steer.cpus = cur->cpus;
	running.steer.cfg = cur->cfg;
	running.cm = cur->cm;
	load_opts_keep_unset(lo, &running);
	if (steer_given(o, STEER_WEIGHTS) && steer_opts_weigh(o, &o->cpus))
		return -EINVAL;
	o->cfg.bucket_stats = cur->cfg.bucket_stats;
	o->cfg.symmetric = cli_switch_on(o->symmetric, cur->cfg.symmetric);
	if (steer_given(o, STEER_HASH) && o->cfg.hash_fn != cur->cfg.hash_fn &&
	    (o->cfg.hash_fn == CPUSTEER_HASH_NIC || cur->cfg.hash_fn == CPUSTEER_HASH_NIC)) {
		steer_opts_blame(o, "hash", NULL);
		log_err("cannot change --hash to or from nic with set: the program that reads the NIC's hash is bound to the device when it loads; unload and load again");
		log_set_where(NULL);
		return -EINVAL;
	}
	return steer_opts_validate(o, &cur->cpus);
}

static struct instance_target target_of(const struct change *c)
{
	return (struct instance_target){ .cpus = &c->cpus, .cfg = &c->cfg, .cm = &c->cm,
					 .table = c->table };
}

/* Every CPU a bucket of `table` names joins `cpus`: going back to that
 * table needs their cpumap entries, whatever the record says (after a
 * killed set it names the CPUs that set was moving to).
 */
static void add_table_owners(struct cpuset *cpus, const __u32 *table, __u32 nbuckets)
{
	static unsigned char seen[(CPU_NUMBER_MAX + 1) / 8];
	__u32 b, cpu;

	memset(seen, 0, sizeof(seen));
	for (b = 0; b < nbuckets && cpus->n < CPUSTEER_MAX_CPUS; b++) {
		cpu = table[b];
		if (cpu > CPU_NUMBER_MAX || (seen[cpu / 8] & (1u << cpu % 8)))
			continue;
		seen[cpu / 8] |= 1u << cpu % 8;
		if (!cpuset_contains(cpus, cpu)) {
			cpus->cpu[cpus->n] = cpu;
			cpus->weight[cpus->n++] = 0;
		}
	}
}

/* What the record says the instance is in (or moving to, after a killed
 * set), with the configuration and table the packets see now: a killed
 * set may have left the live bucket count behind the recorded one, and
 * the live table is where the new one starts from (and where a failed
 * set goes back to).
 */
static int read_current(struct steer_instance *in, const struct cpusteer_instance_state *st,
			struct change *recorded, struct change *live)
{
	state_get_cpus(st, &recorded->cpus);
	state_get_cpumap(st, &recorded->cm);
	recorded->cfg = st->cfg;
	*live = *recorded;
	if (instance_read_config(in, &live->cfg) || !live->cfg.nbuckets ||
	    live->cfg.nbuckets > CPUSTEER_MAX_BUCKETS) {
		log_err("cannot read the live configuration of %s", st->ifname);
		return -EIO;
	}
	live->table = malloc(live->cfg.nbuckets * sizeof(*live->table));
	if (!live->table)
		return -ENOMEM;
	instance_read_table(in, live->table, live->cfg.nbuckets);
	add_table_owners(&live->cpus, live->table, live->cfg.nbuckets);
	return 0;
}

static bool rehashes(const struct cpusteer_config *a, const struct cpusteer_config *b)
{
	return memcmp(a->key, b->key, sizeof(a->key)) || a->hash_fn != b->hash_fn ||
	       a->symmetric != b->symmetric;
}

static bool same_shares(const struct cpuset *a, const struct cpuset *b)
{
	return a->n == b->n && !memcmp(a->cpu, b->cpu, a->n * sizeof(a->cpu[0])) &&
	       !memcmp(a->weight, b->weight, a->n * sizeof(a->weight[0]));
}

/* The new table: the old one resized so that flows keep their CPU where
 * the new size allows, then the fewest buckets moved to meet the shares.
 * A set that changes neither the CPUs, their weights, the size nor the
 * hash keeps the table as it is: buckets moved by load (cpusteer
 * balance) stay where they were put. Finishing an interrupted set always
 * rebalances, since the table it left may name CPUs of either
 * configuration.
 */
static int new_table(const struct change *recorded, const struct change *live,
		     struct change *next, bool finishing)
{
	__u32 n = next->cfg.nbuckets;

	next->table = malloc(n * sizeof(*next->table));
	if (!next->table)
		return -ENOMEM;
	if (!finishing && n == live->cfg.nbuckets && !rehashes(&live->cfg, &next->cfg) &&
	    same_shares(&recorded->cpus, &next->cpus)) {
		memcpy(next->table, live->table, n * sizeof(*next->table));
		return 0;
	}
	indirection_resize(live->table, live->cfg.nbuckets, next->table, n);
	indirection_rebalance(next->table, n, &next->cpus);
	return 0;
}

static void print_moved(const struct instance_dir *d, const struct change *live,
			const struct change *next)
{
	__u32 b, changed = 0, live_n = live->cfg.nbuckets;
	double moved;

	if (rehashes(&live->cfg, &next->cfg)) {
		moved = indirection_rehash_moved_fraction(live->table, live_n, next->table,
							  next->cfg.nbuckets);
		if (moved < 0)
			printf("cpusteer: updated %s: new hash, every flow rehashed\n", d->shown);
		else
			printf("cpusteer: updated %s: new hash, every flow rehashed: about %.1f%% of flows move to another CPU\n",
			       d->shown, 100 * moved);
		return;
	}
	moved = indirection_moved_fraction(live->table, live_n, next->table, next->cfg.nbuckets);
	if (live_n != next->cfg.nbuckets) {
		printf("cpusteer: updated %s: %.1f%% of flows move to another CPU (%u buckets, from %u)\n",
		       d->shown, 100 * moved, next->cfg.nbuckets, live_n);
		return;
	}
	for (b = 0; b < live_n; b++)
		changed += live->table[b] != next->table[b];
	printf("cpusteer: updated %s: %.1f%% of flows move to another CPU (%u of %u buckets changed owner)\n",
	       d->shown, 100 * moved, changed, live_n);
}

static void warn_offline(const struct instance_dir *d, const struct cpuset *cpus)
{
	struct cpuset off;
	char list[256];

	if (cpuset_offline(cpus, NULL, &off) || !off.n)
		return;
	cpuset_format(&off, list, sizeof(list));
	log_err("note: CPU %s of %s is offline: its cpumap kthread runs unbound on other CPUs; drop it with cpusteer set %s --cpus",
		list, d->shown, d->shown);
}

/* Records in st, before anything changes, the configuration this set
 * moves to, the device settings it applies (merged into those cpusteer
 * applied before) and the device's values before any of them changes.
 * Returns in *want the device settings to apply: those given, and, when
 * this set finishes one that was interrupted, every recorded one, which
 * includes what the interrupted set was asked for.
 */
static void record_next(struct load_opts *lo, struct cpusteer_instance_state *st,
			const struct change *next, struct device_settings *saved,
			struct device_settings *want)
{
	struct device_settings applied;
	bool finishing = state_set_unfinished(st->phase);

	state_get_saved(st, saved);
	state_get_applied(st, &applied);
	device_settings_merge(&applied, &lo->dev);
	*want = finishing ? applied : lo->dev;
	if (want->mask)
		device_save(lo->ifname, want->mask, saved);
	state_set_config(st, &next->cpus, &next->cfg, &next->cm);
	state_set_saved(st, saved);
	state_set_applied(st, &applied);
	state_enter(st, CPUSTEER_PHASE_SETTING);
}

/* The bucket counters were sized by the load: a table that outgrew them
 * would leave the buckets past them uncounted, and balance blind there.
 */
static int check_counted(struct load_opts *lo, const struct instance_dir *d,
			 const struct steer_instance *in)
{
	const struct cpusteer_config *cfg = &lo->steer.cfg;

	if (!cfg->bucket_stats || cfg->nbuckets <= in->bucket_load_entries)
		return 0;
	load_opts_blame(lo, "buckets", NULL);
	log_err("cannot set --buckets %u on %s: its bucket counters (--bucket-stats) hold %u buckets; unload and load again to count more",
		cfg->nbuckets, d->shown, in->bucket_load_entries);
	log_set_where(NULL);
	return -EINVAL;
}

static int check_phase(const struct instance_dir *d, const struct cpusteer_instance_state *st)
{
	if (st->phase == CPUSTEER_PHASE_LOADING || st->phase == CPUSTEER_PHASE_UNLOADING) {
		log_err("cpusteer on %s was left unfinished by an interrupted %s (pid %u); run cpusteer unload %s",
			d->shown, state_phase_command(st->phase), st->phase_pid, d->shown);
		return -EBUSY;
	}
	if (!state_device_here(st)) {
		log_err("cannot change cpusteer on %s: the interface it was loaded on is gone from this network namespace (deleted, replaced, renamed or moved); cpusteer unload %s cleans up",
			d->shown, d->shown);
		return -ENODEV;
	}
	return 0;
}

/* Whether a flag given either way (`given`) says other than the instance
 * has (`has`).
 */
static bool switch_differs(enum cli_switch given, bool has)
{
	return given != CLI_UNSET && (given == CLI_ON) != has;
}

/* What only load sets, which a --config file written for load may also
 * give to set (a reload): it must be what the instance already has,
 * whichever form of a flag says it.
 */
static int check_load_only(struct load_opts *lo, const struct instance_dir *d,
			   const struct cpusteer_instance_state *st)
{
	const char *what = NULL, *other = NULL;

	if ((lo->load_only_given & CLI_BIT(LOAD_ONLY_XDP_MODE)) &&
	    (__u32)lo->xdp_mode != st->xdp_mode) {
		what = "xdp-mode";
	} else if (switch_differs(lo->notouch_given, st->notouch)) {
		what = "no-touch";
		other = "touch";
	} else if (switch_differs(lo->bucket_stats_given, st->cfg.bucket_stats)) {
		what = "bucket-stats";
		other = "no-bucket-stats";
	}
	if (!what)
		return 0;
	load_opts_blame(lo, what, other);
	log_err("cannot change %s of %s with set: it is fixed when cpusteer loads; unload and load again (systemctl restart)",
		what, d->shown);
	log_set_where(NULL);
	return -EINVAL;
}

/* Puts the maps back as the packets saw them (`live`, from `next`'s second
 * stage) and the record as it was, but for the device values it recorded
 * meanwhile: unload restores those either way. The record keeps its phase
 * and the pid that entered it, so a set killed before this one is still
 * the one to finish. When the way back fails too, no command is left at
 * work and nothing says which configuration the maps are in: the record
 * says so, and the next set finishes the move.
 */
static void roll_back(struct steer_instance *in, const struct change *live,
		      const struct change *next, struct cpusteer_instance_state *before,
		      const struct cpusteer_instance_state *st)
{
	struct instance_target back = target_of(live);

	back.from = &next->cm;
	back.going_back = true;
	before->saved = st->saved;
	if (instance_converge(in, &back))
		state_enter(before, CPUSTEER_PHASE_SET_FAILED);
	instance_write_state(in, before);
}

/* A second stage that redirects to a device that is gone drops what it
 * gets: said once a set, since set leaves that target as it is.
 */
static void warn_target_gone(const struct instance_dir *d, struct steer_instance *in,
			     const struct cpumap_opts *cm)
{
	if (!instance_redirect_target_gone(in, cm))
		return;
	log_err("note: the --remote redirect target of %s (ifindex %u) is gone: frames steered there are dropped; cpusteer set %s --remote ... names another",
		d->shown, cm->redirect_ifindex, d->shown);
}

static int set_locked(struct load_opts *lo, struct instance_dir *d, struct steer_instance *in)
{
	struct cpusteer_instance_state st, before;
	struct change recorded = { 0 }, live = { 0 }, next = { 0 };
	struct device_settings saved, want;
	struct instance_target to;
	int err;

	err = instance_read_state_to(in, &st, "set", d->shown);
	if (err)
		return err;
	err = check_phase(d, &st);
	if (!err)
		err = check_load_only(lo, d, &st);
	if (!err)
		err = read_current(in, &st, &recorded, &live);
	if (!err)
		err = merge(lo, &recorded);
	if (!err)
		err = check_counted(lo, d, in);
	if (err)
		goto out;
	next.cpus = lo->steer.cpus;
	next.cfg = lo->steer.cfg;
	next.cm = lo->cm;
	err = new_table(&recorded, &live, &next, state_set_unfinished(st.phase));
	if (err)
		goto out;

	before = st;
	record_next(lo, &st, &next, &saved, &want);
	err = instance_write_state(in, &st);
	if (err)
		goto out;
	to = target_of(&next);
	/* After a killed set the maps' second stage is not known. */
	to.from = state_set_unfinished(before.phase) ? NULL : &live.cm;
	err = instance_converge(in, &to);
	/* Undoes its own changes when it fails. */
	if (!err && want.mask)
		err = device_apply(lo->ifname, &want, &saved);
	if (err) {
		roll_back(in, &live, &next, &before, &st);
		goto out;
	}
	state_set_saved(&st, &saved);
	state_enter(&st, CPUSTEER_PHASE_READY);
	err = instance_write_state(in, &st);
	if (!err) {
		print_moved(d, &live, &next);
		warn_offline(d, &next.cpus);
		warn_target_gone(d, in, &next.cm);
	}
out:
	free(live.table);
	free(next.table);
	return err;
}

int set_table_locked(const struct instance_dir *d, struct steer_instance *in,
		     const __u32 *table, __u32 nbuckets)
{
	struct cpusteer_instance_state st, before;
	struct change recorded = { 0 }, live = { 0 }, next;
	struct instance_target to;
	char why[400];
	int err;

	err = instance_read_state(in, &st);
	/* A balance step killed before this one left a whole table. */
	if (!err && st.phase != CPUSTEER_PHASE_READY && st.phase != CPUSTEER_PHASE_BALANCING) {
		health_describe_phase(&st, d->shown, why, sizeof(why));
		log_err("cannot move buckets of %s: %s", d->shown, why);
		return -EBUSY;
	}
	if (!err)
		err = read_current(in, &st, &recorded, &live);
	if (!err && live.cfg.nbuckets != nbuckets)
		err = -ESTALE;	/* the caller read another table: not ours to write */
	if (err)
		goto out;
	next = recorded;
	next.table = (__u32 *)table;
	before = st;
	state_enter(&st, CPUSTEER_PHASE_BALANCING);
	err = instance_write_state(in, &st);
	if (err)
		goto out;
	to = target_of(&next);
	to.from = &live.cm;
	err = instance_converge(in, &to);
	if (err) {
		roll_back(in, &live, &next, &before, &st);
		goto out;
	}
	state_enter(&st, CPUSTEER_PHASE_READY);
	err = instance_write_state(in, &st);
out:
	free(live.table);
	return err;
}

static int set(struct load_opts *lo)
{
	struct steer_instance in;
	struct instance_dir d;
	int err;

	err = instance_dir_init(&d, lo->ifname);
	if (!err)
		err = bpffs_check();
	if (err)
		return err;
	signals_defer();
	err = instance_dir_open(&d, DIR_LOCK_EX);
	if (err == -ENOENT || (!err && instance_dir_is_empty(&d))) {
		elsewhere_not_here(&d, "set");
		err = -ENOENT;
	}
	if (!err)
		err = instance_open_pinned(&in, d.fd, d.shown);
	if (!err) {
		err = set_locked(lo, &d, &in);
		instance_close(&in);
	}
	instance_dir_close(&d);
	signals_report_held("set", err);
	return err;
}

int cmd_set(int argc, char **argv)
{
	struct load_opts lo;
	int err = load_opts_parse(&lo, &set_command, argc, argv);

	if (err)
		return cli_exit_status(err);
	if (require_root("set"))
		return EXIT_FAILURE;
	return exit_code(set(&lo));
}
