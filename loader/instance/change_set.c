// SPDX-License-Identifier: GPL-2.0
/* The change protocol (change.h) for a running instance: set's move to a
 * new configuration and balance's new bucket table. The record says what
 * the maps move to before they move; a kill in between leaves the record
 * in phase SETTING (or BALANCING), for the next set to finish.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "change.h"
#include "instance_health.h"
#include "log.h"

static struct instance_target target_of(const struct instance_config *c)
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

int change_read_current(struct steer_instance *in, const struct cpusteer_instance_state *st,
			struct instance_config *recorded, struct instance_config *live)
{
	state_get_cpus(st, &recorded->cpus);
	state_get_cpumap(st, &recorded->cm);
	recorded->cfg = st->cfg;
	recorded->table = NULL;
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

/* Records in st, before anything changes, the configuration this set
 * moves to, the device settings it applies (merged into those cpusteer
 * applied before) and the device's values before any of them changes.
 * Returns in *want the device settings to apply: those given, and, when
 * this set finishes one that was interrupted, every recorded one, which
 * includes what the interrupted set was asked for.
 */
static void record_next(const char *ifname, struct cpusteer_instance_state *st,
			const struct instance_config *next, const struct device_settings *given,
			struct device_settings *saved, struct device_settings *want)
{
	struct device_settings applied;
	bool finishing = state_set_unfinished(st->phase);

	state_get_saved(st, saved);
	state_get_applied(st, &applied);
	device_settings_merge(&applied, given);
	*want = finishing ? applied : *given;
	if (want->mask)
		device_save(ifname, want->mask, saved);
	state_set_config(st, &next->cpus, &next->cfg, &next->cm);
	state_set_saved(st, saved);
	state_set_applied(st, &applied);
	state_enter(st, CPUSTEER_PHASE_SETTING);
}

/* The kthreads of `c`'s cpumap entries scheduled as `c` says: all or
 * nothing (cpumap_threads.h), the threads changed into `undo`.
 */
static int schedule_threads(struct steer_instance *in, const struct instance_config *c,
			    struct cpumap_threads_undo *undo)
{
	return cpumap_threads_schedule(instance_cpumap_id(in), &c->cpus, c->cfg.non_ip_cpu,
				       &c->cm.kthread, undo);
}

/* Puts the maps back as the packets saw them (`live`, from `next`'s second
 * stage) and the record as it was, but for the device values it recorded
 * meanwhile: unload restores those either way. An entry written again on
 * the way back has a new kthread, scheduled again as `live` says. The
 * record keeps its phase and the pid that entered it, so a set killed
 * before this one is still the one to finish. When the way back fails
 * too, no command is left at work and nothing says which configuration
 * the maps are in: the record says so, and the next set finishes the move.
 */
static void roll_back(struct steer_instance *in, const struct instance_config *live,
		      const struct instance_config *next, struct cpusteer_instance_state *before,
		      const struct cpusteer_instance_state *st)
{
	struct instance_target back = target_of(live);

	back.from = &next->cm;
	back.going_back = true;
	before->saved = st->saved;
	if (instance_converge(in, &back) || schedule_threads(in, live, NULL))
		state_enter(before, CPUSTEER_PHASE_SET_FAILED);
	instance_write_state(in, before);
}

/* The steps every change of a running instance takes once `st` records
 * where the maps go: the record written, the maps brought from `from`
 * (NULL: not known) to `next`, the entries' kthreads scheduled as `next`
 * says (`threads`, where the changed ones are kept; NULL: the entries
 * stay as they are, and so do their threads), then `want` applied over
 * `saved` on the device (`want` NULL: nothing there). A failure puts
 * back what moved (roll_back); committing is the caller's, with what it
 * records.
 */
static int move(struct steer_instance *in, const char *ifname, struct cpusteer_instance_state *st,
		struct cpusteer_instance_state *before, const struct instance_config *live,
		const struct instance_config *next, const struct cpumap_opts *from,
		struct cpumap_threads_undo *threads, const struct device_settings *want,
		struct device_settings *saved)
{
	struct instance_target to = target_of(next);
	int err = instance_write_state(in, st);

	if (err)
		return err;
	to.from = from;
	err = instance_converge(in, &to);
	/* Each undoes its own changes when it fails. */
	if (!err && threads)
		err = schedule_threads(in, next, threads);
	if (!err && want && want->mask) {
		err = device_apply(ifname, want, saved);
		if (err && threads)
			cpumap_threads_restore(threads);
	}
	if (err)
		roll_back(in, live, next, before, st);
	return err;
}

/* Whether the move from `live` to `next` has kthreads to schedule: the
 * setting changes, or an entry is written anew (a CPU added, a new queue
 * size or second stage) and its new thread must get the setting. After a
 * killed set, whatever the maps hold is not known.
 */
static bool threads_to_schedule(const struct instance_config *live,
				const struct instance_config *next, bool finishing)
{
	const struct cpumap_opts *a = &live->cm, *b = &next->cm;
	__u32 i, non_ip = next->cfg.non_ip_cpu;

	if (b->kthread.policy == CPUSTEER_KTHREAD_UNSET)
		return false;
	if (finishing || a->kthread.policy != b->kthread.policy ||
	    a->kthread.priority != b->kthread.priority || a->qsize != b->qsize ||
	    a->remote != b->remote || a->redirect_ifindex != b->redirect_ifindex)
		return true;
	for (i = 0; i < next->cpus.n; i++)
		if (!cpuset_contains(&live->cpus, next->cpus.cpu[i]) &&
		    next->cpus.cpu[i] != live->cfg.non_ip_cpu)
			return true;
	return non_ip != CPUSTEER_NON_IP_PASS && non_ip != live->cfg.non_ip_cpu &&
	       !cpuset_contains(&live->cpus, non_ip);
}

int change_set(struct steer_instance *in, const char *ifname, struct cpusteer_instance_state *st,
	       const struct instance_config *live, const struct instance_config *next,
	       const struct device_settings *given)
{
	static struct cpumap_threads_undo threads;
	struct cpusteer_instance_state before = *st;
	struct device_settings saved, want;
	int err;

	/* Refused before anything moves: threads made by the move and then
	 * refused could not be put back as they were.
	 */
	if (threads_to_schedule(live, next, state_set_unfinished(st->phase))) {
		err = cpumap_threads_check(instance_cpumap_id(in), &next->cm.kthread);
		if (err)
			return err;
	}
	record_next(ifname, st, next, given, &saved, &want);
	/* After a killed set the maps' second stage is not known. */
	err = move(in, ifname, st, &before, live, next,
		   state_set_unfinished(before.phase) ? NULL : &live->cm, &threads, &want, &saved);
	if (err)
		return err;
	state_set_saved(st, &saved);
	state_enter(st, CPUSTEER_PHASE_READY);
	return instance_write_state(in, st);
}

int change_check_running(const struct instance_dir *d, const struct cpusteer_instance_state *st,
			 const char *verb)
{
	char why[400];

	if (st->phase == CPUSTEER_PHASE_READY || st->phase == CPUSTEER_PHASE_BALANCING)
		return 0;
	health_describe_phase(st, d->shown, why, sizeof(why));
	log_err("cannot %s of %s: %s", verb, d->shown, why);
	return -EBUSY;
}

/* The record and the maps of a running instance that a command changes
 * as it stands: refused with one line when an interrupted command left
 * it between configurations (a balance step killed before this one left
 * a whole table).
 */
static int read_running(const struct instance_dir *d, struct steer_instance *in,
			const char *verb, struct cpusteer_instance_state *st,
			struct instance_config *recorded, struct instance_config *live)
{
	int err = instance_read_state(in, st);

	if (!err)
		err = change_check_running(d, st, verb);
	return err ? err : change_read_current(in, st, recorded, live);
}

/* Moves the maps from `live` to `next`, recorded in phase `phase`, and
 * commits.
 */
static int move_running(struct steer_instance *in, struct cpusteer_instance_state *st,
			const struct instance_config *live, const struct instance_config *next,
			enum cpusteer_phase phase)
{
	struct cpusteer_instance_state before = *st;
	int err;

	state_enter(st, phase);
	err = move(in, NULL, st, &before, live, next, &live->cm, NULL, NULL, NULL);
	if (err)
		return err;
	state_enter(st, CPUSTEER_PHASE_READY);
	return instance_write_state(in, st);
}

int change_table(const struct instance_dir *d, struct steer_instance *in, const __u32 *table,
		 __u32 nbuckets)
{
	struct cpusteer_instance_state st;
	struct instance_config recorded = { 0 }, live = { 0 }, next;
	int err;

	err = read_running(d, in, "move buckets", &st, &recorded, &live);
	if (!err && live.cfg.nbuckets != nbuckets)
		err = -ESTALE;	/* the caller read another table: not ours to write */
	if (!err) {
		next = recorded;
		next.table = (__u32 *)table;
		err = move_running(in, &st, &live, &next, CPUSTEER_PHASE_BALANCING);
	}
	free(live.table);
	return err;
}

int change_rules_config(const struct instance_dir *d, struct steer_instance *in, __u16 rules)
{
	struct cpusteer_instance_state st;
	struct instance_config recorded = { 0 }, live = { 0 }, next;
	int err;

	err = read_running(d, in, "change the rules", &st, &recorded, &live);
	if (!err && rules != live.cfg.rules) {
		next = recorded;
		next.cfg.rules = rules;
		next.table = live.table;
		/* The record holds the configuration, unlike the table: a
		 * later set starts from it.
		 */
		state_set_config(&st, &next.cpus, &next.cfg, &next.cm);
		err = move_running(in, &st, &live, &next, CPUSTEER_PHASE_SETTING);
	}
	free(live.table);
	return err;
}
