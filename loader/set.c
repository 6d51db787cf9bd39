// SPDX-License-Identifier: GPL-2.0
/* cpusteer set: changes a running instance in place, all or nothing.
 * Only the options given change. Holding the instance's lock with signals
 * deferred, it lays the options given over the recorded configuration,
 * checks the result, plans the new bucket table, and hands the move to
 * the change protocol (change.h): when a step fails, the maps and the
 * device go back to where they were. A kill in between leaves the record
 * in phase SETTING: the next set (with no options, or any) finishes the
 * move, and unload still restores every recorded setting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "change.h"
#include "commands.h"
#include "elsewhere.h"
#include "indirection.h"
#include "load_opts.h"
#include "lock.h"
#include "rule_change.h"
#include "log.h"

/* Starts from the recorded configuration and lays the given options over
 * it, then checks the result as load would, except that CPUs the instance
 * already uses may have gone offline since: `set --cpus` with the others
 * must still work.
 */
static int merge(struct load_opts *lo, const struct instance_config *cur)
{
	struct load_opts running = { 0 };
	struct steer_opts *o = &lo->steer;

	running.steer.cpus = cur->cpus;
	running.steer.cfg = cur->cfg;
	running.cm = cur->cm;
	cli_keep_unset(&set_command, lo, &running);
	if (steer_given(o, STEER_WEIGHTS) && steer_opts_weigh(o, &o->cpus))
		return -EINVAL;
	o->cfg.bucket_stats = cur->cfg.bucket_stats;
	o->cfg.rules = cur->cfg.rules;	/* the rules' own to change */
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
static int new_table(const struct instance_config *recorded, const struct instance_config *live,
		     struct instance_config *next, bool finishing)
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

static void print_moved(const struct instance_dir *d, const struct instance_config *live,
			const struct instance_config *next)
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

/* Every CPU a rule names stays one of the instance's, at every step: the
 * rules the record puts in force (after a killed rule change, the ones
 * it was making) until the set is done, and then a --config file's
 * `rules`, which replace them after it.
 */
static int check_rule_cpus(struct load_opts *lo, const struct instance_dir *d,
			   struct steer_instance *in, const struct cpusteer_instance_state *st,
			   const struct cpuset *cpus)
{
	const char *unread = rules_unread_by(st->notouch, st->cfg.hash_fn);
	char shown[RULE_LINE_MAX], prefix[RULE_LINE_MAX];
	struct prefix_rules in_force = { 0 };
	const struct prefix_rule *r;
	__u32 cpu;
	int err;

	if (lo->rules_path && unread) {
		load_opts_blame(lo, "rules", NULL);
		log_err("cannot set %s: rules cannot go with %s", d->shown, unread);
		log_set_where(NULL);
		return -EINVAL;
	}
	err = rule_change_read_of(in, st->cfg.rules, &in_force);
	r = err ? NULL : rules_outside(&in_force, cpus, &cpu);
	if (r) {
		rule_format(r, true, shown, sizeof(shown));
		rule_format(r, false, prefix, sizeof(prefix));
		load_opts_blame(lo, "cpus", NULL);
		log_err("cannot set %s: CPU %u is named by rule %s; change the rule first (cpusteer rule %s --add, --del '%s' or --replace)",
			d->shown, cpu, shown, d->shown, prefix);
		log_set_where(NULL);
		err = -EINVAL;
	}
	r = err || !lo->rules_path ? NULL : rules_outside(&lo->rules, cpus, &cpu);
	if (r) {
		rule_format(r, true, shown, sizeof(shown));
		load_opts_blame(lo, "rules", NULL);
		log_err("cannot set %s: rule %s names CPU %u, which --cpus leaves out",
			d->shown, shown, cpu);
		log_set_where(NULL);
		err = -EINVAL;
	}
	rules_free(&in_force);
	return err;
}

/* A --config file's rules replace the instance's once the rest is set. */
static int replace_rules(struct load_opts *lo, const struct instance_dir *d,
			 struct steer_instance *in)
{
	int err;

	if (!lo->rules_path)
		return 0;
	err = rule_change_replace(d, in, &lo->rules);
	if (!err)
		printf("cpusteer: updated %s: %zu rule%s in force\n", d->shown, lo->rules.n,
		       lo->rules.n == 1 ? "" : "s");
	return err;
}

static int set_locked(struct load_opts *lo, struct instance_dir *d, struct steer_instance *in)
{
	struct cpusteer_instance_state st;
	struct instance_config recorded = { 0 }, live = { 0 }, next = { 0 };
	int err;

	err = instance_read_state_to(in, &st, "set", d->shown);
	if (err)
		return err;
	err = check_phase(d, &st);
	if (!err)
		err = check_load_only(lo, d, &st);
	if (!err)
		err = change_read_current(in, &st, &recorded, &live);
	if (!err)
		err = merge(lo, &recorded);
	if (!err)
		err = check_counted(lo, d, in);
	if (!err)
		err = check_rule_cpus(lo, d, in, &st, &lo->steer.cpus);
	if (err)
		goto out;
	next.cpus = lo->steer.cpus;
	next.cfg = lo->steer.cfg;
	next.cm = lo->cm;
	err = new_table(&recorded, &live, &next, state_set_unfinished(st.phase));
	if (!err)
		err = change_set(in, lo->ifname, &st, &live, &next, &lo->dev);
	if (!err) {
		print_moved(d, &live, &next);
		warn_offline(d, &next.cpus);
		warn_target_gone(d, in, &next.cm);
		err = replace_rules(lo, d, in);
	}
out:
	free(live.table);
	free(next.table);
	return err;
}

static int set(struct load_opts *lo)
{
	struct steer_instance in;
	struct instance_dir d;
	int err;

	err = elsewhere_open_here(&d, lo->ifname, DIR_LOCK_EX, "set");
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

const struct cli_command set_command = {
	.name = "set",
	.summary = "change CPUs, weights, queues, key on a running instance",
	.operands = "IFACE",
	.about = "Changes a running instance without detaching it; only the\n"
		 "buckets that must move are moved. Options not given keep\n"
		 "their current value; with none, finishes an interrupted set.\n",
	.groups = {
		STEER_GROUP(struct load_opts, steer),
		CHANGE_GROUP,
		CONFIG_GROUP,
	},
	.start = &load_start,
	.keeps_current = true,
	.run = cmd_set,
};

int cmd_set(int argc, char **argv)
{
	struct load_opts lo;
	int err = load_opts_parse(&lo, &set_command, argc, argv);

	if (err)
		return cli_exit_status(err);
	if (require_root("set"))
		return EXIT_FAILURE;
	err = set(&lo);
	rules_free(&lo.rules);
	return exit_code(err);
}
